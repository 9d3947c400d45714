"""``python -m service soak``: thousands of real pages through a real server, following its memory.

Starts ``python -m service serve`` (or drives ``--url``), sends ``POST /extract``
with the corpus's raw pages in turn, a few at a time, and reads the server's
resident memory before the first request and after every ``--sample-every``
requests: from ``/proc`` for the process group it started (the workers too), or
from ``process_resident_memory_bytes`` in ``/metrics`` for a server given by URL
(one worker). Prints the curve and the growth per 1,000 requests after the
warm-up, as a least-squares slope. The warm-up is the first pass over the
corpus: until every page has been seen once, a new largest page can still
raise the heap's high-water mark; after it, every request repeats a page.
With several extraction threads, each with its own malloc arena, the heap may
still settle over a few passes (each thread meets each big page in turn), so
the slope over the second half of the run is printed too: memory that still
grows there is a leak. ``--json`` writes it all. Not part of ``make test``:
it takes minutes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np

from service.arguments import input_folder, output_file, positive_int
from service.backends.registry import default_registry
from service.commands.load_client import drive
from service.commands.load_server import Server, usable_cores
from service.commands.pages import load_pages
from service.paths import default_data_dir

MIB = 1024 * 1024
PER_REQUESTS = 1000  # the growth is given per this many requests
MIN_SAMPLES = 3  # a line through two points is no trend: one window's noise would read as growth


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data",
        type=input_folder,
        default=None,
        help="WCXB-layout corpus (default: EXTRACT_DATA_DIR, else the dev pages)",
    )
    parser.add_argument("--requests", type=positive_int, default=5000, help="requests in all (default 5000)")
    parser.add_argument("--sample-every", type=positive_int, default=500, help="requests between samples (default 500)")
    parser.add_argument("--concurrency", type=positive_int, default=4, help="requests at once (default 4)")
    parser.add_argument("--backend", default="bilstm", help="backend the started server serves (default bilstm)")
    parser.add_argument("--workers", type=positive_int, default=1, help="server worker processes (default 1)")
    parser.add_argument("--url", default=None, help="drive this server (http://127.0.0.1:PORT) instead of starting one")
    parser.add_argument("--json", type=output_file, default=None, help="also write the curve here")


class MetricsMemory:
    """The resident memory a running server reports in ``/metrics`` (single-process mode)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def rss_bytes(self) -> int:
        for line in httpx.get(self.url + "/metrics", timeout=10.0).text.splitlines():
            if line.startswith("process_resident_memory_bytes "):
                return int(float(line.rsplit(" ", 1)[1]))
        raise RuntimeError(f"{self.url}/metrics has no process_resident_memory_bytes (several workers?)")


def growth_per_thousand(samples: Sequence[dict[str, float]], warm_up: int) -> float | None:
    """MB per 1,000 requests: the least-squares slope through the samples taken after ``warm_up`` requests."""
    settled = [s for s in samples if s["requests"] >= warm_up]
    if len(settled) < MIN_SAMPLES:
        return None
    slope = np.polyfit([s["requests"] for s in settled], [s["rss_mb"] for s in settled], 1)[0]
    return float(slope * PER_REQUESTS)


def soak(
    url: str,
    rss_bytes: Callable[[], int],
    pages: Sequence[bytes],
    config: argparse.Namespace,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Send ``config.requests`` pages in windows of ``config.sample_every``; memory before and after each window."""
    samples = [{"requests": 0, "rss_mb": rss_bytes() / MIB}]
    statuses: Counter[int] = Counter()
    done = 0
    while done < config.requests:
        count = min(config.sample_every, config.requests - done)
        offset = done % len(pages)
        window, _ = drive(url, [*pages[offset:], *pages[:offset]], config.concurrency, count, float("inf"))
        statuses.update(s.status for s in window)
        done += count
        samples.append({"requests": done, "rss_mb": rss_bytes() / MIB})
        log(f"soak: {done} requests, RSS {samples[-1]['rss_mb']:.0f} MB")
    return {
        "requests": done,
        "pages": len(pages),
        "concurrency": config.concurrency,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "samples": samples,
        "warm_up_requests": len(pages),
        "growth_mb_per_1000": growth_per_thousand(samples, len(pages)),
        "growth_second_half_mb_per_1000": growth_per_thousand(samples, done // 2),
    }


def format_curve(result: dict[str, Any]) -> str:
    lines = [f"{'requests':>9}{'RSS MB':>9}", "-" * 18]
    lines += [f"{s['requests']:>9}{s['rss_mb']:>9.1f}" for s in result["samples"]]
    first, last = result["samples"][0]["rss_mb"], result["samples"][-1]["rss_mb"]
    lines.append(f"statuses {result['statuses']}; RSS {first:.1f} -> {last:.1f} MB")
    lines.append(
        f"growth per {PER_REQUESTS:,} requests: {_mb(result['growth_mb_per_1000'])} after the warm-up (one pass "
        f"over the {result['pages']:,} pages), {_mb(result['growth_second_half_mb_per_1000'])} over the second half"
    )
    return "\n".join(lines)


def _mb(value: float | None) -> str:
    return f"{value:+.2f} MB" if value is not None else "- (too few samples)"


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    data_dir = args.data or default_data_dir()
    if not (data_dir / "html").is_dir():
        print(f"error: no corpus at {data_dir} (give --data or set EXTRACT_DATA_DIR)", file=sys.stderr)
        return 2
    pages = load_pages(data_dir)
    if args.url:
        try:
            result = soak(args.url.rstrip("/"), MetricsMemory(args.url.rstrip("/")).rss_bytes, pages, args, _progress)
        except httpx.HTTPError as error:  # no server there, a URL that is none, a scheme httpx does not speak
            print(f"error: cannot soak {args.url}: {error or type(error).__name__}", file=sys.stderr)
            return 2
        served = args.url
    else:
        default_registry().check([args.backend])  # before a server is started to fail on it
        with Server(args.backend, args.workers, usable_cores(set())) as server:
            _progress(f"soak: {args.backend} server on port {server.port}, {args.workers} worker(s)")
            result = soak(server.url, server.rss_bytes, pages, args, _progress)
        served = f"a {args.backend} server, {args.workers} worker(s)"
    print(
        f"# POST /extract x {result['requests']}, {len(pages)} raw pages from {data_dir} in turn, "
        f"{args.concurrency} at once, against {served}"
    )
    print(format_curve(result))
    if args.json:
        args.json.write_text(json.dumps({"data": str(data_dir), "served": served, **result}, indent=2))
    failed = sum(v for k, v in result["statuses"].items() if k == "0" or k.startswith("5"))
    if failed:
        print(f"error: {failed} requests got a 5xx or no answer", file=sys.stderr)
        return 1
    return 0
