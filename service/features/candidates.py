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
words like "article" or "sidebar") are left out: the regions (:mod:`service.features.structure`)
read those names already.
"""

from __future__ import annotations

from itertools import repeat

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


def _commas(document: Document) -> np.ndarray:
    """Commas of every leaf (float64), counted in the joined text the other features read."""
    text = joined_text(document)
    found = [np.flatnonzero(text.units == ord(comma)) for comma in COMMAS if comma in text.text]
    if not found:
        return np.zeros(len(document))
    return text.per_leaf(np.concatenate(found)).astype(np.float64)


def candidate_scores(document: Document) -> np.ndarray:
    """Readability's final content score of every element (float64; 0 where none is scored)."""
    count = len(document.elem_tag)
    chars, linked = subtree_text(document)
    commas = document.subtree_sums(_commas(document))
    is_paragraph = np.zeros(count, dtype=bool)
    is_paragraph[document.block_paragraph] = True
    paths = len(document.path_tag)
    scored_path = np.fromiter(map(SCORED_TAGS.__contains__, document.path_tag), bool, paths)
    paragraphs = np.flatnonzero(is_paragraph & scored_path[document.elem_path] & (chars >= MIN_CHARS))
    score = np.zeros(count)
    given = 1 + commas[paragraphs] + np.minimum(np.floor(chars[paragraphs] / 100), 3)
    above, parent = paragraphs, document.elem_parent
    for level in range(LEVELS):
        up = parent[above]
        inside = up >= 0
        above, given = up[inside], given[inside]
        np.add.at(score, above, given / (1 if level == 0 else 2 if level == 1 else level * 3))
    by_tag = np.fromiter(map(TAG_SCORES.get, document.path_tag, repeat(0.0)), np.float64, paths)
    return np.where(score > 0, (score + by_tag[document.elem_path]) * (1 - linked / np.maximum(chars, 1)), 0.0)


@per_document
def candidate_features(document: Document) -> np.ndarray:
    """:data:`FEATURES` of every leaf (leaves × 3, float64, read-only); zeros where nothing is scored."""
    out = np.zeros((len(document), len(FEATURES)))
    final = candidate_scores(document) if len(document) else np.zeros(1)
    best = int(np.argmax(final))
    if final[best] > 0:
        elems, ends = document.block_elem, document.subtree_ends
        out[:, 0] = (elems >= best) & (elems < ends[best])
        parent = int(document.elem_parent[best])
        if parent >= 0:
            out[:, 1] = (elems >= parent) & (elems < ends[parent])
        best_above, above = final[document.block_paragraph], document.block_paragraph
        for _ in range(LEVELS):
            above = document.ancestors_at(above, 1)
            best_above = np.maximum(best_above, final[above])
        out[:, 2] = np.clip(best_above / final[best], 0, 1)
    out.flags.writeable = False
    return out
