"""``python -m service train page_type --study``: what the page-type model's design rests on, measured; writes nothing.

Two questions, answered on the train and validation parts only (the test part is never read):

- **Is the model short of pages?** The learning curve: the logistic regression fitted on a share of
  the train part (:data:`SHARES`, :data:`DRAWS` random draws below the whole), scored on validation.
  A curve still rising at 100 % is why the shipped model is refitted on train and validation.
- **Would boosted trees do better on the same inputs?** :data:`FOLDS`-fold cross-validation over
  the train and validation pages together: the logistic regression at the chosen settings against
  scikit-learn's histogram boosted trees (:data:`TREE_SETTINGS`), fitted on the same rows.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from service.evaluation.datasets import Page
from service.training.page_type_data import (
    Examples,
    accuracy,
    augmented,
    concatenated,
    examples_of,
    fit,
    rows_of,
)

SHARES = (0.5, 0.65, 0.8, 1.0)
DRAWS = 5
FOLDS = 5
# (trees, leaves per tree, learning rate)
TREE_SETTINGS = ((150, 15, 0.1), (200, 15, 0.05), (300, 31, 0.05))


def subset(examples: Examples, rows: np.ndarray) -> Examples:
    return Examples(examples.features[rows], [examples.words[i] for i in rows], examples.types[rows])


def learning_curve(train: Examples, validation: Examples, c: float, min_pages: int, seed: int) -> list[str]:
    """Validation accuracy of the model fitted on each share of the train part (mean of the draws)."""
    lines = []
    for share in SHARES:
        draws = DRAWS if share < 1 else 1
        scores = []
        for draw in range(draws):
            rows = np.sort(np.random.default_rng(draw).choice(len(train.types), int(len(train.types) * share), False))
            scores.append(accuracy(fit(augmented(subset(train, rows)), c, min_pages, seed), validation))
        lines.append(
            f"{share:>5.0%} of train ({int(len(train.types) * share)} pages): validation accuracy "
            f"{np.mean(scores):.4f} (draws: {', '.join(f'{s:.3f}' for s in scores)})"
        )
    return lines


def cross_validated(pages: Examples, c: float, min_pages: int, seed: int) -> dict[str, list[float]]:
    """Per-fold accuracy of the logistic regression and of each boosted-trees setting."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: PLC0415 - a training-only dependency

    fold_of = np.random.default_rng(seed).permutation(len(pages.types)) % FOLDS
    scores: dict[str, list[float]] = {}
    for fold in range(FOLDS):
        fitted_on = augmented(subset(pages, np.flatnonzero(fold_of != fold)))
        held_out = subset(pages, np.flatnonzero(fold_of == fold))
        model = fit(fitted_on, c, min_pages, seed)
        scores.setdefault(f"logistic regression, C={c}", []).append(accuracy(model, held_out))
        rows, held_rows = rows_of(model, fitted_on), rows_of(model, held_out)
        for trees, leaves, rate in TREE_SETTINGS:
            booster = HistGradientBoostingClassifier(
                max_iter=trees,
                max_leaf_nodes=leaves,
                learning_rate=rate,
                class_weight="balanced",
                early_stopping=False,
                random_state=seed,
            )
            booster.fit(rows, fitted_on.types)
            correct = booster.predict(held_rows) == held_out.types
            scores.setdefault(f"boosted trees, {trees} x {leaves} leaves at {rate}", []).append(float(correct.mean()))
    return scores


def study(train_pages: Sequence[Page], validation_pages: Sequence[Page], args: argparse.Namespace) -> int:
    c, min_pages = args.c if args.c is not None else 1.0, args.min_pages
    train, validation = examples_of(train_pages), examples_of(validation_pages)
    print(f"# learning curve (C={c}, min_pages={min_pages}; {DRAWS} draws below 100 %)")
    for line in learning_curve(train, validation, c, min_pages, args.seed):
        print(line)
    pages = concatenated(train, validation)
    print(f"# {FOLDS}-fold cross-validation over the train and validation parts ({len(pages.types)} pages)")
    for name, folds in cross_validated(pages, c, min_pages, args.seed).items():
        spread = np.std(folds) / np.sqrt(len(folds))
        print(f"{name:45s} {np.mean(folds):.4f} ± {spread:.4f}  ({', '.join(f'{s:.3f}' for s in folds)})")
    return 0
