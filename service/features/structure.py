"""Structure features: where a block sits, as the page's own markup names it.

The error analysis on pages unlike the training pages (news and blogs from 2012, the
Dragnet data) found the extra text the models keep in three places: link lists
(related stories, teasers, tag clouds, share rows), containers whose id, class, role or
tag says what they are (``comments``, ``sidebar``, ``widget``, ``<aside>``,
``role="complementary"``), and hidden subtrees. The texrex and SVM features look at the
block and its neighbours, not at its containers, so these say it directly, each in [0, 1]:

- ``hidden``: in a hidden subtree (:mod:`service.features.hidden`);
- one flag per *region*, true when an ancestor-or-self has the region's tag, ARIA role, or
  an id/class token containing one of its words (:data:`REGIONS`);
- the link-text share of the block's ancestors 1, 2 and 3 levels above its paragraph;
- how many siblings of those ancestors share their tag and class (teaser cards, comment
  lists, menu items), ``log1p(n) / log1p(REPEAT_SCALE)`` clamped at 1.

A unit's row is the row of its first leaf (a unit's leaves share their paragraph).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

import numpy as np

from service.features.hidden import hidden_blocks
from service.features.units import count_units, first_leaves
from service.parsing.document import Document

SCHEMA_NAME = "structure-features"
SCHEMA_VERSION = 1

# region -> (tags, ARIA roles, id/class words). An id/class token is cut into words at every character
# that is not a letter or digit ("related-posts" -> related, posts); a word matches a region's word when
# it equals it or, for words of MIN_PREFIX letters or more, starts with it ("comments" matches "comment").
REGIONS: dict[str, tuple[frozenset[str], frozenset[str], tuple[str, ...]]] = {
    "nav": (
        frozenset({"nav", "menu"}),
        frozenset({"navigation", "menu", "menubar", "tablist"}),
        ("nav", "navbar", "navigation", "menu"),
    ),
    "aside": (frozenset({"aside"}), frozenset({"complementary"}), ("sidebar", "aside", "widget", "rail")),
    "footer": (frozenset({"footer"}), frozenset({"contentinfo"}), ("footer", "foot")),
    "header": (frozenset({"header"}), frozenset({"banner"}), ("header", "masthead", "topbar")),
    "form": (frozenset({"form", "button", "select", "label"}), frozenset({"search", "form", "dialog"}), ("search",)),
    "comment": (frozenset(), frozenset({"comment"}), ("comment", "disqus", "respond", "reply", "discussion")),
    "related": (frozenset(), frozenset(), ("related", "recommend", "outbrain", "taboola", "more", "also", "next")),
    "popular": (frozenset(), frozenset(), ("popular", "trending", "most", "headlines", "latest")),
    "share": (frozenset(), frozenset(), ("share", "sharing", "social", "follow")),
    "promo": (frozenset(), frozenset(), ("promo", "advert", "sponsor", "banner", "ad", "ads", "newsletter")),
    "subscribe": (frozenset(), frozenset(), ("subscribe", "signup", "cookie", "consent", "paywall", "login")),
    "meta": (frozenset(), frozenset(), ("meta", "byline", "author", "dateline", "timestamp", "tag", "tags", "categor")),
    "breadcrumb": (frozenset(), frozenset(), ("breadcrumb", "crumbs", "pagination", "pager")),
    "caption": (frozenset({"figcaption"}), frozenset(), ("caption", "credit", "photo")),
    "main": (
        frozenset({"article", "main"}),
        frozenset({"main", "article"}),
        ("article", "content", "post", "entry", "story", "body", "text"),
    ),
}
MIN_PREFIX = 4
LINK_LEVELS = (1, 2, 3)  # ancestors above the block's paragraph element whose link-text share is read
REPEAT_LEVELS = (0, 1, 2)  # the paragraph element and its ancestors whose repeated siblings are counted
REPEAT_SCALE = 32  # siblings of one signature at which the repeat feature saturates

FEATURE_NAMES: tuple[str, ...] = (
    "hidden",
    *(f"in_{region}" for region in REGIONS),
    *(f"link_share_up_{level}" for level in LINK_LEVELS),
    *(f"repeats_up_{level}" for level in REPEAT_LEVELS),
)
N_FEATURES = len(FEATURE_NAMES)
REGION_BITS = {region: 1 << i for i, region in enumerate(REGIONS)}


def _own_regions(document: Document) -> np.ndarray:
    """Each element's own region bits: from its tag, its role and its id/class tokens (int64 per element)."""
    by_tag: dict[str, int] = {}
    for region, (tags, _, _) in REGIONS.items():
        for tag in tags:
            by_tag[tag] = by_tag.get(tag, 0) | REGION_BITS[region]
    by_path = np.fromiter((by_tag.get(tag, 0) for tag in document.path_tag), dtype=np.int64)
    own = by_path[document.elem_path]
    for elem, role in document.elem_attribute("role").items():
        for region, (_, roles, _) in REGIONS.items():
            if role.strip().lower() in roles:
                own[elem] |= REGION_BITS[region]
    for elem, tokens in enumerate(document.elem_tokens):
        for token in tokens:
            own[elem] |= _token_regions(token)
    return own


def _token_pattern() -> re.Pattern[str]:
    """One pattern for every region's words: a group per region, whole words or word starts as the rule says."""
    groups = []
    for region, (_, _, names) in REGIONS.items():
        alternatives = "|".join(
            re.escape(name) + ("[a-z0-9]*" if len(name) >= MIN_PREFIX else "") for name in sorted(names, key=len)[::-1]
        )
        groups.append(f"(?P<{region}>{alternatives})")
    return re.compile(rf"(?<![a-z0-9])(?:{'|'.join(groups)})(?![a-z0-9])")


_TOKEN_PATTERN = _token_pattern()


@lru_cache(maxsize=1 << 16)
def _token_regions(token: str) -> int:
    bits = 0
    for match in _TOKEN_PATTERN.finditer(token):
        bits |= REGION_BITS[match.lastgroup or ""]
    return bits


def _inherited(document: Document, own: np.ndarray) -> np.ndarray:
    """OR of ``own`` over every element's ancestors-or-self (parents precede children)."""
    out = own.tolist()
    for elem, parent in enumerate(document.elem_parent.tolist()):
        if parent >= 0:
            out[elem] |= out[parent]
    return np.asarray(out, dtype=np.int64)


def _subtree_sums(document: Document, per_leaf: np.ndarray) -> np.ndarray:
    """Sum of ``per_leaf`` over the leaves at or below each element (float64 per element)."""
    n = len(document.elem_tag)
    sums = np.bincount(document.block_elem, weights=per_leaf, minlength=n).tolist()
    parents = document.elem_parent.tolist()
    for elem in range(n - 1, 0, -1):  # children follow their parents in document order
        parent = parents[elem]
        if parent >= 0:
            sums[parent] += sums[elem]
    return np.asarray(sums)


def _repeats(document: Document) -> np.ndarray:
    """How many siblings share each element's tag and class tokens, the element included (per element)."""
    tokens = document.elem_tokens
    signatures = [
        (parent, path, tokens[elem])
        for elem, (parent, path) in enumerate(
            zip(document.elem_parent.tolist(), document.elem_path.tolist(), strict=True)
        )
    ]
    counts: dict[tuple[int, int, tuple[str, ...]], int] = {}
    for signature in signatures:
        counts[signature] = counts.get(signature, 0) + 1
    return np.fromiter((counts[s] for s in signatures), dtype=np.float64, count=len(signatures))


def leaf_regions(document: Document) -> np.ndarray:
    """The region bits (:data:`REGION_BITS`) each leaf inherits from its ancestors-or-self (int64 per leaf)."""
    return _inherited(document, _own_regions(document))[document.block_elem]


def in_region(document: Document, region: str) -> np.ndarray:
    """Whether each leaf sits in a container of ``region`` (a key of :data:`REGIONS`), bool per leaf."""
    return (leaf_regions(document) & REGION_BITS[region]) != 0


def container_link_shares(document: Document, levels: tuple[int, ...]) -> list[np.ndarray]:
    """For each level, the link-text share of the element that many steps above each leaf's paragraph."""
    chars = np.fromiter(map(len, document.texts), dtype=np.float64, count=len(document))
    total = _subtree_sums(document, chars)
    linked = _subtree_sums(document, chars * document.block_in_link)
    shares = []
    for level in levels:
        above = document.ancestors_at(document.block_paragraph, level)
        shares.append(linked[above] / np.maximum(total[above], 1.0))
    return shares


def structure_features(document: Document, unit_of_leaf: np.ndarray) -> np.ndarray:
    """The :data:`FEATURE_NAMES` of every unit, a float32 matrix (units × features), each in [0, 1]."""
    n_units = count_units(unit_of_leaf)
    if not n_units:
        return np.zeros((0, N_FEATURES), dtype=np.float32)
    first = np.arange(len(document)) if n_units == len(document) else first_leaves(unit_of_leaf)
    paragraph = document.block_paragraph[first]
    columns: list[np.ndarray] = [hidden_blocks(document)[first]]

    regions = leaf_regions(document)[first]
    columns += [(regions & bit) != 0 for bit in REGION_BITS.values()]
    columns += [share[first] for share in container_link_shares(document, LINK_LEVELS)]

    repeats = _repeats(document)
    scale = math.log1p(REPEAT_SCALE)
    for level in REPEAT_LEVELS:
        above = document.ancestors_at(paragraph, level)
        columns.append(np.minimum(np.log1p(repeats[above] - 1) / scale, 1.0))
    return np.ascontiguousarray(np.stack(columns, axis=1), dtype=np.float32)
