"""Flatten absurdly deep nesting before the parser sees it.

Lexbor checks the stack of open elements for every block-level start tag,
so tens of thousands of unclosed ``<div>``s cost superlinear time (40,000
of them took about 3 s here, 100,000 about 23 s). Browsers cap DOM depth
themselves (Blink at 512), so nothing a reader sees is lost by dropping
the block-level tags that sit deeper than ``MAX_BLOCK_NESTING``: their
text stays, attached to the deepest kept ancestor.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

import numpy as np

from service.parsing.budget import count_lt, load_compiled_scan

# Block-level depth kept as it is; deeper block tags are dropped.
MAX_BLOCK_NESTING = 2048

# Tags ("<" characters, an upper bound on depth) below which the exact scan
# is skipped: so deep a page parses in well under a second anyway, and a
# median page pays one vectorised byte count for the guard.
SCAN_TRIGGER_TAGS = 16384

# The block-level tags that can nest (<p>, <h1>-<h6>, <form> and <table>
# close or refuse their own kind, so they never build depth); the compiled depth scan is given them too.
BLOCK_NAMES = (
    b"div", b"section", b"article", b"aside", b"nav", b"header", b"footer", b"main", b"blockquote", b"ul", b"ol",
    b"dl", b"fieldset", b"figure", b"figcaption", b"details", b"summary", b"dialog", b"address", b"center",
    b"menu", b"dir", b"hgroup",
)  # fmt: skip
_BLOCK_TAG = re.compile(rb"<(/?)(?:" + b"|".join(BLOCK_NAMES) + rb")(?=[\s/>])[^>]*>", re.IGNORECASE)


def flatten_deep_nesting(html: bytes, lt_count: int | None = None) -> bytes:
    """The page with block-level tags deeper than the cap removed (``lt_count``: :func:`count_lt`, if known)."""
    if len(html) <= SCAN_TRIGGER_TAGS:
        return html
    if (count_lt(html) if lt_count is None else lt_count) <= SCAN_TRIGGER_TAGS:
        return html
    if deepest_block_nesting(html) <= MAX_BLOCK_NESTING:  # most big pages: no Python call per tag
        return html
    depth = 0

    def keep_or_drop(match: re.Match[bytes]) -> bytes:
        nonlocal depth
        if match.group(1):  # an end tag
            depth = max(depth - 1, 0)
            return match.group(0) if depth < MAX_BLOCK_NESTING else b""
        depth += 1
        return match.group(0) if depth <= MAX_BLOCK_NESTING else b""

    return _BLOCK_TAG.sub(keep_or_drop, html)


def python_deepest_block_nesting(html: bytes) -> int:
    """The deepest block-level nesting the substitution above would see (end tags never take it below 0).

    The reference, and what serves where the compiled scan (``_budget.pyx``: one pass, no list of tags) is not built.
    """
    slashes = np.array(_BLOCK_TAG.findall(html), dtype="S1")  # b"/" for an end tag, b"" for a start tag
    if not slashes.size:
        return 0
    depth = np.cumsum(np.where(slashes == b"/", -1, 1))
    return int((depth - np.minimum(np.minimum.accumulate(depth), 0)).max())


_compiled_depth = load_compiled_scan("deepest_block_nesting")
compiled_deepest_block_nesting = partial(_compiled_depth, names=BLOCK_NAMES) if _compiled_depth else None
deepest_block_nesting: Callable[[bytes], int] = compiled_deepest_block_nesting or python_deepest_block_nesting
