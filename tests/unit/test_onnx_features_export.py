"""The export contract and its parity check: a model whose ONNX form computes something else is never written."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("skl2onnx")
onnx = pytest.importorskip("onnx")

from sklearn.neural_network import MLPClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import MinMaxScaler  # noqa: E402

from service.backends.onnx_features import INPUT_NAME, PROBABILITIES  # noqa: E402
from service.training.sklearn_export import OPSET, ParityError, check_parity, onnx_probabilities, to_onnx  # noqa: E402

FEATURES = 6


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    features = rng.normal(size=(400, FEATURES)).astype(np.float32)
    labels = features[:, 0] + features[:, 1] ** 2 > 0.5
    model = make_pipeline(
        MinMaxScaler(), MLPClassifier(hidden_layer_sizes=(4,), solver="lbfgs", max_iter=1000, random_state=0)
    )
    return model.fit(features, labels), features


def test_the_export_has_the_contract_the_backend_reads(fitted):
    model, features = fitted
    exported = to_onnx(model, FEATURES, "test")
    graph = onnx.load_from_string(exported.data)
    assert exported.inputs == [INPUT_NAME]
    assert exported.outputs == [PROBABILITIES]  # the label branch is pruned
    (batch, width) = graph.graph.input[0].type.tensor_type.shape.dim
    assert not batch.HasField("dim_value")  # dynamic: a page has any number of units
    assert width.dim_value == FEATURES
    assert {o.domain: o.version for o in graph.opset_import}[""] == exported.opset == OPSET
    assert [o.name for o in graph.graph.output] == [PROBABILITIES]
    assert onnx_probabilities(exported.data, features[:1]).shape == (1,)
    assert onnx_probabilities(exported.data, features[:57]).shape == (57,)


def test_parity_holds_for_a_faithful_export(fitted):
    model, features = fitted
    assert check_parity(model, to_onnx(model, FEATURES, "test").data, features) < 1e-5


def test_parity_fails_for_a_perturbed_model(fitted):
    model, features = fitted
    graph = onnx.load_from_string(to_onnx(model, FEATURES, "test").data)
    weights = next(i for i in graph.graph.initializer if len(onnx.numpy_helper.to_array(i).shape) == 2)
    perturbed = onnx.numpy_helper.to_array(weights) * 1.05
    weights.CopyFrom(onnx.numpy_helper.from_array(perturbed.astype(np.float32), weights.name))
    with pytest.raises(ParityError, match="differs from scikit-learn"):
        check_parity(model, graph.SerializeToString(), features)


def test_the_same_model_exports_to_the_same_bytes(fitted):
    model, _ = fitted
    first, second = (to_onnx(model, FEATURES, "test").data for _ in range(2))
    assert first == second  # the graph is named, not given a fresh UUID
    assert onnx.load_from_string(first).graph.name == "test"
