"""bench --page-memory: a backend's memory around one big page, in a fresh process."""

from __future__ import annotations

from service.commands.page_memory import PARAGRAPHS, big_page, measure
from service.settings import Settings


def test_the_default_page_is_the_largest_body_the_defaults_admit() -> None:
    page = big_page()
    assert len(page) <= Settings().max_body_bytes
    assert page.count(b"<p ") == PARAGRAPHS


def test_a_backend_is_measured_in_its_own_process_on_the_page_it_is_given() -> None:
    (row,) = measure(["boilerpipe"], big_page(2_000)).values()
    assert row["blocks"] == 2_000
    assert 0 < row["warm_mib"] <= row["peak_mib"]
