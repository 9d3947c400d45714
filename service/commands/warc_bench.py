"""``bench --make-warc DIR`` and ``bench --warc-readers FILE``: a crawl made of the dev pages, and WARC readers timed.

``--make-warc`` writes the dev corpus (``--copies`` times over, each copy a new URL)
as ``--shards`` WARC.gz files, one gzip member per record as crawlers write
them, with warcio (the dev extra); the corpus command's throughput and memory
figures in the README are measured on them. ``--warc-readers`` times FastWARC
and warcio doing the same work on one file (every response record: HTTP
headers parsed, payload read), best of three rounds, one core.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

ROUNDS = 3


def make_warcs(pages: list[bytes], out_dir: Path, shards: int, copies: int) -> list[Path]:
    """``shards`` WARC.gz files holding ``copies`` × ``pages``, dealt round-robin; their paths."""
    from warcio.statusandheaders import StatusAndHeaders  # noqa: PLC0415 - the dev extra
    from warcio.warcwriter import WARCWriter  # noqa: PLC0415

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"dev-{n:03d}.warc.gz" for n in range(shards)]
    files = [path.open("wb") for path in paths]
    try:
        writers = [WARCWriter(f, gzip=True) for f in files]
        number = 0
        for copy in range(copies):
            for index, page in enumerate(pages):
                http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
                url = f"https://dev.example/{copy}/{index}"
                record = writers[number % shards].create_warc_record(
                    url, "response", payload=io.BytesIO(page), http_headers=http
                )
                writers[number % shards].write_record(record)
                number += 1
    finally:
        for f in files:
            f.close()
    return paths


def _fastwarc(stream: BinaryIO) -> int:
    from fastwarc.warc import ArchiveIterator, WarcRecordType  # noqa: PLC0415

    return sum(len(r.reader.read()) for r in ArchiveIterator(stream, record_types=WarcRecordType.response))


def _warcio(stream: BinaryIO) -> int:
    from warcio.archiveiterator import ArchiveIterator  # noqa: PLC0415 - the dev extra

    return sum(len(r.content_stream().read()) for r in ArchiveIterator(stream) if r.rec_type == "response")


READERS: dict[str, Callable[[BinaryIO], int]] = {"fastwarc": _fastwarc, "warcio": _warcio}


def measure_readers(path: Path) -> list[dict[str, float | str]]:
    """Seconds (best of :data:`ROUNDS`) and MB/s of payload for each reader over ``path``."""
    rows: list[dict[str, float | str]] = []
    for name, read in READERS.items():
        best, payload = float("inf"), 0
        for _ in range(ROUNDS):
            with path.open("rb") as stream:
                started = time.perf_counter()
                payload = read(stream)
                best = min(best, time.perf_counter() - started)
        rows.append({"reader": name, "seconds": best, "payload_mb": payload / 1e6, "mb_per_s": payload / 1e6 / best})
    return rows
