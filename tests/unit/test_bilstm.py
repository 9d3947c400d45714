"""The shipped BiLSTM: verified at load, batch-independent, golden on the fixtures."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from service.backends.bilstm import BilstmBackend
from service.features.boilernet import SCHEMA_VERSION, BlockEncoder, EncodedDocument, Vocabulary
from service.models.store import ModelError, ModelStore
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE

from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR
GOLDEN = FIXTURES / "golden" / "bilstm.json"
GOLDEN_TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def backend() -> BilstmBackend:
    return BilstmBackend(ModelStore(MODEL_STORE))


def synthetic_page(paragraphs: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    words = ["the", "train", "night", "menu", "home", "share", "about", "route", "travel", "cookie"]
    body = []
    for i in range(paragraphs):
        text = " ".join(rng.choice(words, size=int(rng.integers(1, 40))))
        body.append(f"<li><a href='/{i}'>{text}</a></li>" if i % 3 == 0 else f"<p>{text}</p>")
    return "<html><body><nav><ul>" + "".join(body) + "</ul></nav></body></html>"


def pages() -> list[str]:
    return [
        (FIXTURES / "article.html").read_text(),
        synthetic_page(1, 1),
        synthetic_page(7, 2),
        synthetic_page(60, 3),
        synthetic_page(400, 4),
    ]


def test_batched_equals_unbatched(backend: BilstmBackend) -> None:
    encoded = [backend.encode(parse_html(page)) for page in pages()]
    together = backend.infer(encoded)
    for alone_input, batched in zip(encoded, together, strict=True):
        alone = backend.infer([alone_input])[0]
        np.testing.assert_allclose(batched, alone, atol=1e-5, rtol=0)


def test_windows_do_not_change_short_pages_and_cover_long_ones(backend: BilstmBackend) -> None:
    document = parse_html(synthetic_page(3000, 5))
    assert len(document) > backend.window_blocks
    scores = backend.classify(document).scores
    assert scores.shape == (len(document),)
    assert np.isfinite(scores).all()


def test_a_padded_budget_smaller_than_the_batch_splits_it_without_changing_results() -> None:
    small = BilstmBackend(ModelStore(MODEL_STORE), max_padded_blocks=64, window_blocks=64, overlap_blocks=16)
    encoded = [small.encode(parse_html(page)) for page in pages()]
    big = BilstmBackend(ModelStore(MODEL_STORE), window_blocks=64, overlap_blocks=16)
    for a, b in zip(small.infer(encoded), big.infer(encoded), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)


def test_empty_document(backend: BilstmBackend) -> None:
    labels = backend.classify(parse_html(b""))
    assert labels.scores.shape == (0,)
    assert labels.labels.shape == (0,)


def test_golden_scores_on_the_fixture_article(backend: BilstmBackend) -> None:
    scores = backend.classify(parse_html((FIXTURES / "article.html").read_bytes())).scores
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps({"model_version": backend.version, "scores": scores.tolist()}, indent=0) + "\n")
    golden = json.loads(GOLDEN.read_text())
    assert golden["model_version"] == backend.version, "the model changed: rerun with UPDATE_GOLDEN=1 and review"
    np.testing.assert_allclose(scores, np.asarray(golden["scores"], dtype=np.float32), atol=GOLDEN_TOLERANCE, rtol=0)


def test_the_article_body_is_content_and_the_chrome_is_not(backend: BilstmBackend) -> None:
    document = parse_html((FIXTURES / "article.html").read_bytes())
    labels = backend.classify(document).labels
    kept = " ".join(t for t, keep in zip(document.texts, labels, strict=True) if keep)
    assert "Rolling stock became available again" in kept
    assert "We use cookies" not in kept
    assert "All rights reserved" not in kept


def copy_store(tmp_path: Path) -> ModelStore:
    shutil.copytree(MODEL_STORE, tmp_path / "store")
    return ModelStore(tmp_path / "store")


def test_a_corrupt_model_is_refused_at_load(tmp_path: Path) -> None:
    store = copy_store(tmp_path)
    model = store.root / store.entry("bilstm").files["model"]["path"]
    data = bytearray(model.read_bytes())
    data[-100] ^= 0x01
    model.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="corrupt"):
        BilstmBackend(store)


def test_a_feature_schema_mismatch_is_refused(tmp_path: Path) -> None:
    store = copy_store(tmp_path)
    manifest = json.loads(store.manifest_path.read_text())
    manifest["models"]["bilstm"]["feature_schema_version"] = SCHEMA_VERSION + 1
    store.manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="retrain"):
        BilstmBackend(store)


def test_a_manifest_that_disagrees_with_the_vocabulary_on_class_tokens_is_refused(tmp_path: Path) -> None:
    store = copy_store(tmp_path)
    manifest = json.loads(store.manifest_path.read_text())
    manifest["models"]["bilstm"]["config"]["class_tokens"] = 150
    store.manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="class tokens"):
        BilstmBackend(store)


def test_dense_windows_of_the_sparse_encoding_match_the_whole(backend: BilstmBackend) -> None:
    encoded: EncodedDocument = backend.encode(parse_html(synthetic_page(100, 6)))
    whole = encoded.dense()
    np.testing.assert_array_equal(encoded.dense(10, 50), whole[10:50])
    assert whole.shape[1] == backend.encoder.width


def test_dense_counts_every_occurrence_of_a_word_in_its_block() -> None:
    encoder = BlockEncoder(Vocabulary(words=("apple", "pear"), tags=("p",)), numeric=False)
    encoded = encoder.encode(parse_html("<p>Apple apple pear kiwi kiwi kiwi</p><p>pear</p>"))
    words = encoded.dense()[:, :3]  # apple, pear, the out-of-vocabulary slot
    assert words.tolist() == [[2, 1, 3], [0, 1, 0]]
    assert encoded.dense(1, 2)[:, :3].tolist() == [[0, 1, 0]]


def test_a_variant_is_served_under_its_own_name(tmp_path: Path) -> None:
    store = copy_store(tmp_path)
    manifest = json.loads(store.manifest_path.read_text())
    manifest["models"]["bilstm_paper"] = {**manifest["models"]["bilstm"], "name": "bilstm_paper"}
    store.manifest_path.write_text(json.dumps(manifest))
    variant = BilstmBackend(store, model_name="bilstm_paper")
    assert variant.name == "bilstm_paper"
    document = parse_html((FIXTURES / "article.html").read_bytes())
    np.testing.assert_array_equal(variant.classify(document).scores, BilstmBackend(store).classify(document).scores)


@pytest.fixture(scope="module")
def int8_backend() -> BilstmBackend:
    return BilstmBackend(ModelStore(MODEL_STORE), model_name="bilstm_int8")


def test_the_int8_model_runs_each_document_alone_and_stays_out_of_the_micro_batcher(
    int8_backend: BilstmBackend,
) -> None:
    assert int8_backend.per_document and not int8_backend.batched
    encoded = [int8_backend.encode(parse_html(page)) for page in pages()]
    together = int8_backend.infer(encoded)
    for alone_input, batched in zip(encoded, together, strict=True):
        np.testing.assert_array_equal(batched, int8_backend.infer([alone_input])[0])


def test_the_int8_model_labels_the_fixture_article_as_the_float_model_does(
    backend: BilstmBackend, int8_backend: BilstmBackend
) -> None:
    document = parse_html((FIXTURES / "article.html").read_text())
    float_scores = backend.infer([backend.encode(document)])[0]
    int8_scores = int8_backend.infer([int8_backend.encode(document)])[0]
    assert int8_backend.threshold == backend.threshold
    np.testing.assert_allclose(int8_scores, float_scores, atol=0.1)
    assert np.mean((int8_scores >= backend.threshold) == (float_scores >= backend.threshold)) >= 0.95
