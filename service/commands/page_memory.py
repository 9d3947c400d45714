"""What one big page costs in memory, per backend (``bench --page-memory``).

The figures behind the admission of bytes in flight (``EXTRACT_MAX_IN_FLIGHT_BYTES``) and the model
calls' padded blocks. The page is the worst kind the service admits: as many short paragraphs as fit
in the body limit (9.8 MB, 103,511 paragraphs, within the page budget), so memory grows with blocks,
not bytes. Each backend runs in a fresh process: its peak resident memory after one small page (models
loaded, warm), and after the big one; the difference is the page's cost.
"""

from __future__ import annotations

import json
import subprocess
import sys

PARAGRAPH = '<p class="c{i}">para {i} with quite a few words of text in it, more and more words to fill</p>'
PARAGRAPHS = 103_511  # 9.8 MB: under the default 10 MiB body limit

_MEASURE = """
import json, resource, sys
from service.pipeline import extract
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
extract(b"<p>" + b"a small page of words " * 40 + b"</p>", backend=sys.argv[1])
warm = peak()
page = sys.stdin.buffer.read()
blocks = len(extract(page, backend=sys.argv[1]).blocks)
print(json.dumps({"warm_mib": warm, "peak_mib": peak(), "blocks": blocks}))
"""


def big_page(paragraphs: int = PARAGRAPHS) -> bytes:
    body = "".join(PARAGRAPH.format(i=i % 10_000) for i in range(paragraphs))
    return f"<html><body>{body}</body></html>".encode()


def measure(backends: list[str], page: bytes) -> dict[str, dict[str, int]]:
    """Each backend's warm and peak resident memory (MiB) around extracting ``page``, each in its own process."""
    results = {}
    for backend in backends:
        done = subprocess.run(
            [sys.executable, "-c", _MEASURE, backend], input=page, capture_output=True, check=True, timeout=600
        )
        results[backend] = json.loads(done.stdout)
    return results


def print_report(results: dict[str, dict[str, int]], page_bytes: int) -> None:
    print(f"# one page of {page_bytes:,} bytes; peak resident memory of a fresh process, MiB")
    print("| backend | blocks | warm | peak | the page's cost |")
    print("| --- | --- | --- | --- | --- |")
    for backend, row in results.items():
        cost = row["peak_mib"] - row["warm_mib"]
        print(f"| `{backend}` | {row['blocks']:,} | {row['warm_mib']} | {row['peak_mib']} | {cost} |")
