"""The compiled markup reader against the Python reader: its unit tests and the dev-page check share it."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from service.parsing import markup
from service.parsing.lexbor import python_walk

compiled_markup = pytest.mark.skipif(
    markup.compiled_collect_markup is None, reason="compiled markup reader not built (make build-ext)"
)


def assert_markup_read_alike(html: str | bytes) -> None:
    """Both readers give the same :class:`PageMarkup` for the nodes the walk keeps of ``html``."""
    tree = LexborHTMLParser(html)
    if tree.root is None:
        return
    kept = python_walk(tree.root).kept
    assert markup.compiled_collect_markup is not None
    assert markup.compiled_collect_markup(kept) == markup.python_collect_markup(kept)
