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
from collections.abc import Callable

import numpy as np

from service.features.per_document import per_document
from service.parsing.document import Document

# region -> (tags, ARIA roles, id/class words). An id/class token is cut into words at every character
# that is not a letter or digit ("comment-list" -> comment, list); a word matches a region's word when
# it equals it or, for words of MIN_PREFIX letters or more, starts with it ("comments" matches "comment").
# These are the regions pruning drops; header, byline/meta, related, promo and share words were
# measured too and lost text on the WCXB validation part. A region's bit is its place here, so a new
# region goes last (the models read the bits of FEATURE_REGIONS).
# Cookie and consent banners: a "cookie", "consent" or "gdpr" word, or a consent manager's own name (OneTrust,
# Cookiebot, Didomi, Usercentrics, TrustArc, Osano, Complianz, Termly, iubenda). Not "cmp": Adobe's components
# are named cmp-teaser, cmp-container (a travel site's offers), and Python's docs hold functools.cmp_to_key.
_CONSENT_WORDS = (
    "cookie", "consent", "gdpr", "onetrust", "optanon", "cybotcookiebot", "didomi", "usercentrics", "trustarc",
    "osano", "cmplz", "termly", "iubenda",
)  # fmt: skip
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
    "consent": (frozenset(), frozenset(), _CONSENT_WORDS),
}
# The regions the block models read as features (``gbt``'s columns): the first five, fixed with their models.
FEATURE_REGIONS = ("nav", "aside", "footer", "form", "comment")
MIN_PREFIX = 4
# Elements that hold the whole page: a region word on them (body class="has-sidebar single-comments")
# marks the page's layout, not where the region is.
FRAME_TAGS = frozenset({"html", "body", "main"})
# Elements inside code: a syntax highlighter's classes (hljs-comment, Prism's "token comment") name
# the code's own parts, not the page's regions.
CODE_TAGS = frozenset({"pre", "code"})
REGION_BITS = {region: 1 << i for i, region in enumerate(REGIONS)}
# A sidebar as the page names it: an <aside>, role="complementary", or an id/class word starting with "sidebar".
# Narrower than the ``aside`` region, whose "widget" and "rail" also name product cards inside a review.
SIDEBAR_TAGS = frozenset({"aside"})
SIDEBAR_ROLE = "complementary"
MAIN_TAGS, MAIN_ROLE = frozenset({"main"}), "main"  # the page's main landmark: what holds it is no sidebar
# Not a layout that has one: "main-with-sidebar", "post-with-sidebar", "has-sidebar" wrap the article itself.
_SIDEBAR_WORD = re.compile(r"(?<![a-z0-9])(?<!with-)(?<!has-)(?<!no-)sidebar")
LINK_LEVELS = (0, 1, 2, 3)  # ancestors of a leaf's paragraph element whose link share is read
# A product page's customer reviews: a "reviews" id/class word ("product-reviews", "customer-reviews_feature_div";
# plural: a review article's body is a "review-body") or a review widget's own prefix.
_REVIEWS_WORD = re.compile(r"(?<![a-z0-9])(?:reviews|yotpo|okendo|jdgm|judgeme|bazaarvoice)(?![a-z0-9])")


def _bits_by(position: int) -> dict[str, int]:
    """Region bits by tag (``position`` 0) or by ARIA role (1), from :data:`REGIONS`."""
    out: dict[str, int] = {}
    for region, spec in REGIONS.items():
        for name in spec[position]:
            out[name] = out.get(name, 0) | REGION_BITS[region]
    return out


_TAG_BITS = _bits_by(0)
_ROLE_BITS = _bits_by(1)


@per_document
def _own_regions(document: Document) -> np.ndarray:
    """Each element's own region bits: from its tag, its role and its id/class tokens (int64 per element).

    Once per page (read-only): the leaves' regions inherit them, and sidebars are looked for among them.
    """
    by_path = np.array([_TAG_BITS.get(tag, 0) for tag in document.path_tag], dtype=np.int64)
    own = by_path[document.elem_path]
    roles = document.elem_attribute("role")
    own[list(roles)] |= np.array([_ROLE_BITS.get(role.strip().lower(), 0) for role in roles.values()], dtype=np.int64)
    for name in ("id", "class"):  # a region word never spans the space between the id and the class
        _add_named_regions(own, document.elem_attribute(name))
    in_code = document.within(document.elem_tagged(CODE_TAGS))
    own[document.elem_tagged(FRAME_TAGS) | in_code] = 0
    own.flags.writeable = False
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
_WORDS = frozenset(name for _, _, names in REGIONS.values() for name in names)
# Every match of the pattern starts with one of these: the region words no shorter one is the start of.
_WORD_STARTS = tuple(sorted(w for w in _WORDS if not any(w != o and w.startswith(o) for o in _WORDS)))


def _add_named_regions(own: np.ndarray, values: dict[int, str]) -> None:
    """OR into ``own`` the region bits of every element's id (or class) in ``values``."""
    if values:  # each element is once in ``values``, so a plain indexed OR is right
        own[list(values)] |= region_bits(list(values.values()))


def python_region_bits(values: list[str]) -> np.ndarray:
    """The region bits of each of ``values`` (int64): the reference, and what serves where ``_regions`` is not built.

    Each distinct value is read once (a page repeats its classes), and the pattern is tried only where a
    region word starts, found by ``str.find`` in C over all of them lower-cased as one string, a line
    apiece: a line break is no letter or digit, so a match lies within one value and is what matching
    that value alone finds; its offset says whose it is.
    """
    out = np.zeros(len(values), dtype=np.int64)
    distinct = list(dict.fromkeys(values))
    pieces, lowered = distinct, "\n".join(distinct).lower()
    if sum(map(len, distinct)) + len(distinct) != len(lowered) + 1:  # a character lower-cases to two
        pieces = [value.lower() for value in distinct]
        lowered = "\n".join(pieces)
    ends = np.cumsum([len(piece) + 1 for piece in pieces])
    starts = sorted({at for word in _WORD_STARTS for at in _occurrences(lowered, word)})
    found = [(at, match.lastgroup or "") for at in starts if (match := _TOKEN_PATTERN.match(lowered, at))]
    if not found:
        return out
    owners = np.searchsorted(ends, [at for at, _ in found], side="right").tolist()
    bits: dict[str, int] = {}
    for owner, (_, region) in zip(owners, found, strict=True):
        bits[distinct[owner]] = bits.get(distinct[owner], 0) | REGION_BITS[region]
    out[:] = [bits.get(value, 0) for value in values]
    return out


def _occurrences(text: str, word: str) -> list[int]:
    """Every offset where ``word`` occurs in ``text``."""
    found = []
    at = text.find(word)
    while at >= 0:
        found.append(at)
        at = text.find(word, at + 1)
    return found


def _load_compiled_region_bits() -> Callable[[list[str]], np.ndarray] | None:
    """The compiled scan (``_regions.pyx``, ``make build-ext``), given the region words; None where not built."""
    try:
        from service.features import _regions  # noqa: PLC0415 - optional: built by `make build-ext`
    except ImportError:
        return None
    _regions.configure(
        [
            (word, REGION_BITS[region], len(word) >= MIN_PREFIX)
            for region, (_, _, words) in REGIONS.items()
            for word in words
        ]
    )
    return _regions.region_bits


compiled_region_bits = _load_compiled_region_bits()
region_bits: Callable[[list[str]], np.ndarray] = compiled_region_bits or python_region_bits


def _inherited(document: Document, own: np.ndarray) -> np.ndarray:
    """OR of ``own`` over every element's ancestors-or-self, by pointer doubling (about log2(depth) passes).

    After pass k, ``out[e]`` holds the bits of e and its 2**k - 1 nearest ancestors and ``up[e]`` is
    its 2**k-th ancestor (``count``, a zero row past the end, above the root).
    """
    count = len(own)
    out = np.append(own, 0)
    up = np.append(np.where(document.elem_parent < 0, count, document.elem_parent), count)
    while (up < count).any():
        out |= out[up]
        up = up[up]
    return out[:-1]


@per_document
def leaf_regions(document: Document) -> np.ndarray:
    """The region bits (:data:`REGION_BITS`) each leaf inherits from its ancestors-or-self (int64 per leaf).

    Once per page: pruning and the ``gbt`` features both read them.
    """
    regions = _inherited(document, _own_regions(document))[document.block_elem]
    regions.flags.writeable = False
    return regions


@per_document
def subtree_text(document: Document) -> tuple[np.ndarray, np.ndarray]:
    """Characters of text, and of link text, at or below each element (float64 each, read-only).

    Once per page: the containers' link shares and Readability's candidate scores both read them.
    """
    chars = document.block_chars
    total = document.subtree_sums(chars)
    linked = document.subtree_sums(chars * document.block_in_link)
    total.flags.writeable = linked.flags.writeable = False
    return total, linked


@per_document
def container_link_shares(document: Document) -> np.ndarray:
    """The link-text share of the element :data:`LINK_LEVELS` steps above each leaf's paragraph (leaves × levels).

    Once per page (float64, read-only): pruning reads level 1, the ``gbt`` features every level.
    """
    total, linked = subtree_text(document)
    shares = np.empty((len(document), len(LINK_LEVELS)))
    for column, level in enumerate(LINK_LEVELS):
        above = document.ancestors_at(document.block_paragraph, level)
        shares[:, column] = linked[above] / np.maximum(total[above], 1.0)
    shares.flags.writeable = False
    return shares


def sidebar_blocks(document: Document) -> np.ndarray:
    """Whether each leaf sits in a sidebar (:data:`SIDEBAR_TAGS`, :data:`SIDEBAR_ROLE`, a "sidebar" word; bool).

    Looked for among the elements of the ``aside`` region only (a sidebar is one of them), so the page's
    other classes are not read again; like the regions, never on the page's frame or inside code. An
    element that holds the page's ``<main>`` (or ``role="main"``) is the layout around it, not a sidebar:
    WordPress's Genesis themes wrap the content and its sidebar in ``content-sidebar-wrap``.
    """
    own = np.zeros(len(document.elem_tag), dtype=bool)
    tags, roles = document.elem_tag, document.elem_attribute("role")  # the attributes the regions read already
    ids, classes = document.elem_attribute("id"), document.elem_attribute("class")
    for element in np.flatnonzero(_own_regions(document) & REGION_BITS["aside"]).tolist():
        own[element] = (
            tags[element] in SIDEBAR_TAGS
            or roles.get(element, "").strip().lower() == SIDEBAR_ROLE
            or any(_SIDEBAR_WORD.search(named.get(element, "").lower()) for named in (ids, classes))
        )
    sidebars = np.flatnonzero(own)
    own[sidebars[_hold_main(document, sidebars)]] = False
    return document.blocks_within(own)


def review_blocks(document: Document) -> np.ndarray:
    """Whether each leaf sits in a container of customer reviews, as its id or class names it (bool per leaf).

    Read only on pages typed product (a whole scan of the ids and classes); never on the page's frame.
    """
    own = np.zeros(len(document.elem_tag), dtype=bool)
    for named in (document.elem_attribute("id"), document.elem_attribute("class")):
        for element, value in named.items():
            if _REVIEWS_WORD.search(value.lower()):
                own[element] = True
    own[document.elem_tagged(FRAME_TAGS)] = False
    return document.blocks_within(own)


def _hold_main(document: Document, elements: np.ndarray) -> np.ndarray:
    """Whether each of ``elements`` has a ``<main>`` or ``role="main"`` element strictly below it (bool each)."""
    if not elements.size:
        return np.zeros(0, dtype=bool)
    roles = [element for element, role in document.elem_attribute("role").items() if role.strip().lower() == MAIN_ROLE]
    has_main_tag = not MAIN_TAGS.isdisjoint(document.path_tag)  # a set test over the page's paths, in C
    mains = np.flatnonzero(document.elem_tagged(MAIN_TAGS)) if has_main_tag else np.zeros(0, dtype=np.int64)
    if roles:
        mains = np.union1d(mains, roles)
    # pre-order: a subtree is a range, so what lies below e is (e, its subtree's end)
    below = np.searchsorted(mains, document.subtree_ends[elements], side="left")
    return below > np.searchsorted(mains, elements, side="right")
