"""``favor``: precision, balanced or recall, by moving the backend's decision threshold.

A shift ``s > 0`` keeps of the blocks the backend keeps those scoring at least
``threshold + s``; ``s < 0`` adds the blocks scoring at least ``threshold + s``.
For a backend that decides by its threshold alone that is ``scores >= threshold + s``;
where the labels go further than the scores (boilerpipe's tree filter) they stay the
base: precision only removes from them, recall only adds. The shifts per backend were
chosen on the WCXB validation part by ``python -m service eval --part validation
--favor-sweep`` (the widest shift each way that costs at most
:data:`~service.evaluation.favor.F1_TOLERANCE` of mean word F1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from service.backends.base import BlockLabels

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
    "grf": {PRECISION: 0.4, RECALL: -0.4},
    "mlp": {PRECISION: 0.1, RECALL: -0.2},
    "svm": {PRECISION: 0.1, RECALL: -0.05},
}
DEFAULT_SHIFTS: Mapping[str, float] = {PRECISION: 0.1, RECALL: -0.1}


def favor_shift(backend: str, favor: str) -> float:
    """The threshold shift of ``favor`` (one of :data:`FAVORS`) for ``backend``."""
    return 0.0 if favor == BALANCED else SHIFTS.get(backend, DEFAULT_SHIFTS)[favor]


def shift_labels(labels: BlockLabels, shift: float) -> BlockLabels:
    """``labels`` with the decision threshold moved by ``shift`` (scores unchanged)."""
    if shift == 0:
        return labels
    passes = labels.scores >= labels.threshold + shift
    kept = labels.labels & passes if shift > 0 else labels.labels | passes
    return replace(labels, labels=np.asarray(kept, dtype=bool))
