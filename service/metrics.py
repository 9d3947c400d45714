"""Every Prometheus metric of the service, in one place, registered in a registry the caller passes in.

Labels are bounded sets only: endpoints are route templates, backends are
registered names, codes come from the error table, reasons from an enum.
A URL, a host or a message never becomes a label. Every label value is
created up front by :meth:`Metrics.initialise`, so a scrape shows zeros
instead of missing series.

With several worker processes, ``PROMETHEUS_MULTIPROC_DIR`` is set (by
``python -m service serve``) and :func:`exposition` merges what every worker
wrote there; gauges say how they are merged.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector, generate_latest
from prometheus_client import multiprocess as prometheus_multiprocess

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Request outcome, from the response status; a bounded set.
# nginx's status for a request whose client closed the connection first: the answer reaches no one.
CLIENT_CLOSED_REQUEST = 499
OUTCOMES = ("ok", "client_error", "client_gone", "overloaded", "unavailable", "upstream_error", "server_error")
STAGES = ("fetch", "parse", "classify", "render")
NO_BACKEND = "none"  # a request that names no backend, or fails before one is known
UNKNOWN_BACKEND = "unknown"  # a name that is not registered: kept out of the label set

LATENCY_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def outcome_of(status: int) -> str:
    if status < 400:
        return "ok"
    if status == CLIENT_CLOSED_REQUEST:
        return "client_gone"
    if status == 429:  # shed: admission or a queue is full
        return "overloaded"
    if status == 503:  # not ready (a probe), or shutting down: no load to shed
        return "unavailable"
    if status in (502, 504):
        return "upstream_error"
    return "client_error" if status < 500 else "server_error"


class Metrics:
    """The metrics, as attributes; observed by the HTTP layer, the fetcher wrapper and the micro-batcher."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.requests = Counter(
            "extract_requests_total", "HTTP requests answered.", ["endpoint", "backend", "outcome"], registry=registry
        )
        self.request_duration = Histogram(
            "extract_request_duration_seconds",
            "Time from request to response, per endpoint.",
            ["endpoint"],
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        self.in_flight = Gauge(
            "extract_requests_in_flight", "HTTP requests being served.", registry=registry, multiprocess_mode="livesum"
        )
        self.stage_duration = Histogram(
            "extract_stage_duration_seconds",
            "Time per pipeline stage (fetch, parse, classify, render) and backend.",
            ["stage", "backend"],
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        self.errors = Counter(
            "extract_errors_total", "Error responses, by stable error code.", ["code"], registry=registry
        )
        self.fetched_bytes = Counter(
            "extract_fetched_bytes_total", "Page bytes fetched from upstream servers.", registry=registry
        )
        self.blocked_urls = Counter(
            "extract_blocked_urls_total",
            "URLs refused before any connection, by reason.",
            ["reason"],
            registry=registry,
        )
        self.batch_documents = Histogram(
            "extract_batch_documents",
            "Documents per model batch.",
            ["backend"],
            buckets=BATCH_BUCKETS,
            registry=registry,
        )
        self.queue_depth = Gauge(
            "extract_queue_depth",
            "Documents waiting for a model batch.",
            ["backend"],
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.queue_wait = Histogram(
            "extract_queue_wait_seconds",
            "Time a document waits before its batch runs.",
            ["backend"],
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        self.inference_duration = Histogram(
            "extract_inference_duration_seconds",
            "Time one model batch takes to run.",
            ["backend"],
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        self.backend_info = Gauge(
            "extract_backend_info",
            "Loaded backends (always 1), with their version and execution provider.",
            ["backend", "kind", "version", "execution_provider"],
            registry=registry,
            multiprocess_mode="max",
        )

    def initialise(
        self,
        *,
        endpoints: Iterable[str],
        backend_endpoints: Iterable[str],
        backends: Iterable[str],
        batched_backends: Iterable[str],
        error_codes: Iterable[str],
        block_reasons: Iterable[str],
        request_backends: Iterable[str] = (),
    ) -> None:
        """Create every label combination now, so each series exists from the first scrape.

        ``request_backends`` are the backend label's values on requests beyond the backends' names
        (the API's ``backend=all``); :data:`UNKNOWN_BACKEND` and :data:`NO_BACKEND` are always there.
        """
        backends = list(backends)
        request_backends = [*backends, *request_backends, UNKNOWN_BACKEND, NO_BACKEND]
        with_backends = set(backend_endpoints)
        for endpoint in endpoints:
            self.request_duration.labels(endpoint)
            for backend in request_backends if endpoint in with_backends else [NO_BACKEND]:
                for outcome in OUTCOMES:
                    self.requests.labels(endpoint, backend, outcome)
        for backend in backends:
            for stage in STAGES[1:]:
                self.stage_duration.labels(stage, backend)
        self.stage_duration.labels("fetch", NO_BACKEND)
        for backend in batched_backends:
            self.batch_documents.labels(backend)
            self.queue_depth.labels(backend)
            self.queue_wait.labels(backend)
            self.inference_duration.labels(backend)
        for code in error_codes:
            self.errors.labels(code)
        for reason in block_reasons:
            self.blocked_urls.labels(reason)


def new_registry() -> CollectorRegistry:
    """A registry for one app: its metrics, plus the process's CPU and memory when single-process."""
    registry = CollectorRegistry()
    if not os.environ.get(MULTIPROC_ENV):
        ProcessCollector(registry=registry)
    return registry


def exposition(registry: CollectorRegistry) -> bytes:
    """The Prometheus text of ``registry``, or of every worker's files in multiprocess mode."""
    if os.environ.get(MULTIPROC_ENV):
        merged = CollectorRegistry()
        prometheus_multiprocess.MultiProcessCollector(merged)
        return generate_latest(merged)
    return generate_latest(registry)


def mark_process_dead(pid: int) -> None:
    """Drop a finished worker's live gauges (multiprocess mode only)."""
    if os.environ.get(MULTIPROC_ENV):
        prometheus_multiprocess.mark_process_dead(pid)
