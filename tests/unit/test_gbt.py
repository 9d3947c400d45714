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
    0.00924522, 0.0107322, 0.00526434, 0.00640893, 0.012558, 0.00122482, 0.00167853, 0.00429934, 0.00302935,
    0.00394911, 0.526015, 0.63979, 0.743537, 0.81752, 0.98727, 0.988643, 0.98121, 0.985033, 0.960788, 0.989399,
    0.983922, 0.97856, 0.983168, 0.979391, 0.986624, 0.968871, 0.930055, 0.103882, 0.0700915, 0.0814747, 0.231424,
    0.143516, 0.0742868, 0.104571, 0.0447862, 0.0303065, 0.00342786, 0.00271082, 0.00197345, 0.00169349,
    0.000837564, 0.00147045, 0.000708342, 0.00057143,
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


def test_the_trainer_fits_and_exports_with_parity():
    args = argparse.Namespace(iterations=20, learning_rate=0.1, leaves=7, seed=1)
    config = fit_and_check_parity("gbt", N_FEATURES, args)
    assert (config["max_iter"], config["max_leaf_nodes"]) == (20, 7)
