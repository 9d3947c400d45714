"""The compiled attribute-name scan against the Python scan on every WCXB dev page (WCXB, Murrough Foley 2026)
and every Dragnet 2012 page: the same count, page for page.

tests/unit/test_budget_compiled.py checks the same over generated tag soup and malformed pages.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from service.commands.pages import load_pages
from service.parsing.decode import to_utf8

from support.scans import assert_scans_agree, compiled


def _assert_every_page_counted_alike(pages_dir: Path) -> None:
    pages = load_pages(pages_dir)
    assert pages
    for page in pages:
        assert_scans_agree(to_utf8(page)[0])  # the bytes the budget sees


@compiled
@pytest.mark.data
@pytest.mark.slow
def test_every_dev_page_is_counted_alike(data_dir: Path) -> None:
    _assert_every_page_counted_alike(data_dir)


@compiled
@pytest.mark.data
@pytest.mark.slow
def test_every_dragnet_page_is_counted_alike(dragnet_dir: Path) -> None:
    _assert_every_page_counted_alike(dragnet_dir)
