"""``bench --rounds N``: every system timed N times, in turn, and each speed-up read within one round.

On a shared machine a system's docs/s drifts by a tenth or more between runs minutes apart (README,
Speed), and a ratio of two systems timed one after the other drifts with it: `gbt` against
trafilatura on the dev data's article pages read 4.4× to 5.1× in single runs on 2026-11-26. Timed in
rounds, each round every system once, the order rotated from round to round so that none always
runs first or after the same one, a ratio is taken between runs of the same round, and the spread
of the rounds is what a claim about it must survive.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median
from typing import Any

BenchRow = dict[str, Any]  # one system's figures in one run (service.commands.bench.measure)
Round = dict[str, BenchRow]  # every system's row of one round, by system name


def rotated(names: Sequence[str], number: int) -> list[str]:
    """The order the systems run in round ``number`` (from 0): the list turned by one each round."""
    turn = number % len(names) if names else 0
    return [*names[turn:], *names[:turn]]


def median_rows(rounds: Sequence[Round], names: Sequence[str]) -> list[BenchRow]:
    """Each system's row of its median round by docs/s (the lower middle of an even count), in ``names`` order.

    Each row is one real run's (its percentiles and stages belong together) and lists every
    round's docs/s under ``docs_per_s_rounds``, in round order.
    """
    rows = []
    for name in names:
        runs = [timed[name] for timed in rounds]
        ranked = sorted(runs, key=lambda row: float(row["docs_per_s"]))
        middle = ranked[(len(ranked) - 1) // 2]
        rows.append({**middle, "docs_per_s_rounds": [float(row["docs_per_s"]) for row in runs]})
    return rows


def speedups(rounds: Sequence[Round], system: str, peer: str) -> list[float]:
    """``system``'s docs/s over ``peer``'s, one ratio per round, each within its round."""
    return [float(timed[system]["docs_per_s"]) / float(timed[peer]["docs_per_s"]) for timed in rounds]


def format_speedups(rounds: Sequence[Round], systems: Sequence[str], peers: Sequence[str]) -> str:
    """A table of each system's speed-up over each peer: min, median, max over the rounds, and each round's."""
    if not systems or not peers:
        return ""
    header = f"{'speed-up, per round':<34}{'min':>8}{'median':>8}{'max':>8}  rounds"
    lines = [header, "-" * len(header)]
    for peer in peers:
        for system in systems:
            ratios = speedups(rounds, system, peer)
            each = " ".join(f"{r:.2f}" for r in ratios)
            label = f"{system} / {peer.removeprefix('peer:')}"
            lines.append(f"{label:<34}{min(ratios):>8.2f}{median(ratios):>8.2f}{max(ratios):>8.2f}  {each}")
    return "\n".join(lines)
