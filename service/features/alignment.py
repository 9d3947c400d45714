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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

import numpy as np

MIN_ALIGNED_SHARE = 0.5  # a block is kept when at least this share of its tokens aligns

WORD = re.compile(r"\w+")  # a word token, case kept (the shingle scores keep case)


def word_tokens(text: str) -> list[str]:
    r"""Lower-cased ``\w+`` tokens: the unit of the alignment and of every word-level score."""
    return WORD.findall(text.lower())


def align_blocks(texts: Sequence[str], text: str) -> np.ndarray:
    """Which blocks (bool per block) with these texts carry ``text``."""
    block_tokens = [word_tokens(block) for block in texts]
    lengths = np.fromiter((len(t) for t in block_tokens), dtype=np.int64, count=len(block_tokens))
    aligned = aligned_tokens([t for tokens in block_tokens for t in tokens], word_tokens(text))
    owner = np.repeat(np.arange(len(block_tokens)), lengths)
    hits = np.bincount(owner, weights=aligned, minlength=len(block_tokens))
    worded = lengths > 0
    labels = worded & (hits >= MIN_ALIGNED_SHARE * lengths)
    return _label_wordless(labels, worded)


def aligned_tokens(page: Sequence[str], text: Sequence[str]) -> np.ndarray:
    """Which page tokens the monotone alignment matches to a token of ``text`` (bool per page token)."""
    aligned = np.zeros(len(page), dtype=bool)
    if page and text:
        for start, _, size in SequenceMatcher(None, page, text, autojunk=False).get_matching_blocks():
            aligned[start : start + size] = True
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
