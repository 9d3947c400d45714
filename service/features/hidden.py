"""Hidden subtrees: text a browser would not show, as a block feature (not a hard skip).

Pages hide schema.org blocks, duplicate dates and publisher names in ``display:none``
containers, and some keep real content in hidden tabs; so the models get the fact and
learn what it means, and ``eval`` reports how much kept text was hidden. An element is
hidden by an inline ``display:none`` or ``visibility:hidden``, the ``hidden``
attribute, or ``aria-hidden="true"``, and so is everything under it.

A hidden block inside an ARIA ``region`` or ``tabpanel`` is an accordion's or a tab's closed panel:
the page's own text, folded (a how-to's steps, an FAQ's answers). Other hidden text is the page's
pop-ups, menus and structured-data copies (:func:`stray_hidden_blocks`).
"""

from __future__ import annotations

import re

import numpy as np

from service.features.per_document import per_document
from service.parsing.document import Document

# CSS keywords are case-insensitive in ASCII only (re.A): so a style the pattern matches, lower-cased,
# holds "none" or "hidden", and the pattern is tried only on those (a page's styles are mostly neither).
_HIDING_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)", re.I | re.A
)
# ARIA's roles for a panel a button opens (the accordion and tabs patterns of the ARIA Authoring Practices).
PANEL_ROLES = frozenset({"region", "tabpanel"})


@per_document
def hiding_elements(document: Document) -> np.ndarray:
    """Whether each element hides itself (bool per element, read-only), its descendants not included.

    Once per page: pruning's hidden blocks and the readable score both read it.
    """
    hides = invisible_elements(document).copy()
    for elem, value in document.elem_attribute("aria-hidden").items():
        hides[elem] |= value.strip().lower() == "true"
    hides.flags.writeable = False
    return hides


@per_document
def invisible_elements(document: Document) -> np.ndarray:
    """Whether each element hides itself from the eye (bool per element, read-only): ``aria-hidden`` aside.

    ``aria-hidden="true"`` hides from a screen reader only: its text is on the screen (an icon's label,
    a "5 min read" a screen reader gets in other words).
    """
    hides = np.zeros(len(document.elem_tag), dtype=bool)
    for elem in document.elem_attribute("hidden"):
        hides[elem] = True
    for elem, style in document.elem_attribute("style").items():
        lowered = style.lower()
        if ("none" in lowered or "hidden" in lowered) and _HIDING_STYLE.search(style):
            hides[elem] = True
    hides.flags.writeable = False
    return hides


@per_document
def unseen_blocks(document: Document) -> np.ndarray:
    """Whether each block sits where no reader sees it (:func:`invisible_elements`; bool per block, read-only)."""
    unseen = document.blocks_within(invisible_elements(document))
    unseen.flags.writeable = False
    return unseen


@per_document
def hidden_blocks(document: Document) -> np.ndarray:
    """Whether each block sits in a hidden subtree (bool per block); once per page (pruning and ``gbt`` read it)."""
    hidden = document.blocks_within(hiding_elements(document))
    hidden.flags.writeable = False
    return hidden


def stray_hidden_blocks(document: Document) -> np.ndarray:
    """Hidden blocks outside any panel (:data:`PANEL_ROLES`) that may hold them (bool per block)."""
    hidden = hidden_blocks(document)
    if not hidden.any():
        return hidden
    panels = np.zeros(len(document.elem_tag), dtype=bool)
    for elem, role in document.elem_attribute("role").items():
        panels[elem] = role.strip().lower() in PANEL_ROLES
    return hidden & ~document.blocks_within(panels)
