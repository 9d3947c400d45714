"""The load test's figures: samples summarised per round, the overhead, the overload verdict, the table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from service.commands.load_client import Sample

OVERHEAD_TARGET_MS = 1.0  # the service may add at most this per request at concurrency 1


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
        "transport_error_kinds": dict(Counter(s.error for s in samples if s.status == 0)),
        "other": sum(v for k, v in statuses.items() if k not in (0, 200, 429) and k < 500),
        "duplicate_or_missing": [s.index for s in samples] != list(range(sent)),
        "rejected_latency_ms": _percentiles([s.latency_ms for s in rejected]),
        "ok_latency_ms": _percentiles([s.latency_ms for s in samples if s.status == 200]),
    }


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
                f"transport errors {over['transport_error_kinds'] or ''}; answered {over['answered']}/{over['sent']}, "
                f"server counted {over['server_counted']}; {over['req_per_s']:.0f} answers/s; 429 latency p50 "
                f"{_ms(over['rejected_latency_ms']['p50'])} ms, p99 {_ms(over['rejected_latency_ms']['p99'])} ms; "
                f"200 latency p50 {_ms(over['ok_latency_ms']['p50'])} ms, p99 {_ms(over['ok_latency_ms']['p99'])} ms "
                f"(closed loop: about {over['concurrency']} / answers per second); CPU: server "
                f"{over['server_cpu_s']:.1f} s, client {over['client_cpu_s']:.1f} s in {over['seconds']:.1f} s"
            )
    return "\n".join(lines)


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
