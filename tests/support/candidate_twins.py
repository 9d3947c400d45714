"""The compiled candidate scores held to their NumPy reference on one page: the same doubles."""

from __future__ import annotations

import numpy as np
import pytest

from service.features import candidates
from service.parsing.document import Document

compiled = pytest.mark.skipif(
    candidates._compiled is None, reason="compiled candidate scores not built (make build-ext)"
)


def assert_candidate_twins_agree(document: Document) -> None:
    """Final scores with and without Readability's names, and the best score above every leaf, bit for bit."""
    for names in (False, True):
        served = candidates.candidate_scores(document, names=names)
        reference = _reference_scores(document, names)
        assert served.tobytes() == reference.tobytes()
    final = candidates.candidate_scores(document)
    assert candidates._best_above(document, final).tobytes() == candidates.python_best_above(document, final).tobytes()


def _reference_scores(document: Document, names: bool) -> np.ndarray:
    compiled_spread = candidates._compiled
    candidates._compiled = None
    try:
        return candidates.candidate_scores(document, names=names)
    finally:
        candidates._compiled = compiled_spread
