"""The input-encoding measurement behind the BiLSTM's dense input (``bench --input-encodings``).

Projects one page's block inputs to the network's first layer in ONNX
Runtime, one thread, two ways: a dense blocks × vocabulary matrix through
MatMul, and sparse (block, column, count) triples through Gather, Mul and
ScatterElements(add) — the embedding bag. Same weights, same result.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from service.features.boilernet import BlockEncoder, build_vocabulary
from service.parsing.document import Document
from service.runtime.sessions import create_session

PROJECTION_UNITS = (64, 128, 256)


def _sessions(vocabulary_size: int, units: int, folder: Path) -> tuple[ort.InferenceSession, ort.InferenceSession]:
    """The two projections, dense and sparse, with the same random weights."""
    weights = np.random.default_rng(0).random((vocabulary_size, units), dtype=np.float32)
    table = numpy_helper.from_array(weights, "W")
    axis = numpy_helper.from_array(np.array([1], np.int64), "axis")

    def session(nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto], name: str) -> ort.InferenceSession:
        used = [t for t in (table, axis) if any(t.name in node.input for node in nodes)]
        graph = helper.make_graph(
            nodes, name, inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, units])], used
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.save(model, folder / f"{name}.onnx")
        return create_session(folder / f"{name}.onnx")

    dense = session(
        [helper.make_node("MatMul", ["x", "W"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, vocabulary_size])],
        "dense",
    )
    sparse = session(
        [
            helper.make_node("Gather", ["W", "column"], ["rows"]),
            helper.make_node("Unsqueeze", ["count", "axis"], ["count2"]),
            helper.make_node("Mul", ["rows", "count2"], ["weighted"]),
            helper.make_node("Unsqueeze", ["block", "axis"], ["block2"]),
            helper.make_node("Expand", ["block2", "shape"], ["target"]),
            helper.make_node("ScatterElements", ["zeros", "target", "weighted"], ["y"], axis=0, reduction="add"),
        ],
        [
            helper.make_tensor_value_info("column", TensorProto.INT64, [None]),
            helper.make_tensor_value_info("count", TensorProto.FLOAT, [None]),
            helper.make_tensor_value_info("block", TensorProto.INT64, [None]),
            helper.make_tensor_value_info("zeros", TensorProto.FLOAT, [None, units]),
            helper.make_tensor_value_info("shape", TensorProto.INT64, [2]),
        ],
        "sparse",
    )
    return dense, sparse


def measure_encodings(documents: list[Document]) -> list[dict[str, float]]:
    """Median ms per page for each projection width, both encodings, plus building the dense input."""
    encoder = BlockEncoder(build_vocabulary(documents), numeric=False)
    encoded = [encoder.encode(d) for d in documents if len(d)]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for units in PROJECTION_UNITS:
            dense, sparse = _sessions(encoder.width, units, Path(folder))
            dense_ms: list[float] = []
            sparse_ms: list[float] = []
            build_ms: list[float] = []
            for page in encoded:
                started = time.perf_counter()
                matrix = page.dense()
                build_ms.append((time.perf_counter() - started) * 1e3)
                block, column = np.nonzero(matrix)
                feed = {
                    "column": column.astype(np.int64),
                    "count": matrix[block, column],
                    "block": block.astype(np.int64),
                    "zeros": np.zeros((len(matrix), units), np.float32),
                    "shape": np.array([len(block), units], np.int64),
                }
                for session, feeds, times in ((dense, {"x": matrix}, dense_ms), (sparse, feed, sparse_ms)):
                    started = time.perf_counter()
                    session.run(None, feeds)
                    times.append((time.perf_counter() - started) * 1e3)
            rows.append(
                {
                    "units": units,
                    "dense_ms": float(np.median(dense_ms)),
                    "sparse_ms": float(np.median(sparse_ms)),
                    "build_dense_ms": float(np.median(build_ms)),
                }
            )
    return rows
