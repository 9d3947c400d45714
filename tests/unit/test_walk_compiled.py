"""The compiled block walk (``service/parsing/_walk.pyx``) against the Python walk: the same columns, bit for bit.

The same kept nodes too (<head>, <script>, <time>, <h1>, body <meta>, in document order), so the page's markup
(:func:`collect_markup`) and the metadata read from it are the same whichever walk ran.

Over a corpus of malformed pages from tests/support/fuzz_pages.py (tests/eval/test_walk_dev_pages.py does every WCXB dev
page). The compiled walk is optional (``make build-ext``): without it these
tests skip, and the fallback test checks that the Python walk then serves.
"""

from __future__ import annotations

import logging

import pytest
from selectolax.lexbor import LexborHTMLParser

from service.parsing import lexbor
from service.parsing.decode import to_utf8
from service.parsing.lexbor import parse_html
from service.parsing.walk import python_walk

from support.fuzz_pages import fuzz_corpus
from support.walks import assert_walks_agree, compiled

FUZZ_PAGES = 400
FUZZ_SEED = 20261125


@compiled
def test_the_fuzz_corpus_is_walked_alike_raw_and_through_parse_html() -> None:
    for page in fuzz_corpus(FUZZ_PAGES, FUZZ_SEED):
        assert_walks_agree(page)  # the bytes as they are: invalid UTF-8 reaches Lexbor's text nodes
        one, other = parse_html(page, walk=lexbor.compiled_walk), parse_html(page, walk=python_walk)
        assert one.texts == other.texts and one.elem_tag == other.elem_tag
        assert one.markup == other.markup and one.author_marks == other.author_marks


@compiled
@pytest.mark.parametrize(
    "html",
    [
        "",
        "plain",
        "<pre>\n  code\n\n  more\r\n</pre><p>a <br> b</p>",
        "<textarea>\r\n x \n</textarea><a href=#><b>in link</b></a>",
        "<p>\xa0\u3000 \xa0</p><pre>\xa0\n\xa0</pre><p>\u2028x\x85</p>",
        "<x-a><x-b>custom</x-b></x-a><x-a>again</x-a>",
        "<span>" * 600 + "deep" + "</span>" * 600,
        "<head><title>T</title><script>var a</script><meta name=author content=A></head><h1>H</h1>"
        "<script type=application/ld+json>{}</script><p><time datetime=2026-01-02>2 Jan</time></p>",
        "<h1><h1>nested</h1></h1><head><script>late</script></head><svg><script>in svg</script></svg>",
        "<span>" * 600 + "<time>deep</time><h1>deeper</h1><script>x</script>" + "</span>" * 600,
        '<a rel="author nofollow" href=/u>A</a><span itemprop=author>B</span><p itemprop rel>C</p><b ITEMPROP=x>D</b>',
    ],
)
def test_edge_pages_are_walked_alike(html: str) -> None:
    assert_walks_agree(to_utf8(html)[0])


@compiled
def test_the_compiled_walk_serves_by_default() -> None:
    assert lexbor.DEFAULT_WALK is lexbor.compiled_walk


def test_a_walk_built_for_another_selectolax_is_refused(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("service.parsing._walk", reason="compiled walk not built (make build-ext)")
    monkeypatch.setattr(lexbor.selectolax, "__version__", "0.0.0-other")
    with caplog.at_level(logging.WARNING, logger=lexbor.__name__):
        assert lexbor._load_compiled_walk() is None
    assert "0.0.0-other" in caplog.text


@compiled
def test_the_kept_nodes_are_the_markup_tags_outside_skipped_subtrees_in_document_order() -> None:
    html = "<head><script>in head</script></head><h1>H</h1><svg><script>in svg</script></svg><p><time>t</time></p>"
    tree = LexborHTMLParser(html)
    assert tree.root is not None and lexbor.compiled_walk is not None
    kept = lexbor.compiled_walk(tree.root).kept
    assert [node.tag for node in kept] == ["head", "h1", "time"]
    assert_walks_agree(html.encode())
