"""Gold block labels from gold text: the training targets and the block-level gold.

The page's block tokens, in document order, are aligned monotonically to
the gold text's tokens (``difflib`` with autojunk off: the longest common
run first, then recursively left and right of it, which anchors on the
long runs of real content rather than on stray common words in menus). A
block is content when at least half of its tokens align. A block without
word tokens (a lone "|" or "•") is content when the nearest worded blocks
on both sides are.

Labels depend on exactly two inputs, the block texts and the gold text, so
they are cached on disk under a hash of both plus :data:`LABELER_VERSION`:
a change to the parser that moves blocks moves the key with it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np

from service.evaluation.datasets import Page, boilernet_labels
from service.evaluation.metrics import word_tokens
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.paths import cache_dir

LABELER_VERSION = "align-1"  # bump when the labeling rule changes: old cache entries are then ignored
MIN_ALIGNED_SHARE = 0.5  # a block is content when at least this share of its tokens aligns


def align_blocks(texts: Sequence[str], gold: str) -> np.ndarray:
    """Content labels (bool per block) for blocks with these texts against the gold text."""
    block_tokens = [word_tokens(text) for text in texts]
    lengths = np.fromiter((len(t) for t in block_tokens), dtype=np.int64, count=len(block_tokens))
    aligned = aligned_tokens([t for tokens in block_tokens for t in tokens], word_tokens(gold))
    owner = np.repeat(np.arange(len(block_tokens)), lengths)
    hits = np.bincount(owner, weights=aligned, minlength=len(block_tokens))
    worded = lengths > 0
    labels = worded & (hits >= MIN_ALIGNED_SHARE * lengths)
    return _label_wordless(labels, worded)


def aligned_tokens(page: Sequence[str], gold: Sequence[str]) -> np.ndarray:
    """Which page tokens the monotone alignment matches to a gold token (bool per page token)."""
    aligned = np.zeros(len(page), dtype=bool)
    if page and gold:
        for start, _, size in SequenceMatcher(None, page, gold, autojunk=False).get_matching_blocks():
            aligned[start : start + size] = True
    return aligned


def _label_wordless(labels: np.ndarray, worded: np.ndarray) -> np.ndarray:
    """Give each block without words the label shared by its worded neighbours (content only if both are)."""
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


def labels_for(page: Page, document: Document | None = None, *, cache: LabelCache | None = None) -> np.ndarray:
    """The gold content label of every block of ``page``: what trainers fit and block metrics score.

    ``document`` is the page's parse if the caller has it (else it is parsed
    here). BoilerNet-prepared pages carry their labels; the others are
    aligned, through ``cache`` (the default on-disk one if None).
    """
    document = document if document is not None else parse_html(page.html())
    if page.labels_in_html:
        return boilernet_labels(document)
    cache = cache if cache is not None else LabelCache()
    key = cache.key(document.texts, page.main_content)
    labels = cache.get(key, len(document))
    if labels is None:
        labels = align_blocks(document.texts, page.main_content)
        cache.put(key, labels)
    return labels


class LabelCache:
    """Block labels on disk, one ``.npy`` per page under ``<cache dir>/labels/<version>/``."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = (root if root is not None else cache_dir()) / "labels" / LABELER_VERSION

    @staticmethod
    def key(texts: Sequence[str], gold: str) -> str:
        digest = hashlib.sha256(gold.encode("utf-8", "surrogatepass"))
        for text in texts:
            digest.update(b"\x00" + text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.npy"

    def get(self, key: str, blocks: int) -> np.ndarray | None:
        """The cached labels, or None when absent or unreadable (then they are recomputed)."""
        try:
            labels = np.load(self._path(key), allow_pickle=False)
        except (OSError, ValueError):
            return None
        return labels if labels.dtype == bool and labels.shape == (blocks,) else None

    def put(self, key: str, labels: np.ndarray) -> None:
        """Store atomically (write then rename), so parallel labelers never read half a file."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            np.save(out, np.asarray(labels, dtype=bool), allow_pickle=False)
        Path(temporary).replace(path)
