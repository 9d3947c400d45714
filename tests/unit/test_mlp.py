"""The shipped ``mlp`` model: golden scores, registry wiring, and the trainer's fit and export."""

from __future__ import annotations

import argparse

import numpy as np

from service.backends.mlp import load_mlp
from service.features.texrex import N_FEATURES
from service.models.store import ModelStore
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE

from support.feature_models import assert_served_and_extracts, fit_and_check_parity
from support.paths import FIXTURES_DIR

ARTICLE = FIXTURES_DIR / "article.html"

# Scores of the committed model on tests/fixtures/article.html, one per leaf; retraining changes them.
GOLDEN = [
    0.441057, 0.216624, 0.155227, 0.0999028, 0.000625998, 0.0122674, 0.0196725, 0.0514428, 0.0482979, 0.0233219,
    0.292576, 0.43633, 0.581861, 0.890441, 0.997606, 0.998851, 0.982712, 0.989727, 0.998271, 0.999921, 0.999746,
    0.999638, 0.999623, 0.997692, 0.99969, 0.997361, 0.998032, 0.0959757, 0.163346, 0.0805624, 0.724607, 0.646049,
    0.446452, 0.315326, 0.324403, 0.239957, 0.00224754, 0.062411, 0.00299212, 0.103463, 0.261577, 0.204668, 0.27975,
    0.171643,
]  # fmt: skip


def test_golden_scores_of_the_committed_model():
    scores = load_mlp(ModelStore(MODEL_STORE)).classify(parse_html(ARTICLE.read_bytes())).scores
    np.testing.assert_allclose(scores, GOLDEN, atol=1e-5)


def test_the_registry_serves_it_and_the_pipeline_extracts_with_it():
    assert_served_and_extracts("mlp", ARTICLE)


def test_the_trainer_fits_and_exports_with_parity():
    config = fit_and_check_parity("mlp", N_FEATURES, argparse.Namespace(hidden=4, activation="tanh", seed=1))
    assert config["hidden"] == 4
