"""The one way the API runs extractions and fetches: admitted, off the event loop, measured.

Every route goes through :func:`run_extractions`; a batched model backend
plugs in here (its jobs go to the micro-batcher instead of the thread pool)
without any route changing. Nothing here knows HTTP.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence, Sized
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import cast

import numpy as np

from service.api.body import Page
from service.api.deps import AppState
from service.api.schemas import Agreement
from service.backends.base import BatchedBackend
from service.errors import ExtractionError, UnknownBackend
from service.fetching.errors import UrlNotAllowed
from service.fetching.fetcher import FetchedPage
from service.metrics import NO_BACKEND
from service.options import Options
from service.parsing.budget import PageBudget
from service.parsing.document import Document
from service.pipeline import Extraction, Extractor, elapsed_ms, finish, timed_parse
from service.runtime.batcher import MicroBatcher
from service.runtime.errors import Overloaded
from service.runtime.heap import trim_heap

MS_PER_S = 1e3
# Pages larger than this leave enough freed memory behind to be worth trimming the heap for (about 1 ms).
TRIM_AFTER_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Job:
    """One page through one backend."""

    page: Page
    backend: str | None  # None: the default backend
    options: Options


# One job's result: its extraction, or the error that concerns its page alone.
Outcome = Extraction | ExtractionError


def _as_outcome(result: Extraction | BaseException) -> Outcome:
    """A job's result, or its error when that concerns its page alone; an overload or a bug fails the request."""
    if isinstance(result, Overloaded) or not isinstance(result, Extraction | ExtractionError):
        raise result
    return result


def _extract_each(extractor: Extractor, jobs: Sequence[Job]) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for job in jobs:
        try:
            outcomes.append(
                extractor.extract(
                    job.page.html, backend=job.backend, url=job.page.url, charset=job.page.charset, options=job.options
                )
            )
        except Overloaded:
            raise
        except ExtractionError as error:
            outcomes.append(error.with_traceback(None))  # its message is all it carries: not the page's frames
    if sum(len(job.page.html) for job in jobs) > TRIM_AFTER_BYTES:
        trim_heap()  # a large page's temporaries are freed: give their pages back
    return outcomes


async def run_jobs(state: AppState, jobs: Sequence[Job]) -> list[Outcome]:
    """Every job's extraction or page error, in order; :class:`~service.runtime.errors.Overloaded` when full.

    The jobs of one request run in one worker thread, one after another: a
    batch costs one thread hop, and one request cannot take every core. Jobs
    for a batched backend go through its micro-batcher instead, so documents
    of concurrent requests share inference calls.
    """
    with state.admission.admit(len(jobs)):
        loop = asyncio.get_running_loop()
        if any(_batcher_of(state, job) for job in jobs):
            results = await asyncio.gather(*(_extract_one(state, loop, job) for job in jobs), return_exceptions=True)
            outcomes = [_as_outcome(result) for result in results]
        else:
            outcomes = await loop.run_in_executor(state.cpu_pool, _extract_each, state.extractor, jobs)
    stage = state.metrics.stage_duration
    for outcome in outcomes:
        if isinstance(outcome, Extraction):
            for name in ("parse", "classify", "render"):
                stage.labels(name, outcome.backend).observe(outcome.timings[name] / MS_PER_S)
    return outcomes


async def run_extractions(state: AppState, jobs: Sequence[Job]) -> list[Extraction]:
    """Every job's extraction, in order; the first page error fails the request (one page, or a compare)."""
    extractions = []
    for outcome in await run_jobs(state, jobs):
        if isinstance(outcome, ExtractionError):
            raise outcome
        extractions.append(outcome)
    return extractions


def _batcher_of(state: AppState, job: Job) -> MicroBatcher[Sized] | None:
    return state.batchers.get(job.backend or state.extractor.default_backend)


async def _extract_one(state: AppState, loop: asyncio.AbstractEventLoop, job: Job) -> Extraction:
    """One job: through its backend's micro-batcher when it has one, else whole in a worker thread."""
    batcher = _batcher_of(state, job)
    if batcher is None:
        (outcome,) = await loop.run_in_executor(state.cpu_pool, _extract_each, state.extractor, [job])
        if isinstance(outcome, ExtractionError):
            raise outcome
        return outcome
    backend = cast(BatchedBackend, state.extractor.backend(job.backend))  # only batched backends get a batcher
    document, parse_ms, encoded = await loop.run_in_executor(
        state.cpu_pool, _prepare, backend, job, state.extractor.budget
    )
    started = time.perf_counter()
    scores = await batcher.submit(encoded)
    classify_ms = elapsed_ms(started)
    return await loop.run_in_executor(
        state.cpu_pool,
        partial(
            finish,
            options=job.options,
            url=job.page.url,
            parse_ms=parse_ms,
            classify_ms=classify_ms,
            metadata_reader=state.extractor.metadata,
        ),
        document,
        backend.labels(scores),
        backend,
    )


def _prepare(backend: BatchedBackend, job: Job, budget: PageBudget) -> tuple[Document, float, Sized]:
    """Parse (within ``budget``) and encode in a worker thread: everything before the batched inference."""
    document, parse_ms = timed_parse(job.page.html, job.page.charset, job.options, budget)
    return document, parse_ms, backend.encode(document)


async def fetch_page(
    state: AppState, url: str, *, allow_error_status: bool = False, respect_robots: bool = False
) -> tuple[FetchedPage, float]:
    """The page at ``url`` (asking its robots.txt first, when told to) and the milliseconds it took, counted."""
    metrics = state.metrics
    with state.fetch_admission.admit():
        started = time.perf_counter()
        try:
            if respect_robots:
                await state.fetcher.robots.check(url)
            fetched = await state.fetcher.fetch(url, allow_error_status=allow_error_status)
        except UrlNotAllowed as error:
            metrics.blocked_urls.labels(error.reason).inc()
            raise
        finally:
            elapsed_s = time.perf_counter() - started
            metrics.stage_duration.labels("fetch", NO_BACKEND).observe(elapsed_s)
    metrics.fetched_bytes.inc(len(fetched.body))
    return fetched, elapsed_s * MS_PER_S


def compare_backends(state: AppState, requested: list[str] | None) -> list[str]:
    """The backends a compare runs: the requested ones in the order given, else every enabled one."""
    if not requested:
        return sorted(state.backends)
    for name in requested:
        if name not in state.backends:
            raise UnknownBackend(name, sorted(state.backends))
    return list(dict.fromkeys(requested))


def pairwise_agreement(extractions: Sequence[Extraction]) -> list[Agreement]:
    """How far every pair of backends agrees on the same page's blocks."""
    pairs = []
    for a, b in combinations(extractions, 2):
        left, right = a.labels.labels, b.labels.labels
        same = float(np.mean(left == right)) if len(left) else 1.0
        either = int(np.count_nonzero(left | right))
        both = int(np.count_nonzero(left & right))
        pairs.append(
            Agreement(backends=(a.backend, b.backend), agreement=same, jaccard=both / either if either else 1.0)
        )
    return pairs
