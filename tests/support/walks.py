"""The compiled block walk against the Python walk, column by column: its unit tests and the dev-page check share it."""

from __future__ import annotations

import numpy as np
import pytest
from selectolax.lexbor import LexborHTMLParser

from service.parsing import lexbor
from service.parsing.lexbor import Columns, python_walk
from service.parsing.markup import collect_markup

compiled = pytest.mark.skipif(lexbor.compiled_walk is None, reason="compiled walk not built (make build-ext)")


def assert_same_columns(left: Columns, right: Columns) -> None:
    for name, a, b in zip(Columns._fields, left, right, strict=True):
        if name == "kept":  # the same nodes of the one tree, in the same order, and what the markup reads off them
            assert [node.mem_id for node in a] == [node.mem_id for node in b], name
            assert collect_markup(a) == collect_markup(b), name
        elif isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, name
            assert np.array_equal(a, b), name
        else:
            assert type(a) is type(b) and a == b, name


def assert_walks_agree(html: bytes) -> None:
    tree = LexborHTMLParser(html)
    if tree.root is None:
        return
    assert lexbor.compiled_walk is not None
    assert_same_columns(lexbor.compiled_walk(tree.root), python_walk(tree.root))
