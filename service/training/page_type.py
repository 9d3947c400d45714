"""Train the page-type classifier: logistic regression over the page-type features, shipped as JSON coefficients.

Fitted on the train part of the committed WCXB dev split (Murrough Foley
2026, CC-BY-4.0) with the corpus's page types as gold; the regularisation
strength is chosen by accuracy on the validation part; the test part is
scored once, by ``python -m service eval --metadata --part test``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence

import numpy as np

from service.evaluation.datasets import WCXB_CREDIT, Page, load_corpus
from service.evaluation.split import SEED, Split, committed_split_path, select
from service.metadata.extract import extract_metadata
from service.metadata.fields import PAGE_TYPES
from service.metadata.jsonld import parse_json_ld
from service.metadata.page_type import (
    FEATURES,
    MODEL_NAME,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    PageTypeModel,
    page_type_features,
)
from service.models.store import ModelStore
from service.parsing.lexbor import parse_html
from service.paths import REPO_ROOT

# Inverse regularisation strengths tried on the validation part.
C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
MAX_ITER = 5000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--c", type=float, default=None, help="skip the search and use this C")


def features_of(pages: Sequence[Page]) -> tuple[np.ndarray, np.ndarray]:
    """The feature matrix and the gold page types of ``pages``, computed exactly as serving computes them."""
    rows, types = [], []
    for page in pages:
        document = parse_html(page.html())
        ld = parse_json_ld(document.markup.json_ld)
        metadata = extract_metadata(document, page.url, ld)
        rows.append(page_type_features(document, metadata, ld.types(), page.url))
        types.append(page.page_type)
    return np.vstack(rows).astype(np.float64), np.asarray(types)


def fit(features: np.ndarray, types: np.ndarray, c: float, seed: int) -> PageTypeModel:
    """Standardise, then a multinomial logistic regression with balanced class weights."""
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - training-only dependency

    mean = features.mean(axis=0)
    scale = features.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=MAX_ITER, class_weight="balanced", random_state=seed)
    model.fit((features - mean) / scale, types)
    return PageTypeModel(tuple(str(k) for k in model.classes_), mean, scale, model.coef_, model.intercept_)


def accuracy(model: PageTypeModel, features: np.ndarray, types: np.ndarray) -> float:
    predicted = [model.classes[i] for i in np.argmax(model.probabilities(features), axis=1)]
    return float(np.mean(np.asarray(predicted) == types))


def train(args: argparse.Namespace) -> int:
    corpus = load_corpus(args.data)
    split = Split.read(committed_split_path(corpus.name))
    started = time.perf_counter()
    train_x, train_y = features_of(select(corpus, "train", split))
    valid_x, valid_y = features_of(select(corpus, "validation", split))
    unknown = set(train_y) - set(PAGE_TYPES)
    if unknown:
        raise SystemExit(f"error: the corpus has page types this code does not know: {sorted(unknown)}")
    grid = (args.c,) if args.c is not None else C_GRID
    scored = [(accuracy(fit(train_x, train_y, c, args.seed), valid_x, valid_y), c) for c in grid]
    for score, c in scored:
        print(f"C={c:<6} validation accuracy {score:.4f}")
    best_score, best_c = max(scored, key=lambda pair: (pair[0], -pair[1]))  # ties: the stronger regularisation
    model = fit(train_x, train_y, best_c, args.seed)
    data = (json.dumps(model.to_json(), indent=1) + "\n").encode()
    entry = ModelStore(args.out).write(
        {
            "name": MODEL_NAME,
            "version": "1",
            "opset": 0,  # not an ONNX graph: JSON coefficients read by service/metadata/page_type.py
            "inputs": ["features"],
            "outputs": ["page_type_probabilities"],
            "feature_schema": SCHEMA_NAME,
            "feature_schema_version": SCHEMA_VERSION,
            "training": {
                "command": "python -m service train page_type",
                "seed": args.seed,
                "data": corpus.name,
                "data_digest": corpus.digest(),
                "credit": WCXB_CREDIT,
                "split": f"{committed_split_path(corpus.name).relative_to(REPO_ROOT)} (seed {SEED})",
                "pages": {"train": len(train_y), "validation": len(valid_y)},
                "fit_seconds": round(time.perf_counter() - started, 1),
            },
            "config": {"model": "logistic regression, balanced class weights", "c": best_c, "features": FEATURES},
            "validation": {"accuracy": round(best_score, 4), "c_grid": {str(c): round(s, 4) for s, c in scored}},
        },
        {"model": (f"{MODEL_NAME}/model.json", data)},
    )
    print(f"wrote {args.out / entry.files['model']['path']} (C={best_c}, validation accuracy {best_score:.4f})")
    return 0
