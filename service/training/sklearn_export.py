"""scikit-learn classifier → ONNX bytes, written only after ONNX Runtime agrees with scikit-learn.

The export contract every served feature-matrix model keeps (the interface
:mod:`service.backends.onnx_features` reads): one float32 input with a
dynamic batch dimension (a page's units), a pinned opset, and ``zipmap``
off so the probabilities come back as a plain ``units × 2`` matrix.
:func:`check_parity` runs the exported bytes through the service's own
session factory and compares with ``predict_proba``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from service.backends.onnx_features import CONTENT, INPUT_NAME, PROBABILITIES
from service.models.store import ModelError
from service.runtime.sessions import create_session

OPSET = 17  # the ai.onnx opset every model is exported with
ML_OPSET = 3  # ai.onnx.ml (the classifier and scaler ops)
# Largest |scikit-learn - ONNX Runtime| content probability accepted: float32
# inference against scikit-learn's float64 differs by ~1e-6.
PARITY_TOLERANCE = 1e-4

# (shape calculator, converter) for an estimator class skl2onnx does not know.
Converter = tuple[Callable[..., None], Callable[..., None]]


class ParityError(ModelError):
    """ONNX Runtime and scikit-learn disagree about an exported model."""


@dataclass(frozen=True)
class Exported:
    """An exported model: its bytes and what the manifest says about its interface."""

    data: bytes
    inputs: list[str]
    outputs: list[str]
    opset: int = OPSET  # of the default (ai.onnx) domain


def to_onnx(
    classifier: Any, n_features: int, name: str, converters: Mapping[type, Converter] | None = None
) -> Exported:
    """The fitted ``classifier`` (a pipeline ending in a classifier) as ONNX, probabilities as a plain matrix.

    Only the probabilities are kept (skl2onnx's label branch is pruned: four
    more kernels a call, about a third of a small model's run time), and the
    graph declares exactly :data:`OPSET` (skl2onnx declares the lowest opset
    its ops need, up to the target). The graph is called ``name``: the
    extraction step would call it after a random UUID, and the same command
    must write the same bytes.
    """
    import onnx  # noqa: PLC0415 - training-only dependencies
    from onnx import version_converter  # noqa: PLC0415
    from onnx.utils import Extractor  # noqa: PLC0415
    from skl2onnx import convert_sklearn  # noqa: PLC0415
    from skl2onnx.common.data_types import FloatTensorType  # noqa: PLC0415

    final = classifier.steps[-1][1] if hasattr(classifier, "steps") else classifier
    converters = converters or {}
    model = convert_sklearn(
        classifier,
        initial_types=[(INPUT_NAME, FloatTensorType([None, n_features]))],
        target_opset={"": OPSET, "ai.onnx.ml": ML_OPSET},
        options={id(final): {"zipmap": False}},
        custom_shape_calculators={cls: shape for cls, (shape, _) in converters.items()},
        custom_conversion_functions={cls: convert for cls, (_, convert) in converters.items()},
    )
    outputs = [output.name for output in model.graph.output]
    if PROBABILITIES not in outputs:
        raise ModelError(f"expected an output {PROBABILITIES!r}, the converter made {outputs}")
    model = version_converter.convert_version(Extractor(model).extract_model([INPUT_NAME], [PROBABILITIES]), OPSET)
    model.graph.name = name
    onnx.checker.check_model(model)
    return Exported(model.SerializeToString(), [INPUT_NAME], [PROBABILITIES])


def onnx_probabilities(model: bytes, features: np.ndarray) -> np.ndarray:
    """Content probability of every row by ONNX Runtime, through the service's session factory."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.onnx"
        path.write_bytes(model)
        session = create_session(path)
    probabilities = session.run([PROBABILITIES], {INPUT_NAME: np.ascontiguousarray(features, dtype=np.float32)})[0]
    return np.asarray(probabilities)[:, CONTENT]


def check_parity(classifier: Any, model: bytes, features: np.ndarray, tolerance: float = PARITY_TOLERANCE) -> float:
    """The largest probability difference between scikit-learn and ONNX Runtime on ``features``.

    Raises :class:`ParityError` above ``tolerance``: a model whose exported
    form computes something else is never written.
    """
    features = np.ascontiguousarray(features, dtype=np.float32)
    expected = classifier.predict_proba(features)[:, CONTENT]
    difference = float(np.max(np.abs(expected - onnx_probabilities(model, features)))) if len(features) else 0.0
    if not difference <= tolerance:  # also catches NaN
        raise ParityError(
            f"ONNX Runtime differs from scikit-learn by {difference:.3g} on {len(features)} rows "
            f"(tolerance {tolerance})"
        )
    return difference
