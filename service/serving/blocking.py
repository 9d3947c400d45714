"""The extraction service for a synchronous caller: its own event loop, run to the end of each call.

A corpus worker or a benchmark has no event loop of its own; this one lives as
long as the object, so the micro-batchers' tasks and threads carry over from
one call to the next, and the documents of one call share inference calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from types import TracebackType

from service.backends.base import Backend
from service.metrics import Metrics
from service.pipeline import Extractor
from service.serving.extraction import ExtractionService, Job, Outcome
from service.serving.start import open_extraction
from service.settings import Settings


class BlockingExtraction:
    """An open :class:`ExtractionService` whose :meth:`run` blocks; :meth:`close` stops its batchers and pool."""

    def __init__(
        self,
        settings: Settings,
        extractor: Extractor,
        backends: Mapping[str, Backend],
        metrics: Metrics,
        *,
        max_in_flight: int,
        threads: int,
    ) -> None:
        self._runner = asyncio.Runner()
        self._stack = AsyncExitStack()
        opened = open_extraction(settings, extractor, backends, metrics, max_in_flight=max_in_flight, threads=threads)
        self.service: ExtractionService = self._runner.run(self._stack.enter_async_context(opened))

    def run(self, jobs: Sequence[Job]) -> list[Outcome]:
        """Every job's extraction or page error, in order (see :meth:`ExtractionService.run`)."""
        return self._runner.run(self.service.run(jobs))

    def close(self) -> None:
        self._runner.run(self._stack.aclose())
        self._runner.close()

    def __enter__(self) -> BlockingExtraction:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
