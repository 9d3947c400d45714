"""``python -m service train svm``: Yao & Zuo's 18 features and an RBF SVM with probabilities, exported to ONNX.

As in the paper: the 10 id/class tokens are those with the highest Naive
Bayes score for non-content on the train part (:func:`choose_tokens`), every
feature is min-max scaled, the SVM has an RBF kernel with scikit-learn's
default C = 1 and γ = "scale" (1 / (features × variance of the scaled
train features)), and probabilities come from Platt scaling.

Exact RBF training is quadratic or worse in the rows (about 290,000
paragraph units here), and exact serving costs a kernel value per support
vector per unit. So by default the kernel is approximated (``--kernel
nystroem``, :mod:`service.training.landmarks`): a Nystroem map onto
:data:`DEFAULT_LANDMARKS` landmarks drawn from the train rows, then a linear
SVM (hinge loss, C = 1, fitted by stochastic gradient descent: liblinear took
minutes a fit at 50,000 rows) on every row, then Platt scaling by
cross-validation. The served model is an RBF SVM over the landmarks.
``--kernel exact --subsample N`` trains libsvm's exact SVM on N rows, to
measure what the approximation costs.

Measured (2026-11-21, word F1 on the validation part): libsvm's exact SVM on
40,000 random rows 0.805 (17,691 support vectors, a 1.6 MB model, fitted in
145 s); the approximation on the same rows 0.806 (13 s), on all 291,106 rows
0.802 (43 to 85 s on the shared machine, 81 KB: the shipped model). On the
test part the shipped model scored 0.779 and the exact one 0.783, at about
a fifth of its time a page.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from service.backends.onnx_features import FeatureFunction
from service.features.svm import (
    N_FEATURES,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    TOKEN_FEATURES,
    feature_names,
    svm_features,
    unit_token_sets,
)
from service.features.units import UNITS
from service.training.block_models import Recipe, train_recipe, unit_labels
from service.training.data import LabeledDocument, TrainingData
from service.training.sklearn_export import Converter

NAME = "svm"
VERSION = "1"
# Kohlschütter's text blocks, on which the paper's features were defined: validation word F1
# 0.801 against 0.783 for leaves (exact SVM on 10,000 rows, 2026-11-21).
DEFAULT_UNITS = "paragraphs"
DEFAULT_KERNEL = "nystroem"
DEFAULT_LANDMARKS = 1000
PLATT_FOLDS = 5  # libsvm's cross-validation for its probability estimates
SGD_EPOCHS = 50  # passes over the rows for the linear SVM (Platt's folds and the final fit each)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--units", choices=sorted(UNITS), default=DEFAULT_UNITS, help="what a row is")
    parser.add_argument("--kernel", choices=("nystroem", "exact"), default=DEFAULT_KERNEL, help="RBF kernel: how")
    parser.add_argument("--landmarks", type=int, default=DEFAULT_LANDMARKS, help="Nystroem landmarks")
    parser.add_argument("--subsample", type=int, default=0, help="train on this many random rows (0: all)")


# -- the id/class tokens -------------------------------------------------------
def token_scores(token_sets: Sequence[set[str]], labels: np.ndarray) -> dict[str, float]:
    """The paper's score of every token: ``log(φ_k|y=0 / φ_k|y=1) × blocks with k``.

    φ is the multinomial event model with Laplace smoothing over the
    blocks' (distinct) tokens; a high score marks a frequent sign of
    non-content.
    """
    with_token: tuple[Counter[str], Counter[str]] = (Counter(), Counter())  # by label: blocks holding the token
    tokens_in = [0, 0]  # by label: the sum of the blocks' token counts
    for tokens, label in zip(token_sets, labels.tolist(), strict=True):
        with_token[label].update(tokens)
        tokens_in[label] += len(tokens)
    vocabulary = with_token[0].keys() | with_token[1].keys()
    size = len(vocabulary)
    scores = {}
    for token in vocabulary:
        boilerplate = (with_token[0][token] + 1) / (tokens_in[0] + size)
        content = (with_token[1][token] + 1) / (tokens_in[1] + size)
        scores[token] = math.log(boilerplate / content) * (with_token[0][token] + with_token[1][token])
    return scores


def choose_tokens(docs: Sequence[LabeledDocument], units: str, count: int = TOKEN_FEATURES) -> list[str]:
    """The ``count`` tokens with the highest :func:`token_scores` over the units of ``docs`` (ties by name)."""
    token_sets: list[set[str]] = []
    labels = []
    for doc in docs:
        unit_of_leaf = UNITS[units](doc.document)
        token_sets += unit_token_sets(doc.document, unit_of_leaf)
        labels.append(unit_labels(doc.labels, unit_of_leaf, doc.document.texts))
    scores = token_scores(token_sets, np.concatenate(labels) if labels else np.zeros(0, dtype=bool))
    return sorted(scores, key=lambda token: (-scores[token], token))[:count]


def _features(data: TrainingData, args: argparse.Namespace) -> tuple[FeatureFunction, dict[str, bytes], dict[str, Any]]:
    tokens = choose_tokens(data.parts["train"], args.units)
    config = {"tokens": tokens, "features": list(feature_names(tokens))}
    return partial(svm_features, tokens=tokens), {"tokens": json.dumps(tokens).encode()}, config


def _fit(features: np.ndarray, labels: np.ndarray, args: argparse.Namespace) -> tuple[Any, dict[type, Converter], dict]:
    from sklearn.calibration import CalibratedClassifierCV  # noqa: PLC0415 - training-only dependencies
    from sklearn.linear_model import SGDClassifier  # noqa: PLC0415
    from sklearn.pipeline import make_pipeline  # noqa: PLC0415
    from sklearn.preprocessing import MinMaxScaler  # noqa: PLC0415
    from sklearn.svm import SVC  # noqa: PLC0415

    from service.training.landmarks import CONVERTERS, StableNystroem, fold  # noqa: PLC0415 - imports scikit-learn

    if args.subsample and args.subsample < len(labels):
        chosen = np.random.default_rng(args.seed).choice(len(labels), args.subsample, replace=False)
        features, labels = features[chosen], labels[chosen]
    gamma = 1.0 / (features.shape[1] * MinMaxScaler().fit_transform(features).var())  # scikit-learn's "scale"
    config: dict[str, Any] = {"kernel": args.kernel, "C": 1.0, "gamma": float(gamma), "rows_fitted": len(labels)}
    if args.kernel == "exact":
        svm = CalibratedClassifierCV(SVC(gamma=gamma), ensemble=False, cv=PLATT_FOLDS)
        model = make_pipeline(MinMaxScaler(), svm).fit(features, labels)
        return model, {}, config | {"support_vectors": int(svm.calibrated_classifiers_[0].estimator.n_support_.sum())}
    # hinge loss + (α/2)‖w‖² is the SVM objective with C = 1 / (α n)
    linear = SGDClassifier(loss="hinge", alpha=1.0 / len(labels), max_iter=SGD_EPOCHS, random_state=args.seed)
    model = make_pipeline(
        MinMaxScaler(),
        StableNystroem(args.landmarks, gamma, random_state=args.seed),
        CalibratedClassifierCV(linear, ensemble=False, cv=PLATT_FOLDS),
    ).fit(features, labels)
    nystroem, fitted = model[1], model[-1].calibrated_classifiers_[0].estimator
    config |= {"landmarks": len(nystroem.landmarks_), "rank": nystroem.normalization_.shape[1], "rcond": nystroem.rcond}
    return fold(model), CONVERTERS, config | {"sgd_epochs": fitted.n_iter_}


RECIPE = Recipe(NAME, VERSION, (SCHEMA_NAME, SCHEMA_VERSION), N_FEATURES, _features, _fit)


def train(args: argparse.Namespace) -> int:
    options = {"units": args.units, "kernel": args.kernel, "landmarks": args.landmarks}
    options |= {"subsample": args.subsample, "seed": args.seed}
    return train_recipe(RECIPE, args, options)
