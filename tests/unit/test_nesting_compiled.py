"""The compiled block nesting depth (``deepest_block_nesting`` in ``service/parsing/_budget.pyx``) against the
Python scan of :mod:`service.parsing.nesting`: the same depth.

Over tag soup generated from what the nesting pattern turns on (block-level names in any case, names they
start ("dl", "dlx", "menuitem"), "/" before and after, every white space of a bytes pattern, a ">" missing
at the end), over the walk's malformed pages, and over every WCXB dev and Dragnet page in
tests/eval/test_budget_scan_pages.py. Without the compiled scan these skip and the Python scan serves.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service import parsing
from service.parsing import nesting
from service.parsing.nesting import MAX_BLOCK_NESTING, flatten_deep_nesting

from support.fuzz_pages import fuzz_corpus
from support.scans import assert_depths_agree

compiled_depth = pytest.mark.skipif(
    nesting.compiled_deepest_block_nesting is None, reason="compiled byte scans not built (make build-ext)"
)
FUZZ_PAGES = 300
FUZZ_SEED = 20261126
_TOKENS = [
    "<", "</", ">", "/", " ", "\t", "\n", "\x0b", "\x0c", "\r", "div", "DIV", "Div", "dl", "dlx", "dialog", "dir",
    "menu", "menuitem", "section", "figcaption", "figure", "hgroup", "ul", "ol", "p", "span", "x", "=", "'", '"',
]  # fmt: skip


_NAMES = ["div", "DIV", "Div", "dl", "dlx", "dialog", "dir", "menu", "menuitem", "figcaption", "hgroup", "p", "span"]
_AFTER_NAME = [">", "/>", " >", "\t", "\n", "\x0b", "\x0c", "\r", "x>", "", " a='>'>"]
# Whole tags, so that most candidates are complete: "<", an optional "/", a name, what follows it.
_TAGS = st.builds(
    lambda slash, name, after: f"<{slash}{name}{after}",
    st.sampled_from(["", "/", "/ ", " "]),
    st.sampled_from(_NAMES),
    st.sampled_from(_AFTER_NAME),
)
_SOUP = st.lists(st.one_of(_TAGS, st.sampled_from(_TOKENS)), max_size=40).map(lambda parts: "".join(parts).encode())


@compiled_depth
@settings(max_examples=3000, deadline=None)
@given(_SOUP)
def test_generated_soup_has_the_same_depth(page: bytes) -> None:
    assert_depths_agree(page)


@compiled_depth
def test_the_fuzz_corpus_has_the_same_depth() -> None:
    for page in fuzz_corpus(FUZZ_PAGES, FUZZ_SEED):
        assert_depths_agree(page)


@compiled_depth
@pytest.mark.parametrize(
    ("page", "depth"),
    [
        (b"", 0),
        (b"<div><DIV\t><section/>", 3),
        (b"</div></div><div>", 1),  # end tags never take it below 0
        (b"<div><dlx><menuitem><dl >", 2),
        (b"<div><div", 1),  # no ">" after the last: it is no tag
        (b"</ div><div\x0b>", 1),
        (b"<div\r><dl\x0c/><ul\n>", 3),  # every white space of a bytes pattern ends a name
    ],
)
def test_the_depth_of_edge_pages(page: bytes, depth: int) -> None:
    assert nesting.deepest_block_nesting(page) == depth
    assert_depths_agree(page)


@compiled_depth
def test_the_compiled_depth_serves_and_a_deep_page_is_still_flattened() -> None:
    assert nesting.deepest_block_nesting is nesting.compiled_deepest_block_nesting
    page = b"<div>" * (MAX_BLOCK_NESTING + 20000) + b"deep"
    assert flatten_deep_nesting(page).count(b"<div>") == MAX_BLOCK_NESTING


def test_without_the_compiled_scans_the_python_depth_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "service.parsing._budget", None)  # as if not built: importing it fails
    monkeypatch.delattr(parsing, "_budget", raising=False)
    assert nesting.load_compiled_scan("deepest_block_nesting") is None
    assert nesting.python_deepest_block_nesting(b"<div><ul></ul>") == 2
