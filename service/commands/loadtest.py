"""``python -m service bench --http``: a load test of the real server on 127.0.0.1.

Starts ``python -m service serve`` in a child process (its own session,
pinned to the server core(s), the configured workers), waits for
``/readyz``, drives ``POST /extract`` with raw pages in a fixed order from
an asyncio client pinned to another core, and always stops the server,
on errors and Ctrl-C too. Reports, per concurrency: throughput, latency
p50/p99 and errors by status; at concurrency 1 the overhead over the
in-process call (same pages, same backend, same core); and an overload
round against a server with a small admission limit: every request must
get exactly one answer, a 200 or a fast 429 with ``Retry-After``, never
a 5xx or a transport error.

The default client speaks HTTP/1.1 over raw asyncio streams (keep-alive,
one connection per concurrent request): it costs a fraction of what
``httpx.AsyncClient`` does per request, so at high concurrency the
client's core is not the limit. ``--client httpx`` measures with httpx.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
import numpy as np

from service.commands.bench import load_pages
from service.runtime.heap import settle_heap

HOST = "127.0.0.1"
WARMUP_REQUESTS = 20  # per server, before any measured round: first-request costs stay out of the figures
READY_TIMEOUT_S = 180.0  # a model backend loads at start; the machine may be busy
STOP_TIMEOUT_S = 30.0  # SIGTERM, then SIGKILL after this
REQUEST_TIMEOUT_S = 120.0
OVERHEAD_TARGET_MS = 1.0  # the service may add at most this per request at concurrency 1
LOG_TAIL_BYTES = 4000


# The server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def process_group_cpu_s(pgid: int) -> float:
    """User + system CPU seconds of the live processes in group ``pgid``, from ``/proc/*/stat``."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[2]) == pgid:  # after the name: state, ppid, pgrp, ..., utime (11), stime (12)
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def usable_cores(wanted: set[int]) -> set[int]:
    """``wanted`` where this machine has those cores, else every core it lets us use (a 1-core CI runner)."""
    available = os.sched_getaffinity(0) | set(range(os.cpu_count() or 1))
    return (wanted & available) or available


class Server:
    """``python -m service serve`` in its own session, pinned to ``cores``; stopped by its process group."""

    def __init__(self, backend: str, workers: int, cores: set[int], env: dict[str, str] | None = None) -> None:
        self.backend = backend
        self.workers = workers
        self.cores = cores
        self.port = free_port()
        self.env = {
            **os.environ,
            "EXTRACT_ENABLED_BACKENDS": json.dumps([backend]),
            "EXTRACT_DEFAULT_BACKEND": backend,
            **(env or {}),
        }
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-m", "service", "serve", "--host", HOST, "--port", str(self.port)]
        command += ["--workers", str(self.workers)]
        own = os.sched_getaffinity(0)
        os.sched_setaffinity(0, usable_cores(self.cores))  # inherited at fork, by the server and by its workers
        try:
            self.process = subprocess.Popen(
                command,
                env=self.env,
                stdout=self.log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: the workers are stopped with it
            )
        finally:
            os.sched_setaffinity(0, own)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(self.url + "/readyz", timeout=2.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server was not ready in {READY_TIMEOUT_S:.0f} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def stop(self) -> None:
        process = self.process
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.log.close()

    def cpu_s(self) -> float:
        """CPU seconds the server's processes (its group: the workers too) have used so far."""
        if self.process is None:
            return 0.0
        return process_group_cpu_s(self.process.pid)

    def log_tail(self) -> str:
        self.log.flush()
        self.log.seek(max(0, self.log.seek(0, os.SEEK_END) - LOG_TAIL_BYTES))
        return self.log.read().decode("utf-8", "replace")

    def __enter__(self) -> Server:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


# The clients: one request, timed, to a Sample


@dataclass(slots=True)
class Sample:
    """One request's answer as the client saw it."""

    index: int
    status: int  # 0: no answer (transport error)
    latency_ms: float
    app_ms: float | None = None  # Server-Timing: the app's share
    pipeline_ms: float | None = None  # timings_ms.total in the body: parse + classify + render
    retry_after: str | None = None
    error: str | None = None


def _server_timing(value: str | None) -> float | None:
    if not value:
        return None
    for part in value.split(";"):
        if part.startswith("dur="):
            return float(part[4:])
    return None


def _pipeline_total(body: bytes) -> float | None:
    """``timings_ms.total`` from the answer without parsing it all: the key is unescaped only there."""
    at = body.rfind(b'"total":')
    if at < 0:
        return None
    end = at + 8
    while end < len(body) and body[end] not in b",}":
        end += 1
    return float(body[at + 8 : end])


class RawConnection:
    """HTTP/1.1 over one keep-alive asyncio stream: no client library in the measured path."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        reader, writer = self.reader, self.writer
        if reader is None:
            raise ConnectionError("no connection")
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nContent-Type: text/html\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        writer.write(head.encode())
        writer.write(body)
        await writer.drain()
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            content = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            content = await self._chunked(reader)
        else:
            content = await reader.read()
            await self.close()
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, content

    @staticmethod
    async def _chunked(reader: asyncio.StreamReader) -> bytes:
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            parts.append(await reader.readexactly(size + 2))
            if size == 0:
                return b"".join(part[:-2] for part in parts)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
        self.reader = self.writer = None


def _sample(index: int, started: float, status: int, headers: Any, content: bytes) -> Sample:
    latency_ms = (time.perf_counter() - started) * 1e3
    return Sample(
        index,
        status,
        latency_ms,
        app_ms=_server_timing(headers.get("server-timing")),
        pipeline_ms=_pipeline_total(content) if status == 200 else None,
        retry_after=headers.get("retry-after"),
    )


async def _drive(
    port: int, pages: Sequence[bytes], *, concurrency: int, requests: int, duration_s: float, client: str
) -> tuple[list[Sample], float]:
    """``concurrency`` requests at a time, page ``i % len(pages)`` for request ``i``; the samples and the seconds."""
    samples: list[Sample] = []
    next_index = 0
    deadline = time.perf_counter() + duration_s
    path = "/extract"
    url = f"http://{HOST}:{port}{path}"
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    pool = httpx.AsyncClient(limits=limits, timeout=REQUEST_TIMEOUT_S) if client == "httpx" else None

    async def one_worker() -> None:
        nonlocal next_index
        connection = RawConnection(port)
        try:
            while next_index < requests and time.perf_counter() < deadline:
                index = next_index
                next_index += 1
                body = pages[index % len(pages)]
                started = time.perf_counter()
                try:
                    if pool is not None:
                        response = await pool.post(url, content=body, headers={"Content-Type": "text/html"})
                        samples.append(
                            _sample(index, started, response.status_code, response.headers, response.content)
                        )
                    else:
                        status, headers, content = await asyncio.wait_for(
                            connection.post(path, body), REQUEST_TIMEOUT_S
                        )
                        samples.append(_sample(index, started, status, headers, content))
                except (OSError, asyncio.IncompleteReadError, TimeoutError, httpx.TransportError) as error:
                    latency_ms = (time.perf_counter() - started) * 1e3
                    samples.append(Sample(index, 0, latency_ms, error=type(error).__name__))
                    await connection.close()
        finally:
            await connection.close()

    started = time.perf_counter()
    try:
        await asyncio.gather(*(one_worker() for _ in range(concurrency)))
    finally:
        if pool is not None:
            await pool.aclose()
    return sorted(samples, key=lambda s: s.index), time.perf_counter() - started


def measured_round(server: Server, pages: Sequence[bytes], concurrency: int, config: LoadConfig) -> dict[str, Any]:
    """One round with the CPU time the server and the client spent on it, per request."""
    requests = config.requests or len(pages)
    server_before, client_before = server.cpu_s(), time.process_time()
    samples, seconds = drive(server.url, pages, concurrency, requests, config.duration_s, client=config.client)
    server_cpu, client_cpu = server.cpu_s() - server_before, time.process_time() - client_before
    row = summarise(samples, seconds, concurrency)
    row["server_cpu_ms_per_request"] = server_cpu * 1e3 / len(samples) if samples else None
    row["client_cpu_ms_per_request"] = client_cpu * 1e3 / len(samples) if samples else None
    row["samples"] = samples
    return row


def drive(
    url: str, pages: Sequence[bytes], concurrency: int, requests: int, duration_s: float, *, client: str = "raw"
) -> tuple[list[Sample], float]:
    """Run one round against ``url`` (``http://127.0.0.1:PORT``): bounded by ``requests`` and ``duration_s``."""
    port = int(url.rsplit(":", 1)[1])
    return asyncio.run(
        _drive(port, pages, concurrency=concurrency, requests=requests, duration_s=duration_s, client=client)
    )


# Figures


def _percentiles(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p99": None, "mean": None}
    array = np.asarray(values)
    return {
        "p50": float(np.percentile(array, 50)),
        "p99": float(np.percentile(array, 99)),
        "mean": float(array.mean()),
    }


def summarise(samples: Sequence[Sample], seconds: float, concurrency: int) -> dict[str, Any]:
    """Throughput, latency of the 200s, and every answer counted by status (0: transport error)."""
    statuses = Counter(s.status for s in samples)
    ok = [s for s in samples if s.status == 200]
    return {
        "concurrency": concurrency,
        "requests": len(samples),
        "seconds": seconds,
        "req_per_s": len(samples) / seconds if seconds else 0.0,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "error_rate": 1 - len(ok) / len(samples) if samples else 0.0,
        "server_errors": sum(v for k, v in statuses.items() if k >= 500),
        "transport_errors": statuses.get(0, 0),
        "latency_ms": _percentiles([s.latency_ms for s in ok]),
        "app_ms": _percentiles([s.app_ms for s in ok if s.app_ms is not None]),
        "pipeline_ms": _percentiles([s.pipeline_ms for s in ok if s.pipeline_ms is not None]),
    }


def overhead(row: dict[str, Any], inprocess: dict[str, list[float]]) -> dict[str, Any]:
    """What HTTP adds at concurrency 1 over the in-process call on the same pages.

    ``http_minus_inprocess`` is the target's measure (p50 against p50, and
    means); the per-request splits need no second run: the app's share
    (Server-Timing) minus the pipeline's own time, and the client's latency
    minus the app's share (uvicorn, loopback, the client). On a machine
    shared with other jobs, the wall-clock figures carry their waits for
    the core; the CPU figures do not: the server's CPU time per request
    (every thread, uvicorn included) against the in-process call's.
    """
    samples: list[Sample] = row["samples"]
    inprocess_ms = inprocess["wall_ms"]
    inprocess_cpu_ms = float(np.mean(inprocess["cpu_ms"]))
    ok = [s for s in samples if s.status == 200]
    latency = np.asarray([s.latency_ms for s in ok])
    local = np.asarray(inprocess_ms)
    paired = [s.latency_ms - inprocess_ms[s.index] for s in ok if s.index < len(inprocess_ms)]
    app_minus_pipeline = [s.app_ms - s.pipeline_ms for s in ok if s.app_ms is not None and s.pipeline_ms is not None]
    outside_app = [s.latency_ms - s.app_ms for s in ok if s.app_ms is not None]
    return {
        "inprocess_ms": _percentiles(inprocess_ms),
        "http_ms": _percentiles(latency.tolist()),
        "http_minus_inprocess_p50_ms": float(np.percentile(latency, 50) - np.percentile(local, 50)),
        "http_minus_inprocess_mean_ms": float(latency.mean() - local.mean()),
        "paired_median_ms": float(np.median(paired)),
        "app_minus_pipeline_ms": _percentiles(app_minus_pipeline),
        "outside_app_ms": _percentiles(outside_app),
        "inprocess_cpu_ms_mean": inprocess_cpu_ms,
        "server_cpu_ms_mean": row["server_cpu_ms_per_request"],
        "cpu_overhead_ms": row["server_cpu_ms_per_request"] - inprocess_cpu_ms,
        "target_ms": OVERHEAD_TARGET_MS,
    }


def overload_summary(samples: Sequence[Sample], seconds: float) -> dict[str, Any]:
    """The overload round's verdict: every request answered once, 200 or 429 with Retry-After, nothing else.

    ``samples`` hold one entry per request sent (an answer or a transport error), sorted by index.
    """
    sent = len(samples)
    statuses = Counter(s.status for s in samples)
    rejected = [s for s in samples if s.status == 429]
    return {
        "sent": sent,
        "answered": sum(v for k, v in statuses.items() if k),
        "seconds": seconds,
        "req_per_s": sent / seconds if seconds else 0.0,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "ok": statuses.get(200, 0),
        "rejected": len(rejected),
        "rejected_without_retry_after": sum(1 for s in rejected if not s.retry_after),
        "server_errors": sum(v for k, v in statuses.items() if k >= 500),
        "transport_errors": statuses.get(0, 0),
        "other": sum(v for k, v in statuses.items() if k not in (0, 200, 429) and k < 500),
        "duplicate_or_missing": [s.index for s in samples] != list(range(sent)),
        "rejected_latency_ms": _percentiles([s.latency_ms for s in rejected]),
        "ok_latency_ms": _percentiles([s.latency_ms for s in samples if s.status == 200]),
    }


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
        drive(server.url, pages, 1, WARMUP_REQUESTS, config.duration_s, client=config.client)
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
            drive(server.url, pages, 1, min(WARMUP_REQUESTS, limit), config.duration_s, client=config.client)
            before = counted_by_server(server.url)
            samples, seconds = drive(
                server.url,
                pages,
                config.overload_concurrency,
                config.overload_requests,
                config.duration_s,
                client=config.client,
            )
            summary = overload_summary(samples, seconds)
            summary["limit"] = limit
            summary["concurrency"] = config.overload_concurrency
            summary["server_counted"] = counted_by_server(server.url) - before
            result["overload"] = summary
    return result


def _ms(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "-"


def format_report(results: Sequence[dict[str, Any]]) -> str:
    """The rounds as a table, then the overhead and the overload verdict of each backend."""
    header = (
        f"{'backend':<12}{'workers':>8}{'conc':>6}{'requests':>10}{'req/s':>9}{'ms p50':>9}{'ms p99':>9}"
        f"{'app p50':>9}{'srv CPU':>9}{'cli CPU':>9}{'errors':>8}  statuses"
    )
    lines = [header, "-" * (len(header) + 12)]
    lines.append("(ms: wall-clock latency of the 200s; app: Server-Timing; CPU: ms per request, server and client)")
    for result in results:
        for row in result["rounds"]:
            lines.append(
                f"{result['backend']:<12}{result['workers']:>8}{row['concurrency']:>6}{row['requests']:>10}"
                f"{row['req_per_s']:>9.1f}{_ms(row['latency_ms']['p50']):>9}{_ms(row['latency_ms']['p99']):>9}"
                f"{_ms(row['app_ms']['p50']):>9}{_ms(row['server_cpu_ms_per_request']):>9}"
                f"{_ms(row['client_cpu_ms_per_request']):>9}{row['error_rate']:>8.1%}  {row['statuses']}"
            )
    for result in results:
        name = result["backend"]
        cost = result.get("overhead")
        if cost:
            inside, outside = cost["app_minus_pipeline_ms"], cost["outside_app_ms"]
            lines.append(
                f"\n{name}, concurrency 1: in-process p50 {_ms(cost['inprocess_ms']['p50'])} ms, "
                f"HTTP p50 {_ms(cost['http_ms']['p50'])} ms -> "
                f"overhead p50 {cost['http_minus_inprocess_p50_ms']:.2f} ms, "
                f"mean {cost['http_minus_inprocess_mean_ms']:.2f} ms, paired median {cost['paired_median_ms']:.2f} ms "
                f"(target <= {cost['target_ms']:g} ms)\n"
                f"  inside the app beyond the pipeline (Server-Timing - timings_ms.total): "
                f"p50 {_ms(inside['p50'])} ms, mean {_ms(inside['mean'])} ms; "
                f"outside the app (uvicorn, loopback, client): p50 {_ms(outside['p50'])} ms, "
                f"mean {_ms(outside['mean'])} ms\n"
                f"  CPU per request: server {_ms(cost['server_cpu_ms_mean'])} ms (every thread), in-process "
                f"{_ms(cost['inprocess_cpu_ms_mean'])} ms -> CPU overhead {cost['cpu_overhead_ms']:.2f} ms"
            )
        lines.append(
            f"{name}: the server counted {result['server_counted']} POST /extract, "
            f"the client sent {result['client_sent']}"
        )
        over = result.get("overload")
        if over:
            lines.append(
                f"{name} overload: {over['sent']} requests, {over['concurrency']} at once, limit {over['limit']}: "
                f"{over['ok']} x 200, {over['rejected']} x 429 ({over['rejected_without_retry_after']} without "
                f"Retry-After), {over['server_errors']} x 5xx, {over['other']} other, {over['transport_errors']} "
                f"transport errors; answered {over['answered']}/{over['sent']}, server counted "
                f"{over['server_counted']}; {over['req_per_s']:.0f} answers/s; 429 latency p50 "
                f"{_ms(over['rejected_latency_ms']['p50'])} ms, p99 {_ms(over['rejected_latency_ms']['p99'])} ms "
                f"(closed loop: about {over['concurrency']} / answers per second)"
            )
    return "\n".join(lines)


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
    print(
        f"# POST /extract, {len(pages)} raw pages from {data_dir} in a fixed order; server: {workers} worker(s) "
        f"pinned to core(s) {sorted(server_cores)}; client ({args.client}) pinned to core {client_core}; {cpu}; "
        f"{os.cpu_count()} cores; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
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
            "load_average": {"before": load_before, "after": load_after},
        }
        args.json.write_text(json.dumps({**meta, "results": results}, indent=2))
    failed = [r["backend"] for r in results if not passed(r)]
    if failed:
        print(f"error: errors or lost requests for {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def passed(result: dict[str, Any]) -> bool:
    """No 5xx, no transport error, every request counted by the server, and a clean overload round."""
    rounds_clean = all(r["server_errors"] == 0 and r["transport_errors"] == 0 for r in result["rounds"])
    counted = result["server_counted"] == result["client_sent"]
    over = result.get("overload")
    overload_clean = over is None or (
        over["server_errors"] == 0
        and over["transport_errors"] == 0
        and over["other"] == 0
        and over["rejected_without_retry_after"] == 0
        and not over["duplicate_or_missing"]
        and over["server_counted"] == over["sent"]
    )
    return rounds_clean and counted and overload_clean


if __name__ == "__main__":  # the in-process child: backend data_dir limit requests core
    name, directory, page_limit, count, pinned = sys.argv[1:6]
    print(json.dumps(_inprocess_child(name, Path(directory), int(page_limit), int(count), int(pinned))))
