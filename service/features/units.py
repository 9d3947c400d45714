"""Units: how a page's leaves are grouped into the rows a feature or a model reads.

A unit is a run of consecutive leaves; every grouping numbers its units 0,
1, ... in document order. :func:`paragraph_units` gives Boilerpipe's text
blocks, :func:`leaf_units` makes every leaf its own unit (BoilerNet's
granularity).
"""

from __future__ import annotations

import numpy as np

from service.features.per_document import per_document
from service.parsing.document import Document


def paragraph_units(document: Document, *, split_at_breaks: bool = True) -> np.ndarray:
    """Boilerpipe's text blocks: the unit id (0, 1, ...) of every leaf (int32, read-only).

    A new unit starts at the first leaf, where the nearest block-level
    ancestor (``block_paragraph``) differs from the previous leaf's, and, when
    ``split_at_breaks``, after a ``<br>``. ``<div>A<p>B</p>C</div>`` thus
    gives three units although A and C share their paragraph element.
    Those split at breaks are made once per page: the features, the whole
    paragraphs' vote (twice) and pruning all read them.
    """
    return _split_at_breaks(document) if split_at_breaks else _paragraphs(document, split_at_breaks=False)


@per_document
def _split_at_breaks(document: Document) -> np.ndarray:
    """The paragraph units split at breaks, once per page (what every caller but the tests asks for)."""
    return _paragraphs(document, split_at_breaks=True)


def _paragraphs(document: Document, *, split_at_breaks: bool) -> np.ndarray:
    paragraph = document.block_paragraph
    starts = np.ones(len(document), dtype=bool)
    np.not_equal(paragraph[1:], paragraph[:-1], out=starts[1:])
    if split_at_breaks:
        starts[1:] |= document.block_break_before[1:]
    units = (np.cumsum(starts, dtype=np.int32) - 1).astype(np.int32, copy=False)
    units.flags.writeable = False
    return units


def leaf_units(document: Document) -> np.ndarray:
    """Every leaf its own unit (BoilerNet's granularity)."""
    return np.arange(len(document), dtype=np.int32)


# The unit kinds a model can be trained on, by the name its manifest records.
UNITS = {"leaves": leaf_units, "paragraphs": paragraph_units}


def count_units(unit_of_leaf: np.ndarray) -> int:
    """How many units a ``unit_of_leaf`` numbering (0, 1, ... in document order) has."""
    return int(unit_of_leaf[-1]) + 1 if len(unit_of_leaf) else 0


def first_leaves(unit_of_leaf: np.ndarray) -> np.ndarray:
    """The index of every unit's first leaf, in unit order (for ``reduceat`` over a unit's leaves)."""
    starts = np.ones(len(unit_of_leaf), dtype=bool)
    np.not_equal(unit_of_leaf[1:], unit_of_leaf[:-1], out=starts[1:])
    return np.flatnonzero(starts)
