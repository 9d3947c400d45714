"""``python -m service bench --http``: a load test of the real server on 127.0.0.1.

Starts the server (:mod:`service.commands.load_server`), drives ``POST
/extract`` with raw pages in a fixed order from an asyncio client pinned to
another core (:mod:`service.commands.load_client`), and reports
(:mod:`service.commands.load_report`), per concurrency: throughput, latency
p50/p99 and errors by status; at concurrency 1 the overhead over the
in-process call (same pages, same backend, same core); and an overload
round against a server with a small admission limit: every request must
get exactly one answer, a 200 or a fast 429 with ``Retry-After``, never
a 5xx or a transport error.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

from service.commands.load_client import drive
from service.commands.load_report import format_report, overhead, overload_summary, passed, summarise
from service.commands.load_server import LOG_TAIL_BYTES, Server, usable_cores
from service.commands.pages import load_pages
from service.runtime.heap import settle_heap

WARMUP_REQUESTS = 20  # per server, before any measured round: first-request costs stay out of the figures


def measured_round(server: Server, pages: Sequence[bytes], concurrency: int, config: LoadConfig) -> dict[str, Any]:
    """One round with the CPU time the server and the client spent on it, per request."""
    requests = config.requests or len(pages)
    server_before, client_before = server.cpu_s(), time.process_time()
    samples, seconds = drive(
        server.url, pages, concurrency, requests, config.duration_s, client=config.client, fresh=config.fresh
    )
    server_cpu, client_cpu = server.cpu_s() - server_before, time.process_time() - client_before
    row = summarise(samples, seconds, concurrency)
    row["server_cpu_ms_per_request"] = server_cpu * 1e3 / len(samples) if samples else None
    row["client_cpu_ms_per_request"] = client_cpu * 1e3 / len(samples) if samples else None
    row["samples"] = samples
    return row


def counted_by_server(url: str) -> int:
    """``POST /extract`` requests the server counted (every outcome), from ``/metrics``."""
    text = httpx.get(url + "/metrics", timeout=10.0).text
    total = 0.0
    for line in text.splitlines():
        if line.startswith("extract_requests_total{") and 'endpoint="POST /extract"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return int(total)


# In-process comparison: a child process on the server's core, the same call the server makes


def inprocess_times(backend: str, data_dir: Path, limit: int, requests: int, core: int) -> dict[str, list[float]]:
    """Wall and CPU ms of request ``i`` (page ``i % len(pages)``) in-process, in a child pinned to ``core``."""
    command = [sys.executable, "-m", "service.commands.loadtest", backend, str(data_dir), str(limit)]
    command += [str(requests), str(core)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"in-process measurement failed:\n{done.stderr[-LOG_TAIL_BYTES:]}")
    times: dict[str, list[float]] = json.loads(done.stdout)
    return times


def _inprocess_child(backend: str, data_dir: Path, limit: int, requests: int, core: int) -> dict[str, list[float]]:
    from service.pipeline import default_extractor  # noqa: PLC0415 - the child loads the backend, not the parent

    os.sched_setaffinity(0, {core})
    pages = load_pages(data_dir, limit)
    extractor = default_extractor()
    extractor.registry.get(backend)
    for page in pages[:WARMUP_REQUESTS]:
        extractor.extract(page, backend=backend)
    settle_heap()  # as the server does once started
    wall, cpu = [], []
    for index in range(requests):
        started, started_cpu = time.perf_counter(), time.process_time()
        extractor.extract(pages[index % len(pages)], backend=backend)
        wall.append((time.perf_counter() - started) * 1e3)
        cpu.append((time.process_time() - started_cpu) * 1e3)
    return {"wall_ms": wall, "cpu_ms": cpu}


# The command


@dataclass
class LoadConfig:
    """One load test: what to serve, how hard to push, where to pin the server (run() pins the client)."""

    backend: str
    data_dir: Path
    limit: int = 0
    concurrency: tuple[int, ...] = (1, 8, 64)
    requests: int = 0  # 0: one per page
    duration_s: float = 60.0
    workers: int = 1
    server_cores: set[int] = field(default_factory=lambda: {0})
    client: str = "raw"
    fresh: bool = False  # a new connection per request instead of keep-alive
    overload_limit: int = 2
    overload_requests: int = 1000
    overload_concurrency: int = 64
    inprocess: bool = True


def _server_env(workers: int) -> dict[str, str]:
    return {"EXTRACT_WORKERS": str(workers)}


def load_test(config: LoadConfig, pages: Sequence[bytes], log: Callable[[str], None] = print) -> dict[str, Any]:
    """Every round of one backend against fresh servers; the figures as a dict (see :func:`format_report`)."""
    result: dict[str, Any] = {"backend": config.backend, "workers": config.workers, "rounds": []}
    with Server(config.backend, config.workers, config.server_cores, _server_env(config.workers)) as server:
        log(f"load: {config.backend} server on port {server.port}, cores {sorted(config.server_cores)}")
        drive(server.url, pages, 1, WARMUP_REQUESTS, config.duration_s, client=config.client, fresh=config.fresh)
        before = counted_by_server(server.url)
        sent = 0
        for concurrency in config.concurrency:
            log(f"load: {config.backend} concurrency {concurrency} ...")
            row = measured_round(server, pages, concurrency, config)
            sent += row["requests"]
            if concurrency == 1 and config.inprocess:
                log(f"load: {config.backend} in-process, same pages ...")
                times = inprocess_times(
                    config.backend, config.data_dir, config.limit, row["requests"], min(config.server_cores)
                )
                result["overhead"] = overhead(row, times)
            row.pop("samples")
            result["rounds"].append(row)
        result["server_counted"] = counted_by_server(server.url) - before
        result["client_sent"] = sent
    if config.overload_requests:
        limit = config.overload_limit
        env = {
            **_server_env(config.workers),
            "EXTRACT_MAX_IN_FLIGHT": str(limit),
            "EXTRACT_MAX_BATCH_DOCUMENTS": str(limit),  # the settings refuse a batch larger than the limit
        }
        with Server(config.backend, config.workers, config.server_cores, env) as server:
            log(f"load: {config.backend} overload, {config.overload_concurrency} at once against a limit of {limit}")
            drive(
                server.url,
                pages,
                1,
                min(WARMUP_REQUESTS, limit),
                config.duration_s,
                client=config.client,
                fresh=config.fresh,
            )
            before, cpu_before, client_before = counted_by_server(server.url), server.cpu_s(), time.process_time()
            samples, seconds = drive(
                server.url,
                pages,
                config.overload_concurrency,
                config.overload_requests,
                config.duration_s,
                client=config.client,
                fresh=config.fresh,
            )
            summary = overload_summary(samples, seconds)
            summary["server_cpu_s"] = server.cpu_s() - cpu_before
            summary["client_cpu_s"] = time.process_time() - client_before
            summary["limit"] = limit
            summary["concurrency"] = config.overload_concurrency
            summary["server_counted"] = counted_by_server(server.url) - before
            result["overload"] = summary
    return result


def _cores(text: str) -> set[int]:
    return {int(c) for c in text.split(",") if c}


def _stop_on_sigterm(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through every Server.__exit__


def run(args: argparse.Namespace, data_dir: Path, cpu: str) -> int:
    """``bench --http``: every backend in turn; the table, and JSON with ``--json``."""
    from service.settings import get_settings  # noqa: PLC0415 - reads EXTRACT_* only when asked

    workers = args.workers or get_settings().workers
    server_cores = _cores(args.server_cores) if args.server_cores else {args.core}
    client_core = args.client_core if args.client_core in usable_cores({args.client_core}) else None
    previous = signal.signal(signal.SIGTERM, _stop_on_sigterm)
    affinity = os.sched_getaffinity(0)
    if client_core is not None:
        os.sched_setaffinity(0, {client_core})
    try:
        pages = load_pages(data_dir, args.limit)
        load_before = os.getloadavg()
        results = []
        for backend in (n for n in args.backends.split(",") if n):
            config = LoadConfig(
                backend=backend,
                data_dir=data_dir,
                limit=args.limit,
                concurrency=tuple(int(c) for c in args.concurrency.split(",") if c),
                requests=args.requests,
                duration_s=args.duration,
                workers=workers,
                server_cores=server_cores,
                client=args.client,
                fresh=args.fresh_connections,
                overload_limit=args.overload_limit,
                overload_requests=args.overload_requests,
                overload_concurrency=args.overload_concurrency,
                inprocess=not args.no_inprocess,
            )
            results.append(load_test(config, pages, log=lambda m: print(m, file=sys.stderr, flush=True)))
        load_after = os.getloadavg()
    finally:
        os.sched_setaffinity(0, affinity)
        signal.signal(signal.SIGTERM, previous)
    connections = "a new connection per request" if args.fresh_connections else "keep-alive"
    print(
        f"# POST /extract, {len(pages)} raw pages from {data_dir} in a fixed order; server: {workers} worker(s) "
        f"pinned to core(s) {sorted(server_cores)}; client ({args.client}, {connections}) pinned to core "
        f"{client_core}; {cpu}; {os.cpu_count()} cores; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    print(format_report(results))
    if args.json:
        meta = {
            "cpu": cpu,
            "cores": os.cpu_count(),
            "data": str(data_dir),
            "pages": len(pages),
            "workers": workers,
            "server_cores": sorted(server_cores),
            "client_core": client_core,
            "client": args.client,
            "fresh_connections": args.fresh_connections,
            "load_average": {"before": load_before, "after": load_after},
        }
        args.json.write_text(json.dumps({**meta, "results": results}, indent=2))
    failed = [r["backend"] for r in results if not passed(r)]
    if failed:
        print(f"error: errors or lost requests for {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # the in-process child: backend data_dir limit requests core
    name, directory, page_limit, count, pinned = sys.argv[1:6]
    print(json.dumps(_inprocess_child(name, Path(directory), int(page_limit), int(count), int(pinned))))
