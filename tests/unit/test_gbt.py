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
    repeated_text,
)
from service.features.units import paragraph_units
from service.models.store import ModelStore
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE
from service.training.gbt import MONOTONE_DECREASING, RECIPE, monotone_constraints

from support.feature_models import assert_served_and_extracts, fit_and_check_parity
from support.paths import FIXTURES_DIR

ARTICLE = FIXTURES_DIR / "article.html"

# Scores of the committed model on tests/fixtures/article.html, one per leaf; retraining changes them.
GOLDEN = [
    0.00328141, 0.00624043, 0.0050326, 0.00377154, 0.010215, 0.0013122, 0.00123572, 0.00161147, 0.00174576,
    0.00368261, 0.300121, 0.278528, 0.481145, 0.56985, 0.981373, 0.987061, 0.981363, 0.981704, 0.977635, 0.990611,
    0.989044, 0.986055, 0.983921, 0.986052, 0.986848, 0.974363, 0.855852, 0.0489407, 0.0338917, 0.0374588, 0.0972195,
    0.033706, 0.0212091, 0.0474812, 0.0385464, 0.0131697, 0.00301343, 0.0133872, 0.000332355, 0.000259936,
    0.000209868, 0.000292242, 0.00025326, 0.000457525,
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
            {"boilerplate_weight": 2.0, "min_leaf_rows": 50, "l2": 1.0, "monotone": "links"},
            {"boilerplate_weight": 2.0, "min_samples_leaf": 50, "l2_regularization": 1.0, "monotonic_cst": "links"},
        ),
    ],
)
def test_the_trainer_fits_and_exports_with_parity(changed: dict[str, object], recorded: dict[str, object]):
    defaults = {"boilerplate_weight": 1.0, "min_leaf_rows": 20, "l2": 0.0, "monotone": None}
    args = argparse.Namespace(iterations=20, learning_rate=0.1, leaves=7, seed=1, **(defaults | changed))
    config = fit_and_check_parity("gbt", N_FEATURES, args)
    assert (config["max_iter"], config["max_leaf_nodes"]) == (20, 7)
    optional = ("boilerplate_weight", "min_samples_leaf", "l2_regularization", "monotonic_cst")
    assert {key: config[key] for key in optional if key in config} == recorded


def test_a_monotone_column_only_lowers_the_score():
    pytest.importorskip("sklearn")
    column = FEATURE_NAMES.index("hidden")
    rng = np.random.default_rng(2)
    features = rng.random((800, N_FEATURES)).astype(np.float32)
    labels = (features[:, 0] > 0.5) ^ (rng.random(800) < 0.2)  # noise the trees would follow up and down
    args = argparse.Namespace(
        iterations=30, learning_rate=0.3, leaves=15, seed=1, boilerplate_weight=1.0, min_leaf_rows=5, l2=0.0
    )
    free = RECIPE.fit(features, labels, argparse.Namespace(**vars(args), monotone=None))[0]
    bound = RECIPE.fit(features, labels, argparse.Namespace(**vars(args), monotone="markup"))[0]
    sweep = np.repeat(features[:50], 21, axis=0)
    sweep[:, column] = np.tile(np.linspace(0, 1, 21, dtype=np.float32), 50)
    steps = [np.diff(model.predict_proba(sweep)[:, 1].reshape(50, 21), axis=1) for model in (free, bound)]
    assert (steps[0] > 1e-9).any()  # unconstrained, the noise makes the score climb somewhere
    assert (steps[1] <= 1e-9).all()


def test_monotone_names_must_be_columns():
    assert monotone_constraints(("hidden",)).count(-1) == 1
    assert monotone_constraints(MONOTONE_DECREASING["links"])[FEATURE_NAMES.index("stack.in_link")] == -1
    with pytest.raises(ValueError, match="not gbt columns"):
        monotone_constraints(("no such column",))


def test_repeated_text_counts_the_leaves_that_say_the_same():
    page = parse_html(
        b"<html><body><p>A first paragraph of the post.</p><a href=/r1>Reply</a><p>Another paragraph.</p>"
        b"<a href=/r2>reply</a><div> Reply </div><p>Share</p></body></html>"
    )
    counts = dict(zip(page.texts, repeated_text(page).tolist(), strict=True))
    assert counts["A first paragraph of the post."] == counts["Share"] == 0.0  # once: log2(1)
    assert counts["Reply"] == counts["reply"] == pytest.approx(np.log2(3))  # letter case and spaces aside
    rows = combined_features(page, np.arange(len(page), dtype=np.int32))
    np.testing.assert_allclose(rows[:, OWN_NAMES.index("repeated_text")], repeated_text(page), rtol=1e-6)
