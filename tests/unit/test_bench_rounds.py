"""``bench --rounds``: the rotation, each system's median round, and speed-ups read within a round."""

from __future__ import annotations

import pytest

from service.commands.bench_rounds import Round, format_speedups, median_rows, rotated, speedups

NAMES = ["parse", "gbt", "peer:trafilatura"]


def timed(**docs_per_s: float) -> Round:
    """One round: each system's docs/s, and a field to tell the rows apart."""
    return {name: {"system": name, "docs_per_s": rate, "ms_p50": 1000 / rate} for name, rate in docs_per_s.items()}


def round_of(parse: float, gbt: float, trafilatura: float) -> Round:
    return timed(**{"parse": parse, "gbt": gbt, "peer:trafilatura": trafilatura})


def test_each_round_starts_one_system_later_and_every_system_leads_in_turn() -> None:
    orders = [rotated(NAMES, number) for number in range(4)]
    assert orders[0] == NAMES
    assert orders[1] == ["gbt", "peer:trafilatura", "parse"]
    assert orders[2] == ["peer:trafilatura", "parse", "gbt"]
    assert orders[3] == NAMES  # the turn comes round again
    assert rotated([], 3) == []


def test_the_median_round_gives_each_systems_whole_row() -> None:
    rounds = [round_of(900, 150, 30), round_of(800, 170, 35), round_of(850, 160, 28)]
    rows = median_rows(rounds, NAMES)
    assert [row["system"] for row in rows] == NAMES
    gbt = rows[1]
    assert gbt["docs_per_s"] == 160 and gbt["ms_p50"] == pytest.approx(1000 / 160)  # one run's figures together
    assert gbt["docs_per_s_rounds"] == [150, 170, 160]  # in round order
    assert rows[2]["docs_per_s"] == 30


def test_an_even_count_of_rounds_takes_the_lower_middle() -> None:
    rows = median_rows([round_of(1, 4, 1), round_of(1, 2, 1)], NAMES)
    assert rows[1]["docs_per_s"] == 2


def test_a_speed_up_is_read_within_each_round_not_between_medians() -> None:
    # gbt and trafilatura slow down together in the second round: the ratio holds while the medians drift apart
    rounds = [round_of(900, 200, 40), round_of(900, 100, 20), round_of(900, 150, 31)]
    assert speedups(rounds, "gbt", "peer:trafilatura") == pytest.approx([5.0, 5.0, 150 / 31])
    table = format_speedups(rounds, ["gbt"], ["peer:trafilatura"])
    line = next(line for line in table.splitlines() if line.startswith("gbt / trafilatura"))
    assert line.split()[3:6] == ["4.84", "5.00", "5.00"]  # min, median, max
    assert line.endswith("5.00 5.00 4.84")


def test_no_peer_or_no_backend_means_no_speed_up_table() -> None:
    rounds = [round_of(900, 150, 30)]
    assert format_speedups(rounds, ["gbt"], []) == ""
    assert format_speedups(rounds, [], ["peer:trafilatura"]) == ""
