"""The RBF kernel approximated on landmarks (Nystroem), fitted stably and served as an RBF SVM over the landmarks.

A Nystroem map sends ``x`` to ``k(x, C) N``: the RBF kernel values to m
landmark rows ``C``, times a normalisation ``N`` built from the landmarks'
own kernel matrix ``K_CC = V Λ Vᵀ`` (``N = V Λ^-½``). A linear SVM on the
mapped rows then approximates the exact RBF SVM, trained in time linear in
the rows.

scikit-learn's ``Nystroem`` keeps every eigenvalue above 1e-12. On our
paragraph features ``K_CC`` is nearly singular (with 1,000 landmarks: 482
eigenvalues under 1e-6, entries of ``N`` up to 6.7e5; 2026-11-21), so the map
of a float32 row differed from that of the same row in float64 by more than
the map's own scale, and the exported model failed its parity check.
:class:`StableNystroem` keeps only the eigenvalues above :data:`RCOND` times
the largest (a rank of about 200), which bounds ``N``.

For serving, :func:`fold` moves ``N`` into the linear SVM's weights
(``k(x, C) N wᵀ = k(x, C) (w Nᵀ)ᵀ``): the served model computes one kernel
value per landmark, an RBF SVM whose support vectors are the landmarks, and
no landmarks × rank product. skl2onnx knows neither step; :data:`CONVERTERS`
gives the ONNX form of :class:`RBFLandmarks`.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.pipeline import Pipeline

from service.training.sklearn_export import Converter

# Eigenvalues of K_CC kept, relative to the largest. 1e-3 kept a rank of 96 and
# scored 0.801 validation word F1, 1e-4 a rank of 206 and 0.803 (40,000 rows).
RCOND = 1e-4


class StableNystroem(TransformerMixin, BaseEstimator):
    """A Nystroem map onto ``landmarks`` distinct rows drawn at random, eigenvalues under ``rcond`` dropped."""

    def __init__(self, landmarks: int, gamma: float, rcond: float = RCOND, random_state: int = 0) -> None:
        self.landmarks = landmarks
        self.gamma = gamma
        self.rcond = rcond
        self.random_state = random_state

    def fit(self, features: np.ndarray, labels: np.ndarray | None = None) -> StableNystroem:
        distinct = np.unique(np.asarray(features, dtype=np.float64), axis=0)
        count = min(self.landmarks, len(distinct))
        chosen = np.random.default_rng(self.random_state).choice(len(distinct), count, replace=False)
        self.landmarks_ = distinct[np.sort(chosen)]
        eigenvalues, vectors = np.linalg.eigh(rbf_kernel(self.landmarks_, gamma=self.gamma))
        kept = eigenvalues >= self.rcond * eigenvalues.max()
        self.normalization_ = vectors[:, kept] / np.sqrt(eigenvalues[kept])
        return self

    def transform(self, features: np.ndarray) -> np.ndarray:
        return (
            rbf_kernel(np.asarray(features, dtype=np.float64), self.landmarks_, gamma=self.gamma) @ self.normalization_
        )


class RBFLandmarks(TransformerMixin, BaseEstimator):
    """``exp(-γ ‖x - c‖²)`` to every row ``c`` of ``landmarks``: the served half of a folded Nystroem map."""

    def __init__(self, landmarks: np.ndarray, gamma: float) -> None:
        self.landmarks = landmarks
        self.gamma = gamma

    def fit(self, features: np.ndarray, labels: np.ndarray | None = None) -> RBFLandmarks:
        return self

    def transform(self, features: np.ndarray) -> np.ndarray:
        return rbf_kernel(np.asarray(features, dtype=np.float64), self.landmarks, gamma=self.gamma)


def fold(pipeline: Pipeline) -> Pipeline:
    """``scaler → StableNystroem → calibrated linear SVM`` as ``scaler → RBFLandmarks → calibrated linear SVM``.

    The calibrated SVM must have been fitted with ``ensemble=False`` (one
    linear SVM fitted on every row, calibrated by cross-validation).
    """
    (scaler_name, scaler), (_, nystroem), (calibrated_name, calibrated) = pipeline.steps
    folded = copy.deepcopy(calibrated)
    (only,) = folded.calibrated_classifiers_
    only.estimator.coef_ = only.estimator.coef_ @ nystroem.normalization_.T
    only.estimator.n_features_in_ = len(nystroem.landmarks_)
    kernel = RBFLandmarks(nystroem.landmarks_, nystroem.gamma)
    return Pipeline([(scaler_name, scaler), ("landmarks", kernel), (calibrated_name, folded)])


def _shape(operator: Any) -> None:
    from skl2onnx.common.data_types import FloatTensorType  # noqa: PLC0415 - skl2onnx imports slowly

    rows = operator.inputs[0].type.shape[0]
    operator.outputs[0].type = FloatTensorType([rows, len(operator.raw_operator.landmarks)])


def _graph(scope: Any, operator: Any, container: Any) -> None:
    """``exp(-γ (‖x‖² - 2 x·cᵀ + ‖c‖²))`` in ONNX ops."""
    from skl2onnx.algebra.onnx_ops import OnnxAdd, OnnxExp, OnnxMatMul, OnnxMul, OnnxReduceSumSquare  # noqa: PLC0415

    version = container.target_opset
    landmarks = operator.raw_operator.landmarks.astype(np.float32)
    gamma = np.float32(operator.raw_operator.gamma)
    rows = operator.inputs[0]
    squared = OnnxReduceSumSquare(rows, axes=[1], keepdims=1, op_version=version)
    cross = OnnxMatMul(rows, (-2 * landmarks).T, op_version=version)
    distances = OnnxAdd(OnnxAdd(cross, squared, op_version=version), (landmarks**2).sum(axis=1), op_version=version)
    kernel = OnnxExp(
        OnnxMul(distances, np.array([-gamma]), op_version=version),
        op_version=version,
        output_names=[operator.outputs[0].full_name],
    )
    kernel.add_to(scope, container, operator=operator)


CONVERTERS: dict[type, Converter] = {RBFLandmarks: (_shape, _graph)}
