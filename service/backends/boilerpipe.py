"""Placeholder (replaced by the real backend): every block is content."""

from __future__ import annotations

import numpy as np

from service.backends.base import BlockLabels
from service.parsing.document import Document


class BoilerpipeBackend:
    name = "boilerpipe"
    kind = "rules"
    version = "0"

    def classify(self, document: Document) -> BlockLabels:
        return BlockLabels.from_scores(np.ones(len(document), dtype=np.float32))
