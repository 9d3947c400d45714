"""A page with some attributes removed from every element, written out again as HTML.

Training uses it to show a model pages whose markup names nothing (see
:mod:`service.training.augment`); here because only :mod:`service.parsing` reads
the tree with selectolax. The page is decoded as a request's would be, so the
copy has the same text.
"""

from __future__ import annotations

from collections.abc import Sequence

from selectolax.lexbor import LexborHTMLParser

from service.parsing.decode import to_utf8


def without_attributes(html: bytes, names: Sequence[str]) -> str:
    """``html`` (as served) with the attributes ``names`` (lower-case) removed from every element that has them."""
    tree = LexborHTMLParser(to_utf8(html)[0])
    for node in tree.css(", ".join(f"[{name}]" for name in names)):
        for name in names:
            if name in node.attrs:
                del node.attrs[name]
    return tree.html or ""
