"""Opening an extraction service from the settings: its thread pool, its micro-batchers, its admission limit.

The API's lifespan opens one; so can any caller without a web server. Closing
stops the batchers (each finishes its queue) before the pool goes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sized
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager

from service.backends.base import Backend, BatchedBackend
from service.metrics import Metrics
from service.pipeline import Extractor
from service.runtime.admission import AdmissionLimit
from service.runtime.batcher import BatchLimits, MicroBatcher
from service.runtime.scheduling import lower_thread_priority
from service.serving.extraction import ExtractionService, route_key
from service.settings import Settings


@asynccontextmanager
async def open_extraction(
    settings: Settings,
    extractor: Extractor,
    backends: Mapping[str, Backend],
    metrics: Metrics,
    *,
    max_in_flight: int | None = None,
    threads: int | None = None,
) -> AsyncIterator[ExtractionService]:
    """An :class:`ExtractionService` over ``extractor`` and its loaded ``backends``, open for the block.

    ``max_in_flight`` and ``threads`` replace the settings' ``max_in_flight`` and ``cpu_threads``
    for a caller that sizes its own work (a corpus worker: its batch, in one thread).
    """
    async with AsyncExitStack() as stack:
        # A plain executor, not anyio's to_thread: its hand-off costs a tenth as much (about 0.1 ms against 1 ms).
        pool = ThreadPoolExecutor(
            threads or settings.cpu_threads,
            thread_name_prefix="extract",
            initializer=lower_thread_priority,
            initargs=(settings.cpu_thread_niceness,),
        )
        stack.callback(pool.shutdown)  # waits for the work already handed over
        batchers = await _start_batchers(settings, metrics, backends, stack)
        yield ExtractionService(
            extractor,
            admission=AdmissionLimit(max_in_flight or settings.max_in_flight, settings.overload_retry_after_s),
            volume=AdmissionLimit(settings.max_in_flight_bytes, settings.overload_retry_after_s, "bytes of pages"),
            pool=pool,
            metrics=metrics,
            batchers=batchers,
        )


async def _start_batchers(
    settings: Settings, metrics: Metrics, backends: Mapping[str, Backend], stack: AsyncExitStack
) -> dict[str, MicroBatcher[Sized]]:
    """One micro-batcher per batched backend where batching pays; on exit each finishes its queue first.

    Without one (the CPU default, see :attr:`Settings.micro_batching`) a batched backend's
    jobs run whole in the thread pool, like every other backend's.
    """
    if not settings.micro_batching:
        return {}
    limits = BatchLimits(
        max_batch_documents=settings.batch_size,
        max_padded_blocks=settings.padded_blocks,
        max_wait_ms=settings.batch_max_wait_ms,
        max_queue_documents=settings.batch_queue_size,
        retry_after_s=settings.overload_retry_after_s,
    )
    batchers: dict[str, MicroBatcher[Sized]] = {}
    for name, backend in backends.items():
        routes = [(None, backend), *((page_type, route.backend) for page_type, route in backend.routes.items())]
        for page_type, model in routes:  # a route (bilstm's article model) batches its own pages
            if model.batched and isinstance(model, BatchedBackend):
                key = route_key(name, page_type)
                batcher: MicroBatcher[Sized] = MicroBatcher(model.infer, name=key, limits=limits, metrics=metrics)
                await batcher.start()
                stack.push_async_callback(batcher.stop)
                batchers[key] = batcher
    return batchers
