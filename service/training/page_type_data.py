"""The page-type model's training rows and fit: pages as the classifier sees them, and the regression itself.

Shared by ``python -m service train page_type`` (:mod:`service.training.page_type`) and its
``--study`` (:mod:`service.training.page_type_study`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from service.evaluation.datasets import Page
from service.metadata.extract import extract_metadata
from service.metadata.jsonld import parse_json_ld
from service.metadata.page_type import FEATURES, PageTypeModel, page_type_features, page_words
from service.parsing.lexbor import parse_html

MAX_ITER = 5000


@dataclass(frozen=True)
class Examples:
    """Pages as the classifier sees them: features, words, gold types."""

    features: np.ndarray
    words: list[set[str]]
    types: np.ndarray


def examples_of(pages: Sequence[Page]) -> Examples:
    """The features, words and gold page types of ``pages``, computed exactly as serving computes them."""
    rows, words, types = [], [], []
    for page in pages:
        document = parse_html(page.html())
        ld = parse_json_ld(document.markup.json_ld)
        metadata = extract_metadata(document, page.url, ld)
        rows.append(page_type_features(document, metadata, ld.types(), page.url))
        words.append(page_words(document, metadata, ld.types(), page.url))
        types.append(page.page_type)
    return Examples(np.vstack(rows).astype(np.float64), words, np.asarray(types))


def without_declared_types(examples: Examples) -> Examples:
    """The same pages as if they declared no JSON-LD or OpenGraph type (those features 0, those words gone)."""
    declared = [i for i, name in enumerate(FEATURES) if name.startswith(("ld_", "og_"))]
    features = examples.features.copy()
    features[:, declared] = 0.0
    words = [{w for w in page if not w.startswith(("ld_", "og_"))} for page in examples.words]
    return Examples(features, words, examples.types)


def augmented(examples: Examples) -> Examples:
    """``examples`` and :func:`without_declared_types` of them, one after the other."""
    return concatenated(examples, without_declared_types(examples))


def concatenated(first: Examples, second: Examples) -> Examples:
    return Examples(
        np.vstack([first.features, second.features]),
        first.words + second.words,
        np.concatenate([first.types, second.types]),
    )


def vocabulary_of(words: list[set[str]], min_pages: int) -> tuple[str, ...]:
    """The words on at least ``min_pages`` pages, sorted (so the same data gives the same columns)."""
    counts = Counter(word for page in words for word in page)
    return tuple(sorted(word for word, count in counts.items() if count >= min_pages))


def fit(train: Examples, c: float, min_pages: int, seed: int) -> PageTypeModel:
    """Standardise the features (the word columns stay 0/1), then a multinomial logistic regression."""
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - training-only dependency

    vocabulary = vocabulary_of(train.words, min_pages)
    # over the pages where a feature is known (a page without a URL has none of its features); rows_of
    # then reads each unknown as this mean
    mean = np.concatenate([np.nanmean(train.features, axis=0), np.zeros(len(vocabulary))])
    scale = np.concatenate([np.nanstd(train.features, axis=0), np.ones(len(vocabulary))])
    scale[scale == 0] = 1.0
    rows = rows_of(PageTypeModel((), vocabulary, mean, scale, np.zeros((0, len(mean))), np.zeros(0)), train)
    model = LogisticRegression(C=c, max_iter=MAX_ITER, class_weight="balanced", random_state=seed)
    with threadpool_limits(1, user_api="blas"):  # BLAS's sums depend on its threads: one thread, the same bytes
        model.fit((rows - mean) / scale, train.types)
    classes = tuple(str(k) for k in model.classes_)
    coef, intercept = model.coef_, model.intercept_
    if len(classes) == 2:  # a binary fit has one row of weights, for the second class: logits (0, w.x + b)
        coef, intercept = np.vstack([np.zeros_like(coef), coef]), np.concatenate([[0.0], intercept])
    return PageTypeModel(classes, vocabulary, mean, scale, coef, intercept)


def rows_of(model: PageTypeModel, examples: Examples) -> np.ndarray:
    """The model's input rows (features and word columns), before its standardisation."""
    return np.vstack([model.row(f, w) for f, w in zip(examples.features, examples.words, strict=True)])


def accuracy(model: PageTypeModel, examples: Examples) -> float:
    predicted = [
        model.classes[int(np.argmax(model.probabilities(f, w)))]
        for f, w in zip(examples.features, examples.words, strict=True)
    ]
    return float(np.mean(np.asarray(predicted) == examples.types))
