"""The compiled attribute-name scan (``service/parsing/_budget.pyx``) against the Python scan: the same count.

Over tag soup generated from the tokens the scan tells apart, and over the walk's corpus of malformed
pages (tests/eval/test_budget_scan_pages.py does every WCXB dev and Dragnet page). The compiled scan is
optional (``make build-ext``): without it these tests skip, and the fallback test checks that the
Python scan then serves. The two against Lexbor, and on adversarial input, are in test_page_budget.py.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service import parsing
from service.parsing import budget

from support.fuzz_pages import fuzz_corpus
from support.scans import assert_scans_agree, compiled

FUZZ_PAGES = 400
FUZZ_SEED = 20261126

# What the scan's rules turn on: tag and comment openers and closers, quotes, "=", "/", white space, the
# raw-text and foreign elements' names (in two cases), and letters that make other names and values.
_TOKENS = [
    "<", ">", "</", "<!--", "-->", "--!>", "-", "!", "<!", "<?", '"', "'", "=", "/", " ", "\t", "\n", "\f", "\r",
    "script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "svg", "math", "frameset",
    "SCRIPT", "Svg", "MATH", "a", "b", "B", "x", "id", "=x", "1", "\xc3\xa9",
]  # fmt: skip
# Whole tags and comments among them, so that names follow what opens and closes the scan's states.
_PIECES = [
    "<p a b=1>", "<b c='x q>'>", '<i d="x" e=/>', "<P A>", "<x-y =z>", "</p e f>", "<!-->", "<!--->", "<!-- c -->",
    "<svg>", "</svg>", "<math>", "</math>", "<frameset>", "<style>", "</style>", "<script>", "</script ",
    "<title>", "</TITLE>", "<textarea x>", "</textarea>",
]  # fmt: skip

tag_soup = st.lists(st.sampled_from(_TOKENS + _PIECES), max_size=80).map(lambda parts: "".join(parts).encode("latin-1"))


@compiled
@settings(max_examples=3000, deadline=None)
@given(tag_soup)
def test_tag_soup_is_counted_alike(page: bytes) -> None:
    assert_scans_agree(page)


@compiled
def test_the_walks_fuzz_corpus_is_counted_alike() -> None:
    for page in fuzz_corpus(FUZZ_PAGES, FUZZ_SEED):
        assert_scans_agree(page)


@compiled
def test_the_compiled_scan_serves_by_default() -> None:
    assert budget.count_attribute_names is budget.compiled_count_attribute_names


def test_without_the_compiled_scan_the_python_scan_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "service.parsing._budget", None)  # as if not built: importing it fails
    monkeypatch.delattr(parsing, "_budget", raising=False)
    assert budget.load_compiled_scan("count_attribute_names") is None
    assert budget.python_count_attribute_names(b"<p a B=1><b a>") == 2
