"""``eval --article-sweep`` and ``--other-sweep``'s choice: the shift nearest 0 within the tolerance of the best."""

from __future__ import annotations

from service.evaluation.favor import PAGE_TYPE_TOLERANCE, SweepRow, chosen_page_type_shifts, format_page_type_sweep
from service.evaluation.metrics import PRF


def rows(backend: str, f1_by_shift: dict[float, float]) -> list[SweepRow]:
    return [SweepRow(backend, shift, PRF(f1, f1, f1)) for shift, f1 in f1_by_shift.items()]


def test_the_shift_nearest_zero_near_the_best_is_chosen_per_backend() -> None:
    swept = rows("a", {0.0: 0.860, 0.1: 0.866, 0.2: 0.8668, 0.3: 0.8663}) + rows("b", {0.0: 0.90, 0.1: 0.89})
    assert PAGE_TYPE_TOLERANCE < 0.0008  # 0.866 is not near enough to 0.8668; 0.8663 is, but is further from 0
    assert chosen_page_type_shifts(swept) == {"a": 0.2, "b": 0.0}
    report = format_page_type_sweep(swept)
    assert "a: +0.20" in report and "b: +0.00" in report and "| `a` | +0.30 |" in report


def test_a_lower_threshold_is_chosen_where_it_is_best_and_the_nearest_to_zero_of_those_near_it() -> None:
    swept = rows("c", {-0.4: 0.7801, -0.3: 0.7830, -0.2: 0.7827, -0.1: 0.7750, 0.0: 0.7700, 0.1: 0.7600})
    assert chosen_page_type_shifts(swept) == {"c": -0.2}
    assert "c: -0.20" in format_page_type_sweep(swept)
