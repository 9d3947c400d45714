"""Checks every shipped feature-matrix model (mlp, gbt) passes the same way: wiring, and its trainer's export."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service import extract
from service.backends.registry import default_registry
from service.models.store import ModelStore
from service.paths import MODEL_STORE
from service.settings import Settings


def assert_served_and_extracts(name: str, article: Path) -> None:
    """The registry serves the committed model under ``name``, and extracting the fixture article with it works."""
    backend = default_registry(Settings(model_store_dir=MODEL_STORE)).get(name)
    assert (backend.name, backend.kind) == (name, "onnx")
    assert backend.version == ModelStore(MODEL_STORE).entry(name).version
    extraction = extract(article.read_bytes(), backend=name)
    assert "the sleeper train looked like a relic" in extraction.text
    assert "Share on Facebook" not in extraction.text


def fit_and_check_parity(name: str, width: int, args: argparse.Namespace) -> dict[str, Any]:
    """Fit ``name``'s training recipe on a small synthetic problem, export it, check ONNX parity; its config."""
    pytest.importorskip("sklearn")
    pytest.importorskip("skl2onnx")
    recipe = __import__(f"service.training.{name}", fromlist=["RECIPE"]).RECIPE
    from service.training.sklearn_export import check_parity, to_onnx  # noqa: PLC0415 - the train extra

    rng = np.random.default_rng(1)
    features = rng.random((600, width)).astype(np.float32)
    labels = features[:, 0] + features[:, 20] > 1
    model, converters, config = recipe.fit(features, labels, args)
    assert check_parity(model, to_onnx(model, width, name, converters).data, features) < 1e-5
    return dict(config)
