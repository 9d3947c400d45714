"""Malformed pages for the tests that hold a compiled part to its Python twin (walk, markup reader, scans)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from service.parsing import walk

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
    "base href=/b/",
    "base href",
    "base target=_top",
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


def fuzz_corpus(count: int, seed: int) -> Iterator[bytes]:
    """``count`` malformed pages from one seeded generator: the same corpus on every run."""
    rng = random.Random(seed)
    for _ in range(count):
        yield fuzz_page(rng)


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
        depth = walk.MAX_DEPTH + rng.randint(-3, 40)
        parts.insert(rng.randrange(len(parts) + 1), b"<span>" * depth + b"deep <b>text</b>" + b"</span>" * depth)
    return b"".join(parts)
