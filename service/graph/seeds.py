"""Seed labels: the blocks whose class the markup or the text makes plain.

Two sources, each a function of the shared block sequence:

markup
    An element carries a *marker* of its own or inherits its parent's, so
    the nearest marked ancestor of a block decides (an ``<article>`` inside
    a sidebar is content, a ``<nav>`` inside an article is boilerplate).
    Content: :data:`CONTENT_TAGS`, :data:`CONTENT_ROLES`,
    :data:`CONTENT_ITEMPROPS`. Boilerplate: :data:`BOILERPLATE_TAGS`,
    :data:`BOILERPLATE_ROLES`; :data:`HEADER_TAGS` and :data:`HEADER_ROLES`
    only outside content (an article's own header holds its title); and
    id/class tokens with a part in :data:`BOILERPLATE_TOKEN_PARTS`
    (``site-footer`` has the parts ``site`` and ``footer``) on an element
    holding at most :data:`MAX_TOKEN_REGION_SHARE` of the page's words:
    ``content-sidebar-wrap`` around a whole page names the layout, not a
    region. Tokens of ``<html>`` and ``<body>`` describe the page
    (``has-sidebar``) and are ignored.
text
    On paragraph units (:func:`~service.features.units.paragraph_units`):
    a unit with at least :data:`LINK_DENSE` of its words in links is
    boilerplate; a sentence-like unit (at least :data:`MIN_SENTENCE_WORDS`
    words, at most :data:`MAX_SENTENCE_LINK_DENSITY` of them in links, a
    sentence end somewhere) is content.

Where they disagree the markup wins: a sentence inside a footer stays
boilerplate, a list of links inside an article stays content.

Measured on the train part of the WCXB dev pages. Share of words that are
content: 0.024 under markup boilerplate, 0.79 under markup content, 0.77
in sentence-like text, 0.13 in link-dense text. Page word F1 of the
backend without a rule: -0.024 without ``<article>``, -0.038 without
``<main>``, -0.16 without sentence-like text; -0.016 without the size
limit on token regions; any single token part or role moves it by less
than 0.006 (they overlap).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from service.features.shallow import TextFeatures, leaf_words, text_features
from service.graph.harmonic import BOILERPLATE, CONTENT, UNLABELLED
from service.parsing.document import Document

# -- markup markers --------------------------------------------------------------
CONTENT_TAGS = frozenset({"article", "main"})
CONTENT_ROLES = frozenset({"main", "article"})
CONTENT_ITEMPROPS = frozenset({"articlebody"})  # schema.org, lower-cased
BOILERPLATE_TAGS = frozenset({"nav", "footer", "aside"})
BOILERPLATE_ROLES = frozenset({"navigation", "contentinfo", "complementary", "menu", "menubar", "search"})
# Boilerplate only outside content: an article's own <header> holds its title and byline.
HEADER_TAGS = frozenset({"header"})
HEADER_ROLES = frozenset({"banner"})
BOILERPLATE_TOKEN_PARTS = frozenset(
    {"nav", "navbar", "navigation", "menu", "submenu", "dropdown", "footer", "sidebar", "cookie", "cookies",
     "consent", "share", "sharing", "social", "breadcrumb", "breadcrumbs", "related", "newsletter",
     "copyright", "modal", "popup", "login"}
)  # fmt: skip
# A region named by its tokens holds at most this share of the page's words
# (0.5 scored best on the train part; without the limit F1 fell by 0.016).
MAX_TOKEN_REGION_SHARE = 0.5
# Elements whose tokens describe the whole page, not a region of it.
PAGE_TAGS = frozenset({"html", "body"})
_TOKEN_PARTS = re.compile(r"[^a-z0-9]+")

# -- text rules ------------------------------------------------------------------
# A unit with half or more of its words inside links is a link list.
LINK_DENSE = 0.5
# Sentence-like text: this many words or more (10 scored best on the train part, 30 lost 0.011) ...
MIN_SENTENCE_WORDS = 10
# ... almost none of them linked ...
MAX_SENTENCE_LINK_DENSITY = 0.1
# ... and a sentence end somewhere.
_SENTENCE_END = re.compile(r"[.!?…。](?:\s|$)")

_NO_MARKER = 2  # an element without a marker of its own


@dataclass(frozen=True, slots=True)
class _Markup:
    """The element columns the markup seeds read, each looked up once per page, not once per element."""

    tags: list[str]
    roles: dict[int, str]
    itemprops: dict[int, str]
    tokens: list[tuple[str, ...]]
    names_boilerplate: dict[str, bool]  # token -> whether a part of it names a boilerplate region, filled as met

    @classmethod
    def of(cls, document: Document) -> _Markup:
        roles, itemprops = document.elem_attribute("role"), document.elem_attribute("itemprop")
        return cls(document.elem_tag, roles, itemprops, document.elem_tokens, {})

    def boilerplate_token(self, token: str) -> bool:
        found = self.names_boilerplate.get(token)
        if found is None:
            found = self.names_boilerplate[token] = not BOILERPLATE_TOKEN_PARTS.isdisjoint(_TOKEN_PARTS.split(token))
        return found


def _own_marker(markup: _Markup, elem: int, inherited: int, small: bool) -> int:
    """The element's own marker (:data:`CONTENT`, :data:`BOILERPLATE` or ``_NO_MARKER``)."""
    tag = markup.tags[elem]
    role = markup.roles.get(elem, "").lower()
    itemprop = markup.itemprops.get(elem, "").lower()
    if tag in CONTENT_TAGS or role in CONTENT_ROLES or itemprop in CONTENT_ITEMPROPS:
        return CONTENT
    if tag in BOILERPLATE_TAGS or role in BOILERPLATE_ROLES:
        return BOILERPLATE
    if (tag in HEADER_TAGS or role in HEADER_ROLES) and inherited != CONTENT:
        return BOILERPLATE
    if small and tag not in PAGE_TAGS and any(map(markup.boilerplate_token, markup.tokens[elem])):
        return BOILERPLATE
    return _NO_MARKER


def subtree_words(document: Document) -> np.ndarray:
    """Words of the text inside every element (float64 per element)."""
    return document.subtree_sums(leaf_words(document).counts.astype(np.float64))


def markup_seeds(document: Document) -> np.ndarray:
    """Per block: the class of its nearest marked ancestor, or :data:`UNLABELLED` (int8)."""
    parents = document.elem_parent.tolist()
    if not parents:
        return np.full(len(document), UNLABELLED, dtype=np.int8)
    words = subtree_words(document)
    small = (words <= MAX_TOKEN_REGION_SHARE * words[0]).tolist()
    marker = [_NO_MARKER] * len(parents)
    markup = _Markup.of(document)
    for elem, parent in enumerate(parents):  # document order: a parent precedes its children
        inherited = marker[parent] if parent >= 0 else _NO_MARKER
        own = _own_marker(markup, elem, inherited, small[elem])
        marker[elem] = own if own != _NO_MARKER else inherited
    per_block = np.asarray(marker, dtype=np.int8)[document.block_elem]
    return np.where(per_block == _NO_MARKER, UNLABELLED, per_block).astype(np.int8)


def text_seeds(document: Document, features: TextFeatures) -> np.ndarray:
    """Per block: boilerplate in link lists, content in sentence-like units, else :data:`UNLABELLED` (int8)."""
    link_density = features.link_density
    ends = np.fromiter((bool(_SENTENCE_END.search(t)) for t in document.texts), dtype=np.float64, count=len(document))
    has_sentence = np.bincount(features.unit_of_leaf, weights=ends, minlength=len(features)) > 0
    sentences = (features.words >= MIN_SENTENCE_WORDS) & (link_density <= MAX_SENTENCE_LINK_DENSITY) & has_sentence
    per_unit = np.full(len(features), UNLABELLED, dtype=np.int8)
    per_unit[sentences] = CONTENT
    per_unit[link_density >= LINK_DENSE] = BOILERPLATE
    return features.to_leaves(per_unit)


def heuristic_seeds(document: Document) -> np.ndarray:
    """Markup seeds, with text seeds where the markup says nothing (int8 per block)."""
    markup = markup_seeds(document)
    text = text_seeds(document, text_features(document))
    return np.where(markup == UNLABELLED, text, markup).astype(np.int8)
