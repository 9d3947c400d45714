"""Concurrency past the admission limit (429 with Retry-After, no 5xx, nothing lost) and graceful shutdown.

A gate backend holds the admitted requests inside the pipeline until the test
opens it, so which requests are in flight is a fact, not a timing guess.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed

import httpx
import pytest
from conftest import ARTICLE, RULES_DEFAULT, GateBackend, LiveServer

from service.backends.registry import BackendRegistry
from service.settings import Settings

pytestmark = pytest.mark.timeout(60)

LIMIT = 4
BURST = 40


def metric(client: httpx.Client, prefix: str) -> float:
    return sum(
        float(line.rsplit(" ", 1)[1]) for line in client.get("/metrics").text.splitlines() if line.startswith(prefix)
    )


def test_a_burst_past_the_limit_gets_429s_with_retry_after_and_loses_nothing(
    registry_with: Callable[..., BackendRegistry],
) -> None:
    gate = GateBackend()
    settings = Settings(
        max_in_flight=LIMIT,
        max_batch_documents=LIMIT,
        cpu_threads=LIMIT,
        overload_retry_after_s=2,
        default_backend=RULES_DEFAULT,
    )
    with (
        LiveServer(settings, registry=registry_with(gate)) as server,
        httpx.Client(base_url=server.url, timeout=30, limits=httpx.Limits(max_connections=BURST)) as client,
        ThreadPoolExecutor(BURST) as pool,
    ):

        def post(i: int) -> httpx.Response:
            return client.post("/extract", json={"html": f"<title>{i}</title>{ARTICLE}", "backend": "gate"})

        futures: dict[Future[httpx.Response], int] = {pool.submit(post, i): i for i in range(BURST)}
        gate.wait_entered(LIMIT)  # LIMIT requests are inside the pipeline, held there
        rejected = []
        for future in as_completed(futures):  # every other one is answered at once, while the gate is shut
            rejected.append(future.result())
            if len(rejected) == BURST - LIMIT:
                break
        assert {r.status_code for r in rejected} == {429}
        assert {r.json()["error"]["code"] for r in rejected} == {"overloaded"}
        assert {r.headers["retry-after"] for r in rejected} == {"2"}

        # The probes and the metrics are not admitted work: they answer while the process is full.
        assert client.get("/healthz").status_code == 200
        assert metric(client, "extract_requests_in_flight") >= LIMIT + 1
        full = client.post("/extract/batch", json={"documents": [{"html": ARTICLE}], "backend": "gate"})
        assert full.status_code == 429

        gate.opened.set()
        admitted = [future.result() for future in futures if future.result().status_code != 429]
        assert [r.status_code for r in admitted] == [200] * LIMIT
        titles = {r.json()["title"] for r in admitted}
        assert len(titles) == LIMIT  # each admitted request got its own page's result

        assert metric(client, 'extract_errors_total{code="overloaded"}') == BURST - LIMIT + 1
        assert metric(client, 'extract_requests_total{backend="gate",endpoint="POST /extract",outcome="ok"}') == LIMIT
        assert (
            metric(client, 'extract_requests_total{backend="gate",endpoint="POST /extract",outcome="server_error"}')
            == 0
        )
        assert post(0).status_code == 200  # and the retry succeeds


def test_a_batch_takes_one_slot_per_document(registry_with: Callable[..., BackendRegistry]) -> None:
    gate = GateBackend()
    settings = Settings(max_in_flight=3, max_batch_documents=3, cpu_threads=2, default_backend=RULES_DEFAULT)
    with LiveServer(settings, registry=registry_with(gate)) as server, ThreadPoolExecutor(1) as pool:
        held = pool.submit(httpx.post, server.url + "/extract", json={"html": ARTICLE, "backend": "gate"}, timeout=30)
        gate.wait_entered(1)
        batch = {"documents": [{"html": ARTICLE}] * 3}
        assert httpx.post(server.url + "/extract/batch", json=batch).status_code == 429  # 1 + 3 > 3
        assert httpx.post(server.url + "/extract/batch", json={"documents": batch["documents"][:2]}).status_code == 200
        gate.opened.set()
        assert held.result().status_code == 200


def _wait_until_refused(port: int) -> None:
    """Poll until the listening socket is closed: the server has begun its shutdown."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except ConnectionRefusedError:
            return
        time.sleep(0.02)
    raise AssertionError("the server kept accepting connections after shutdown began")


def test_shutdown_stops_accepting_and_lets_the_request_in_flight_finish(
    registry_with: Callable[..., BackendRegistry],
) -> None:
    gate = GateBackend()
    server = LiveServer(
        Settings(graceful_shutdown_timeout_s=20, default_backend=RULES_DEFAULT), registry=registry_with(gate)
    )
    with server, ThreadPoolExecutor(1) as pool:
        in_flight = pool.submit(
            httpx.post, server.url + "/extract", json={"html": ARTICLE, "backend": "gate"}, timeout=30
        )
        gate.wait_entered(1)
        server.server.should_exit = True  # what SIGTERM does
        _wait_until_refused(server.port)  # no new work is taken...
        gate.opened.set()  # ...while the request already in the pipeline finishes
        response = in_flight.result()
        assert response.status_code == 200
        assert "real content" in response.json()["text"]
        server.thread.join(timeout=20)
        assert not server.thread.is_alive()
