"""Small made-up crawls for the corpus tests, written with warcio (an independent WARC writer).

:func:`crawl` writes a WARC.gz holding every kind of record a real crawl has and
every way one breaks, and returns what each response record must become.
"""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

warcio = pytest.importorskip("warcio", reason="warcio writes the test WARCs: pip install -e '.[dev]'")
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402


def article(n: int, words: int = 40) -> bytes:
    body = " ".join(f"word{n}x{i}" for i in range(words))
    return (
        f"<html><head><title>Page {n}</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<article><h1>Headline {n}</h1><p>{body}.</p><p>Second paragraph of page {n}, long enough to keep.</p>"
        f"</article><footer>Contact</footer></body></html>"
    ).encode()


@dataclass(frozen=True)
class Expected:
    url: str | None
    error: str  # "" for a page that is extracted


def _record(writer: WARCWriter, url: str, body: bytes, content_type: str | None, status: str = "200 OK") -> bytes:
    headers = [("Content-Type", content_type)] if content_type else []
    http = StatusAndHeaders(status, headers, protocol="HTTP/1.1")
    record = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http)
    buffer = io.BytesIO()
    WARCWriter(buffer, gzip=True).write_record(record)
    return buffer.getvalue()


def _other(kind: str, url: str) -> bytes:
    """A warcinfo or request record, which gets no row."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    if kind == "warcinfo":
        writer.write_record(writer.create_warcinfo_record("crawl.warc.gz", {"software": "tests"}))
    else:
        http = StatusAndHeaders("GET / HTTP/1.1", [("Host", "example.org")], is_http_request=True)
        writer.write_record(writer.create_warc_record(url, "request", payload=io.BytesIO(b""), http_headers=http))
    return buffer.getvalue()


def crawl(path: Path, pages: int = 6, big_page_bytes: int = 0) -> list[Expected]:
    """A WARC.gz of ``pages`` articles and every awkward record; what each response record must become, in order.

    Holds: a warcinfo and a request record (no row), an image and a PDF (``not_html`` by Content-Type),
    binary bytes sent as text/html (``not_html`` by the page check), an empty body (``empty_body``), a
    gzip Content-Encoding that does not decode (``decode_error``), a gzip member with its bytes flipped
    (``decode_error``, reading resumes after it), a page of ``big_page_bytes`` (``too_large`` when over the
    limit) and a last record cut short (``truncated_record``).
    """
    writer = WARCWriter(io.BytesIO(), gzip=True)
    members: list[bytes] = [_other("warcinfo", "")]
    expected: list[Expected] = []

    def add(url: str, body: bytes, content_type: str | None, error: str = "") -> None:
        members.append(_record(writer, url, body, content_type))
        expected.append(Expected(url, error))

    for n in range(pages):
        members.append(_other("request", f"http://example.org/{n}"))
        add(f"http://example.org/{n}", article(n), "text/html; charset=utf-8")
        if n == 1:
            add("http://example.org/logo.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, "image/png", "not_html")
            add("http://example.org/paper.pdf", b"%PDF-1.4 " + bytes(range(256)) * 8, "application/pdf", "not_html")
            add("http://example.org/noise", bytes(range(256)) * 8, "text/html", "not_html")
            add("http://example.org/empty", b"", "text/html", "empty_body")
        if n == 2:
            broken = _record(writer, "http://example.org/broken", article(99), "text/html")
            flipped = bytearray(broken)
            for i in range(len(flipped) // 3, len(flipped) // 3 + 24):
                flipped[i] ^= 0xA5
            members.append(bytes(flipped))
            expected.append(Expected(None, "decode_error"))
            # says Content-Encoding: gzip, but the body is not gzip
            members.append(encoded_response("http://example.org/bad-encoding", b"<html>not gzip</html>"))
            expected.append(Expected("http://example.org/bad-encoding", "decode_error"))
        if n == 3 and big_page_bytes:
            filler = b"<p>" + b"big page text " * 64 + b"</p>\n"
            body = b"<html><body>" + filler * (big_page_bytes // len(filler)) + b"</body></html>"
            add("http://example.org/big", body, "text/html", "too_large")
    last = _record(writer, "http://example.org/cut", article(100), "text/html")
    members.append(last[: len(last) // 2])
    expected.append(Expected("http://example.org/cut", "truncated_record"))
    path.write_bytes(b"".join(members))
    return expected


def encoded_response(url: str, body: bytes) -> bytes:
    """A WARC.gz record of an HTML response sent with Content-Encoding: gzip, ``body`` as it went over the wire."""
    http = StatusAndHeaders(
        "200 OK", [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], protocol="HTTP/1.1"
    )
    writer = WARCWriter(io.BytesIO(), gzip=True)
    record = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http)
    buffer = io.BytesIO()
    WARCWriter(buffer, gzip=True).write_record(record)
    return buffer.getvalue()


def jsonl(path: Path, pages: range, compress: bool = False) -> list[Expected]:
    """JSON Lines of articles, with a line that is no JSON and one without html; what each line must become."""
    lines = [json.dumps({"url": f"http://example.net/{n}", "html": article(n).decode()}) for n in pages]
    lines.insert(1, "{not json")
    lines.insert(3, json.dumps({"url": "http://example.net/nohtml"}))
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    expected = [Expected(f"http://example.net/{n}", "") for n in pages]
    expected.insert(1, Expected(None, "decode_error"))
    expected.insert(3, Expected("http://example.net/nohtml", "invalid_record"))
    return expected


def parquet(path: Path, pages: range) -> list[Expected]:
    """A Parquet file of articles (html as bytes) with a row whose html is null."""
    import pyarrow as pa  # noqa: PLC0415 - the corpus extra
    import pyarrow.parquet as pq  # noqa: PLC0415

    urls = [f"http://example.com/{n}" for n in pages] + ["http://example.com/null"]
    htmls = [article(n) for n in pages] + [None]
    pq.write_table(pa.table({"url": urls, "html": pa.array(htmls, pa.binary())}), path, row_group_size=3)
    return [Expected(url, "") for url in urls[:-1]] + [Expected(urls[-1], "invalid_record")]


def run_corpus(*args: str | Path, timeout_s: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m service corpus ARGS`` in a child process, as a user runs it."""
    command = [sys.executable, "-m", "service", "corpus", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)


def output_rows(out_dir: Path) -> list[dict[str, object]]:
    """Every row of every shard in ``out_dir``, ordered by input and position."""
    import pyarrow.parquet as pq  # noqa: PLC0415 - the corpus extra

    rows = [row for shard in sorted(out_dir.glob("*.parquet")) for row in pq.read_table(shard).to_pylist()]
    return sorted(rows, key=lambda row: (str(row["source"]), int(row["position"])))  # type: ignore[call-overload]
