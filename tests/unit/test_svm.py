"""The shipped ``svm`` model and its trainer: the paper's token choice, the kernel approximation, golden scores."""

from __future__ import annotations

import argparse
import math

import numpy as np
import pytest

from service.backends.svm import load_svm
from service.features.svm import N_FEATURES
from service.models.store import ModelStore
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE
from service.training.data import LabeledDocument
from service.training.svm import choose_tokens, token_scores

from support.paths import FIXTURES_DIR

ARTICLE = FIXTURES_DIR / "article.html"

# Scores of the committed model on tests/fixtures/article.html, one per leaf; retraining changes them.
GOLDEN = [
    0.273452, 0.273452, 0.326871, 0.326871, 0.111403, 0.102617, 0.10476, 0.10476, 0.10476, 0.114235, 0.529196,
    0.446429, 0.446429, 0.446429, 0.856258, 0.892108, 0.892108, 0.892108, 0.535686, 0.782041, 0.783558, 0.763092,
    0.665726, 0.649501, 0.805435, 0.837134, 0.79453, 0.203838, 0.203838, 0.203838, 0.451373, 0.168037, 0.177445,
    0.178379, 0.209145, 0.257091, 0.242859, 0.115385, 0.14501, 0.150718, 0.150718, 0.150718, 0.150718, 0.150718,
]  # fmt: skip


def test_token_scores_are_the_papers_naive_bayes_scores():
    sets = [{"nav"}, {"nav", "menu"}, {"content"}, {"nav", "content"}]
    scores = token_scores(sets, np.array([False, False, True, True]))
    # 3 token occurrences in each class, a vocabulary of 3: φ = (count + 1) / 6
    assert scores["nav"] == pytest.approx(math.log((3 / 6) / (2 / 6)) * 3)
    assert scores["menu"] == pytest.approx(math.log((2 / 6) / (1 / 6)) * 1)
    assert scores["content"] == pytest.approx(math.log((1 / 6) / (3 / 6)) * 2)


def test_the_chosen_tokens_mark_boilerplate():
    html = (
        "<html><body><nav class='top-nav'><a href='/'>Home</a><a href='/a'>About</a></nav>"
        "<div class='post'><p>A long paragraph of real content.</p><p>Another one.</p></div>"
        "<footer class='site-footer'>Footer text</footer></body></html>"
    )
    document = parse_html(html)
    labels = np.array([False, False, True, True, False])
    doc = LabeledDocument(page=None, document=document, labels=labels)
    tokens = choose_tokens([doc], "leaves", count=3)
    assert tokens[:2] == ["nav", "top"]  # on two boilerplate leaves each, ties by name
    assert "post" not in tokens


def test_golden_scores_of_the_committed_model():
    backend = load_svm(ModelStore(MODEL_STORE))
    scores = backend.classify(parse_html(ARTICLE.read_bytes())).scores
    np.testing.assert_allclose(scores, GOLDEN, atol=1e-5)


@pytest.fixture(scope="module")
def toy():
    rng = np.random.default_rng(0)
    features = rng.random((1500, N_FEATURES)).astype(np.float32) * 10
    labels = features[:, 0] + features[:, 1] ** 2 / 10 > 8
    return features, labels


@pytest.mark.filterwarnings("ignore:Attribute `prob:FutureWarning")  # skl2onnx reads SVC.probA_
@pytest.mark.parametrize("kernel", ["nystroem", "exact"])
def test_the_trainer_fits_and_exports_with_parity(toy, kernel):
    pytest.importorskip("sklearn")
    pytest.importorskip("skl2onnx")
    from service.training.sklearn_export import check_parity, to_onnx  # noqa: PLC0415
    from service.training.svm import RECIPE  # noqa: PLC0415

    features, labels = toy
    args = argparse.Namespace(kernel=kernel, landmarks=50, subsample=1000, seed=1)
    model, converters, config = RECIPE.fit(features, labels, args)
    assert config["rows_fitted"] == 1000
    assert config["kernel"] == kernel
    assert check_parity(model, to_onnx(model, N_FEATURES, "svm", converters).data, features[:300]) < 1e-4


def test_folding_the_nystroem_map_keeps_the_probabilities(toy):
    pytest.importorskip("sklearn")
    from sklearn.calibration import CalibratedClassifierCV  # noqa: PLC0415
    from sklearn.pipeline import make_pipeline  # noqa: PLC0415
    from sklearn.preprocessing import MinMaxScaler  # noqa: PLC0415
    from sklearn.svm import LinearSVC  # noqa: PLC0415

    from service.training.landmarks import RBFLandmarks, StableNystroem, fold  # noqa: PLC0415

    features, labels = toy
    features = np.where(np.arange(N_FEATURES) < 2, features, 0)  # points in a plane: a kernel of low rank
    model = make_pipeline(
        MinMaxScaler(), StableNystroem(300, gamma=0.5), CalibratedClassifierCV(LinearSVC(), ensemble=False)
    ).fit(features, labels)
    assert model[1].normalization_.shape[1] < 300  # the map's rank is below the landmarks'
    folded = fold(model)
    assert isinstance(folded.steps[1][1], RBFLandmarks)
    assert folded.steps[1][1].landmarks.shape == (300, N_FEATURES)
    np.testing.assert_allclose(folded.predict_proba(features), model.predict_proba(features), atol=1e-6)


def test_the_stable_map_drops_the_near_singular_directions():
    pytest.importorskip("sklearn")
    from service.training.landmarks import StableNystroem  # noqa: PLC0415

    rows = np.repeat(np.eye(3), [5, 5, 1], axis=0) + np.arange(11)[:, None] * 1e-9  # three points, near-duplicated
    nystroem = StableNystroem(11, gamma=1.0).fit(rows)
    assert nystroem.normalization_.shape == (11, 3)
    assert np.abs(nystroem.normalization_).max() < 10
