"""``favor``: precision, balanced or recall, by moving the backend's decision threshold.

A shift ``s > 0`` keeps of the blocks the backend keeps those scoring at least
``threshold + s``; ``s < 0`` adds the blocks scoring at least ``threshold + s``.
For a backend that decides by its threshold alone that is ``scores >= threshold + s``;
where the labels go further than the scores (boilerpipe's tree filter) they stay the
base: precision only removes from them, recall only adds. The shifts per backend were
chosen on the WCXB validation part by ``python -m service eval --part validation
--favor-sweep`` (the widest shift each way that costs at most
:data:`~service.evaluation.favor.F1_TOLERANCE` of mean word F1).

On the pages the page-type model takes for articles the balanced threshold itself moves
by :data:`ARTICLE_SHIFTS` (chosen by ``eval --part validation --article-sweep``), and the
caller's favor moves it from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from service.backends.base import BlockLabels
from service.metadata.fields import ARTICLE

PRECISION, BALANCED, RECALL = "precision", "balanced", "recall"
FAVORS = (PRECISION, BALANCED, RECALL)

# Shift per backend and favor (balanced is 0), from `python -m service eval --part validation --favor-sweep`
# on the WCXB dev pages (WCXB, Murrough Foley 2026); a backend not listed gets DEFAULT_SHIFTS.
SHIFTS: Mapping[str, Mapping[str, float]] = {
    "bilstm": {PRECISION: 0.2, RECALL: -0.2},
    "bilstm_int8": {PRECISION: 0.2, RECALL: -0.2},
    "bilstm_paper": {PRECISION: 0.2, RECALL: -0.15},
    "boilerpipe": {PRECISION: 0.0, RECALL: -0.4},
    "ensemble": {PRECISION: 0.4, RECALL: -0.1},
    "ensemble_cpu": {PRECISION: 0.4, RECALL: -0.05},
    "ensemble_peer": {PRECISION: 0.4, RECALL: -0.05},
    "gbt": {PRECISION: 0.2, RECALL: -0.15},
    "grf": {PRECISION: 0.4, RECALL: -0.4},
    "mlp": {PRECISION: 0.1, RECALL: -0.2},
    "svm": {PRECISION: 0.1, RECALL: -0.05},
}
DEFAULT_SHIFTS: Mapping[str, float] = {PRECISION: 0.1, RECALL: -0.1}

# The balanced threshold's shift on the pages the page-type model takes for articles, per backend (0 where not
# listed), from `python -m service eval --part validation --article-sweep` on the WCXB dev pages: the smallest
# shift within service.evaluation.favor.ARTICLE_TOLERANCE of the best mean word F1 (on articles a model fitted
# on every kind of page keeps teasers, threads and sidebars too readily). The ensembles' combiners were fitted
# on that part, so their choice is in-sample.
ARTICLE_SHIFTS: Mapping[str, float] = {
    # chosen for gbt before the candidate scores; with them the sweep picks +0.25, 0.0007 above +0.2: left
    "gbt": 0.2,
    "bilstm_paper": 0.15,
    "ensemble": 0.15,
    "ensemble_cpu": 0.25,
    "ensemble_peer": 0.25,
}


def favor_shift(backend: str, favor: str) -> float:
    """The threshold shift of ``favor`` (one of :data:`FAVORS`) for ``backend``."""
    return 0.0 if favor == BALANCED else SHIFTS.get(backend, DEFAULT_SHIFTS)[favor]


def decision_shift(backend: str, favor: str, page_type: str | None) -> float:
    """The threshold shift a page is decided with: the caller's ``favor``, and the article shift on an article."""
    return favor_shift(backend, favor) + (ARTICLE_SHIFTS.get(backend, 0.0) if page_type == ARTICLE else 0.0)


def shift_labels(labels: BlockLabels, shift: float) -> BlockLabels:
    """``labels`` with the decision threshold moved by ``shift`` (scores unchanged)."""
    if shift == 0:
        return labels
    passes = labels.scores >= labels.threshold + shift
    kept = labels.labels & passes if shift > 0 else labels.labels | passes
    return replace(labels, labels=np.asarray(kept, dtype=bool))
