"""The page budget's defaults leave room over the WCXB dev pages (WCXB, Murrough Foley 2026)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from service.backends.boilerpipe import BoilerpipeBackend
from service.backends.registry import BackendRegistry
from service.parsing.budget import (
    DEFAULT_MAX_ATTRIBUTE_NAMES,
    DEFAULT_MAX_ELEMENTS,
    count_attribute_names,
    count_start_tags,
)
from service.pipeline import Extractor

MARGIN = 3  # the dev pages' most, times this, must fit in the default budget


@pytest.mark.data
def test_the_largest_dev_pages_fit_the_default_budget_with_a_wide_margin(data_dir: Path) -> None:
    pages = {path: gzip.decompress(path.read_bytes()) for path in sorted((data_dir / "html").glob("*.html.gz"))}
    most_elements = max(pages, key=lambda path: count_start_tags(pages[path]))
    most_names = max(pages, key=lambda path: count_attribute_names(pages[path]))
    assert count_start_tags(pages[most_elements]) * MARGIN <= DEFAULT_MAX_ELEMENTS
    assert count_attribute_names(pages[most_names]) * MARGIN <= DEFAULT_MAX_ATTRIBUTE_NAMES
    registry = BackendRegistry()
    registry.register("boilerpipe", BoilerpipeBackend)
    extractor = Extractor(registry, "boilerpipe")
    for path in {most_elements, most_names}:
        assert extractor.extract(pages[path]).text, path.name
