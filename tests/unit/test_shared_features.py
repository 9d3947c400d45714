"""The ensemble members' shared feature pass: each shared value is computed once per page, equals what each
member computed for itself before, and a member scores a page the same whether others ran on it first or not."""

from __future__ import annotations

import gc
import gzip
import re
import weakref
from pathlib import Path

import numpy as np
import pytest

from service.backends.registry import default_registry
from service.features.boilernet import lowered_words
from service.features.per_document import per_document
from service.features.shallow import count_words, leaf_script_words, leaf_words, text_features
from service.graph.seeds import subtree_words
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE
from service.settings import Settings

from support.paths import FIXTURES_DIR as FIXTURES

PAGES = sorted(
    [FIXTURES / "article.html", *(FIXTURES / "multilingual").glob("*.html"), *(FIXTURES / "eval").rglob("*.html*")]
)
MEMBERS = ("bilstm", "mlp", "svm", "grf", "boilerpipe")
ENSEMBLES = ("ensemble", "ensemble_cpu")


def _page(path: Path) -> Document:
    raw = path.read_bytes()
    return parse_html(gzip.decompress(raw) if path.suffix == ".gz" else raw)


@pytest.fixture(scope="module")
def registry():
    return default_registry(Settings(model_store_dir=MODEL_STORE))


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_member_scores_a_page_the_same_alone_or_after_the_others(registry, path):
    """Bit for bit: a member that changed a shared value, or read one computed another way, would differ."""
    alone = {name: registry.get(name).classify(_page(path)) for name in (*MEMBERS, *ENSEMBLES)}
    for order in (MEMBERS, MEMBERS[::-1]):
        shared = _page(path)
        for name in (*order, *ENSEMBLES):
            after = registry.get(name).classify(shared)
            assert after.scores.dtype == alone[name].scores.dtype
            assert np.array_equal(after.scores, alone[name].scores), name
            assert np.array_equal(after.labels, alone[name].labels), name


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_the_shared_values_are_what_each_member_computed_for_itself(path):
    document = _page(path)
    assert lowered_words(document) == [re.findall(r"\w+", text.lower()) for text in document.texts]
    assert leaf_words(document).counts.tolist() == [count_words(text) for text in document.texts]
    assert leaf_script_words(document).counts.tolist() == [
        count_words(text, script_words=True) for text in document.texts
    ]
    assert leaf_words(document).word_lengths.tolist() == [
        len(word) for text in document.texts for word in re.findall(r"(?<!\S)\S*?[^\W_]\S*", text)
    ]
    words_below = np.zeros(len(document.elem_tag))
    for leaf, text in enumerate(document.texts):
        for elem in document.ancestors(int(document.block_elem[leaf])):
            words_below[elem] += count_words(text)
    assert subtree_words(document).tolist() == words_below.tolist()
    tokens = document.elem_tokens
    walked = [tuple(t for e in document.ancestors(int(elem)) for t in tokens[e]) for elem in document.block_elem]
    assert document.token_paths == walked


def test_a_shared_value_is_computed_once_per_document_and_goes_with_it():
    calls: list[int] = []

    @per_document
    def blocks(document: Document) -> int:
        calls.append(1)
        return len(document)

    first, second = parse_html(b"<p>one</p><p>two</p>"), parse_html(b"<p>one</p>")
    assert (blocks(first), blocks(first), blocks(second)) == (2, 2, 1)
    assert len(calls) == 2
    gone = weakref.ref(first)
    del first
    gc.collect()
    assert gone() is None  # the cache does not keep a page alive


def test_the_shared_arrays_are_read_only():
    document = parse_html((FIXTURES / "article.html").read_bytes())
    shared = leaf_words(document)
    for array in (shared.counts, shared.word_lengths):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
    features = text_features(document)  # what a member builds from them stays its own
    features.words[0] += 1
    assert text_features(document).words[0] == features.words[0] - 1
