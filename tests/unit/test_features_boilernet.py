"""BoilerNet's block encoding: the class-token and candidate groups are optional and leave the v1 input untouched."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import onnx
import pytest

from service.backends.bilstm import INPUT_NAME, LENGTHS_NAME, VARIANTS, BilstmBackend
from service.features.boilernet import (
    NUMERIC_FEATURES,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    BlockEncoder,
    Vocabulary,
    build_vocabulary,
    numeric_features,
)
from service.features.candidates import FEATURES as CANDIDATE_FEATURES
from service.features.candidates import candidate_features
from service.models.store import ModelError, ModelStore
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE
from service.runtime.windows import zero_batch

from support.paths import FIXTURES_DIR as FIXTURES

# sha256 of each shipped model's input on the fixture article, as the v1 encoder (before class tokens) computed it.
GOLDEN_INPUTS = FIXTURES / "golden" / "bilstm_inputs.json"
OUTPUT_NAME = "content_probability"

PAGE = """<html><body class="has-sidebar"><div id="post-123" class="entry-content"><p>Hello world</p></div>
<aside class="sidebar widget"><ul class="widget-list"><li>One link</li></ul></aside><p>Plain</p></body></html>"""
WORDS = ("hello", "link")
TAGS = ("p", "li")


def test_without_class_tokens_the_layout_is_words_tags_numeric() -> None:
    vocabulary = Vocabulary(words=WORDS, tags=TAGS)
    encoder = BlockEncoder(vocabulary, numeric=True)
    assert encoder.width == len(WORDS) + 1 + len(TAGS) + 1 + len(NUMERIC_FEATURES)
    assert "classes" not in json.loads(vocabulary.to_json())
    assert Vocabulary.from_json(vocabulary.to_json()) == vocabulary
    assert encoder.encode(parse_html(PAGE)).block_classes is None


def test_class_tokens_add_their_columns_between_the_tags_and_the_numeric_inputs() -> None:
    document = parse_html(PAGE)
    classes = ("widget", "entry", "sidebar")
    plain = BlockEncoder(Vocabulary(words=WORDS, tags=TAGS), numeric=True).encode(document).dense()
    vocabulary = Vocabulary(words=WORDS, tags=TAGS, classes=classes)
    encoder = BlockEncoder(vocabulary, numeric=True)
    dense = encoder.encode(document).dense()
    assert Vocabulary.from_json(vocabulary.to_json()) == vocabulary
    assert encoder.width == plain.shape[1] + len(classes) + 1 == dense.shape[1]
    bags = len(WORDS) + 1 + len(TAGS) + 1
    np.testing.assert_array_equal(dense[:, :bags], plain[:, :bags])
    np.testing.assert_array_equal(dense[:, bags + len(classes) + 1 :], plain[:, bags:])
    counts = dense[:, bags : bags + len(classes) + 1]  # widget, entry, sidebar, out of vocabulary
    assert document.texts == ["Hello world", "One link", "Plain"]
    # post (its digits dropped) and content are out of vocabulary; the body's has-sidebar names the layout, not a block
    assert counts.tolist() == [[0, 1, 0, 2], [2, 0, 1, 1], [0, 0, 0, 0]]


def test_candidate_scores_add_their_columns_last_and_leave_the_rest_as_it_was() -> None:
    prose = "A paragraph long enough to be scored, with commas, as articles have them. " * 2
    document = parse_html(f"<html><body><div><p>{prose}</p><p>{prose}</p></div>{PAGE[12:]}")
    vocabulary = Vocabulary(words=WORDS, tags=TAGS, classes=("widget", "sidebar"))
    plain = BlockEncoder(vocabulary, numeric=True).encode(document).dense()
    encoder = BlockEncoder(vocabulary, numeric=True, candidates=True)
    dense = encoder.encode(document).dense()
    assert encoder.width == plain.shape[1] + len(CANDIDATE_FEATURES) == dense.shape[1]
    np.testing.assert_array_equal(dense[:, : plain.shape[1]], plain)
    np.testing.assert_array_equal(dense[:, plain.shape[1] :], candidate_features(document).astype(np.float32))
    assert dense[:2, -3].tolist() == [1.0, 1.0]  # the two paragraphs are in the best-scored element
    np.testing.assert_array_equal(encoder.encode(document).dense(1, 3), dense[1:3])


def test_class_words_are_counted_once_per_block_under_their_element() -> None:
    vocabulary = build_vocabulary([parse_html(PAGE)], class_words=2)
    assert vocabulary.classes == ("widget", "content")  # widget twice over one block; ties alphabetically
    assert build_vocabulary([parse_html(PAGE)]).classes is None


def test_windows_of_the_class_group_match_the_whole() -> None:
    rows = "".join(f"<div class='c{i % 7} row'><p>text {i}</p></div>" for i in range(50))
    document = parse_html(f"<html><body><main class='feed'>{rows}</main></body></html>")
    encoder = BlockEncoder(build_vocabulary([document], class_words=5), numeric=False)
    encoded = encoder.encode(document)
    np.testing.assert_array_equal(encoded.dense(10, 30), encoded.dense()[10:30])


@pytest.mark.parametrize("name", VARIANTS)
def test_the_shipped_models_read_the_v1_input_bit_for_bit(name: str) -> None:
    backend = BilstmBackend(ModelStore(MODEL_STORE), model_name=name)
    golden = json.loads(GOLDEN_INPUTS.read_text())[name]
    assert golden["model_version"] == backend.version, "the model changed: recompute its input digest and review"
    dense = backend.encode(parse_html((FIXTURES / "article.html").read_bytes())).dense()
    assert hashlib.sha256(dense.tobytes()).hexdigest() == golden["input_sha256"]


def class_word_model(width: int, column: int) -> onnx.ModelProto:
    """A stand-in for a trained model: the probability is sigmoid(4 × (the count in ``column`` − 0.5))."""
    weight = np.zeros((width, 1), dtype=np.float32)
    weight[column] = 4.0
    nodes = [
        onnx.helper.make_node("MatMul", [INPUT_NAME, "weight"], ["logit"]),
        onnx.helper.make_node("Add", ["logit", "bias"], ["shifted"]),
        onnx.helper.make_node("Sigmoid", ["shifted"], ["probability"]),
        onnx.helper.make_node("Squeeze", ["probability", "last"], [OUTPUT_NAME]),
    ]
    graph = onnx.helper.make_graph(
        nodes,
        "class-word",
        [
            onnx.helper.make_tensor_value_info(INPUT_NAME, onnx.TensorProto.FLOAT, [None, None, width]),
            onnx.helper.make_tensor_value_info(LENGTHS_NAME, onnx.TensorProto.INT32, [None]),
        ],
        [onnx.helper.make_tensor_value_info(OUTPUT_NAME, onnx.TensorProto.FLOAT, [None, None])],
        [
            onnx.numpy_helper.from_array(weight, "weight"),
            onnx.numpy_helper.from_array(np.array([-2.0], np.float32), "bias"),
            onnx.numpy_helper.from_array(np.array([-1], np.int64), "last"),
        ],
    )
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)], ir_version=8)


SIDEBAR_COLUMN = len(WORDS) + 1 + len(TAGS) + 1 + 1  # the class word "sidebar"


def store_with_class_tokens(
    root: Path, *, class_tokens: int, candidates: bool = False, column: int = SIDEBAR_COLUMN
) -> ModelStore:
    """A store whose ``bilstm`` reads class tokens (and the candidate scores) and answers from ``column``."""
    vocabulary = Vocabulary(words=WORDS, tags=TAGS, classes=("widget", "sidebar"))
    width = BlockEncoder(vocabulary, numeric=True, candidates=candidates).width
    config = {"numeric": True, "class_tokens": class_tokens, "width": width, "threshold": 0.5}
    store = ModelStore(root)
    store.write(
        {
            "name": "bilstm",
            "version": "test",
            "opset": 17,
            "inputs": [INPUT_NAME, LENGTHS_NAME],
            "outputs": [OUTPUT_NAME],
            "feature_schema": SCHEMA_NAME,
            "feature_schema_version": SCHEMA_VERSION,
            "config": {**config, "candidates": True} if candidates else config,
        },
        {
            "model": ("bilstm/model.onnx", class_word_model(width, column % width).SerializeToString()),
            "vocabulary": ("bilstm/vocabulary.json", vocabulary.to_json().encode()),
        },
    )
    return store


def test_a_class_token_model_is_served_with_its_class_columns(tmp_path: Path) -> None:
    backend = BilstmBackend(store_with_class_tokens(tmp_path, class_tokens=2))
    labels = backend.classify(parse_html(PAGE)).labels
    assert labels.tolist() == [False, True, False]  # only the block under class="sidebar"


def test_a_model_that_reads_the_candidate_scores_is_served_with_them(tmp_path: Path) -> None:
    in_best = -len(CANDIDATE_FEATURES) + CANDIDATE_FEATURES.index("in_best")
    backend = BilstmBackend(store_with_class_tokens(tmp_path, class_tokens=2, candidates=True, column=in_best))
    prose = "A paragraph long enough to be scored, with commas, as articles have them."
    document = parse_html(f"<html><body><nav><a href=/>Home</a></nav><div><p>{prose}</p></div></body></html>")
    assert backend.classify(document).labels.tolist() == [False, True]  # the paragraph is in the best element


def test_a_class_token_vocabulary_without_the_manifest_flag_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="class tokens"):
        BilstmBackend(store_with_class_tokens(tmp_path, class_tokens=0))


# Leaves that end like a sentence (with a closer or without), or nearly; symbols, an underscore, non-Latin
# punctuation, one-character leaves and a character beyond U+FFFF (such leaves are read by the regexes).
ENDINGS_PAGE = """<html><body><p>He said "yes."</p><p>(see above)</p><p>Listed:</p><p>a_b c</p><p>.</p>
<p>)</p><p>Wow!!</p><pre>code;
</pre><pre>done.)
</pre><pre>two breaks.

</pre><p>naïve — «quoted»… ¿qué? 3.14 © | ~</p><p>emoji 😀 here!</p><p>😀</p><p>It's [sic]</p></body></html>"""


def test_numeric_punctuation_and_sentence_ends_are_what_the_regexes_say() -> None:
    document = parse_html(ENDINGS_PAGE)
    texts = document.texts
    rows = numeric_features(document, np.ones(len(texts)))
    symbols = np.array([len(re.findall(r"[^\w\s]", t)) / max(len(t), 1) for t in texts], dtype=np.float32)
    ends = [re.search(r"[.!?…:]['\")\]]?$", t) is not None for t in texts]
    assert sum(ends) >= 6 and not all(ends)  # the page has both kinds
    np.testing.assert_array_equal(rows[:, NUMERIC_FEATURES.index("punctuation_share")], symbols)
    np.testing.assert_array_equal(rows[:, NUMERIC_FEATURES.index("sentence_end")], np.array(ends, dtype=np.float32))


def test_a_window_written_into_a_padded_batch_row_is_the_window_alone() -> None:
    document = parse_html(PAGE + "<p>Hello again</p><ul><li>link link</li></ul>")
    encoded = BlockEncoder(Vocabulary(words=WORDS, tags=TAGS, classes=("widget",)), numeric=True).encode(document)
    batch, lengths = zero_batch([len(encoded) - 1, 2], encoded.width)
    written = encoded.dense(1, len(encoded), out=batch[0, : lengths[0]])
    encoded.dense(0, 2, out=batch[1, : lengths[1]])
    assert np.shares_memory(written, batch)  # the batch's own row, not a copy
    np.testing.assert_array_equal(batch[0, : lengths[0]], encoded.dense(1))
    np.testing.assert_array_equal(batch[1, :2], encoded.dense(0, 2))
    assert not batch[1, 2:].any()  # the shorter window's padding stays zero
    with pytest.raises(ValueError, match="contiguous"):  # a strided view would take the counts into a copy
        encoded.dense(0, 2, out=np.zeros((2, encoded.width * 2), dtype=np.float32)[:, ::2])
