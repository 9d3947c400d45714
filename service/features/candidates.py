"""Where Readability would take the article from: its content scores of the elements above each leaf.

Readability.js (``grabArticle``) scores every paragraph-like element (:data:`SCORED_TAGS`) of
at least :data:`MIN_CHARS` characters: 1, plus one per comma, plus one per 100 characters
up to 3. The score goes to the element's ancestors, :data:`LEVELS` of them: all of it to the
parent, half to the grandparent, ``1 / (3·level)`` further up. Each element so scored starts
from what its tag gives (:data:`TAG_SCORES`) and ends scaled by one minus its link density;
the best-scored element is where Readability takes the article from. No learned weight and no
site's names go into it, which is why it holds on pages of other sites and years: on Dragnet's
2012 news and blogs Readability beats every model trained on today's pages.

Per leaf, as model inputs (:data:`FEATURES`): whether the leaf is inside the best-scored
element, whether it is inside that element's parent (Readability also takes siblings), and
the best score among the elements from the leaf's paragraph up :data:`LEVELS` levels,
against the page's best (0 where none is scored). Readability's id/class weights (±25 for
words like "article" or "sidebar") are left out of them: the regions
(:mod:`service.features.structure`) read those names already.

:func:`readability_body` reads the names as Readability does (``names=True``): no paragraph
scores inside an unlikely candidate (a class or id with a word of :data:`UNLIKELY` and none of
:data:`MAYBE`, not a ``body`` or an ``a`` and not inside a table or code; or an ARIA role of
:data:`UNLIKELY_ROLES`), and a scored element starts :data:`NAME_WEIGHT` higher for a class (and
for an id) with a word of :data:`POSITIVE` and as much lower for one with a word of
:data:`NEGATIVE`. Pruning reads it where a backend kept a comment thread and next to nothing
else: on a blog post whose readers wrote more than its author, the post is where Readability
takes the article from. As model inputs the names bought nothing (``gbt`` retrained with them,
four seeds: WCXB validation even, Dragnet +0.005 with two seeds up, one even and one down).

The spread up the tree and the best score above each leaf run in C (``_candidates.pyx``) where
``make build-ext`` built it; :func:`python_spread` and :func:`python_best_above` are their
reference and serve where it is not.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, repeat
from types import ModuleType

import numpy as np

from service.features.per_document import per_document
from service.features.structure import subtree_text
from service.features.text_stats import joined_text
from service.parsing.document import Document

MIN_CHARS = 25
LEVELS = 5
# What Readability scores (DEFAULT_TAGS_TO_SCORE, and the divs it reads as paragraphs), and how it
# starts an element's score by its tag (initializeNode).
SCORED_TAGS = frozenset({"section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre", "div"})
TAG_SCORES = {
    "div": 5.0,
    **dict.fromkeys(("pre", "td", "blockquote"), 3.0),
    **dict.fromkeys(("address", "ol", "ul", "dl", "dd", "dt", "li", "form"), -3.0),
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6", "th"), -5.0),
}
# Readability's REGEXPS.commas: the comma of Latin, Arabic and CJK text, and its presentation forms.
COMMAS = (",", "\u060c", "\ufe50", "\ufe10", "\ufe11", "\u2e41", "\u2e34", "\u2e32", "\uff0c")
FEATURES = ("in_best", "in_best_parent", "best_above")
# Readability.js's REGEXPS ``unlikelyCandidates``, ``okMaybeItsACandidate``, ``positive`` and ``negative``,
# as the words they find anywhere in a class or id, case aside; ``negative`` also takes "hid" as a whole class.
UNLIKELY = (
    "-ad-", "ai2html", "banner", "breadcrumbs", "combx", "comment", "community", "cover-wrap", "disqus", "extra",
    "footer", "gdpr", "header", "legends", "menu", "related", "remark", "replies", "rss", "shoutbox", "sidebar",
    "skyscraper", "social", "sponsor", "supplemental", "ad-break", "agegate", "pagination", "pager", "popup",
    "yom-remote",
)  # fmt: skip
MAYBE = ("and", "article", "body", "column", "content", "main", "mathjax", "shadow")
POSITIVE = (
    "article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "pagination", "post", "text", "blog",
    "story",
)  # fmt: skip
NEGATIVE = (
    "-ad-", "hidden", "banner", "combx", "comment", "com-", "contact", "footer", "gdpr", "masthead", "media", "meta",
    "outbrain", "promo", "related", "scroll", "share", "shoutbox", "sidebar", "skyscraper", "sponsor", "shopping",
    "tags", "widget",
)  # fmt: skip
NEGATIVE_CLASS = "hid"
UNLIKELY_ROLES = frozenset({"menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog"})
NAME_WEIGHT = 25.0
SPARED_TAGS = frozenset({"body", "a"})  # never unlikely candidates
SPARING_TAGS = frozenset({"table", "code"})  # nothing inside them is an unlikely candidate
_UNLIKELY, _MAYBE, _POSITIVE, _NEGATIVE = 1, 2, 4, 8
_WORD_BITS: dict[str, int] = {}
for _bit, _words in ((_UNLIKELY, UNLIKELY), (_MAYBE, MAYBE), (_POSITIVE, POSITIVE), (_NEGATIVE, NEGATIVE)):
    for _word in _words:
        _WORD_BITS[_word] = _WORD_BITS.get(_word, 0) | _bit


def _commas(document: Document) -> np.ndarray:
    """Commas of every leaf (float64), counted in the joined text the other features read."""
    text = joined_text(document)
    found = [np.flatnonzero(text.units == ord(comma)) for comma in COMMAS if comma in text.text]
    if not found:
        return np.zeros(len(document))
    return text.per_leaf(np.concatenate(found)).astype(np.float64)


def _name_bits(values: dict[int, str], count: int) -> np.ndarray:
    """Which of Readability's word lists each element's class (or id) in ``values`` has a word of (bits per element).

    Each word is looked for with ``str.find`` over the distinct values, lower-cased and joined a line
    apiece (no word holds a line break, so a match lies within one value): one search per value
    with Readability's regular expressions cost several milliseconds a page.
    """
    out = np.zeros(count, dtype=np.int64)
    if not values:
        return out
    distinct = list(dict.fromkeys(values.values()))
    pieces = [value.lower() for value in distinct]
    lowered = "\n".join(pieces)
    ends = list(accumulate(len(piece) + 1 for piece in pieces))
    bits = [0] * len(distinct)
    for word, bit in _WORD_BITS.items():
        at = lowered.find(word)
        while at >= 0:
            owner = bisect_right(ends, at)
            bits[owner] |= bit
            at = lowered.find(word, ends[owner])  # on to the next value
    if NEGATIVE_CLASS in lowered:
        for i, piece in enumerate(pieces):
            bits[i] |= _NEGATIVE if NEGATIVE_CLASS in piece.split() else 0
    by_value = dict(zip(distinct, bits, strict=True))
    out[list(values)] = [by_value[value] for value in values.values()]
    return out


def _unlikely(document: Document, names: np.ndarray) -> np.ndarray:
    """Readability's unlikely candidates (bool per element): by their class and id (``names``' bits) or ARIA role."""
    unlikely = ((names & _UNLIKELY) != 0) & ((names & _MAYBE) == 0)
    roles = document.elem_attribute("role")
    unlikely[[elem for elem, role in roles.items() if role in UNLIKELY_ROLES]] = True
    if unlikely.any():
        parent = document.elem_parent
        inside = document.within(document.elem_tagged(SPARING_TAGS))
        unlikely &= ~document.elem_tagged(SPARED_TAGS) & ~np.where(parent >= 0, inside[parent], False)
    return unlikely


def _name_weight(bits: np.ndarray) -> np.ndarray:
    """Readability's weight of a class (or id) from its word lists' ``bits``: +25 positive, -25 negative."""
    return NAME_WEIGHT * (((bits & _POSITIVE) != 0).astype(np.float64) - ((bits & _NEGATIVE) != 0))


def candidate_scores(document: Document, *, names: bool = False) -> np.ndarray:
    """Readability's final content score of every element (float64; 0 where none is scored).

    ``names``: with Readability's reading of classes, ids and roles (see the module's docstring).
    """
    count = len(document.elem_tag)
    chars, linked = subtree_text(document)
    is_paragraph = np.zeros(count, dtype=bool)
    is_paragraph[document.block_paragraph] = True
    paths = len(document.path_tag)
    scored_path = np.fromiter(map(SCORED_TAGS.__contains__, document.path_tag), bool, paths)
    scored = is_paragraph & scored_path[document.elem_path] & (chars >= MIN_CHARS)
    by_tag = np.fromiter(map(TAG_SCORES.get, document.path_tag, repeat(0.0)), np.float64, paths)
    start = by_tag[document.elem_path]
    if names:
        classes = _name_bits(document.elem_attribute("class"), count)
        ids = _name_bits(document.elem_attribute("id"), count)
        scored &= ~document.within(_unlikely(document, classes | ids))
        start += _name_weight(classes) + _name_weight(ids)
    if _compiled is None:
        return python_spread(document, scored, start)
    final = np.empty(count)
    _compiled.spread_scores(
        document.elem_parent,
        document.subtree_ends,
        document.block_elem,
        _commas(document),
        chars,
        linked,
        scored.view(np.uint8),
        start,
        LEVELS,
        final,
    )
    return final


def python_spread(document: Document, scored: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The final scores from the ``scored`` elements and each element's ``start``, in NumPy.

    The reference of the compiled spread (``_candidates.pyx``), and what serves where it is not built.
    """
    chars, linked = subtree_text(document)
    commas = document.subtree_sums(_commas(document))
    paragraphs = np.flatnonzero(scored)
    score = np.zeros(len(document.elem_tag))
    given = 1 + commas[paragraphs] + np.minimum(np.floor(chars[paragraphs] / 100), 3)
    above, parent = paragraphs, document.elem_parent
    for level in range(LEVELS):
        up = parent[above]
        inside = up >= 0
        above, given = up[inside], given[inside]
        np.add.at(score, above, given / (1 if level == 0 else 2 if level == 1 else level * 3))
    return np.where(score > 0, (score + start) * (1 - linked / np.maximum(chars, 1)), 0.0)


def _inside(document: Document, elem: int) -> np.ndarray:
    """Whether each leaf lies inside element ``elem`` (bool per leaf)."""
    return (document.block_elem >= elem) & (document.block_elem < document.subtree_ends[elem])


def _best(document: Document, *, names: bool) -> tuple[np.ndarray, int | None]:
    """The final scores and the element Readability takes the article from (None where none is scored)."""
    if not len(document):
        return np.zeros(0), None
    final = candidate_scores(document, names=names)
    best = int(np.argmax(final))
    return final, best if final[best] > 0 else None


@per_document
def readability_body(document: Document) -> np.ndarray:
    """The leaves inside the element Readability takes the article from, names read (bool per leaf, read-only).

    Once per page: several pruning rules of the last stage may ask on one page, at 1-2 ms a time.
    """
    best = _best(document, names=True)[1]
    body = _inside(document, best) if best is not None else np.zeros(len(document), dtype=bool)
    body.flags.writeable = False
    return body


@per_document
def candidate_features(document: Document) -> np.ndarray:
    """:data:`FEATURES` of every leaf (leaves × 3, float64, read-only); zeros where nothing is scored."""
    out = np.zeros((len(document), len(FEATURES)))
    final, best = _best(document, names=False)
    if best is not None:
        out[:, 0] = _inside(document, best)
        parent = int(document.elem_parent[best])
        if parent >= 0:
            out[:, 1] = _inside(document, parent)
        out[:, 2] = np.clip(_best_above(document, final) / final[best], 0, 1)
    out.flags.writeable = False
    return out


def _best_above(document: Document, final: np.ndarray) -> np.ndarray:
    """The best of ``final`` from each leaf's paragraph element up :data:`LEVELS` levels (float64 per leaf)."""
    if _compiled is None:
        return python_best_above(document, final)
    out = np.empty(len(document))
    _compiled.best_above(final, document.block_paragraph, document.elem_parent, LEVELS, out)
    return out


def python_best_above(document: Document, final: np.ndarray) -> np.ndarray:
    """:func:`_best_above` in NumPy: the reference of the compiled one, and what serves where it is not built."""
    best, above = final[document.block_paragraph], document.block_paragraph
    for _ in range(LEVELS):
        above = document.ancestors_at(above, 1)
        best = np.maximum(best, final[above])
    return best


def _load_compiled() -> ModuleType | None:
    """The compiled spread and best-above (``_candidates.pyx``, ``make build-ext``); None where not built."""
    try:
        from service.features import _candidates  # noqa: PLC0415 - optional: built by `make build-ext`
    except ImportError:
        return None
    return _candidates


_compiled = _load_compiled()
