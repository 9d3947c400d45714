"""Where the repository keeps things, and where the dev corpus is by default."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MODEL_STORE = REPO_ROOT / "model_store"


def default_data_dir() -> Path:
    """The WCXB dev pages: ``EXTRACT_DATA_DIR``, else ``../shared/data/wcxb-dev`` beside the repo."""
    configured = os.environ.get("EXTRACT_DATA_DIR")
    return Path(configured) if configured else REPO_ROOT.parent / "shared" / "data" / "wcxb-dev"


def default_check_data_dir() -> Path:
    """Pages unlike the training pages, evaluated beside them: ``EXTRACT_CHECK_DATA_DIR``, else Dragnet 2012.

    ``../shared/data/dragnet-2012`` beside the repo (evaluation only: nothing shipped is trained on it).
    """
    configured = os.environ.get("EXTRACT_CHECK_DATA_DIR")
    return Path(configured) if configured else REPO_ROOT.parent / "shared" / "data" / "dragnet-2012"


def cache_dir() -> Path:
    """Derived data (block labels): ``EXTRACT_CACHE_DIR``, else ``<repo>/.cache``."""
    configured = os.environ.get("EXTRACT_CACHE_DIR")
    return Path(configured) if configured else REPO_ROOT / ".cache"
