"""The ``gbt`` backend: its combined features, the shipped model's golden scores and wiring, and the trainer."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from service.backends.gbt import load_gbt
from service.features.combined import (
    CONTEXT_COLUMNS,
    EDGE,
    FEATURE_NAMES,
    N_FEATURES,
    OFFSETS,
    OWN_NAMES,
    WINDOW,
    combined_features,
)
from service.features.units import paragraph_units
from service.models.store import ModelStore
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE

from support.feature_models import assert_served_and_extracts, fit_and_check_parity
from support.paths import FIXTURES_DIR

ARTICLE = FIXTURES_DIR / "article.html"

# Scores of the committed model on tests/fixtures/article.html, one per leaf; retraining changes them.
GOLDEN = [
    0.00326896, 0.0103411, 0.00520271, 0.00450158, 0.00690156, 0.00035882, 0.000294983, 0.000300169, 0.000295579,
    0.000485778, 0.27342, 0.111504, 0.261954, 0.355404, 0.980243, 0.983418, 0.979728, 0.981043, 0.973262, 0.988471,
    0.984553, 0.976801, 0.978651, 0.981363, 0.984196, 0.971223, 0.926817, 0.0232828, 0.0269182, 0.0173045,
    0.0829861, 0.0225582, 0.0117106, 0.0148184, 0.0133809, 0.0111675, 0.00156611, 0.00468022, 0.0003016,
    0.000345707, 0.00038749, 0.000250876, 0.000293314, 0.000346541,
]  # fmt: skip


@pytest.fixture(scope="module")
def article():
    return parse_html(ARTICLE.read_bytes())


@pytest.fixture(scope="module")
def rows(article) -> np.ndarray:
    return combined_features(article, np.arange(len(article), dtype=np.int32))


def test_one_row_per_leaf_and_one_name_per_column(article, rows):
    assert rows.shape == (len(article), N_FEATURES) == (len(article), len(FEATURE_NAMES))
    assert rows.dtype == np.float32 and np.isfinite(rows).all()


def test_the_context_columns_are_the_neighbours_own_columns(rows):
    own, names = len(OWN_NAMES), OWN_NAMES
    width = len(CONTEXT_COLUMNS)
    for k, name in enumerate(CONTEXT_COLUMNS):
        column = rows[:, names.index(name)]
        for j, offset in enumerate(OFFSETS):
            got = rows[:, own + j * width + k]
            shifted = np.full(len(column), EDGE, dtype=np.float32)
            if offset < 0:
                shifted[-offset:] = column[:offset]
            else:
                shifted[:-offset] = column[offset:]
            np.testing.assert_array_equal(got, shifted, err_msg=f"{name} at {offset:+d}")
        window = rows[:, own + len(OFFSETS) * width + k]
        np.testing.assert_allclose(window[0], column[: WINDOW + 1].mean(), rtol=1e-5)
        page = rows[:, own + (len(OFFSETS) + 1) * width + k]
        np.testing.assert_allclose(page, column.mean(), rtol=1e-5)


def test_the_features_are_defined_per_leaf_only(article):
    with pytest.raises(ValueError, match="per leaf"):
        combined_features(article, paragraph_units(article))


def test_an_empty_page_gives_no_rows():
    page = parse_html("<html><body><div></div></body></html>")
    assert combined_features(page, np.zeros(0, dtype=np.int32)).shape == (0, N_FEATURES)


def test_golden_scores_of_the_committed_model(article):
    scores = load_gbt(ModelStore(MODEL_STORE)).classify(article).scores
    np.testing.assert_allclose(scores, GOLDEN, atol=1e-5)


def test_the_registry_serves_it_and_the_pipeline_extracts_with_it():
    assert_served_and_extracts("gbt", ARTICLE)


@pytest.mark.parametrize(
    ("changed", "recorded"),
    [
        ({}, {}),  # the defaults: a manifest that reads as the shipped model's
        (
            {"boilerplate_weight": 2.0, "min_leaf_rows": 50, "l2": 1.0},
            {"boilerplate_weight": 2.0, "min_samples_leaf": 50, "l2_regularization": 1.0},
        ),
    ],
)
def test_the_trainer_fits_and_exports_with_parity(changed: dict[str, float], recorded: dict[str, float]):
    defaults = {"boilerplate_weight": 1.0, "min_leaf_rows": 20, "l2": 0.0}
    args = argparse.Namespace(iterations=20, learning_rate=0.1, leaves=7, seed=1, **(defaults | changed))
    config = fit_and_check_parity("gbt", N_FEATURES, args)
    assert (config["max_iter"], config["max_leaf_nodes"]) == (20, 7)
    optional = ("boilerplate_weight", "min_samples_leaf", "l2_regularization")
    assert {key: config[key] for key in optional if key in config} == recorded
