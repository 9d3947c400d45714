"""The steps every feature-matrix block classifier (svm, mlp) shares in training.

Rows are *units* (leaves or paragraph units, see
:mod:`service.features.shallow`); a unit is content when at least half of
its characters are in leaves the alignment labels content. The decision
threshold and every figure in the manifest come from the validation part
only, scored the way the service serves: unit probabilities broadcast to
the leaves, leaves kept at ``score >= threshold``, the kept leaves rendered
to text and scored by WCXB's word F1 (averaged over pages with gold text).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from service.backends.onnx_features import FeatureFunction
from service.evaluation.metrics import PRF, Confusion, word_prf, word_tokens
from service.features.units import UNITS, count_units
from service.models.store import ModelStore
from service.output.formats import render_text
from service.training.data import LabeledDocument, TrainingData, load_training_data
from service.training.sklearn_export import Converter, check_parity, onnx_probabilities, to_onnx

MIN_CONTENT_SHARE = 0.5  # a unit is content when this share of its characters is
# Thresholds tried on the validation part.
THRESHOLDS = tuple(round(float(t), 2) for t in np.arange(0.05, 0.96, 0.05))
FIGURE_DECIMALS = 4


@dataclass(frozen=True)
class UnitRows:
    """The feature rows and labels of every unit of a list of pages, and where each page's rows are."""

    features: np.ndarray  # float32, units × features
    labels: np.ndarray  # bool per unit
    offsets: np.ndarray  # int64, first row of each page; one more entry for the end
    unit_of_leaf: list[np.ndarray]  # per page

    def page_rows(self, page: int) -> slice:
        return slice(int(self.offsets[page]), int(self.offsets[page + 1]))


def unit_labels(labels: np.ndarray, unit_of_leaf: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """Content per unit: at least :data:`MIN_CONTENT_SHARE` of its characters are in content leaves."""
    chars = np.fromiter(map(len, texts), dtype=np.float64, count=len(texts))
    n_units = count_units(unit_of_leaf)
    content = np.bincount(unit_of_leaf, weights=chars * labels, minlength=n_units)
    return content >= MIN_CONTENT_SHARE * np.bincount(unit_of_leaf, weights=chars, minlength=n_units)


def unit_rows(docs: Sequence[LabeledDocument], features: FeatureFunction, units: str) -> UnitRows:
    """Features and labels of every unit of ``docs``, units chosen by name (:data:`UNITS`)."""
    split = UNITS[units]
    blocks, labels, partition = [], [], []
    for doc in docs:
        unit_of_leaf = split(doc.document)
        partition.append(unit_of_leaf)
        blocks.append(features(doc.document, unit_of_leaf))
        labels.append(unit_labels(doc.labels, unit_of_leaf, doc.document.texts))
    sizes = [len(b) for b in blocks]
    return UnitRows(
        features=np.concatenate(blocks) if blocks else np.zeros((0, 0), dtype=np.float32),
        labels=np.concatenate(labels) if labels else np.zeros(0, dtype=bool),
        offsets=np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
        unit_of_leaf=partition,
    )


@dataclass(frozen=True)
class Figures:
    """Scores on a part at one threshold: leaf-level P/R/F1 (content positive) and page-averaged word P/R/F1."""

    threshold: float
    blocks: PRF
    word: PRF
    pages: int

    def as_dict(self) -> dict[str, float | int]:
        out: dict[str, float | int] = {"threshold": self.threshold, "pages_with_gold": self.pages}
        for name, prf in (("block", self.blocks), ("word", self.word)):
            for key in ("precision", "recall", "f1"):
                out[f"{name}_{key}"] = round(getattr(prf, key), FIGURE_DECIMALS)
        return out


def score(docs: Sequence[LabeledDocument], rows: UnitRows, probabilities: np.ndarray, threshold: float) -> Figures:
    """Figures for ``docs`` when units with ``probabilities >= threshold`` are kept."""
    confusion = Confusion()
    words = []
    for page, doc in enumerate(docs):
        leaf_scores = probabilities[rows.page_rows(page)][rows.unit_of_leaf[page]]
        keep = leaf_scores >= threshold
        confusion += Confusion.of(keep, doc.labels)
        gold = word_tokens(doc.page.main_content)
        if gold:
            words.append(word_prf(word_tokens(render_text(doc.document, keep)), gold))
    return Figures(threshold, confusion.positive, PRF.mean(words), len(words))


def choose_threshold(docs: Sequence[LabeledDocument], rows: UnitRows, probabilities: np.ndarray) -> Figures:
    """The figures at the threshold with the best page-averaged word F1 (the lowest such threshold on a tie)."""
    return max((score(docs, rows, probabilities, t) for t in THRESHOLDS), key=lambda f: (f.word.f1, -f.threshold))


@dataclass(frozen=True)
class Recipe:
    """What makes one feature-matrix model: its name, feature schema, features and fitting.

    ``features(data, args)`` returns the feature function (it may depend on the
    train part, as the SVM's chosen tokens do), side files to store beside the
    model and configuration to record; ``fit(features, labels, args)`` returns
    the fitted classifier to export, the skl2onnx converters it needs and
    configuration to record; ``extra_train(data, args)``, where given, more labeled pages to fit on
    beside the train part (augmentation), never seen by the validation part.
    """

    name: str
    version: str
    schema: tuple[str, int]
    n_features: int
    features: Callable[[TrainingData, argparse.Namespace], tuple[FeatureFunction, dict[str, bytes], dict[str, Any]]]
    fit: Callable[[np.ndarray, np.ndarray, argparse.Namespace], tuple[Any, dict[type, Converter], dict[str, Any]]]
    extra_train: Callable[[TrainingData, argparse.Namespace], list[LabeledDocument]] | None = None


def say(message: str) -> None:
    """A trainer's progress line, on stderr."""
    print(message, file=sys.stderr, flush=True)


def train_recipe(recipe: Recipe, args: argparse.Namespace, options: dict[str, Any]) -> int:
    """Fit on the train part, export with a parity check, choose the threshold on validation, write the store.

    ``options`` are the trainer's own arguments, recorded as the command line.
    """
    say(f"{recipe.name}: parsing and labeling the train and validation parts of {args.data} ...")
    data = load_training_data(args.data)
    features, side_files, feature_config = recipe.features(data, args)
    extra = recipe.extra_train(data, args) if recipe.extra_train is not None else []
    fitted_on = {"train": data.parts["train"] + extra, "validation": data.parts["validation"]}
    rows = {part: unit_rows(docs, features, args.units) for part, docs in fitted_on.items()}
    train, validation = rows["train"], rows["validation"]
    say(f"{recipe.name}: fitting on {len(train.labels)} {args.units} ({train.labels.mean():.1%} content) ...")
    started = time.perf_counter()
    classifier, converters, fit_config = recipe.fit(train.features, train.labels, args)
    fit_seconds = time.perf_counter() - started
    exported = to_onnx(classifier, recipe.n_features, recipe.name, converters)
    parity = check_parity(classifier, exported.data, validation.features)
    served = onnx_probabilities(exported.data, validation.features)  # the threshold is chosen on what is served
    figures = choose_threshold(data.parts["validation"], validation, served)
    files = {"model": (f"{recipe.name}/model.onnx", exported.data)}
    files |= {role: (f"{recipe.name}/{role}.json", data_bytes) for role, data_bytes in side_files.items()}
    flags = (f"--{key.replace('_', '-')} {value}" for key, value in options.items())
    command = " ".join([f"python -m service train {recipe.name}", *flags])
    ModelStore(Path(args.out)).write(
        {
            "name": recipe.name,
            "version": recipe.version,
            "opset": exported.opset,
            "inputs": exported.inputs,
            "outputs": exported.outputs,
            "feature_schema": recipe.schema[0],
            "feature_schema_version": recipe.schema[1],
            "training": {
                "command": command,
                "seed": args.seed,
                **data.provenance(),
                "rows": {part: len(r.labels) for part, r in rows.items()},
                "fit_seconds": round(fit_seconds, 1),
            },
            "config": {"units": args.units, "threshold": figures.threshold, **feature_config, **fit_config},
            "validation": {**figures.as_dict(), "parity_max_difference": parity},
        },
        files,
    )
    size = len(exported.data)
    say(f"{recipe.name}: wrote {args.out}/{recipe.name} ({size / 1024:.0f} KiB); validation {figures.as_dict()}")
    return 0
