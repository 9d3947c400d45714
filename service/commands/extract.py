"""``python -m service extract PATH|URL|-``: one page, printed as text, html, markdown or JSON."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import zlib
from dataclasses import asdict
from pathlib import Path

import httpx

from service.errors import ExtractionError
from service.parsing.page_check import check_page
from service.pipeline import OUTPUT_FORMATS, extract
from service.settings import DEFAULT_BACKEND

FETCH_TIMEOUT_S = 20.0
GZIP_MAGIC = b"\x1f\x8b"


class NotGzip(OSError):
    """A file named .gz whose bytes are no gzip data."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a file (gzip-compressed or not), an http(s) URL, or - for stdin")
    parser.add_argument("--backend", default=None, help=f"backend name (default: {DEFAULT_BACKEND})")
    parser.add_argument("--format", default="text", choices=[*OUTPUT_FORMATS, "json"], help="what to print")
    parser.add_argument(
        "--charset", default=None, help="the page's encoding, when known; wins over a URL's Content-Type and <meta>"
    )


def _read(source: str) -> tuple[bytes, str | None, str | None]:
    """The page's bytes, the charset its server declared and its URL, if it came from one."""
    if source == "-":
        return _gunzip(sys.stdin.buffer.read()), None, None
    if source.startswith(("http://", "https://")):
        response = httpx.get(source, follow_redirects=True, timeout=FETCH_TIMEOUT_S)
        response.raise_for_status()
        return _gunzip(response.content), response.charset_encoding, str(response.url)
    data = Path(source).read_bytes()
    if source.endswith(".gz") and not data.startswith(GZIP_MAGIC):
        raise NotGzip("the name ends in .gz but the bytes are not gzip data")
    return _gunzip(data), None, None


def _gunzip(data: bytes) -> bytes:
    """Gzip data decompressed, known by its magic number whatever the file is called; other bytes as they are."""
    return gzip.decompress(data) if data.startswith(GZIP_MAGIC) else data


def _report(error: ExtractionError) -> None:
    """``error: <code>: <message>`` on stderr, with the code the HTTP API answers the same error with."""
    from service.api.errors import status_and_code  # noqa: PLC0415 - the web framework (100 ms) on this path only

    print(f"error: {status_and_code(error)[1]}: {error}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    try:
        page, declared, url = _read(args.source)
    except httpx.HTTPStatusError as error:
        print(f"error: {args.source} answered HTTP {error.response.status_code}", file=sys.stderr)
        return 2
    # EOFError, zlib.error: a truncated or corrupt gzip; InvalidURL: a malformed redirect
    except (OSError, EOFError, zlib.error, httpx.HTTPError, httpx.InvalidURL) as error:
        print(f"error: cannot read {args.source}: {error}", file=sys.stderr)
        return 2
    output = "text" if args.format == "json" else args.format
    charset = args.charset or declared
    try:
        check_page(page, charset)
        result = extract(page, backend=args.backend, url=url, output=output, charset=charset)
    except ExtractionError as error:
        _report(error)
        return 2
    if args.format == "json":
        record = {
            "backend": result.backend,
            "backend_version": result.backend_version,
            "title": result.title,
            "text": result.text,
            "metadata": result.metadata.to_json(),
            "url": result.url,
            "timings_ms": result.timings,
            "blocks": [{**asdict(b), "locator": asdict(b.locator)} for b in result.blocks],
        }
        print(json.dumps(record, ensure_ascii=False, indent=2))
    else:
        print(getattr(result, output) or "")
    return 0
