"""A batched backend behind the HTTP API: documents of concurrent requests share inference calls."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest

from service import extract
from service.backends.base import Backend, BlockLabels, Route
from service.backends.registry import BackendRegistry
from service.metadata.fields import ARTICLE
from service.parsing.document import Document
from service.settings import Settings

from support.live_server import LiveServer
from support.paths import FIXTURES_DIR

pytestmark = pytest.mark.timeout(60)

PAGE = "<html><body><nav><a href='/'>Home</a></nav><p>{n} words of a paragraph that matters here.</p></body></html>"


class CountingBatchedBackend(Backend):
    """Scores a block by its length; records how many documents each inference call held."""

    name = "batched"
    kind = "onnx"
    version = "test-1"
    batched = True

    def __init__(self) -> None:
        self.batch_sizes: list[int] = []
        self.release = threading.Event()
        self.release.set()

    def encode(self, document: Document) -> np.ndarray:
        return np.asarray([len(t) for t in document.texts], dtype=np.float32)

    def infer(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        self.release.wait(30)
        self.batch_sizes.append(len(inputs))
        return [np.minimum(x / 40.0, 1.0) for x in inputs]

    def labels(self, scores: np.ndarray) -> BlockLabels:
        return BlockLabels.from_scores(scores, 0.5)

    def classify(self, document: Document) -> BlockLabels:
        return self.labels(self.infer([self.encode(document)])[0])


def serve(backend: CountingBatchedBackend, **settings: object) -> LiveServer:
    registry = BackendRegistry()
    registry.register("batched", lambda: backend)
    options = {"default_backend": "batched", "batch_max_wait_ms": 50.0, "batch_max_size": 32, **settings}
    return LiveServer(Settings(**options), registry=registry)  # type: ignore[arg-type]


def post(url: str, n: int) -> httpx.Response:
    return httpx.post(
        f"{url}/extract?include_blocks=true", content=PAGE.format(n=n), headers={"Content-Type": "text/html"}
    )


def test_concurrent_requests_share_batches_and_match_the_in_process_result() -> None:
    backend = CountingBatchedBackend()
    with serve(backend) as server, ThreadPoolExecutor(8) as pool:
        responses = list(pool.map(lambda n: post(server.url, n), range(16)))
        ready = httpx.get(f"{server.url}/readyz")
        listed = httpx.get(f"{server.url}/backends").json()["backends"]
    assert all(r.status_code == 200 for r in responses)
    assert max(backend.batch_sizes) > 1  # some inference call served several requests
    for n, response in enumerate(responses):
        body = response.json()
        assert f"{n} words of a paragraph" in body["text"]
        assert "Home" not in body["text"]
        assert [b["is_content"] for b in body["blocks"]] == [False, True]
    assert ready.status_code == 200
    assert listed[0]["batched"] is True
    assert listed[0]["status"] == "ready"


def test_the_pages_a_route_takes_go_through_its_own_batcher() -> None:
    route = CountingBatchedBackend()
    backend = CountingBatchedBackend()
    backend.routes = {ARTICLE: Route(route, 0.0)}  # whatever type the shipped page-type model gives each page
    with serve(backend) as server, ThreadPoolExecutor(8) as pool:
        responses = list(pool.map(lambda n: post(server.url, n), range(8)))
        ready = httpx.get(f"{server.url}/readyz")
    assert all(r.status_code == 200 for r in responses)
    assert all(f"{n} words of a paragraph" in r.json()["text"] for n, r in enumerate(responses))
    assert sum(route.batch_sizes) == 8 and max(route.batch_sizes) > 1  # batched, by the route
    assert backend.batch_sizes == []
    assert ready.status_code == 200  # every batcher of the backend runs


def test_a_full_batch_queue_answers_429_with_retry_after_and_loses_nothing() -> None:
    backend = CountingBatchedBackend()
    backend.release.clear()  # the model holds its first batch: the queue fills up behind it
    with serve(backend, batch_queue_size=2, batch_max_size=1, overload_retry_after_s=3) as server:
        with ThreadPoolExecutor(12) as pool:
            futures = [pool.submit(post, server.url, n) for n in range(12)]
            threading.Timer(1.0, backend.release.set).start()
            responses = [f.result() for f in futures]
        refused = [r for r in responses if r.status_code == 429]
        served = [r for r in responses if r.status_code == 200]
    assert refused, "the queue never filled"
    assert all(r.headers["Retry-After"] == "3" and r.json()["error"]["code"] == "overloaded" for r in refused)
    assert len(served) + len(refused) == 12  # no 5xx, nothing lost
    assert sum(backend.batch_sizes) == len(served)


@pytest.mark.parametrize("batch_max_size", [None, 4])
def test_the_gpu_default_bilstm_matches_the_in_process_call_with_and_without_a_batcher(
    batch_max_size: int | None,
) -> None:
    # on the CPU the BiLSTM gets a micro-batcher only when a batch size is set
    article = (FIXTURES_DIR / "article.html").read_bytes()
    settings = Settings(batch_max_size=batch_max_size, default_backend="bilstm")  # as the GPU deployments set it
    with LiveServer(settings) as server, ThreadPoolExecutor(4) as pool:
        listed = {b["name"]: b for b in httpx.get(f"{server.url}/backends").json()["backends"]}
        assert listed["bilstm"]["batched"] is (batch_max_size is not None)
        responses = list(
            pool.map(
                lambda _: httpx.post(
                    f"{server.url}/extract?include_blocks=true", content=article, headers={"Content-Type": "text/html"}
                ),
                range(4),
            )
        )
    expected = extract(article, backend="bilstm")
    for response in responses:
        body = response.json()
        assert body["backend"] == "bilstm"
        assert body["text"] == expected.text
        np.testing.assert_allclose([b["score"] for b in body["blocks"]], expected.labels.scores, atol=1e-5)
