"""The model store verifies what it serves; the session factory refuses what it cannot run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from service.models.store import ModelError, ModelStore
from service.runtime.sessions import CPU, CUDA, active_provider, create_session

from support.paths import REPO


def identity_model() -> bytes:
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "identity",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


ENTRY = {
    "name": "toy",
    "version": "1",
    "opset": 17,
    "inputs": ["x"],
    "outputs": ["y"],
    "feature_schema": "toy",
    "feature_schema_version": 1,
    "training": {"seed": 1},
}


@pytest.fixture
def store(tmp_path: Path) -> ModelStore:
    store = ModelStore(tmp_path)
    store.write(ENTRY, {"model": ("toy/model.onnx", identity_model()), "vocabulary": ("toy/vocab.txt", b"a\nb\n")})
    return store


def test_written_entries_verify_and_load(store: ModelStore) -> None:
    entry, paths = store.verified("toy")
    assert entry.opset == 17
    assert set(paths) == {"model", "vocabulary"}
    session = create_session(paths["model"])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(session.run(None, {"x": x})[0], x)
    assert active_provider(session) == "CPU"


def test_a_corrupt_file_is_refused_with_a_clear_error(store: ModelStore) -> None:
    path = store.root / "toy" / "model.onnx"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="corrupt"):
        store.verified("toy")


def test_a_missing_file_or_model_is_refused(store: ModelStore) -> None:
    (store.root / "toy" / "vocab.txt").unlink()
    with pytest.raises(ModelError, match="missing"):
        store.verified("toy")
    with pytest.raises(ModelError, match="no model named"):
        store.entry("other")


def test_a_malformed_manifest_is_refused(store: ModelStore) -> None:
    manifest = json.loads(store.manifest_path.read_text())
    del manifest["models"]["toy"]["files"]["model"]
    store.manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="no 'model' file"):
        store.entry("toy")
    store.manifest_path.write_text("{not json")
    with pytest.raises(ModelError, match="cannot read"):
        store.names()


def test_an_unloadable_onnx_file_is_a_model_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not an onnx model")
    with pytest.raises(ModelError, match="cannot load"):
        create_session(bad)


@pytest.mark.parametrize("first", ["TensorrtExecutionProvider", CUDA])
def test_any_provider_asked_for_first_but_missing_is_refused_not_run_on_the_next(store: ModelStore, first: str) -> None:
    """TensorRT listed before CUDA and the CPU ran on the CPU, ready, where the README says the start is refused."""
    if first in ort.get_available_providers():
        pytest.skip(f"this machine has {first}")
    _, paths = store.verified("toy")
    with pytest.raises(ModelError, match=first):
        create_session(paths["model"], providers=(first, CUDA, CPU))


def test_the_shipped_manifest_verifies() -> None:
    shipped = ModelStore(REPO / "model_store")
    for name in shipped.names():
        shipped.verified(name)
