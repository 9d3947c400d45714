"""The extraction service: jobs in, extractions or page errors out, through admission, a thread pool and batchers.

Every extracting route of the API goes through :meth:`ExtractionService.run`;
a batched model backend plugs in here (its jobs go to its micro-batcher
instead of the thread pool) without any caller changing. The collaborators are
typed and built by the caller (:func:`service.serving.start.open_extraction`
builds them from the settings), so nothing here knows HTTP.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping, Sequence, Sized
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import partial
from typing import cast

from service.backends.base import Backend, BatchedBackend
from service.errors import ExtractionError, UnknownBackend
from service.metadata.fields import ARTICLE, Metadata
from service.metrics import Metrics
from service.options import Options
from service.parsing.document import Document
from service.pipeline import Extraction, Extractor, elapsed_ms, finish, timed_metadata, timed_parse
from service.runtime.admission import AdmissionLimit
from service.runtime.batcher import MicroBatcher
from service.runtime.errors import ClientGone, Overloaded
from service.runtime.heap import trim_heap

MS_PER_S = 1e3
# Pages larger than this leave enough freed memory behind to be worth trimming the heap for (about 1 ms).
TRIM_AFTER_BYTES = 1024 * 1024
# The stages every extraction times, observed per backend in the stage-duration histogram.
OBSERVED_STAGES = ("parse", "classify", "render")


@dataclass(frozen=True, slots=True)
class Page:
    """One page to extract: its bytes or text, the charset its sender declared, where it came from."""

    html: str | bytes
    charset: str | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Job:
    """One page through one backend."""

    page: Page
    backend: str | None  # None: the default backend
    options: Options


# One job's result: its extraction, or the error that concerns its page alone.
Outcome = Extraction | ExtractionError


class ExtractionService:
    """Runs jobs for concurrent callers in one event loop; refuses work past its limits with :class:`Overloaded`.

    ``admission`` bounds the documents in flight, ``volume`` the bytes of their pages;
    ``pool`` runs the pipeline off the event loop; ``batchers`` (by backend
    name, for batched backends only) let documents of concurrent calls share
    inference calls; ``metrics`` times each extraction's stages.
    """

    def __init__(
        self,
        extractor: Extractor,
        *,
        admission: AdmissionLimit,
        pool: ThreadPoolExecutor,
        metrics: Metrics,
        batchers: Mapping[str, MicroBatcher[Sized]] | None = None,
        volume: AdmissionLimit | None = None,
    ) -> None:
        self.extractor = extractor
        self.admission = admission
        self.volume = volume  # bytes of pages in flight, where bounded: a page's memory grows with its size
        self.pool = pool
        self.metrics = metrics
        self.batchers: Mapping[str, MicroBatcher[Sized]] = dict(batchers or {})

    def batching_alive(self, name: str) -> bool:
        """Whether the backend's micro-batcher runs (True for a backend without one: nothing to be down)."""
        own = (batcher for key, batcher in self.batchers.items() if key.partition("/")[0] == name)  # its routes' too
        return all(batcher.alive for batcher in own)

    def backends_to_compare(self, requested: Sequence[str] | None) -> list[str]:
        """The backends a compare runs: the requested ones in the order given, else every enabled one."""
        enabled = self.extractor.registry
        if not requested:
            return sorted(enabled.names())
        for name in requested:
            if name not in enabled:
                raise UnknownBackend(name, sorted(enabled.names()))
        return list(dict.fromkeys(requested))

    async def run(self, jobs: Sequence[Job], gone: threading.Event | None = None) -> list[Outcome]:
        """Every job's extraction or page error, in order; :class:`~service.runtime.errors.Overloaded` when full.

        The jobs of one call run in one worker thread, one after another: a
        batch costs one thread hop, and one call cannot take every core. Jobs
        for a batched backend go through its micro-batcher instead, so documents
        of concurrent calls share inference calls. Once ``gone`` is set (the
        caller has left), no job that has not begun is started: :class:`ClientGone`,
        raised too where the caller left while the last of them ran (no answer reaches it).
        """
        gone = gone or threading.Event()
        with self.admission.admit(len(jobs)), self._admit_volume(jobs):
            if any(self._batcher_of(job) for job in jobs):
                results = await asyncio.gather(*(self._extract_one(job, gone) for job in jobs), return_exceptions=True)
                outcomes = [_as_outcome(result) for result in results]
            else:
                loop = asyncio.get_running_loop()
                outcomes = await loop.run_in_executor(self.pool, _extract_each, self.extractor, jobs, gone)
        stage = self.metrics.stage_duration
        for outcome in outcomes:
            if isinstance(outcome, Extraction):
                for name in OBSERVED_STAGES:
                    stage.labels(name, outcome.backend).observe(outcome.timings[name] / MS_PER_S)
        _check_present(gone)
        return outcomes

    def _admit_volume(self, jobs: Sequence[Job]) -> AbstractContextManager[None]:
        """The jobs' pages' bytes held in :attr:`volume`; at most all of it, so a call alone is always admitted."""
        if self.volume is None:
            return nullcontext()
        size = sum(len(job.page.html) for job in jobs)  # a str page's characters: near enough its bytes
        return self.volume.admit(min(size, self.volume.capacity))

    async def extract(self, jobs: Sequence[Job], gone: threading.Event | None = None) -> list[Extraction]:
        """Every job's extraction, in order; the first page error fails the call (one page, or a compare)."""
        extractions = []
        for outcome in await self.run(jobs, gone):
            if isinstance(outcome, ExtractionError):
                raise outcome
            extractions.append(outcome)
        return extractions

    def _batcher_of(self, job: Job) -> MicroBatcher[Sized] | None:
        return self.batchers.get(job.backend or self.extractor.default_backend)

    async def _extract_one(self, job: Job, gone: threading.Event) -> Extraction:
        """One job: through its backend's micro-batcher when it has one, else whole in a worker thread."""
        loop = asyncio.get_running_loop()
        if self._batcher_of(job) is None:
            (outcome,) = await loop.run_in_executor(self.pool, _extract_each, self.extractor, [job], gone)
            if isinstance(outcome, ExtractionError):
                raise outcome
            return outcome
        backend = self.extractor.backend(job.backend)
        prepared = await loop.run_in_executor(self.pool, self._prepare, backend, job, gone)
        started = time.perf_counter()
        queued = prepared.queued
        if queued is None:  # a route that does not batch: its model runs whole
            labels = await loop.run_in_executor(self.pool, prepared.model.classify, prepared.document)
        else:
            labels = queued.model.labels(await queued.batcher.submit(queued.encoded))
        prepared.timings["classify"] = elapsed_ms(started)
        finishing = partial(
            finish,
            options=job.options,
            url=job.page.url,
            timings=prepared.timings,
            metadata=prepared.metadata,
            article_probability=prepared.article_probability,
        )
        return await loop.run_in_executor(self.pool, finishing, prepared.document, labels, backend)

    def _prepare(self, backend: Backend, job: Job, gone: threading.Event) -> Prepared:
        """Parse (within the page budget), read the metadata, encode for the page's model: all before inference."""
        _check_present(gone)
        document, parse_ms = timed_parse(job.page.html, job.page.charset, job.options, self.extractor.budget)
        metadata, type_probabilities, metadata_ms = timed_metadata(self.extractor.metadata, document, job.page.url)
        model = backend.for_page(type_probabilities)
        batcher = self.batchers.get(route_key(backend.name, backend.route_of(type_probabilities)))
        queued = None
        if batcher is not None:  # only a BatchedBackend gets a batcher
            batched = cast(BatchedBackend, model)
            queued = Queued(batched, batcher, batched.encode(document))
        timings = {"parse": parse_ms, "metadata": metadata_ms}
        return Prepared(document, metadata, timings, model, queued, type_probabilities.get(ARTICLE))


@dataclass(frozen=True, slots=True)
class Queued:
    """A page encoded for its model's micro-batcher."""

    model: BatchedBackend
    batcher: MicroBatcher[Sized]
    encoded: Sized


@dataclass(frozen=True, slots=True)
class Prepared:
    """A batched backend's page before inference: its model is the backend, or its route for the page's type."""

    document: Document
    metadata: Metadata
    timings: dict[str, float]  # parse and metadata; classify is added
    model: Backend
    queued: Queued | None  # None where the model does not batch
    article_probability: float | None = None  # the page-type model's, which pruning reads


def route_key(name: str, page_type: str | None) -> str:
    """The micro-batcher key of backend ``name``'s route for ``page_type`` ("bilstm/article"); ``name`` for None."""
    return name if page_type is None else f"{name}/{page_type}"


def _as_outcome(result: Extraction | BaseException) -> Outcome:
    """A job's result, or its error when that concerns its page alone; an overload or a bug fails the call."""
    if isinstance(result, Overloaded | ClientGone) or not isinstance(result, Extraction | ExtractionError):
        raise result
    return result


def _check_present(gone: threading.Event) -> None:
    if gone.is_set():
        raise ClientGone("the client closed the connection: what it asked for and had not begun was not extracted")


def _extract_each(extractor: Extractor, jobs: Sequence[Job], gone: threading.Event) -> list[Outcome]:
    outcomes: list[Outcome] = []
    try:
        for job in jobs:
            _check_present(gone)
            try:
                outcomes.append(
                    extractor.extract(
                        job.page.html,
                        backend=job.backend,
                        url=job.page.url,
                        charset=job.page.charset,
                        options=job.options,
                    )
                )
            except Overloaded:
                raise
            except ExtractionError as error:
                outcomes.append(error.with_traceback(None))  # its message is all it carries: not the page's frames
    finally:
        if sum(len(job.page.html) for job in jobs) > TRIM_AFTER_BYTES:
            trim_heap()  # a large page's temporaries are freed: give their pages back
    return outcomes
