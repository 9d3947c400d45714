"""The year finder of the visible dates: the years ``re.finditer`` finds, in the same places, found faster.

Over generated texts made of what can fool it (years inside longer digit runs, "19" and "20" overlapping,
digits of other scripts, which the pattern's ``\\d`` takes too) and over page-like text.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.metadata.visible import _YEAR, Visible, _years

_PIECES = ["19", "20", "1", "2", "0", "9", "x", " ", "\n", "\u0662", "\uff12", "2019", "192020", "20192019", "/"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=16).map("".join))
def test_the_years_are_those_finditer_finds(text: str) -> None:
    assert [m.span() for m in _years(text)] == [m.span() for m in _YEAR.finditer(text)]


def test_a_page_shows_its_dates_in_order_past_numbers_that_are_no_years() -> None:
    lines = "Call 0192 2000 1200\nPosted September 4, 2025\nID 201920\nUpdated 2026-01-02"
    assert Visible(lines).days == ("2025-09-04", "2026-01-02")
