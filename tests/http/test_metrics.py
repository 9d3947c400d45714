"""Prometheus metrics: isolated registries, bounded labels, real scrapes of /metrics, several workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from service.api.errors import ERROR_CODES
from service.backends.boilerpipe import BoilerpipeBackend
from service.backends.registry import default_registry
from service.commands.pages import free_port
from service.metrics import MULTIPROC_ENV, Metrics, outcome_of
from service.settings import Settings

from support.live_server import RULES_DEFAULT, LiveServer
from support.pages import ARTICLE
from support.paths import REPO
from support.scrapes import label_values, scrape, value

pytestmark = pytest.mark.timeout(90)


def initialised(metrics: Metrics) -> Metrics:
    metrics.initialise(
        endpoints=["POST /extract", "GET /healthz", "unmatched"],
        backend_endpoints=["POST /extract"],
        backends=["boilerpipe", "bilstm"],
        batched_backends=["bilstm"],
        error_codes=ERROR_CODES,
        block_reasons=["address", "scheme"],
        request_backends=["all"],
    )
    return metrics


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        (200, "ok"),
        (404, "client_error"),
        (429, "overloaded"),
        (499, "client_gone"),
        (500, "server_error"),
        (502, "upstream_error"),
        (503, "unavailable"),
        (504, "upstream_error"),
    ],
)
def test_a_status_has_one_outcome_and_only_shedding_is_overloaded(status: int, outcome: str) -> None:
    """A 503 (a failing readiness probe, a request cancelled at shutdown) fed the shedding alert as overloaded."""
    assert outcome_of(status) == outcome


def test_each_registry_gets_its_own_metrics() -> None:
    first, second = CollectorRegistry(), CollectorRegistry()
    Metrics(first).requests.labels("GET /healthz", "none", "ok").inc()
    Metrics(second)  # the same names again, in another registry: no clash
    labels = {"endpoint": "GET /healthz", "backend": "none", "outcome": "ok"}
    assert value(scrape(generate_latest(first).decode()), "extract_requests_total", **labels) == 1
    assert value(scrape(generate_latest(second).decode()), "extract_requests_total", **labels) == 0


def test_every_label_value_exists_before_anything_happens() -> None:
    registry = CollectorRegistry()
    initialised(Metrics(registry))
    samples = scrape(generate_latest(registry).decode())
    assert label_values(samples, "extract_errors_total", "code") == set(ERROR_CODES)
    backends = {"boilerpipe", "bilstm", "all", "unknown", "none"}
    assert label_values(samples, "extract_requests_total", "backend") == backends
    outcomes = {"ok", "client_error", "client_gone", "overloaded", "unavailable", "upstream_error", "server_error"}
    assert label_values(samples, "extract_requests_total", "outcome") == outcomes
    assert value(samples, "extract_blocked_urls_total", reason="address") == 0
    assert ("extract_stage_duration_seconds_count", (("backend", "none"), ("stage", "fetch"))) in samples


def test_the_batcher_metrics_are_exposed_for_batched_backends() -> None:
    registry = CollectorRegistry()
    metrics = initialised(Metrics(registry))
    metrics.batch_documents.labels("bilstm").observe(8)
    metrics.queue_depth.labels("bilstm").set(3)
    metrics.queue_wait.labels("bilstm").observe(0.002)
    metrics.inference_duration.labels("bilstm").observe(0.01)
    samples = scrape(generate_latest(registry).decode())
    assert value(samples, "extract_batch_documents_count", backend="bilstm") == 1
    assert value(samples, "extract_batch_documents_bucket", backend="bilstm", le="8.0") == 1
    assert value(samples, "extract_queue_depth", backend="bilstm") == 3
    assert value(samples, "extract_queue_wait_seconds_sum", backend="bilstm") == pytest.approx(0.002)
    assert value(samples, "extract_inference_duration_seconds_count", backend="bilstm") == 1
    assert label_values(samples, "extract_queue_depth", "backend") == {"bilstm"}  # rule backends have no queue


@pytest.fixture(scope="module")
def server() -> Iterator[httpx.Client]:
    with (
        LiveServer(Settings(default_backend=RULES_DEFAULT)) as live,
        httpx.Client(base_url=live.url, timeout=30) as client,
    ):
        yield client


def test_the_first_scrape_already_has_every_route_series() -> None:
    with LiveServer(Settings()) as live, httpx.Client(base_url=live.url, timeout=30) as client:
        first = scrape(client.get("/metrics").text)
    endpoints = label_values(first, "extract_requests_total", "endpoint")
    assert {"POST /extract", "GET /extract", "POST /extract/batch", "POST /compare", "GET /healthz"} <= endpoints
    assert value(first, "extract_requests_total", endpoint="POST /extract", backend="boilerpipe", outcome="ok") == 0


def test_a_scrape_counts_requests_by_endpoint_backend_and_outcome(server: httpx.Client) -> None:
    before = scrape(server.get("/metrics").text)
    server.post("/extract", content=ARTICLE, headers={"Content-Type": "text/html"})
    server.post("/extract", json={"html": ARTICLE, "backend": "nope"})
    server.post("/extract", json={"html": ARTICLE, "backend": "all"})
    after = scrape(server.get("/metrics").text)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("extract_requests_total", endpoint="POST /extract", backend="boilerpipe", outcome="ok") == 1
    assert grew("extract_requests_total", endpoint="POST /extract", backend="unknown", outcome="client_error") == 1
    assert grew("extract_requests_total", endpoint="POST /extract", backend="all", outcome="ok") == 1
    assert grew("extract_errors_total", code="unknown_backend") == 1
    assert grew("extract_request_duration_seconds_count", endpoint="POST /extract") == 3
    for stage in ("parse", "classify", "render"):
        assert grew("extract_stage_duration_seconds_count", stage=stage, backend="boilerpipe") == 2
    info = value(
        after,
        "extract_backend_info",
        backend="boilerpipe",
        kind="rules",
        version=BoilerpipeBackend.version,
        execution_provider="CPU",
    )
    assert info == 1
    assert value(after, "extract_requests_in_flight") == 1  # the scrape itself


def test_paths_and_names_never_become_labels(server: httpx.Client) -> None:
    before = scrape(server.get("/metrics").text)
    for i in range(20):
        server.get(f"/no/such/path/{i}")
        server.post(f"/extract?backend=made-up-{i}", content=ARTICLE, headers={"Content-Type": "text/html"})
        server.request("PROPFIND", "/extract")  # a method the route does not take
        # httptools (llhttp) refuses a method HTTP does not know before the app sees it
        assert server.request("BREW", "/extract").status_code == 400
    after = scrape(server.get("/metrics").text)
    assert len(after) == len(before)  # no new series
    shipped = set(default_registry(Settings()).names())
    assert label_values(after, "extract_requests_total", "backend") <= shipped | {"all", "unknown", "none"}
    assert value(after, "extract_requests_total", endpoint="unmatched", backend="none", outcome="client_error") >= 40


def test_the_exposition_is_prometheus_text(server: httpx.Client) -> None:
    response = server.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain; version=")
    names = {family.name for family in text_string_to_metric_families(response.text)}
    assert names >= {
        "extract_requests", "extract_request_duration_seconds", "extract_requests_in_flight",
        "extract_stage_duration_seconds", "extract_errors", "extract_fetched_bytes", "extract_blocked_urls",
        "extract_batch_documents", "extract_queue_depth", "extract_queue_wait_seconds",
        "extract_inference_duration_seconds", "extract_backend_info", "process_cpu_seconds",
    }  # fmt: skip


def test_several_workers_report_one_sum(tmp_path: Path) -> None:
    """``serve --workers 2`` in multiprocess mode: whichever worker answers the scrape reports every worker's counts."""
    port = free_port()
    env = {**os.environ, MULTIPROC_ENV: str(tmp_path), "EXTRACT_DEFAULT_BACKEND": RULES_DEFAULT}
    command = [sys.executable, "-m", "service", "serve", "--workers", "2", "--port", str(port)]
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and process.poll() is None, "the server did not start"
            time.sleep(0.1)
        requests = 12
        for _ in range(requests):  # a new connection each time, so both workers take some
            response = httpx.post(url + "/extract", content=ARTICLE, headers={"Content-Type": "text/html"})
            assert response.status_code == 200
        for _ in range(4):
            samples = scrape(httpx.get(url + "/metrics").text)
            ok = value(samples, "extract_requests_total", endpoint="POST /extract", backend="boilerpipe", outcome="ok")
            assert ok == requests
            assert value(samples, "extract_requests_in_flight") == 1  # livesum over the workers
        assert len(list(tmp_path.glob("*.db"))) >= 2  # each worker wrote its own files
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr.decode()[-2000:]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_failed_start_ends_the_command_with_status_3_however_many_workers(tmp_path: Path, workers: str) -> None:
    """uvicorn's parent of several workers stopped when one failed to start, and ended 0 (a pod "Completed")."""
    env = {**os.environ, "EXTRACT_MODEL_STORE_DIR": str(tmp_path)}  # no manifest: the default backend cannot load
    env.pop(MULTIPROC_ENV, None)
    command = [sys.executable, "-m", "service", "serve", "--workers", workers, "--port", str(free_port())]
    finished = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert finished.returncode == 3, finished.stderr[-2000:]
    assert "unknown backend 'gbt'" in finished.stderr


def test_an_empty_backend_name_is_counted_as_the_default_it_runs(server: httpx.Client) -> None:
    before = scrape(server.get("/metrics").text)
    assert server.post("/extract", json={"html": ARTICLE, "backend": ""}).json()["backend"] == "boilerpipe"
    after = scrape(server.get("/metrics").text)
    labels = {"endpoint": "POST /extract", "outcome": "ok"}
    assert (
        value(after, "extract_requests_total", backend="boilerpipe", **labels)
        - value(before, "extract_requests_total", backend="boilerpipe", **labels)
        == 1
    )
    assert value(after, "extract_requests_total", backend="unknown", **labels) == value(
        before, "extract_requests_total", backend="unknown", **labels
    )
