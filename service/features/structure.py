"""Where a block sits, as the page's own markup names it: regions and the link share of containers.

The error analysis on pages unlike the training pages (news and blogs from 2012, the
Dragnet data) found the extra text the models keep in three places: link lists
(related stories, teasers, tag clouds, share rows), containers whose id, class, role or
tag says what they are (``comments``, ``sidebar``, ``widget``, ``<aside>``,
``role="complementary"``), and hidden subtrees (:mod:`service.features.hidden`). These
say the first two per leaf, for :mod:`service.backends.pruning`:

- the *regions* a leaf is in: a region holds a leaf when an ancestor-or-self has the
  region's tag, ARIA role, or an id/class token containing one of its words (:data:`REGIONS`);
- the link-text share of the element some levels above the leaf's paragraph.

Fed to the stack combiner and to the MLP as features, they did not raise the out-of-fold
word F1 on the WCXB validation part (see the issue's closing note); as page-guarded rules
they do.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from service.features.per_document import per_document
from service.parsing.document import Document

# region -> (tags, ARIA roles, id/class words). An id/class token is cut into words at every character
# that is not a letter or digit ("comment-list" -> comment, list); a word matches a region's word when
# it equals it or, for words of MIN_PREFIX letters or more, starts with it ("comments" matches "comment").
# These are the regions pruning drops; header, byline/meta, related, promo and share words were
# measured too and lost text on the WCXB validation part.
REGIONS: dict[str, tuple[frozenset[str], frozenset[str], tuple[str, ...]]] = {
    "nav": (
        frozenset({"nav", "menu"}),
        frozenset({"navigation", "menu", "menubar", "tablist"}),
        ("nav", "navbar", "navigation", "menu"),
    ),
    "aside": (frozenset({"aside"}), frozenset({"complementary"}), ("sidebar", "aside", "widget", "rail")),
    "footer": (frozenset({"footer"}), frozenset({"contentinfo"}), ("footer", "foot")),
    "form": (frozenset({"form", "button", "select", "label"}), frozenset({"search", "form", "dialog"}), ("search",)),
    "comment": (frozenset(), frozenset({"comment"}), ("comment", "disqus", "respond", "reply", "discussion")),
}
MIN_PREFIX = 4
# Elements that hold the whole page: a region word on them (body class="has-sidebar single-comments")
# marks the page's layout, not where the region is.
FRAME_TAGS = frozenset({"html", "body", "main"})
# Elements inside code: a syntax highlighter's classes (hljs-comment, Prism's "token comment") name
# the code's own parts, not the page's regions.
CODE_TAGS = frozenset({"pre", "code"})
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
    ids, classes = document.elem_attribute("id"), document.elem_attribute("class")
    for elem in ids.keys() | classes.keys():  # only elements with an id or a class can carry a region word
        own[elem] |= _names_regions(f"{ids.get(elem, '')} {classes.get(elem, '')}")
    in_code = document.nearest_marked(document.elem_tagged(CODE_TAGS)) >= 0
    own[document.elem_tagged(FRAME_TAGS) | in_code] = 0
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
def _names_regions(names: str) -> int:
    """The region bits of an element's id and class, read as one string (pages repeat a few often).

    White space separates the tokens and is no letter or digit, so matching the whole string finds
    what matching each token alone would.
    """
    bits = 0
    for match in _TOKEN_PATTERN.finditer(names.lower()):
        bits |= REGION_BITS[match.lastgroup or ""]
    return bits


def _inherited(document: Document, own: np.ndarray) -> np.ndarray:
    """OR of ``own`` over every element's ancestors-or-self (parents precede children)."""
    out = own.tolist()
    for elem, parent in enumerate(document.elem_parent.tolist()):
        if parent >= 0:
            out[elem] |= out[parent]
    return np.asarray(out, dtype=np.int64)


@per_document
def leaf_regions(document: Document) -> np.ndarray:
    """The region bits (:data:`REGION_BITS`) each leaf inherits from its ancestors-or-self (int64 per leaf).

    Once per page: pruning and the ``gbt`` features both read them.
    """
    regions = _inherited(document, _own_regions(document))[document.block_elem]
    regions.flags.writeable = False
    return regions


def container_link_shares(document: Document, levels: tuple[int, ...]) -> list[np.ndarray]:
    """For each level, the link-text share of the element that many steps above each leaf's paragraph."""
    chars = np.fromiter(map(len, document.texts), dtype=np.float64, count=len(document))
    total = document.subtree_sums(chars)
    linked = document.subtree_sums(chars * document.block_in_link)
    shares = []
    for level in levels:
        above = document.ancestors_at(document.block_paragraph, level)
        shares.append(linked[above] / np.maximum(total[above], 1.0))
    return shares
