"""``bench --plot OUT.png``: where every backend and peer stands, word F1 against docs/s on one core.

Speed is this bench run's, or a saved one's (``--results BENCH.json``), on a log scale; quality
is word F1 on the test part, read from an ``eval --json`` file (``--eval``) or computed here on
the test part of the ``--data`` corpus.
The parse floors are drawn as vertical lines: no system can be faster than its parse.
matplotlib comes with the ``eval`` extra; serving never imports it.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PEER_PREFIX = "peer:"
QUALITY_PART = "test"


@dataclass(frozen=True)
class Point:
    name: str
    docs_per_s: float
    word_f1: float
    peer: bool


def points(rows: Sequence[dict[str, Any]], word_f1: dict[str, float]) -> list[Point]:
    """One point per timed backend or peer that has a word F1 (bench names peers ``peer:NAME``, eval ``NAME``)."""
    out = []
    for row in rows:
        system = str(row["system"])
        name = system.removeprefix(PEER_PREFIX)
        if name in word_f1:
            out.append(Point(name, float(row["docs_per_s"]), word_f1[name], system.startswith(PEER_PREFIX)))
    return out


def read_word_f1(path: Path) -> tuple[dict[str, float], str]:
    """Word F1 per system from ``eval --json`` output, and the part it was measured on."""
    record = json.loads(path.read_text(encoding="utf-8"))
    scores = {name: float(result["summary"]["word_f1"]) for name, result in record["systems"].items()}
    return scores, str(record.get("part", "?"))


def compute_word_f1(names: Sequence[str], data_dir: Path) -> dict[str, float]:
    """Word F1 on the test part of the corpus, for the bench's backends and peers."""
    from service.evaluation.datasets import load_corpus  # noqa: PLC0415 - the evaluation stack only when asked
    from service.evaluation.evaluate import backend_system, evaluate, peer_system  # noqa: PLC0415
    from service.evaluation.split import Split, committed_split_path, select  # noqa: PLC0415
    from service.pipeline import default_extractor  # noqa: PLC0415

    corpus = load_corpus(data_dir)
    split_path = committed_split_path(corpus.name)
    pages = select(corpus, QUALITY_PART, Split.read(split_path) if split_path.is_file() else None)
    extractor = default_extractor()
    systems = [
        peer_system(n.removeprefix(PEER_PREFIX), comments=corpus.comments_are_content)
        if n.startswith(PEER_PREFIX)
        else backend_system(extractor, n)
        for n in names
    ]
    results = evaluate(pages, systems, blocks=False)
    return {name: result.summary.word.f1 for name, result in results.items()}


# How far a label reaches to the right of its point, as a factor of speed per character: at the picture's
# size and font a character is about 6 px and a decade of speed about 320 px.
LABEL_SPAN_PER_CHARACTER = 10**0.02


def _near(point: Point, other: Point) -> bool:
    """Within 25% of each other's speed."""
    return other is not point and max(other.docs_per_s, point.docs_per_s) < 1.25 * min(
        other.docs_per_s, point.docs_per_s
    )


def _level_right(point: Point, other: Point, span: float) -> bool:
    """``other`` sits right of ``point`` at about its height, less than ``span`` times its speed away."""
    return point.docs_per_s < other.docs_per_s < span * point.docs_per_s and abs(other.word_f1 - point.word_f1) < 0.005


def label_offset(point: Point, found: Sequence[Point]) -> tuple[int, int]:
    """Where a point's label goes (points): below where a near point sits higher, left where one sits just right.

    A label written rightwards reaches :data:`LABEL_SPAN_PER_CHARACTER` to the power of its length in
    speed: where a point sits level within that reach, the label goes below the row instead of through it.
    """
    left = any(_level_right(point, other, 1.25) for other in found)
    below = any(_near(point, other) and other.word_f1 > point.word_f1 for other in found) or (
        not left and any(_level_right(point, other, LABEL_SPAN_PER_CHARACTER ** len(point.name)) for other in found)
    )
    return (-5 if left else 5, -11 if below else 4)


def draw(found: Sequence[Point], floors: dict[str, float], out: Path, *, title: str, subtitle: str, part: str) -> None:
    """The picture: backends and peers as labelled points, the parse floors as vertical lines."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")  # files only, no display
    from matplotlib import pyplot as plt  # noqa: PLC0415
    from matplotlib.ticker import FuncFormatter  # noqa: PLC0415

    figure, axes = plt.subplots(figsize=(8, 5), dpi=100)
    for kind, peer, marker, color in (("our backends", False, "o", "tab:blue"), ("peers", True, "s", "tab:gray")):
        chosen = [p for p in found if p.peer == peer]
        axes.scatter([p.docs_per_s for p in chosen], [p.word_f1 for p in chosen], marker=marker, c=color, label=kind)
    for p in found:
        xytext = label_offset(p, found)
        axes.annotate(
            p.name,
            (p.docs_per_s, p.word_f1),
            textcoords="offset points",
            xytext=xytext,
            fontsize=8,
            ha="right" if xytext[0] < 0 else "left",
        )
    for (label, speed), style in zip(floors.items(), ("--", ":", "-."), strict=False):
        axes.axvline(speed, color="tab:red", linestyle=style, linewidth=1, label=f"{label} {speed:.0f}/s")
    axes.set_xscale("log")
    speeds = [p.docs_per_s for p in found] + list(floors.values())
    axes.set_xlim(min(speeds) / 1.4, max(speeds) * 1.4)
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axes.xaxis.set_minor_formatter(FuncFormatter(lambda value, _: f"{value:g}" if f"{value:g}"[0] in "25" else ""))
    axes.set_xlabel("docs/s on one core (log scale)")
    axes.set_ylabel(f"word F1 ({part} part)")
    axes.set_title("\n".join([title, *textwrap.wrap(subtitle, 110)]), fontsize=8)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="best")
    figure.tight_layout()
    figure.savefig(out)
    plt.close(figure)


def plot_command(
    rows: Sequence[dict[str, Any]],
    floors: dict[str, str],
    args: argparse.Namespace,
    data_dir: Path,
    run: str,
) -> int:
    """``bench --plot``: the F1 from ``--eval`` or computed, then the picture. ``floors``: system -> label."""
    systems = [str(row["system"]) for row in rows if row["system"] not in floors]
    if args.eval:
        word_f1, part = read_word_f1(args.eval)
    else:
        print("bench: word F1 on the test part ...", file=sys.stderr, flush=True)
        word_f1, part = compute_word_f1(systems, data_dir), QUALITY_PART
    missing = [name for name in systems if name.removeprefix(PEER_PREFIX) not in word_f1]
    if missing:
        print(f"warning: no word F1 for {', '.join(missing)}: left out of the plot", file=sys.stderr)
    speeds = {floors[str(r["system"])]: float(r["docs_per_s"]) for r in rows if r["system"] in floors}
    found = points([row for row in rows if row["system"] not in floors], word_f1)
    draw(found, speeds, args.plot, title="Word F1 against speed, raw pages, one core", subtitle=run, part=part)
    print(f"wrote {args.plot}")
    return 0


def plot_saved(args: argparse.Namespace, floors: dict[str, str], data_dir: Path) -> int:
    """``bench --plot OUT.png --results BENCH.json``: the picture of a run saved with ``--json``."""
    record = json.loads(args.results.read_text(encoding="utf-8"))
    rows = record["results"]
    run = f"{rows[0]['pages']} pages of {record.get('pages', record['data'])}; {record['cpu']}"
    return plot_command(rows, floors, args, data_dir, run)
