"""The shipped ``mlp`` model: golden scores, registry wiring, and the trainer's fit and export."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from service import extract
from service.backends.mlp import load_mlp
from service.backends.registry import default_registry
from service.features.texrex import N_FEATURES
from service.models.store import ModelStore
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE
from service.settings import Settings

ARTICLE = Path(__file__).parent / "fixtures" / "article.html"

# Scores of the committed model on tests/fixtures/article.html, one per leaf; retraining changes them.
GOLDEN = [
    0.740689, 0.419447, 0.151508, 0.127544, 0.0415, 0.026779, 0.015599, 0.020815, 0.030835, 0.032404, 0.118541,
    0.650313, 0.609857, 0.947689, 0.991077, 0.997039, 0.982248, 0.984805, 0.998535, 0.999687, 0.998433, 0.997118,
    0.996761, 0.998632, 0.999425, 0.998008, 0.985641, 0.577352, 0.16469, 0.113549, 0.369114, 0.498302, 0.223524,
    0.298956, 0.133277, 0.148872, 0.00608, 0.04873, 8.2e-05, 0.149822, 0.195944, 0.062892, 0.110559, 0.047595,
]  # fmt: skip


def test_golden_scores_of_the_committed_model():
    scores = load_mlp(ModelStore(MODEL_STORE)).classify(parse_html(ARTICLE.read_bytes())).scores
    np.testing.assert_allclose(scores, GOLDEN, atol=1e-5)


def test_the_registry_serves_it_and_the_pipeline_extracts_with_it():
    backend = default_registry(Settings(model_store_dir=MODEL_STORE)).get("mlp")
    assert (backend.name, backend.kind) == ("mlp", "onnx")
    assert backend.version == ModelStore(MODEL_STORE).entry("mlp").version
    extraction = extract(ARTICLE.read_bytes(), backend="mlp")
    assert "the sleeper train looked like a relic" in extraction.text
    assert "Share on Facebook" not in extraction.text


def test_the_trainer_fits_and_exports_with_parity():
    pytest.importorskip("sklearn")
    pytest.importorskip("skl2onnx")
    from service.training.mlp import RECIPE  # noqa: PLC0415
    from service.training.sklearn_export import check_parity, to_onnx  # noqa: PLC0415

    rng = np.random.default_rng(1)
    features = rng.random((600, N_FEATURES)).astype(np.float32)
    labels = features[:, 0] + features[:, 20] > 1
    args = argparse.Namespace(hidden=4, activation="tanh", seed=1)
    model, converters, config = RECIPE.fit(features, labels, args)
    assert config["hidden"] == 4
    assert check_parity(model, to_onnx(model, N_FEATURES, converters).data, features) < 1e-5
