"""``python -m service extract PATH|URL|-``: one page, printed as text, html, markdown or JSON."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from dataclasses import asdict
from pathlib import Path

import httpx

from service.errors import ExtractionError
from service.pipeline import OUTPUT_FORMATS, extract
from service.settings import DEFAULT_BACKEND

FETCH_TIMEOUT_S = 20.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a file (.html or .html.gz), an http(s) URL, or - for stdin")
    parser.add_argument("--backend", default=None, help=f"backend name (default: {DEFAULT_BACKEND})")
    parser.add_argument("--format", default="text", choices=[*OUTPUT_FORMATS, "json"], help="what to print")
    parser.add_argument("--charset", default=None, help="the page's encoding, when known")


def _read(source: str) -> tuple[bytes, str | None]:
    """The page's bytes and its URL, if it came from one."""
    if source == "-":
        return sys.stdin.buffer.read(), None
    if source.startswith(("http://", "https://")):
        response = httpx.get(source, follow_redirects=True, timeout=FETCH_TIMEOUT_S)
        response.raise_for_status()
        return response.content, str(response.url)
    data = Path(source).read_bytes()
    return (gzip.decompress(data) if source.endswith(".gz") else data), None


def run(args: argparse.Namespace) -> int:
    try:
        page, url = _read(args.source)
    except httpx.HTTPStatusError as error:
        print(f"error: {args.source} answered HTTP {error.response.status_code}", file=sys.stderr)
        return 2
    except (OSError, httpx.HTTPError, httpx.InvalidURL) as error:  # InvalidURL: a malformed redirect
        print(f"error: cannot read {args.source}: {error}", file=sys.stderr)
        return 2
    output = "text" if args.format == "json" else args.format
    try:
        result = extract(page, backend=args.backend, url=url, output=output, charset=args.charset)
    except ExtractionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.format == "json":
        record = {
            "backend": result.backend,
            "backend_version": result.backend_version,
            "title": result.title,
            "text": result.text,
            "url": result.url,
            "timings_ms": result.timings,
            "blocks": [{**asdict(b), "locator": asdict(b.locator)} for b in result.blocks],
        }
        print(json.dumps(record, ensure_ascii=False, indent=2))
    else:
        print(getattr(result, output) or "")
    return 0
