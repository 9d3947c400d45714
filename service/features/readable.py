"""Is there an article here at all? Readability.js's ``isProbablyReaderable``, as a score of the page.

Every paragraph (p, pre or article) of at least :data:`MIN_PARAGRAPH_CHARS` characters
that does not hide itself, is not in a list item and is not marked by its own id or class
as a sidebar, menu, comment and the like, adds the square root of its length beyond that minimum;
Readability calls a page readerable once the sum passes :data:`READERABLE_SCORE`.
:func:`readable_score` is that sum over :data:`READERABLE_SCORE`, capped at 1: 1 where
Readability would offer its reader view, less the further the page is from it.
"""

from __future__ import annotations

import math
import re

import numpy as np

from service.features.hidden import hiding_elements
from service.parsing.document import Document

# Readability.js (isProbablyReaderable's defaults and REGEXPS.unlikelyCandidates / okMaybeItsACandidate).
MIN_PARAGRAPH_CHARS = 140
READERABLE_SCORE = 20.0
PARAGRAPH_TAGS = frozenset({"p", "pre", "article"})
_UNLIKELY = re.compile(
    r"-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|"
    r"menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|"
    r"pagination|pager|popup|yom-remote",
    re.I,
)
_MAYBE = re.compile(r"and|article|body|column|content|main|shadow", re.I)


def readable_score(document: Document) -> float:
    """How readerable the page is, in [0, 1]; 1 where Readability.js's isProbablyReaderable says yes."""
    if len(document) == 0:
        return 0.0
    lengths = document.block_chars
    # a paragraph's characters: its leaves and one space between each two (white space collapsed)
    chars = np.bincount(document.block_paragraph, weights=lengths + 1, minlength=len(document.elem_tag)) - 1
    candidates = np.flatnonzero((chars >= MIN_PARAGRAPH_CHARS) & document.elem_tagged(PARAGRAPH_TAGS))
    if not candidates.size:
        return 0.0
    in_item = document.within(document.elem_tagged(frozenset({"li"})))[candidates]
    # the id, class and hiding attributes pruning has read already (regions, hidden blocks)
    classes, ids, hides = document.elem_attribute("class"), document.elem_attribute("id"), hiding_elements(document)
    score = 0.0
    for elem in candidates[~in_item].tolist():
        marks = f"{classes.get(elem, '')} {ids.get(elem, '')}"
        if (_UNLIKELY.search(marks) and not _MAYBE.search(marks)) or hides[elem]:
            continue
        score += math.sqrt(chars[elem] - MIN_PARAGRAPH_CHARS)
        if score >= READERABLE_SCORE:  # the cap: no later paragraph changes the answer
            return 1.0
    return score / READERABLE_SCORE
