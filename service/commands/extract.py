"""``python -m service extract PATH|URL|-``: one page, printed as text, html, markdown or JSON."""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import sys
import time
import zlib
from dataclasses import asdict, fields
from pathlib import Path
from typing import BinaryIO

import httpx

from service.backends.favor import FAVORS
from service.errors import ExtractionError
from service.fetching.decoding import ACCEPT_ENCODING, GZIP_MAGIC, BodyDecoder, ContentDecodingError
from service.fetching.errors import UpstreamNotHtml, transport_reason
from service.fetching.fetcher import page_charset
from service.options import Options
from service.output.formats import FORMATS
from service.pipeline import extract
from service.settings import DEFAULT_BACKEND, Settings, get_settings


class NotGzip(OSError):
    """A file named .gz whose bytes are no gzip data."""


class TooLarge(OSError):
    """A page over the limits: ``EXTRACT_MAX_BODY_BYTES`` decompressed, ``EXTRACT_FETCH_MAX_BYTES`` fetched."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a file (gzip-compressed or not), an http(s) URL, or - for stdin")
    parser.add_argument(
        "--backend", default=None, help=f"backend name (default: EXTRACT_DEFAULT_BACKEND, else {DEFAULT_BACKEND})"
    )
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


def _read(source: str, limits: Settings) -> tuple[bytes, str | None, str | None]:
    """The page's bytes, the charset its server declared and its URL, if it came from one.

    A file or stdin is read to at most ``EXTRACT_MAX_BODY_BYTES``, as the API reads a body: ``/dev/zero`` and
    ``yes |`` end there, not in the memory's end.
    """
    if source.lower().startswith(("http://", "https://")):
        return _fetch(source, limits)
    if source == "-":
        if sys.stdin is None:
            raise OSError("stdin is closed")
        data = _bounded(sys.stdin.buffer, limits.max_body_bytes)
    else:
        with Path(source).open("rb") as stream:
            data = _bounded(stream, limits.max_body_bytes)
        if source.endswith(".gz") and not data.startswith(GZIP_MAGIC):
            raise NotGzip("the name ends in .gz but the bytes are not gzip data")
    return _gunzip(data, limits.max_body_bytes), None, None


def _bounded(stream: BinaryIO, limit: int) -> bytes:
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(f"the input is over {limit} bytes (EXTRACT_MAX_BODY_BYTES)")
    return data


def _fetch(url: str, limits: Settings) -> tuple[bytes, str | None, str]:
    """The page at ``url`` (any host: the command line is its user's own), within the fetcher's time and size limits.

    Connecting and each read wait as long as the fetcher's settings say; a body that never ends, or
    trickles, stops at ``EXTRACT_FETCH_TOTAL_TIMEOUT_S`` (checked as each part arrives); one that decodes
    (gzip) past ``EXTRACT_FETCH_MAX_BYTES`` stops there. A response that is no page by its Content-Type
    is :class:`UpstreamNotHtml`, as for the API.
    """
    deadline = time.monotonic() + limits.fetch_total_timeout_s
    headers = {"Accept-Encoding": ACCEPT_ENCODING}
    timeout = httpx.Timeout(limits.fetch_read_timeout_s, connect=limits.fetch_connect_timeout_s)
    with httpx.stream("GET", url, headers=headers, follow_redirects=True, timeout=timeout) as response:
        response.raise_for_status()
        page_charset(response.headers.get("content-type", ""), limits.fetch_content_types, url)
        decoder = BodyDecoder(response.headers.get("content-encoding", ""))
        chunks, size = [], 0
        for raw in response.iter_raw():
            chunk = decoder.decode(raw, limits.fetch_max_bytes - size)
            size += len(chunk)
            if size > limits.fetch_max_bytes:
                raise TooLarge(f"the page is over {limits.fetch_max_bytes} bytes (EXTRACT_FETCH_MAX_BYTES)")
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"no whole page in {limits.fetch_total_timeout_s:g} s (EXTRACT_FETCH_TOTAL_TIMEOUT_S)"
                )
            chunks.append(chunk)
        decoder.end()
        return _gunzip(b"".join(chunks), limits.fetch_max_bytes), response.charset_encoding, str(response.url)


def _gunzip(data: bytes, limit: int) -> bytes:
    """Gzip data decompressed (to at most ``limit`` bytes), known by its magic number; other bytes as they are."""
    if not data.startswith(GZIP_MAGIC):
        return data
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as unzipped:
        page = unzipped.read(limit + 1)  # every member, as gzip.decompress reads them; a bomb stops here
    if len(page) > limit:
        raise TooLarge(f"decompressed, the page is over {limit} bytes (EXTRACT_MAX_BODY_BYTES)")
    return page


def _report(error: ExtractionError) -> None:
    """``error: <code>: <message>`` on stderr, with the code the HTTP API answers the same error with."""
    from service.api.errors import status_and_code  # noqa: PLC0415 - the web framework (100 ms) on this path only

    print(f"error: {status_and_code(error)[1]}: {error}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    try:
        page, declared, url = _read(args.source, get_settings())
    except UpstreamNotHtml as error:
        _report(error)
        return 2
    except httpx.HTTPStatusError as error:
        print(f"error: {args.source} answered HTTP {error.response.status_code}", file=sys.stderr)
        return 2
    # EOFError, zlib.error, ContentDecodingError: a truncated or corrupt gzip (a file's, a fetched body's);
    # InvalidURL: a malformed redirect; UnicodeError: a host name IDNA cannot encode (a label over 63
    # characters, an empty one)
    except (
        OSError,
        EOFError,
        zlib.error,
        httpx.HTTPError,
        httpx.InvalidURL,
        UnicodeError,
        ContentDecodingError,
    ) as error:
        reason = transport_reason(error) if isinstance(error, httpx.HTTPError) else error
        print(f"error: cannot read {args.source}: {reason}", file=sys.stderr)
        return 2
    output = "text" if args.format == "json" else args.format
    charset = args.charset or declared
    try:
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
        printed = json.dumps(record, ensure_ascii=False, indent=2)
    else:
        printed = result.content
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        print("error: cannot write the output: stdout is closed", file=sys.stderr)
        return 1
    try:
        print(printed)
        sys.stdout.flush()
    except UnicodeEncodeError:
        encoding = sys.stdout.encoding
        print(f"error: cannot write the output in {encoding}: set PYTHONIOENCODING=utf-8", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `| head`: the reader has what it wanted; no traceback, as other tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the interpreter's own flush at exit too
        return 1
    except OSError as error:  # a full disk, /dev/full
        print(f"error: cannot write the output: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0
