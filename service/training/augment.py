"""Training pages seen again without their class and id names, so a model cannot lean on one site's names.

Issue 16 asked for it: what a model learns from the id/class words of today's pages
("sidebar", "related", "comment") does not hold on pages whose markup names nothing
(the Dragnet 2012 news and blogs). A copy of a train page, its ``class`` and ``id``
attributes removed in the parsed tree and the page parsed again, keeps the text, the
tags and the gold, and shows the model the same content with nothing named.
"""

from __future__ import annotations

import numpy as np

from service.evaluation.labels import labels_for
from service.parsing.lexbor import parse_html
from service.parsing.stripped import without_attributes
from service.training.data import LabeledDocument

NAMES = ("class", "id")


def nameless_copies(docs: list[LabeledDocument], share: float, seed: int) -> list[LabeledDocument]:
    """A copy without class and id names of a ``share`` of ``docs`` (drawn with ``seed``), labelled anew."""
    draw = np.random.default_rng(seed).random(len(docs))
    copies = []
    for doc, chance in zip(docs, draw.tolist(), strict=True):
        if chance < share:
            document = parse_html(without_attributes(doc.page.html(), NAMES))
            copies.append(LabeledDocument(doc.page, document, labels_for(doc.page, document)))
    return copies
