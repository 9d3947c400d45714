"""The compiled block walk (``service/parsing/_walk.pyx``) against the Python walk: the same columns, bit for bit.

The same kept nodes too (<head>, <script>, <time>, <h1>, in document order), so the page's markup
(:func:`collect_markup`) and the metadata read from it are the same whichever walk ran.

Over a corpus of malformed pages generated here (tests/eval/test_walk_dev_pages.py does every WCXB dev
page). The compiled walk is optional (``make build-ext``): without it these
tests skip, and the fallback test checks that the Python walk then serves.
"""

from __future__ import annotations

import logging
import random

import pytest
from selectolax.lexbor import LexborHTMLParser

from service.parsing import lexbor
from service.parsing.decode import to_utf8
from service.parsing.lexbor import parse_html, python_walk

from support.walks import assert_walks_agree, compiled

FUZZ_PAGES = 400
FUZZ_SEED = 20261125

# Pieces malformed pages are made of: unclosed and stray tags, what the walk treats specially
# (pre, a, br, skipped subtrees, comments, doctypes, custom elements), white space of every kind
# Python knows (and some it does not), control characters, entities, and bytes that are no UTF-8.
_TAGS = [
    "div",
    "p",
    "span",
    "b",
    "a href=x",
    "pre",
    "textarea",
    "li",
    "td",
    "table",
    "tr",
    "h1",
    "x-card",
    "my-el",
    "time datetime=2026-11-25",
    "time",
    "head",
    "meta name=author content=A",
    "link rel=canonical href=/c",
]
_SKIPPED = [
    "script",
    "style",
    "template",
    "svg",
    "math",
    "iframe",
    "select",
    "noscript",
    "head",
    "title",
    "script type=application/ld+json",
]
_TEXTS = [
    "word", "two  words", " lead", "trail ", "\tTab\t", "line\nbreak", "\r\ncrlf\r\n", "\x0bvt\x0c", "\x1cfs\x1f",
    "\xa0nbsp\xa0", "\u3000ideo\u3000", "\u2028sep", "\x85nel", "caf\xe9", "\u200bzw", "\x00nul", "\x7fdel",
    "&amp;&lt;&nbsp;&#0;&#x110000;", "   ", "\n\n", "\xa0", "\u2009", "a\x01b", "<![CDATA[x]]>", "&", "<",
]  # fmt: skip
_RAW = [b"\xff\xfe", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98\x80", b"\xed\xa0\x80", b"\x80\x80"]


def fuzz_page(rng: random.Random) -> bytes:
    """One malformed page: a random soup of the pieces above, sometimes nested past the depth cap."""
    parts: list[bytes] = []
    if rng.random() < 0.5:
        parts.append(rng.choice([b"<!doctype html>", b"<!DOCTYPE>", b"<?xml?>", b"<html lang=en>"]))
    for _ in range(rng.randint(1, 120)):
        roll = rng.random()
        if roll < 0.3:
            parts.append(f"<{rng.choice(_TAGS)}>".encode())
        elif roll < 0.45:
            parts.append(f"</{rng.choice(_TAGS).split()[0]}>".encode())
        elif roll < 0.5:
            tag = rng.choice(_SKIPPED)
            parts.append(f"<{tag}>{rng.choice(_TEXTS)}</{tag.split()[0]}>".encode())
        elif roll < 0.55:
            parts.append(rng.choice([b"<br>", b"<br/>", b"</br>", b"<!-- c -->", b"<!--", b"<!doctype x>", b"<hr>"]))
        elif roll < 0.6:
            parts.append(rng.choice(_RAW))
        else:
            parts.append(rng.choice(_TEXTS).encode())
    if rng.random() < 0.1:  # deeper than MAX_DEPTH in inline elements (block ones are flattened before parsing)
        depth = lexbor.MAX_DEPTH + rng.randint(-3, 40)
        parts.insert(rng.randrange(len(parts) + 1), b"<span>" * depth + b"deep <b>text</b>" + b"</span>" * depth)
    return b"".join(parts)


@compiled
def test_the_fuzz_corpus_is_walked_alike_raw_and_through_parse_html() -> None:
    rng = random.Random(FUZZ_SEED)
    for _ in range(FUZZ_PAGES):
        page = fuzz_page(rng)
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
