"""Errors of the serving runtime, in domain terms (no HTTP here)."""

from __future__ import annotations

from service.errors import ExtractionError


class Overloaded(ExtractionError):
    """More work than the process admits right now; the caller should retry after ``retry_after_s``.

    Raised by the admission limit and by the micro-batcher when its queue is full.
    """

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class ClientGone(ExtractionError):
    """The caller went away (closed its connection) before its work was done: the rest is not done.

    Raised between pages, never inside one: a page already being extracted runs to its end.
    """
