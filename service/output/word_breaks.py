"""Where two leaves with no white space between them are two words all the same: the renderer's spaces."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

JOINED, SPACED, BROKEN = 0, 1, 2  # a leaf's separator: none, a space, a line break
# The link or button each of some leaves (positions in the texts) belongs to, -1 for none; asked only at
# the few leaves where words meet, since it costs a look-up per leaf (service.output.tree's element facts).
Items = Callable[[np.ndarray], list[int]]
# Scripts written without spaces between words: Thai, Lao, Myanmar, Khmer, kana, CJK ideographs.
_UNSPACED_SCRIPT = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\uff66-\uff9f]"
)
MAX_AFFIX_LETTERS = 3  # running text this short at a link's edge is the word's prefix or ending, not a word
_LEADING_LETTERS = re.compile(r"[^\W\d_]+")
_TRAILING_LETTERS = re.compile(r"[^\W\d_]+$")


def separate_items(texts: list[str], codes: np.ndarray, in_pre: np.ndarray, items: Items) -> None:
    """Turn "no white space" into a space where two leaves clearly are separate words.

    A browser glues adjacent inline leaves ("A <b>B</b>C" reads "A BC"), but a
    site's CSS often sets them apart: ``<a>Home</a><a>News</a>`` is a menu and
    ``<span>Old Town</span><span>Ocean Kayak</span>`` a brand and a product
    name; gluing them would invent "HomeNews" and "TownOcean". So a space goes
    where the leaves meet letter or digit to letter or digit and belong to
    different links or buttons, or meet lower case to upper case (a word does
    not change case there, a drop cap "<span>T</span>he" goes the other way).
    Where a link meets running text, the text may go on the link's word
    (:func:`_goes_on_the_word`): "位于<a>中国</a>北部", "ב<a>ירושלים</a>",
    "<a>Helsinki</a>ssä" and "<a>table</a>s" are one word each, which a space
    cut; "$425.00<a>View</a>" and "<a>LocalRuntime</a><code>tokio_unstable</code>"
    are two. "<a>link</a>!" still reads "link!"; preformatted text keeps its own
    white space.
    """
    joined = np.flatnonzero((codes == JOINED) & ~in_pre).tolist()
    candidates = []
    for j in joined:
        before, after = texts[j - 1][-1], texts[j][0]
        if before.islower() and after.isupper():
            codes[j] = SPACED
        elif before.isalnum() and after.isalnum():
            candidates.append(j)
    if not candidates:
        return
    at = np.asarray(candidates)
    for j, before_item, after_item in zip(candidates, items(at - 1), items(at), strict=True):
        if before_item == after_item:
            continue
        if (before_item < 0 or after_item < 0) and _goes_on_the_word(texts[j - 1], texts[j], before_item < 0):
            continue
        codes[j] = SPACED


def _goes_on_the_word(before: str, after: str, text_before: bool) -> bool:
    """Whether the running text's side of a link's edge continues the link's word rather than starting one.

    Letter to a letter that is not upper case, and either in a script written without spaces (Chinese,
    Japanese, Thai, ...) or an affix: the text's letters at the edge are at most :data:`MAX_AFFIX_LETTERS`
    ("ב", "ssä", "s"), where a badge or a word ("tokio_unstable") is longer.
    """
    last, first = before[-1], after[0]
    if not (last.isalpha() and first.isalpha()) or first.isupper():
        return False
    if _UNSPACED_SCRIPT.match(last) or _UNSPACED_SCRIPT.match(first):
        return True
    edge = _TRAILING_LETTERS.search(before) if text_before else _LEADING_LETTERS.match(after)
    return edge is not None and len(edge.group()) <= MAX_AFFIX_LETTERS
