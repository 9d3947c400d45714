"""Gold block labels from gold text: the training targets and the block-level gold.

The gold text is aligned to the page's blocks by
:func:`service.features.alignment.align_blocks` (the same alignment the
``ensemble_peer`` backend uses for a peer's text): a block is content when
at least half of its tokens align to the gold.

Labels depend on exactly two inputs, the block texts and the gold text, so
they are cached on disk under a hash of both plus :data:`LABELER_VERSION`:
a change to the parser that moves blocks moves the key with it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from service.evaluation.datasets import Page, boilernet_labels
from service.features.alignment import align_blocks
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.paths import cache_dir

# Bump when the labeling rule (here or in service.features.alignment) changes: old cache entries are then ignored.
LABELER_VERSION = "align-1"


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
