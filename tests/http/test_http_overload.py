"""Concurrency past the admission limit (429 with Retry-After, no 5xx, nothing lost) and graceful shutdown.

A gate backend holds the admitted requests inside the pipeline until the test
opens it, so which requests are in flight is a fact, not a timing guess.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed

import httpx
import pytest

from service.backends.registry import BackendRegistry
from service.settings import Settings

from support.backends import GateBackend
from support.live_server import RULES_DEFAULT, LiveServer
from support.pages import ARTICLE

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


BIG_BODY = 16 * 1024 * 1024  # more than loopback's socket buffers hold: a reset would cut its sending short


def _head(port: int, content_length: int) -> bytes:
    """A raw POST /extract head for the gate backend, asking for the connection to be closed after the answer."""
    return (
        f"POST /extract?backend=gate HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: text/html\r\n"
        f"Content-Length: {content_length}\r\nConnection: close\r\n\r\n"
    ).encode()


def _read_to_eof(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes; a reset raises ConnectionResetError."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _full_server(registry_with: Callable[..., BackendRegistry], gate: GateBackend) -> LiveServer:
    settings = Settings(
        max_in_flight=1,
        max_batch_documents=1,
        max_body_bytes=2 * BIG_BODY,
        overload_retry_after_s=3,
        default_backend=RULES_DEFAULT,
    )
    return LiveServer(settings, registry=registry_with(gate))


def test_a_request_arriving_when_full_is_refused_before_its_body_is_sent_and_its_connection_ends_cleanly(
    registry_with: Callable[..., BackendRegistry],
) -> None:
    gate = GateBackend()
    with _full_server(registry_with, gate) as server, ThreadPoolExecutor(1) as pool:
        held = pool.submit(httpx.post, server.url + "/extract", json={"html": ARTICLE, "backend": "gate"}, timeout=30)
        gate.wait_entered(1)  # admission is full
        with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
            sock.sendall(_head(server.port, BIG_BODY))  # the head alone: no byte of the body yet
            answer = sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 429 ")  # decided without the body
            assert b"\r\nretry-after: 3\r\n" in answer.lower()
            sock.sendall(b"x" * BIG_BODY)  # a client that sends its body anyway is not reset...
            assert _read_to_eof(sock) == b""  # ...and sees the end of the connection after the answer
        gate.opened.set()
        assert held.result().status_code == 200


def test_a_burst_of_fresh_connections_with_big_bodies_all_get_an_answer(
    registry_with: Callable[..., BackendRegistry],
) -> None:
    gate = GateBackend()
    burst = 8
    with _full_server(registry_with, gate) as server, ThreadPoolExecutor(burst + 1) as pool:
        held = pool.submit(httpx.post, server.url + "/extract", json={"html": ARTICLE, "backend": "gate"}, timeout=30)
        gate.wait_entered(1)

        def one() -> bytes:
            with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
                sock.sendall(_head(server.port, BIG_BODY) + b"x" * BIG_BODY)  # head and body at once, as clients do
                return _read_to_eof(sock)

        answers = [future.result() for future in [pool.submit(one) for _ in range(burst)]]
        assert all(a.startswith(b"HTTP/1.1 429 ") and b"retry-after: 3" in a.lower() for a in answers)
        gate.opened.set()
        assert held.result().status_code == 200


def test_while_full_every_extracting_route_refuses_at_the_door_before_looking_at_the_request(
    registry_with: Callable[..., BackendRegistry],
) -> None:
    """Refused before routing, options and body: a request that would be invalid gets the 429 too."""
    gate = GateBackend()
    with _full_server(registry_with, gate) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        with ThreadPoolExecutor(1) as pool:
            held = pool.submit(client.post, "/extract", json={"html": ARTICLE, "backend": "gate"})
            gate.wait_entered(1)
            raw = {"Content-Type": "text/html"}
            refused = [
                client.post("/extract?format=nonsense", content=ARTICLE, headers=raw),  # else 422
                client.post("/extract/batch", content=b"{not json", headers={"Content-Type": "application/json"}),
                client.post("/compare", content=b"", headers=raw),  # else 400 empty_body
            ]
            assert [r.status_code for r in refused] == [429, 429, 429]
            assert {r.json()["error"]["code"] for r in refused} == {"overloaded"}
            assert {r.headers["retry-after"] for r in refused} == {"3"}
            assert client.get("/backends").status_code == 200  # what extracts nothing is not refused
            labelled = 'extract_requests_total{backend="none",endpoint="POST /extract/batch",outcome="overloaded"}'
            assert metric(client, labelled) == 1
            gate.opened.set()
            assert held.result().status_code == 200
        assert client.post("/extract?format=nonsense", content=ARTICLE, headers=raw).status_code == 422


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


@contextlib.contextmanager
def _held_at_shutdown(
    registry_with: Callable[..., BackendRegistry], graceful_s: int
) -> Iterator[tuple[LiveServer, GateBackend, Future[httpx.Response]]]:
    """A server holding one request in its backend, then told to shut down (what SIGTERM does)."""
    gate = GateBackend()
    settings = Settings(graceful_shutdown_timeout_s=graceful_s, default_backend=RULES_DEFAULT)
    with LiveServer(settings, registry=registry_with(gate)) as server, ThreadPoolExecutor(1) as pool:
        in_flight = pool.submit(
            httpx.post, server.url + "/extract", json={"html": ARTICLE, "backend": "gate"}, timeout=30
        )
        gate.wait_entered(1)
        server.server.should_exit = True
        yield server, gate, in_flight


def test_shutdown_stops_accepting_and_lets_the_request_in_flight_finish(
    registry_with: Callable[..., BackendRegistry],
) -> None:
    with _held_at_shutdown(registry_with, graceful_s=20) as (server, gate, in_flight):
        _wait_until_refused(server.port)  # no new work is taken...
        gate.opened.set()  # ...while the request already in the pipeline finishes
        response = in_flight.result()
        assert response.status_code == 200
        assert "real content" in response.json()["text"]
        server.thread.join(timeout=20)
        assert not server.thread.is_alive()


def test_a_request_the_shutdown_cancels_is_answered_503_shutting_down_in_the_error_shape(
    registry_with: Callable[..., BackendRegistry],
) -> None:
    """uvicorn cancels what still runs when the graceful time is out, and answered a plain-text 500 (a server error)."""
    with _held_at_shutdown(registry_with, graceful_s=1) as (server, gate, in_flight):
        response = in_flight.result()  # the gate stays shut past the graceful second
        gate.opened.set()  # the worker thread cannot be cancelled: let it end
        server.thread.join(timeout=20)
    assert response.status_code == 503 and response.headers["retry-after"] == "1"
    assert response.json()["error"]["code"] == "shutting_down"


def test_pages_past_the_bytes_in_flight_are_refused_while_a_small_one_still_fits(
    registry_with: Callable[..., BackendRegistry],
) -> None:
    """Memory grows with a page's size: four 9.8 MB pages on bilstm took a process from 170 MiB to 5 GiB."""
    padding = "<p>" + "x " * 15_000 + "</p>"  # 30 KB
    big, small = ARTICLE.replace("</body>", padding + "</body>"), ARTICLE
    gate = GateBackend()
    settings = Settings(max_body_bytes=40_000, max_in_flight_bytes=50_000, default_backend=RULES_DEFAULT)
    with LiveServer(settings, registry=registry_with(gate)) as server, ThreadPoolExecutor(1) as pool:
        held = pool.submit(httpx.post, server.url + "/extract", json={"html": big, "backend": "gate"}, timeout=30)
        gate.wait_entered(1)
        refused = httpx.post(server.url + "/extract", json={"html": big}, timeout=30)
        fits = httpx.post(server.url + "/extract", json={"html": small}, timeout=30)
        gate.opened.set()
        assert held.result().status_code == 200
        again = httpx.post(server.url + "/extract", json={"html": big}, timeout=30)  # room again
    assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
    assert refused.json()["error"]["code"] == "overloaded" and "bytes of pages in flight" in refused.text
    assert fits.status_code == 200 and again.status_code == 200
