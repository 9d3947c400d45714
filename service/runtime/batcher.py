"""Dynamic micro-batching for a sequence model: many requests, one inference call.

One asyncio task owns the queue; one thread runs inference, so the event
loop never blocks and the model sees one batch at a time. A batch closes
when it holds ``max_batch_documents``, when one more document would push the
padded size (documents × longest document, in blocks) past
``max_padded_blocks``, or ``max_wait_ms`` after its first document arrived.
Waiting documents are sorted by length before a batch is cut, so similar
lengths share a batch and padding stays small; the model receives every
sequence's length, so a result never depends on its batch companions.

Invariants (each has a test): a full queue fails fast with :class:`Overloaded`;
an inference error reaches every waiter of the batch and the worker lives
on; a waiter that went away is dropped before its batch is built; stopping
finishes the queued documents first.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Sequence, Sized
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from service.metrics import Metrics
from service.runtime.errors import Overloaded

Inputs = TypeVar("Inputs", bound=Sized)  # one document's model input; its len() is its length in blocks


@dataclass(frozen=True)
class BatchLimits:
    """When a batch closes, and how much may wait."""

    max_batch_documents: int = 32  # documents per inference call
    max_padded_blocks: int = 65536  # documents × longest document, in blocks
    max_wait_ms: float = 2.0  # how long the first document of a batch waits for company
    max_queue_documents: int = 512  # waiting documents beyond which submit() fails fast
    retry_after_s: float = 1.0  # what an overloaded caller is told to wait


@dataclass(eq=False)  # compared by identity: the inputs are arrays
class _Waiter(Generic[Inputs]):
    inputs: Inputs
    future: asyncio.Future[np.ndarray]
    queued_at: float = field(default_factory=time.perf_counter)

    @property
    def length(self) -> int:
        return len(self.inputs)


class MicroBatcher(Generic[Inputs]):
    """Collects documents from many coroutines into batches for one model.

    ``infer`` runs one batch: per-document inputs in, per-document outputs out, same order.
    """

    def __init__(
        self,
        infer: Callable[[Sequence[Inputs]], list[np.ndarray]],
        *,
        name: str,
        limits: BatchLimits | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.name = name
        self.limits = limits or BatchLimits()
        self._infer = infer
        self._metrics = metrics
        self._queue: deque[_Waiter[Inputs]] = deque()
        self._arrived = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{name}-inference")
        self._stopping = False

    @property
    def alive(self) -> bool:
        return self._worker is not None and not self._worker.done()

    @property
    def queue_depth(self) -> int:
        return len(self._queue)

    async def start(self) -> None:
        self._worker = asyncio.create_task(self._run(), name=f"{self.name}-batcher")

    async def stop(self) -> None:
        """Finish every queued document, then stop the worker and its thread."""
        self._stopping = True
        self._arrived.set()
        if self._worker is not None:
            await self._worker
        self._executor.shutdown(wait=True)

    async def submit(self, inputs: Inputs) -> np.ndarray:
        """The model's output for one document, computed in some batch."""
        if self._stopping or not self.alive:
            raise Overloaded(f"the {self.name} batcher is not running", self.limits.retry_after_s)
        if len(self._queue) >= self.limits.max_queue_documents:
            raise Overloaded(
                f"{len(self._queue)} documents are waiting for the {self.name} model", self.limits.retry_after_s
            )
        waiter = _Waiter(inputs, asyncio.get_running_loop().create_future())
        self._queue.append(waiter)
        self._observe_depth()
        self._arrived.set()
        return await waiter.future

    # -- the worker ------------------------------------------------------------
    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if not self._queue:
                if self._stopping:
                    return
                self._arrived.clear()
                await self._arrived.wait()
                continue
            await self._gather_company()
            batch = self._cut_batch()
            self._observe_depth()
            if batch:
                await self._run_batch(loop, batch)

    async def _gather_company(self) -> None:
        """Wait up to max_wait_ms after the oldest document for the batch to fill."""
        deadline = self._queue[0].queued_at + self.limits.max_wait_ms / 1000
        while len(self._queue) < self.limits.max_batch_documents and not self._stopping:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), remaining)
            except TimeoutError:
                return

    def _cut_batch(self) -> list[_Waiter[Inputs]]:
        """Take the documents of one batch off the queue: similar lengths, within both limits."""
        limits = self.limits
        live = [w for w in self._queue if not w.future.done()]  # a waiter whose client left is done (cancelled)
        self._queue.clear()
        window = live[: limits.max_batch_documents * 4]
        oldest = window[0] if window else None
        window.sort(key=lambda w: w.length)
        batch: list[_Waiter[Inputs]] = []
        if oldest is not None:
            # Grow outwards from the oldest document, so it is always served first.
            start = window.index(oldest)
            low, high = start, start + 1
            longest = oldest.length
            batch = [oldest]
            while len(batch) < limits.max_batch_documents and (low > 0 or high < len(window)):
                take_high = high < len(window) and (
                    low == 0 or window[high].length - oldest.length <= oldest.length - window[low - 1].length
                )
                candidate = window[high] if take_high else window[low - 1]
                padded = (len(batch) + 1) * max(longest, candidate.length)
                if padded > limits.max_padded_blocks:
                    break
                batch.append(candidate)
                longest = max(longest, candidate.length)
                if take_high:
                    high += 1
                else:
                    low -= 1
        chosen = {id(w) for w in batch}
        self._queue.extend(w for w in live if id(w) not in chosen)  # the rest keep their order
        return batch

    async def _run_batch(self, loop: asyncio.AbstractEventLoop, batch: list[_Waiter[Inputs]]) -> None:
        started = time.perf_counter()
        try:
            outputs = await loop.run_in_executor(self._executor, self._infer, [w.inputs for w in batch])
        except Exception as error:  # the model's failure belongs to every waiter of this batch
            for waiter in batch:
                if not waiter.future.done():
                    waiter.future.set_exception(error)
            return
        finally:
            self._observe_batch(batch, started)
        for waiter, output in zip(batch, outputs, strict=True):
            if not waiter.future.done():
                waiter.future.set_result(output)

    # -- metrics ---------------------------------------------------------------
    def _observe_depth(self) -> None:
        if self._metrics is not None:
            self._metrics.queue_depth.labels(self.name).set(len(self._queue))

    def _observe_batch(self, batch: list[_Waiter[Inputs]], started: float) -> None:
        if self._metrics is None:
            return
        done = time.perf_counter()
        self._metrics.batch_documents.labels(self.name).observe(len(batch))
        self._metrics.inference_duration.labels(self.name).observe(done - started)
        for waiter in batch:
            self._metrics.queue_wait.labels(self.name).observe(started - waiter.queued_at)
