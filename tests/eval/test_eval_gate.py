"""The gate's rules: what fails it, and floors that only move up."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.evaluation.gate import FLOOR_MARGIN, FloorLowered, Floors, Measured, check, raise_floors

DIGEST = "d" * 64
FLOORS = Floors(corpus="wcxb-dev", corpus_digest=DIGEST, floors={"boilerpipe": 0.80})


def f1s(word_f1: dict[str, float]) -> Measured:
    return Measured(word_f1=word_f1, cut_paragraphs=dict.fromkeys(word_f1, 0))


def test_gate_passes_at_or_above_the_floor() -> None:
    assert check(f1s({"boilerpipe": 0.80}), FLOORS, DIGEST) == []
    assert check(f1s({"boilerpipe": 0.93}), FLOORS, DIGEST) == []


def test_gate_fails_below_the_floor_without_a_floor_or_on_another_corpus() -> None:
    (below,) = check(f1s({"boilerpipe": 0.79}), FLOORS, DIGEST)
    assert "below its floor 0.8000" in below
    (unpinned,) = check(f1s({"boilerpipe": 0.9, "svm": 0.9}), FLOORS, DIGEST)
    assert "'svm' has no floor" in unpinned
    (moved,) = check(f1s({"boilerpipe": 0.9}), FLOORS, "e" * 64)
    assert "corpus differs" in moved


def test_floors_move_up_to_the_measurement_less_the_margin() -> None:
    raised = raise_floors(FLOORS, {"boilerpipe": 0.86, "svm": 0.7}, DIGEST, allow_lower=False)
    assert raised.floors == {"boilerpipe": pytest.approx(0.86 - FLOOR_MARGIN), "svm": pytest.approx(0.69)}


def test_a_measurement_within_the_margin_keeps_the_floor() -> None:
    kept = raise_floors(FLOORS, {"boilerpipe": 0.805}, DIGEST, allow_lower=False)
    assert kept.floors == {"boilerpipe": 0.80}


def test_lowering_a_floor_needs_permission() -> None:
    with pytest.raises(FloorLowered, match="--allow-lower"):
        raise_floors(FLOORS, {"boilerpipe": 0.7}, DIGEST, allow_lower=False)
    lowered = raise_floors(FLOORS, {"boilerpipe": 0.7}, DIGEST, allow_lower=True)
    assert lowered.floors["boilerpipe"] == pytest.approx(0.69)


def test_a_new_corpus_needs_permission_and_drops_old_floors() -> None:
    with pytest.raises(FloorLowered, match="corpus changed"):
        raise_floors(FLOORS, {"boilerpipe": 0.9}, "e" * 64, allow_lower=False)
    repinned = raise_floors(FLOORS, {"svm": 0.9}, "e" * 64, allow_lower=True)
    assert repinned.corpus_digest == "e" * 64
    assert repinned.floors == {"svm": pytest.approx(0.89)}


def test_floors_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "floors.json"
    FLOORS.write(path)
    assert Floors.read(path) == FLOORS
