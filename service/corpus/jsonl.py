"""JSON Lines input (plain or gzip): one :class:`Page` per non-blank line, ``{"url": ..., "html": ...}``.

A line is read at most ``max_page_bytes`` at a time, so a huge line is a
``too_large`` row without being held in memory; a line that is no JSON is a
``decode_error`` row, a JSON value without a string ``html`` an ``invalid_record`` row.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Iterator
from contextlib import nullcontext
from typing import BinaryIO

from service.corpus.pages import DECODE_ERROR, GZIP_MAGIC, INVALID_RECORD, TOO_LARGE, TRUNCATED, Page

SKIP_CHUNK_BYTES = 1 << 20
_LONE_SURROGATES = re.compile("[\ud800-\udfff]")


def read_jsonl(stream: BinaryIO, source: str, max_page_bytes: int) -> Iterator[Page]:
    """Every non-blank line of the file (gunzipped whatever its name); ``position`` is the line number from 0.

    A gzip file that breaks off or is corrupt gives its lines up to there, then one row for the rest
    (``truncated_record``, ``decode_error``): failing the shard instead lost the lines that read, on every run.
    """
    gzipped = stream.read(2) == GZIP_MAGIC
    stream.seek(0)
    number = -1
    too_long = f"the line exceeds {max_page_bytes} bytes"
    try:
        with gzip.GzipFile(fileobj=stream, mode="rb") if gzipped else nullcontext(stream) as lines:
            while line := lines.readline(max_page_bytes + 1):
                number += 1
                if len(line) > max_page_bytes and not line.endswith(b"\n"):
                    _skip_rest_of_line(lines)
                    yield Page(source, number, None, error=TOO_LARGE, message=too_long)
                elif line.strip():
                    yield _page(line, source, number)
    except EOFError as error:
        yield Page(source, number + 1, None, error=TRUNCATED, message=f"the gzip file breaks off: {error}")
    except (gzip.BadGzipFile, zlib.error) as error:
        yield Page(source, number + 1, None, error=DECODE_ERROR, message=f"the gzip data does not decode: {error}")


def _skip_rest_of_line(lines: gzip.GzipFile | BinaryIO) -> None:
    while (chunk := lines.readline(SKIP_CHUNK_BYTES)) and not chunk.endswith(b"\n"):
        pass


def _page(line: bytes, source: str, number: int) -> Page:
    try:
        value = json.loads(line)
    except ValueError as error:  # UnicodeDecodeError is one too
        return Page(source, number, None, error=DECODE_ERROR, message=f"the line is not JSON: {error}")
    url = value.get("url") if isinstance(value, dict) else None
    url = _LONE_SURROGATES.sub("\ufffd", url) if isinstance(url, str) else None  # JSON may escape one: no UTF-8
    html = value.get("html") if isinstance(value, dict) else None
    if not isinstance(html, str):
        return Page(source, number, url, error=INVALID_RECORD, message='the line is not {"url", "html": string}')
    return Page(source, number, url, html.encode("utf-8", "surrogatepass"), charset="utf-8")
