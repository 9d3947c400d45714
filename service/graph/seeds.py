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


def _boilerplate_token(token: str, known: dict[str, bool]) -> bool:
    """Whether a part of ``token`` names a boilerplate region (``known`` caches the answer per token)."""
    found = known.get(token)
    if found is None:
        found = known[token] = not BOILERPLATE_TOKEN_PARTS.isdisjoint(_TOKEN_PARTS.split(token))
    return found


def _attribute_in(document: Document, name: str, values: frozenset[str]) -> np.ndarray:
    """Whether each element's ``name`` attribute, lower-cased, is one of ``values`` (bool per element)."""
    mask = np.zeros(len(document.elem_tag), dtype=bool)
    mask[[elem for elem, value in document.elem_attribute(name).items() if value.lower() in values]] = True
    return mask


def _named_boilerplate(document: Document) -> np.ndarray:
    """Whether an id/class token of each element names a boilerplate region (bool per element).

    Decided once per distinct set of tokens: a page repeats a few of them on many elements.
    """
    tokens = document.elem_tokens
    known: dict[str, bool] = {}
    by_set: dict[tuple[str, ...], bool] = {}
    ids, classes = document.elem_attribute("id"), document.elem_attribute("class")
    named = []
    for elem in ids.keys() | classes.keys():
        own = tokens[elem]
        verdict = by_set.get(own)
        if verdict is None:
            verdict = by_set[own] = any(_boilerplate_token(token, known) for token in own)
        if verdict:
            named.append(elem)
    mask = np.zeros(len(tokens), dtype=bool)
    mask[named] = True
    return mask


def _markers(document: Document, own: np.ndarray) -> np.ndarray:
    """Every element's marker: its nearest ancestor-or-self's own marker (``_NO_MARKER`` where none has one)."""
    nearest = document.nearest_marked(own != _NO_MARKER)
    return np.where(nearest >= 0, own[nearest], _NO_MARKER).astype(np.int8)


def subtree_words(document: Document) -> np.ndarray:
    """Words of the text inside every element (float64 per element)."""
    return document.subtree_sums(leaf_words(document).counts.astype(np.float64))


def markup_seeds(document: Document) -> np.ndarray:
    """Per block: the class of its nearest marked ancestor, or :data:`UNLABELLED` (int8).

    An element's own marker, in order of precedence: content (tag, role, itemprop), boilerplate
    (tag, role), a header outside content, a boilerplate id/class token on an element holding at most
    :data:`MAX_TOKEN_REGION_SHARE` of the page's words. Whether a header is inside content depends on
    the headers above it only through that same question, so two passes decide it: the markers with
    headers unmarked say which headers are outside content, and those are marked for the second.
    """
    if not len(document.elem_parent):
        return np.full(len(document), UNLABELLED, dtype=np.int8)
    words = subtree_words(document)
    content = (
        document.elem_tagged(CONTENT_TAGS)
        | _attribute_in(document, "role", CONTENT_ROLES)
        | _attribute_in(document, "itemprop", CONTENT_ITEMPROPS)
    )
    boilerplate = document.elem_tagged(BOILERPLATE_TAGS) | _attribute_in(document, "role", BOILERPLATE_ROLES)
    boilerplate &= ~content
    unmarked = ~content & ~boilerplate
    header = unmarked & (document.elem_tagged(HEADER_TAGS) | _attribute_in(document, "role", HEADER_ROLES))
    small = words <= MAX_TOKEN_REGION_SHARE * words[0]
    named = unmarked & small & ~document.elem_tagged(PAGE_TAGS) & _named_boilerplate(document)
    own = np.full(len(content), _NO_MARKER, dtype=np.int8)
    own[named | boilerplate] = BOILERPLATE
    own[content] = CONTENT
    inherited = _markers(document, own)[np.maximum(document.elem_parent, 0)]
    outside_content = header & ((inherited != CONTENT) | (document.elem_parent < 0))
    own[outside_content] = BOILERPLATE
    per_block = _markers(document, own)[document.block_elem]
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
