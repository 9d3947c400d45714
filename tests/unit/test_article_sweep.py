"""``eval --article-sweep``'s choice: the smallest shift within the tolerance of the best mean word F1."""

from __future__ import annotations

from service.evaluation.favor import ARTICLE_TOLERANCE, SweepRow, chosen_article_shifts, format_article_sweep
from service.evaluation.metrics import PRF


def rows(backend: str, f1_by_shift: dict[float, float]) -> list[SweepRow]:
    return [SweepRow(backend, shift, PRF(f1, f1, f1)) for shift, f1 in f1_by_shift.items()]


def test_the_smallest_shift_near_the_best_is_chosen_per_backend() -> None:
    swept = rows("a", {0.0: 0.860, 0.1: 0.866, 0.2: 0.8668, 0.3: 0.8663}) + rows("b", {0.0: 0.90, 0.1: 0.89})
    assert ARTICLE_TOLERANCE < 0.0008  # 0.866 is not near enough to 0.8668; 0.8663 is, but is no smaller
    assert chosen_article_shifts(swept) == {"a": 0.2, "b": 0.0}
    report = format_article_sweep(swept)
    assert "a: +0.20" in report and "b: +0.00" in report and "| `a` | +0.30 |" in report
