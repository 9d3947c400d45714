"""The compiled markup reader (``service/parsing/_markup.pyx``) against the Python reader: the same fields.

Over heads and bodies generated from what the reader looks at (the names a ``<meta>`` is known by, in any
case, with and without values, white space and bytes that are not UTF-8; ``rel`` token lists; titles,
JSON-LD scripts, ``<time>``, microdata dates, ``<h1>`` with nested markup; values past the length cut),
over the malformed pages of tests/support/fuzz_pages.py, and over every WCXB dev and Dragnet page in
tests/eval/test_markup_dev_pages.py. The compiled reader is optional (``make build-ext``): without it
these tests skip, and the fallback test checks that the Python reader then serves.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from service import parsing
from service.parsing import markup
from service.parsing.markup import MAX_TEXT_CHARS, PageMarkup
from service.parsing.walk import python_walk

from support.fuzz_pages import fuzz_corpus
from support.markup_readers import assert_markup_read_alike, compiled_markup

FUZZ_PAGES = 300
FUZZ_SEED = 20261126

_NAMES = ["property", "name", "itemprop", "http-equiv", "content", "NAME", "Content", "rel", "href", "type",
          "datetime", "itemscope", "data-x", "xlink:href"]  # fmt: skip
_VALUES = [
    "", " ", "og:title", " OG:Title ", "author", "datePublished", "DateModified", "canonical", "Canonical author",
    "\tcanonical\n", "canonicals", "application/ld+json", " Application/LD+JSON ", "text/javascript",
    "2026-01-02", "  two  spaces ", "line\nbreak", "tab\there", "\xa0nbsp\xa0", "é accent", "x" * (MAX_TEXT_CHARS + 5),
    "y" * (MAX_TEXT_CHARS - 1) + "é", "&amp; entity", "\u2003em space", "K\u212aelvin",
]  # fmt: skip
_TEXTS = ["", "  ", "Title", " padded ", "two  spaces", "new\nline", "<b>bold</b> inner", "\xa0", "{\"@type\": \"x\"}",
          "z" * (MAX_TEXT_CHARS + 3), "<i>a</i><i>b</i>", "\x85next", "a<br>b", "<br>", "<b>x</b><br/> y",
          "<style>.c{x:1}</style>Name", "a<script>var x;</script>b"]  # fmt: skip
_TAGS = ["meta", "link", "title", "script", "time", "h1", "noscript", "base"]


@st.composite
def _element(draw: st.DrawFn) -> str:
    tag = draw(st.sampled_from(_TAGS))
    attributes = draw(st.lists(st.tuples(st.sampled_from(_NAMES), st.sampled_from([None, *_VALUES])), max_size=4))
    written = "".join(
        f" {name}" if value is None else f' {name}="{value}"' if draw(st.booleans()) else f" {name}='{value}'"
        for name, value in attributes
    )
    return f"<{tag}{written}>{draw(st.sampled_from(_TEXTS))}</{tag}>"


@st.composite
def _page(draw: st.DrawFn) -> str:
    head = "".join(draw(st.lists(_element(), max_size=8)))
    body = "".join(draw(st.lists(_element(), max_size=6)))
    return f"<html><head>{head}</head><body><p>x</p>{body}</body></html>"


@compiled_markup
@settings(max_examples=1500, deadline=None)
@given(_page())
def test_generated_pages_are_read_alike(html: str) -> None:
    assert_markup_read_alike(html)


@compiled_markup
def test_the_fuzz_corpus_is_read_alike() -> None:
    for page in fuzz_corpus(FUZZ_PAGES, FUZZ_SEED):
        assert_markup_read_alike(page)  # invalid UTF-8 reaches the attribute values and the text


@compiled_markup
@pytest.mark.parametrize(
    "html",
    [
        b"",
        b"<head><meta property=og:title content='\xff\xfe broken'><title>\xc3 cut</title></head>",
        b'<head><script type=application/ld+json>{"a": "\xe2\x82"}</script></head>',
        b"<head><link rel='AUTHOR' href=' /me '><link rel=canonical><link href=/x rel=' canonical '></head>",
        b"<head><title></title><title> second </title></head>",
        b"<head><link rel='Canonical author' href></head>",  # matched by both selectors: listed twice by both
        b"<svg><script type=application/ld+json>{}</script><meta itemprop=datePublished content=2020-01-01></svg>",
        b"<h1>a<span>b</span>\n\n<em>c</em></h1>" * 45,
        b"<h1>Programs (US)<br>Your<br><br> <b>Guide</b><br></h1><h1><br></h1>",
    ],
)
def test_edge_pages_are_read_alike(html: bytes) -> None:
    assert_markup_read_alike(html)


@compiled_markup
def test_the_compiled_reader_serves_by_default() -> None:
    assert markup.collect_markup is markup.compiled_collect_markup


@compiled_markup
def test_the_compiled_reader_reads_the_fields() -> None:
    from selectolax.lexbor import LexborHTMLParser  # noqa: PLC0415 - a tree for the reader, as the walk keeps it

    from service.parsing.walk import python_walk  # noqa: PLC0415

    html = (
        "<head><title> A  title </title><meta property='OG:Type' content=' article '>"
        "<link rel='canonical' href=' https://example.com/a '></head>"
        "<h1>Head<b>line</b></h1><time datetime=2026-01-02 itemprop=datePublished>2 Jan</time>"
        '<script type="application/ld+json">{"@type": "NewsArticle"}</script>'
    )
    tree = LexborHTMLParser(html)
    assert tree.root is not None
    assert markup.compiled_collect_markup is not None
    assert markup.compiled_collect_markup(python_walk(tree.root).kept) == PageMarkup(
        title="A title",
        meta=(("og:type", "article"),),
        links=(("canonical", "https://example.com/a"),),
        json_ld=('{"@type": "NewsArticle"}',),
        times=(("2026-01-02", "2 Jan"),),
        headings=("Headline",),
        item_dates=(("datepublished", "2026-01-02"),),
    )


def read_by(reader: str, html: str) -> PageMarkup:
    """What one reader ("python" or "compiled") reads off the nodes the walk keeps of ``html``."""
    read = markup.python_collect_markup if reader == "python" else markup.compiled_collect_markup
    if read is None:
        pytest.skip("compiled markup reader not built (make build-ext)")
    tree = LexborHTMLParser(html)
    assert tree.root is not None
    return read(python_walk(tree.root).kept)


@pytest.mark.parametrize("reader", ["python", "compiled"])
def test_a_heading_reads_a_break_as_a_space_and_its_style_as_nothing(reader: str) -> None:
    heading = "<h1><style>.css-1a{cursor:pointer}</style>Top Programs of 2025 (US)<br>Your Guide to <b>the</b><br>Best"
    read = read_by(reader, heading + "<script>var x = 1;</script></h1><h1><br></h1>")
    assert read.headings == ("Top Programs of 2025 (US) Your Guide to the Best",)


@pytest.mark.parametrize("reader", ["python", "compiled"])
def test_a_json_ld_type_with_parameters_is_json_ld(reader: str) -> None:
    html = '<html><head><script type="Application/LD+JSON; charset=utf-8">{"@type": "Article"}</script></head></html>'
    assert read_by(reader, html).json_ld == ('{"@type": "Article"}',)


def test_without_the_compiled_reader_the_python_reader_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "service.parsing._markup", None)  # as if not built: importing it fails
    monkeypatch.delattr(parsing, "_markup", raising=False)
    assert markup._load_compiled_markup() is None
