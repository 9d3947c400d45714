"""Fixtures of the evaluation tests: the WCXB dev pages, the Dragnet pages, and the quality gate's remembered passes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.commands.pages import load_pages
from service.paths import default_check_data_dir, default_data_dir

from support.gate_cache import GatePasses

NO_GATE_CACHE_ENV = "EXTRACT_NO_GATE_CACHE"


def _pages_or_skip(path: Path, pages: str, variable: str) -> Path:
    """``path`` where it holds the pages (an ``html/`` folder); else the test skips, saying how to point at them."""
    if not (path / "html").is_dir():
        pytest.skip(f"{pages} not found at {path} (set {variable})")
    return path


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The WCXB dev pages; tests that need them skip cleanly when they are absent."""
    return _pages_or_skip(default_data_dir(), "WCXB dev pages", "EXTRACT_DATA_DIR")


@pytest.fixture(scope="session")
def dragnet_dir() -> Path:
    """The Dragnet 2012 pages (evaluation only); tests that need them skip cleanly when they are absent."""
    return _pages_or_skip(default_check_data_dir(), "Dragnet pages", "EXTRACT_CHECK_DATA_DIR")


@pytest.fixture(params=["data_dir", "dragnet_dir"], ids=["wcxb", "dragnet"])
def corpus_pages(request: pytest.FixtureRequest) -> list[bytes]:
    """Every page of the WCXB dev pages, then of Dragnet 2012 (a test each; each skips where its pages are absent)."""
    pages = load_pages(request.getfixturevalue(request.param))
    assert pages
    return pages


@pytest.fixture
def gate_passes(request: pytest.FixtureRequest) -> GatePasses:
    """The gate's passes in pytest's cache; ``--no-gate-cache`` or EXTRACT_NO_GATE_CACHE=1 forces a run."""
    forced = request.config.getoption("--no-gate-cache") or os.environ.get(NO_GATE_CACHE_ENV, "") not in ("", "0")
    return GatePasses(getattr(request.config, "cache", None), enabled=not forced)
