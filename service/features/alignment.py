r"""Which blocks carry a given text: the alignment of a text to a page's blocks.

The page's block tokens, in document order, are aligned monotonically to
the text's tokens (``difflib`` with autojunk off: the longest common run
first, then recursively left and right of it, which anchors on the long
runs of real content rather than on stray common words in menus). A block
is kept when at least half of its tokens align. A block without word
tokens (a lone "|" or "•") is kept when the nearest worded blocks on both
sides are.

A feature computation shared by two callers: the evaluation turns gold text
into block labels with it, and the ``ensemble_peer`` backend turns a peer
extractor's text into a member's scores (:mod:`service.backends.peers`).
Tokens are lower-cased ``\w+`` words, the unit of every word-level score.

The alignment's time grows with the pairs of equal tokens across the two
sides: a 48,000-word Dragnet page (16 million pairs) took 15 s, and a page of
one word 16,000 times 44 s. A caller that serves requests gives a budget of
pairs (``max_pairs``); above it, the tokens are aligned in bulk
(:func:`_bulk_aligned`): what the two share at their start and end in order,
and between those each page token that the text still holds a copy of.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

import numpy as np

MIN_ALIGNED_SHARE = 0.5  # a block is kept when at least this share of its tokens aligns

WORD = re.compile(r"\w+")  # a word token, case kept (the shingle scores keep case)


def word_tokens(text: str) -> list[str]:
    r"""Lower-cased ``\w+`` tokens: the unit of the alignment and of every word-level score."""
    return WORD.findall(text.lower())


def align_blocks(texts: Sequence[str], text: str, max_pairs: int | None = None) -> np.ndarray:
    """Which blocks (bool per block) with these texts carry ``text`` (``max_pairs``: see :func:`aligned_tokens`)."""
    block_tokens = [word_tokens(block) for block in texts]
    lengths = np.fromiter((len(t) for t in block_tokens), dtype=np.int64, count=len(block_tokens))
    aligned = aligned_tokens([t for tokens in block_tokens for t in tokens], word_tokens(text), max_pairs)
    owner = np.repeat(np.arange(len(block_tokens)), lengths)
    hits = np.bincount(owner, weights=aligned, minlength=len(block_tokens))
    worded = lengths > 0
    labels = worded & (hits >= MIN_ALIGNED_SHARE * lengths)
    return _label_wordless(labels, worded)


def aligned_tokens(page: Sequence[str], text: Sequence[str], max_pairs: int | None = None) -> np.ndarray:
    """Which page tokens the monotone alignment matches to a token of ``text`` (bool per page token).

    Aligned in bulk (:func:`_bulk_aligned`) where the two sides have more than ``max_pairs`` pairs of
    equal tokens: the exact alignment's time grows with them.
    """
    aligned = np.zeros(len(page), dtype=bool)
    if not page or not text:
        return aligned
    if max_pairs is not None and equal_pairs(page, text) > max_pairs:
        return _bulk_aligned(page, text)
    for start, _, size in SequenceMatcher(None, page, text, autojunk=False).get_matching_blocks():
        aligned[start : start + size] = True
    return aligned


def equal_pairs(page: Sequence[str], text: Sequence[str]) -> int:
    """How many (page token, text token) pairs are the same word: what the exact alignment's time grows with."""
    in_text = Counter(text)
    return sum(count * in_text[token] for token, count in Counter(page).items() if token in in_text)


def _bulk_aligned(page: Sequence[str], text: Sequence[str]) -> np.ndarray:
    """The alignment in linear time: the common start and end in order; between them, copies by count, in order.

    A page token between them is aligned while the text's middle holds a copy of it not yet taken.
    """
    aligned = np.zeros(len(page), dtype=bool)
    limit = min(len(page), len(text))
    head = next((i for i in range(limit) if page[i] != text[i]), limit)
    tail = next((i for i in range(limit - head) if page[-1 - i] != text[-1 - i]), limit - head)
    aligned[:head] = True
    aligned[len(page) - tail :] = True
    copies = Counter(text[head : len(text) - tail])
    for at in range(head, len(page) - tail):
        if copies[page[at]] > 0:
            copies[page[at]] -= 1
            aligned[at] = True
    return aligned


def _label_wordless(labels: np.ndarray, worded: np.ndarray) -> np.ndarray:
    """Give each block without words the label shared by its worded neighbours (kept only if both are)."""
    if worded.all():
        return labels
    index = np.arange(len(labels))
    worded_at = np.flatnonzero(worded)
    if not worded_at.size:
        return labels
    before = np.searchsorted(worded_at, index, side="right") - 1  # last worded block at or before
    after = np.searchsorted(worded_at, index, side="left")  # first worded block at or after
    content_before = (before >= 0) & labels[worded_at[np.clip(before, 0, None)]]
    content_after = (after < worded_at.size) & labels[worded_at[np.clip(after, None, worded_at.size - 1)]]
    return np.where(worded, labels, content_before & content_after)
