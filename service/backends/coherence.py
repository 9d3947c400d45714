"""Whole paragraphs: the leaves of one paragraph share one verdict, so no sentence comes out with a hole.

Backends label leaves; a paragraph such as "By <a>Name</a> · 12 March 2026" is three
leaves, and a model that drops the link alone leaves "By · 12 March 2026". Here each
paragraph (a run of leaves under one nearest block-level ancestor, split at ``<br>``:
:func:`~service.features.units.paragraph_units`) is kept whole or dropped whole, by the
length-weighted vote of its leaves' labels. A tie keeps it. Leaves that are only white
space have no weight and follow their paragraph.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from service.backends.base import BlockLabels
from service.features.hidden import unseen_blocks
from service.features.per_document import per_document
from service.features.units import count_units, paragraph_units
from service.parsing.document import Document


@per_document
def leaf_weights(document: Document) -> np.ndarray:
    """Each leaf's weight in its paragraph's vote: its length without surrounding white space (float64, read-only).

    Once per page: whole paragraphs (twice) and pruning all read it.
    """
    weights = np.fromiter(map(len, map(str.strip, document.texts)), dtype=np.float64, count=len(document))
    weights.flags.writeable = False
    return weights


def whole_paragraphs(document: Document, labels: BlockLabels) -> BlockLabels:
    """``labels`` with every paragraph kept or dropped whole (scores unchanged).

    A leaf no reader sees inside a paragraph one does (:func:`unseen_in_view`) votes, as it always did,
    but is dropped whatever the verdict ("Hel<span hidden>xx</span>lo": the renderer joins "Hello", as the
    page's white space says). (Left out of the vote, it let teaser items whose hidden summaries the
    backend dropped come back: Dragnet R803.)
    """
    if len(document) == 0:
        return labels
    units = paragraph_units(document)
    unseen = unseen_in_view(document)
    weights = leaf_weights(document)
    total = np.bincount(units, weights=weights, minlength=count_units(units))
    kept = np.bincount(units, weights=weights * labels.labels, minlength=len(total))
    unit_keeps = (2 * kept >= total) & (total > 0)
    # A paragraph of white space alone keeps what the backend said.
    verdict = np.where(total[units] > 0, unit_keeps[units], labels.labels) & ~unseen
    return replace(labels, labels=verdict)


@per_document
def unseen_in_view(document: Document) -> np.ndarray:
    """Leaves no reader sees (``display:none``, ``hidden``, ...) in a paragraph whose other text one does (read-only).

    Anti-scraping junk, a structured-data date inside a byline, the rest of a "read more" paragraph:
    the paragraph a reader sees is without them. A paragraph hidden whole (a closed tab) is no such
    case: the models decide it.
    """
    unseen = unseen_blocks(document)
    if unseen.any():
        units = paragraph_units(document)
        seen = np.bincount(units, weights=leaf_weights(document) * ~unseen, minlength=count_units(units))
        unseen = unseen & (seen[units] > 0)
    unseen.flags.writeable = False
    return unseen


def cut_paragraphs(document: Document, keep: np.ndarray) -> int:
    """How many paragraphs are partly kept and partly dropped.

    Leaves of white space alone are not counted, nor those no reader sees in a paragraph one does.
    """
    if len(document) == 0:
        return 0
    units = paragraph_units(document)
    weighted = (leaf_weights(document) > 0) & ~unseen_in_view(document)
    n = count_units(units)
    kept = np.bincount(units[weighted & keep], minlength=n)
    dropped = np.bincount(units[weighted & ~keep], minlength=n)
    return int(np.count_nonzero((kept > 0) & (dropped > 0)))
