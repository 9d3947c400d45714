"""The micro-batcher's invariants, each with a test (a fake model; the real one is in test_bilstm.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import numpy as np
import pytest
from prometheus_client import CollectorRegistry

from service.metrics import Metrics
from service.runtime.batcher import BatchLimits, MicroBatcher
from service.runtime.errors import Overloaded

pytestmark = pytest.mark.timeout(30)


class RecordingModel:
    """Sums each document's values; records every batch's lengths; can be told to fail or to block."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.fail_next = False
        self.gate = threading.Event()
        self.gate.set()

    def __call__(self, documents: Sequence[np.ndarray]) -> list[np.ndarray]:
        self.gate.wait(10)
        self.batches.append([len(d) for d in documents])
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("model exploded")
        return [np.full(len(d), d.sum(), dtype=np.float32) for d in documents]


def doc(length: int, value: float = 1.0) -> np.ndarray:
    return np.full(length, value, dtype=np.float32)


async def started(model: RecordingModel, **limits: float) -> MicroBatcher[np.ndarray]:
    batcher: MicroBatcher[np.ndarray] = MicroBatcher(model, name="fake", limits=BatchLimits(**limits))  # type: ignore[arg-type]
    await batcher.start()
    return batcher


def test_results_reach_the_right_waiter() -> None:
    async def scenario() -> None:
        batcher = await started(RecordingModel(), max_wait_ms=20)
        outputs = await asyncio.gather(*(batcher.submit(doc(n, value=n)) for n in (3, 1, 7, 2)))
        assert [float(o[0]) for o in outputs] == [9.0, 1.0, 49.0, 4.0]
        assert [len(o) for o in outputs] == [3, 1, 7, 2]
        await batcher.stop()

    asyncio.run(scenario())


def test_a_batch_never_exceeds_the_document_cap_or_the_padded_budget() -> None:
    async def scenario() -> None:
        model = RecordingModel()
        batcher = await started(model, max_batch_documents=4, max_padded_blocks=30, max_wait_ms=20)
        lengths = [5, 9, 2, 10, 3, 8, 1, 6, 7, 4]
        await asyncio.gather(*(batcher.submit(doc(n)) for n in lengths))
        await batcher.stop()
        assert sorted(n for batch in model.batches for n in batch) == sorted(lengths)  # nothing lost or doubled
        for batch in model.batches:
            assert len(batch) <= 4
            assert len(batch) * max(batch) <= 30

    asyncio.run(scenario())


def test_waiting_documents_are_grouped_by_length() -> None:
    async def scenario() -> None:
        model = RecordingModel()
        model.gate.clear()  # hold the first batch so the rest queue up together
        batcher = await started(model, max_batch_documents=2, max_wait_ms=1)
        first = asyncio.ensure_future(batcher.submit(doc(50)))
        await asyncio.sleep(0.05)
        rest = [asyncio.ensure_future(batcher.submit(doc(n))) for n in (1, 100, 2, 101)]
        await asyncio.sleep(0.05)
        model.gate.set()
        await asyncio.gather(first, *rest)
        await batcher.stop()
        assert sorted(sorted(b) for b in model.batches[1:]) == [[1, 2], [100, 101]]

    asyncio.run(scenario())


def test_a_full_queue_fails_fast_with_retry_after() -> None:
    async def scenario() -> None:
        model = RecordingModel()
        model.gate.clear()
        batcher = await started(model, max_batch_documents=1, max_queue_documents=3, retry_after_s=2.5, max_wait_ms=0)
        running = asyncio.ensure_future(batcher.submit(doc(1)))
        await asyncio.sleep(0.05)  # the first document is inside the model, the queue is empty
        queued = [asyncio.ensure_future(batcher.submit(doc(1))) for _ in range(3)]
        await asyncio.sleep(0.01)
        with pytest.raises(Overloaded) as refused:
            await batcher.submit(doc(1))
        assert refused.value.retry_after_s == 2.5
        model.gate.set()
        assert len(await asyncio.gather(running, *queued)) == 4  # the admitted ones all finish
        await batcher.stop()

    asyncio.run(scenario())


def test_an_inference_error_reaches_every_waiter_and_the_worker_lives_on() -> None:
    async def scenario() -> None:
        model = RecordingModel()
        model.fail_next = True
        batcher = await started(model, max_wait_ms=30)
        results = await asyncio.gather(*(batcher.submit(doc(n)) for n in (1, 2, 3)), return_exceptions=True)
        assert all(isinstance(r, RuntimeError) for r in results)
        assert batcher.alive
        assert float((await batcher.submit(doc(2)))[0]) == 2.0
        await batcher.stop()

    asyncio.run(scenario())


def test_a_waiter_that_went_away_is_dropped_before_its_batch() -> None:
    async def scenario() -> None:
        model = RecordingModel()
        model.gate.clear()
        batcher = await started(model, max_batch_documents=8, max_wait_ms=1)
        first = asyncio.ensure_future(batcher.submit(doc(1)))
        await asyncio.sleep(0.05)
        gone = asyncio.ensure_future(batcher.submit(doc(77)))
        stays = asyncio.ensure_future(batcher.submit(doc(5)))
        await asyncio.sleep(0.01)
        gone.cancel()
        model.gate.set()
        await asyncio.gather(first, stays)
        await batcher.stop()
        assert 77 not in [n for batch in model.batches for n in batch]

    asyncio.run(scenario())


def test_stopping_finishes_what_is_queued() -> None:
    async def scenario() -> None:
        model = RecordingModel()
        batcher = await started(model, max_batch_documents=2, max_wait_ms=50)
        pending = [asyncio.ensure_future(batcher.submit(doc(n))) for n in range(1, 8)]
        await asyncio.sleep(0)
        await batcher.stop()
        assert [len(p.result()) for p in pending] == list(range(1, 8))
        with pytest.raises(Overloaded):
            await batcher.submit(doc(1))

    asyncio.run(scenario())


def test_metrics_are_observed() -> None:
    async def scenario() -> Metrics:
        metrics = Metrics(CollectorRegistry())
        batcher: MicroBatcher[np.ndarray] = MicroBatcher(RecordingModel(), name="fake", metrics=metrics)  # type: ignore[arg-type]
        await batcher.start()
        await asyncio.gather(*(batcher.submit(doc(3)) for _ in range(5)))
        await batcher.stop()
        return metrics

    metrics = asyncio.run(scenario())
    registry = metrics.registry
    assert registry.get_sample_value("extract_batch_documents_sum", {"backend": "fake"}) == 5
    assert registry.get_sample_value("extract_queue_wait_seconds_count", {"backend": "fake"}) == 5
    assert registry.get_sample_value("extract_inference_duration_seconds_count", {"backend": "fake"}) >= 1
    assert registry.get_sample_value("extract_queue_depth", {"backend": "fake"}) == 0
