"""Test backends: what API tests need without a model (the registry takes any object with the protocol)."""

from __future__ import annotations

import threading

import numpy as np

from service.backends.base import Backend, BlockLabels
from service.parsing.document import Document

GATE_TIMEOUT_S = 20.0  # a gate nobody opens fails the test instead of hanging it


class KeepAllBackend(Backend):
    """Labels every block content: a second opinion that always disagrees with Boilerpipe on boilerplate."""

    name = "keep_all"
    kind = "rules"
    version = "test-1"

    def classify(self, document: Document) -> BlockLabels:
        return BlockLabels.from_scores(np.ones(len(document), dtype=np.float32))


class GateBackend(Backend):
    """Holds every classify call until the test opens the gate, so "N requests in flight" is a fact, not a race."""

    name = "gate"
    kind = "rules"
    version = "test-1"

    def __init__(self) -> None:
        self.opened = threading.Event()
        self._entered = threading.Semaphore(0)

    def classify(self, document: Document) -> BlockLabels:
        self._entered.release()
        if not self.opened.wait(GATE_TIMEOUT_S):
            raise RuntimeError("the test never opened the gate")
        return BlockLabels.from_scores(np.ones(len(document), dtype=np.float32))

    def wait_entered(self, count: int) -> None:
        for _ in range(count):
            if not self._entered.acquire(timeout=GATE_TIMEOUT_S):
                raise AssertionError("fewer requests reached the backend than expected")

    def entered_again(self, within_s: float) -> bool:
        """Whether one more classify call began (within ``within_s``) than :meth:`wait_entered` counted."""
        return self._entered.acquire(timeout=within_s)
