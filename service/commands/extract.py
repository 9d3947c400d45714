"""``python -m service extract PATH|URL|-``: one page, printed as text, html, markdown or JSON."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import zlib
from dataclasses import asdict, fields
from pathlib import Path

import httpx

from service.backends.favor import FAVORS
from service.errors import ExtractionError
from service.options import Options
from service.output.formats import FORMATS
from service.parsing.page_check import check_page
from service.pipeline import extract
from service.settings import DEFAULT_BACKEND

FETCH_TIMEOUT_S = 20.0
GZIP_MAGIC = b"\x1f\x8b"


class NotGzip(OSError):
    """A file named .gz whose bytes are no gzip data."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a file (gzip-compressed or not), an http(s) URL, or - for stdin")
    parser.add_argument("--backend", default=None, help=f"backend name (default: {DEFAULT_BACKEND})")
    parser.add_argument("--format", default="text", choices=[*FORMATS, "json"], help="what to print")
    parser.add_argument(
        "--charset", default=None, help="the page's encoding, when known; wins over a URL's Content-Type and <meta>"
    )
    add_option_arguments(parser)


def add_option_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per field of :class:`~service.options.Options` (but format), so the CLI offers what the API does."""
    for spec in fields(Options):
        flag = "--" + spec.name.replace("_", "-")
        if spec.name == "format":
            continue
        if spec.name == "favor":
            parser.add_argument(flag, default=spec.default, choices=FAVORS, help="keep surer text, or more of it")
        elif spec.type in ("bool", "bool | None"):
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=spec.default, help=OPTION_HELP[spec.name]
            )
        else:
            parser.add_argument(flag, default=spec.default, metavar="CSS", help=OPTION_HELP[spec.name])


OPTION_HELP = {
    "include_comments": "unset: an article's comment thread (a product's long customer reviews) is left out, "
    "a forum keeps it; "
    "--no-include-comments drops every comment block, --include-comments none",
    "include_links": "links in html and markdown",
    "include_images": "images in html and markdown, lazy-load attributes resolved",
    "include_tables": "--no-include-tables leaves data tables out",
    "include_title": "the page's title (the response's) once, as the first heading",
    "front_matter": "markdown: begin with YAML front matter (the title and the page's metadata, url, backend)",
    "target_selector": "only what the matching elements hold is classified",
    "remove_selector": "the matching elements are removed before classification",
}


def _options(args: argparse.Namespace) -> dict[str, object]:
    """The Options fields the flags gave."""
    return {spec.name: getattr(args, spec.name) for spec in fields(Options) if spec.name != "format"}


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
        result = extract(page, backend=args.backend, url=url, output=output, charset=charset, **_options(args))
    except ExtractionError as error:
        _report(error)
        return 2
    if args.format == "json":
        record = {
            "backend": result.backend,
            "backend_version": result.backend_version,
            "title": result.title,
            "text": result.text,
            "readable": result.readable,
            "metadata": result.metadata.to_json(),
            "url": result.url,
            "timings_ms": result.timings,
            "blocks": [{**asdict(b), "locator": asdict(b.locator)} for b in result.blocks],
        }
        print(json.dumps(record, ensure_ascii=False, indent=2))
    else:
        print(result.content)
    return 0
