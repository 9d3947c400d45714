"""Export parity: the masked Keras network and its ONNX export agree, alone and padded in batches.

Needs TensorFlow (the ``train`` extra): ``make test-train`` runs it; plain ``make test`` skips it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from service.runtime.sessions import create_session
from service.runtime.windows import pad_batch

pytestmark = [pytest.mark.train, pytest.mark.timeout(600)]
tf = pytest.importorskip("tensorflow", reason="the train extra (tensorflow) is not installed")

from service.training.bilstm_model import (  # noqa: E402 - after the importorskip on purpose
    INPUT_NAME,
    LENGTHS_NAME,
    NetworkConfig,
    build_network,
    export_onnx,
    wire_sequence_lengths,
)

WIDTH = 40


def test_keras_and_onnx_agree_on_padded_batches(tmp_path: Path) -> None:
    config = NetworkConfig(projection=16, units=8, numeric=False)
    model = build_network(WIDTH, config, masked=True)
    proto = export_onnx(model, WIDTH, config)
    assert {n.op_type for n in proto.graph.node} >= {"LSTM"}
    assert "Loop" not in {n.op_type for n in proto.graph.node}
    path = tmp_path / "model.onnx"
    path.write_bytes(proto.SerializeToString())
    session = create_session(path)
    rng = np.random.default_rng(3)
    documents = [(rng.random((n, WIDTH)) < 0.2).astype(np.float32) for n in (1, 17, 5, 60)]
    blocks, lengths = pad_batch(documents, WIDTH)
    keras_out = model([blocks, lengths], training=False).numpy()
    onnx_out = session.run(None, {INPUT_NAME: blocks, LENGTHS_NAME: lengths})[0]
    for row, n in enumerate(lengths.tolist()):
        np.testing.assert_allclose(onnx_out[row, :n], keras_out[row, :n], atol=1e-5)
        alone = session.run(None, {INPUT_NAME: documents[row][None], LENGTHS_NAME: np.array([n], np.int32)})[0]
        np.testing.assert_allclose(alone[0], onnx_out[row, :n], atol=1e-6)


def test_wiring_refuses_a_graph_without_fused_lstms() -> None:
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Identity", [INPUT_NAME], ["y"])],
        "no-lstm",
        [onnx.helper.make_tensor_value_info(INPUT_NAME, onnx.TensorProto.FLOAT, [None])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [None])],
    )
    with pytest.raises(ValueError, match="no fused LSTM"):
        wire_sequence_lengths(onnx.helper.make_model(graph))
