"""The HTTP load test (``bench --http``) at small scale against a real server on 127.0.0.1.

Correctness only, never timings: every request answered once, 200s in the
normal rounds, 200s or 429s with Retry-After in the overload round, no 5xx,
no transport error, and the server counted what the client sent.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from service.api.protocol import HttpProtocol
from service.commands import bench
from service.commands.load_server import process_group_cpu_s
from service.commands.loadtest import LoadConfig, load_test, passed
from service.commands.pages import load_pages

from support.paths import FIXTURES_DIR

pytestmark = pytest.mark.timeout(60)

PAGES = FIXTURES_DIR / "eval" / "wcxb"  # three raw pages, .html and .html.gz
REQUESTS = 30


def test_rounds_and_overload_answer_every_request_correctly() -> None:
    pages = load_pages(PAGES)
    config = LoadConfig(
        backend="boilerpipe",
        data_dir=PAGES,
        concurrency=(1, 8),
        requests=REQUESTS,
        overload_limit=1,
        overload_requests=40,
        overload_concurrency=16,
    )
    result = load_test(config, pages, log=lambda _: None)

    for row in result["rounds"]:
        assert row["requests"] == REQUESTS
        assert row["statuses"] == {"200": REQUESTS}
        assert row["server_errors"] == row["transport_errors"] == 0
        assert row["app_ms"]["p50"] is not None  # every answer carried Server-Timing
        assert row["pipeline_ms"]["p50"] is not None
    assert result["server_counted"] == result["client_sent"] == 2 * REQUESTS

    cost = result["overhead"]  # figures exist; their size is not a test's business
    assert set(cost) >= {"http_minus_inprocess_p50_ms", "cpu_overhead_ms", "app_minus_pipeline_ms"}

    over = result["overload"]
    assert over["sent"] == over["answered"] == over["server_counted"] == 40
    assert over["ok"] + over["rejected"] == 40
    assert over["ok"] >= 1
    assert over["rejected_without_retry_after"] == 0
    assert over["server_errors"] == over["transport_errors"] == over["other"] == 0
    assert not over["duplicate_or_missing"]
    assert passed(result)


def test_with_a_new_connection_per_request_every_request_is_answered_once() -> None:
    pages = load_pages(PAGES)
    config = LoadConfig(
        backend="boilerpipe",
        data_dir=PAGES,
        concurrency=(4,),
        requests=12,
        fresh=True,
        overload_limit=1,
        overload_requests=40,
        overload_concurrency=16,
        inprocess=False,
    )
    result = load_test(config, pages, log=lambda _: None)
    assert result["rounds"][0]["statuses"] == {"200": 12}
    over = result["overload"]
    assert over["sent"] == over["answered"] == over["server_counted"] == 40
    assert over["transport_errors"] == over["rejected_without_retry_after"] == 0
    assert over["transport_error_kinds"] == {}
    # /proc counts CPU in 10 ms ticks: a light 40-request round may read 0 there, never less
    assert over["server_cpu_s"] >= 0 and over["client_cpu_s"] > 0
    assert passed(result)


def test_the_bench_command_runs_it_and_writes_json(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    out = tmp_path / "load.json"
    small = ["--concurrency", "2", "--requests", "6", "--overload-requests", "0", "--no-inprocess"]
    args = parser.parse_args(["--http", "--data", str(PAGES), *small, "--client", "httpx", "--json", str(out)])
    assert bench.run(args) == 0
    written = json.loads(out.read_text())
    assert written["workers"] >= 1
    (result,) = written["results"]
    assert result["rounds"][0]["statuses"] == {"200": 6}
    assert "overload" not in result


class _Transport:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def get_extra_info(self, name: str) -> Any:
        return self.sock if name == "socket" else None


def test_the_served_protocol_turns_nagle_off_on_sockets_uvicorn_binds_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn's own listening socket (several workers) has no protocol number, so asyncio left Nagle on."""
    monkeypatch.setattr(AutoHTTPProtocol, "connection_made", lambda self, transport: None)
    monkeypatch.setattr(HttpProtocol, "_await_head", lambda self: None)  # its timer needs a running loop
    with socket.socket(socket.AF_INET) as listener, socket.socket(socket.AF_INET) as client:  # proto 0, as uvicorn's
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        client.connect(listener.getsockname())
        accepted, _ = listener.accept()
        with accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
            HttpProtocol.connection_made(object.__new__(HttpProtocol), _Transport(accepted))  # type: ignore[arg-type]
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def test_two_workers_answer_every_request() -> None:
    pages = load_pages(PAGES)
    config = LoadConfig(
        backend="boilerpipe", data_dir=PAGES, concurrency=(4,), requests=12, workers=2, overload_requests=0
    )
    result = load_test(config, pages, log=lambda _: None)
    assert result["rounds"][0]["statuses"] == {"200": 12}
    assert result["server_counted"] == result["client_sent"] == 12
    assert passed(result)


def test_a_process_groups_cpu_time_counts_its_busy_children() -> None:
    spin = (
        "import time\nend = time.process_time() + 0.5\n"
        "while time.process_time() < end: pass\nprint(1, flush=True)\ninput()"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", spin], start_new_session=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == b"1\n"  # spun, still alive
        assert 0.4 <= process_group_cpu_s(child.pid) <= 2.0
    finally:
        child.kill()
        child.wait()
