"""A client that leaves: its request is a 499 ``client_gone``, never a 5xx; its fetch is given up, and its pages
not yet begun are skipped.

A gate backend holds the first page inside the pipeline while the client closes its
connection, so which pages had begun is a fact, not a timing guess.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from ipaddress import IPv4Address, ip_network

import httpx
import pytest

from service.backends.registry import BackendRegistry
from service.settings import Settings

from support.backends import GateBackend
from support.live_server import RULES_DEFAULT, LiveServer
from support.pages import ARTICLE
from support.upstream import MapResolver, Upstream

pytestmark = pytest.mark.timeout(60)

PAGES = 5
NOTICE_S = 0.5  # loopback: the server's event loop sees the closed socket in well under this


def requests_by_outcome(client: httpx.Client, endpoint: str) -> dict[str, float]:
    prefix = "extract_requests_total{"
    counts = {}
    for line in client.get("/metrics").text.splitlines():
        if line.startswith(prefix) and f'endpoint="{endpoint}"' in line:
            outcome = line.split('outcome="', 1)[1].split('"', 1)[0]
            counts[outcome] = counts.get(outcome, 0.0) + float(line.rsplit(" ", 1)[1])
    return {outcome: count for outcome, count in counts.items() if count}


def wait_answered(client: httpx.Client, endpoint: str) -> dict[str, float]:
    deadline = time.monotonic() + 10
    while not (counts := requests_by_outcome(client, endpoint)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return counts


def send(port: int, path: str, body: bytes, *, declared: int | None = None) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port))
    head = f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
    connection.sendall(f"{head}Content-Length: {declared or len(body)}\r\n\r\n".encode() + body)
    return connection


def test_pages_a_gone_client_asked_for_are_not_extracted(registry_with: Callable[..., BackendRegistry]) -> None:
    gate = GateBackend()
    settings = Settings(default_backend=RULES_DEFAULT)
    with LiveServer(settings, registry=registry_with(gate)) as server, httpx.Client(base_url=server.url) as client:
        batch = {"documents": [{"html": ARTICLE}] * PAGES, "backend": "gate"}
        connection = send(server.port, "/extract/batch", json.dumps(batch).encode())
        gate.wait_entered(1)  # the first page is being classified
        connection.close()
        time.sleep(NOTICE_S)
        gate.opened.set()
        assert wait_answered(client, "POST /extract/batch") == {"client_gone": 1}
        assert not gate.entered_again(NOTICE_S)  # no second page was begun
        errors = client.get("/metrics").text
        assert 'extract_errors_total{code="client_closed_request"} 1.0' in errors
        alive = client.post("/extract/batch", json={**batch, "documents": batch["documents"][:2]})
        assert alive.status_code == 200 and len(alive.json()["results"]) == 2  # the next caller is served as ever


@pytest.mark.parametrize("path", ["/extract", "/extract/batch"])
def test_a_client_that_leaves_mid_body_is_no_server_error(path: str) -> None:
    with LiveServer(Settings(default_backend=RULES_DEFAULT)) as server, httpx.Client(base_url=server.url) as client:
        send(server.port, path, b'{"html": "<p>', declared=100_000).close()
        assert wait_answered(client, f"POST {path}") == {"client_gone": 1}


def test_a_fetch_for_a_client_that_left_is_given_up(upstream: Upstream) -> None:
    """/endless trickles until its client hangs up: only the service giving the fetch up ends it before the timeout."""
    settings = Settings(
        default_backend=RULES_DEFAULT, fetch_allow_networks=[ip_network("127.0.0.1/32")], fetch_total_timeout_s=30
    )
    resolver = MapResolver({"upstream.test": [IPv4Address("127.0.0.1")]})
    with LiveServer(settings, resolver=resolver) as server, httpx.Client(base_url=server.url) as client:
        connection = socket.create_connection(("127.0.0.1", server.port))
        target = f"/extract?url={upstream.url('/endless')}"
        connection.sendall(f"GET {target} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
        time.sleep(NOTICE_S)  # the fetch is under way
        connection.close()
        assert wait_answered(client, "GET /extract") == {"client_gone": 1}  # in seconds, not the 30 s timeout


def test_a_client_leaving_during_its_one_page_is_counted_gone(registry_with: Callable[..., BackendRegistry]) -> None:
    gate = GateBackend()
    settings = Settings(default_backend=RULES_DEFAULT)
    with LiveServer(settings, registry=registry_with(gate)) as server, httpx.Client(base_url=server.url) as client:
        connection = send(server.port, "/extract", json.dumps({"html": ARTICLE, "backend": "gate"}).encode())
        gate.wait_entered(1)  # its page is being classified
        connection.close()
        time.sleep(NOTICE_S)
        gate.opened.set()  # the extraction ends, for no one
        assert wait_answered(client, "POST /extract") == {"client_gone": 1}  # it was "ok", with an answer sent nowhere
