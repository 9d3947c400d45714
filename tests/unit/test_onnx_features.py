"""The generic feature-matrix backend: what it refuses at start, and what it returns per page."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from service.backends import mlp, onnx_features, svm
from service.backends.onnx_features import FeatureSchema, OnnxFeatureBackend
from service.backends.registry import default_registry
from service.models.store import ModelError, ModelStore
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE

from support.paths import FIXTURES_DIR

ARTICLE = FIXTURES_DIR / "article.html"
SHIPPED = ModelStore(MODEL_STORE)


def copy_model(name: str, root: Path, **changes: object) -> ModelStore:
    """The shipped model ``name`` written into a store at ``root``, its entry fields updated by ``changes``."""
    entry, paths = SHIPPED.verified(name)
    fields = {k: v for k, v in entry.to_json().items() if k != "files"} | changes
    files = {role: (entry.files[role]["path"], paths[role].read_bytes()) for role in entry.files}
    store = ModelStore(root)
    store.write(fields, files)
    return store


@pytest.fixture
def mlp_store(tmp_path: Path) -> ModelStore:
    return copy_model("mlp", tmp_path)


def test_a_page_gets_a_score_per_leaf_and_labels_at_the_manifest_threshold(mlp_store: ModelStore) -> None:
    backend = mlp.load_mlp(mlp_store)
    document = parse_html(ARTICLE.read_bytes())
    result = backend.classify(document)
    assert result.scores.shape == (len(document),)
    assert result.scores.dtype == np.float32
    assert 0 <= result.scores.min() <= result.scores.max() <= 1
    np.testing.assert_array_equal(result.labels, result.scores >= backend.threshold)
    assert backend.threshold == mlp_store.entry("mlp").config["threshold"]
    assert (backend.name, backend.kind, backend.execution_provider) == ("mlp", "onnx", "CPU")


def test_an_empty_page_gets_empty_arrays(mlp_store: ModelStore) -> None:
    result = mlp.load_mlp(mlp_store).classify(parse_html("<html><body><div></div></body></html>"))
    assert result.scores.shape == result.labels.shape == (0,)


def test_paragraph_units_give_every_leaf_its_units_score(tmp_path: Path) -> None:
    config = SHIPPED.entry("mlp").config | {"units": "paragraphs"}
    backend = mlp.load_mlp(copy_model("mlp", tmp_path, config=config))
    scores = backend.classify(parse_html("<html><body><p>A <b>b</b> c</p><p>d</p></body></html>")).scores
    assert scores[0] == scores[1] == scores[2]


def test_a_model_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    store = copy_model("mlp", tmp_path, feature_schema_version=mlp.SCHEMA.version + 1)
    with pytest.raises(ModelError, match="retrain"):
        mlp.load_mlp(store)


def test_a_model_of_another_schema_is_refused(tmp_path: Path) -> None:
    store = copy_model("mlp", tmp_path, feature_schema="svm-features")
    with pytest.raises(ModelError, match="reads features svm-features"):
        mlp.load_mlp(store)


def test_a_corrupt_model_is_refused_at_start(mlp_store: ModelStore) -> None:
    path = mlp_store.root / "mlp" / "model.onnx"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="corrupt"):
        mlp.load_mlp(mlp_store)


def test_a_model_of_another_width_is_refused(mlp_store: ModelStore) -> None:
    narrow = FeatureSchema(mlp.SCHEMA.name, mlp.SCHEMA.version, mlp.SCHEMA.width - 1)
    with pytest.raises(ModelError, match="takes 37 features"):
        OnnxFeatureBackend(mlp_store, "mlp", narrow, lambda entry, paths: mlp.texrex_features)


def test_unknown_units_are_refused(tmp_path: Path) -> None:
    store = copy_model("mlp", tmp_path, config=SHIPPED.entry("mlp").config | {"units": "sentences"})
    with pytest.raises(ModelError, match="unknown units"):
        mlp.load_mlp(store)


def test_the_svm_needs_its_ten_tokens(tmp_path: Path) -> None:
    store = copy_model("svm", tmp_path)
    tokens = store.root / "svm" / "tokens.json"
    assert len(json.loads(tokens.read_text())) == svm.TOKEN_FEATURES
    svm.load_svm(store)
    fields = {k: v for k, v in store.entry("svm").to_json().items() if k != "files"}
    store.write(fields, {"model": ("svm/model.onnx", (store.root / "svm" / "model.onnx").read_bytes())})
    with pytest.raises(ModelError, match="no 'tokens' file"):
        svm.load_svm(store)
    store.write(fields, {"model": ("svm/model.onnx", b""), "tokens": ("svm/tokens.json", b'["nav"]')})
    with pytest.raises(ModelError, match="10 tokens"):
        svm.load_svm(store)


@pytest.mark.parametrize("name", ["svm", "mlp", "gbt"])
def test_a_page_of_more_units_than_one_call_takes_is_scored_as_in_one_call(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scored in slices (a 103,511-unit page's SVM features took 1 GB in one call), each row as it was."""
    backend = default_registry().get(name)
    assert isinstance(backend, OnnxFeatureBackend)
    document = parse_html((FIXTURES_DIR / "article.html").read_bytes())
    whole = backend.scores(document)
    monkeypatch.setattr(onnx_features, "MAX_ROWS_PER_CALL", 3)
    np.testing.assert_allclose(backend.scores(document), whole, rtol=0, atol=1e-6)
    assert len(document) > 3
