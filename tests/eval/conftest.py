"""Fixtures of the evaluation tests: the WCXB dev pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.paths import default_data_dir


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The WCXB dev pages; tests that need them skip cleanly when they are absent."""
    path = default_data_dir()
    if not (path / "html").is_dir():
        pytest.skip(f"WCXB dev pages not found at {path} (set EXTRACT_DATA_DIR)")
    return path
