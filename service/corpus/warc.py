"""WARC and WARC.gz input: one :class:`Page` for every ``response`` record, read with FastWARC.

FastWARC read twice as fast as warcio here, 288 against 145 MB/s of payload on
one core (``python -m service bench --warc-readers FILE``; README, "Processing a crawl").

No record is lost silently. A record whose headers or block break off is a
``truncated_record`` row; one over the size limit a ``too_large`` row (skipped
unread, so memory stays bounded); a gzip member that does not decompress, or a
Content-Encoding that does not decode, a ``decode_error`` row, after which
reading resumes at the next record that does (each record of a ``.warc.gz`` is
its own gzip member, so the rest of the file is not lost with it). Bytes after a
record that start no record (a Content-Length that said less than the block
holds) get no row: reading resumes at the next record's magic, and that record,
intact, is read.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import replace
from typing import BinaryIO

from fastwarc.warc import ArchiveIterator, WarcRecord, WarcRecordPayloadReader, WarcRecordType

from service.corpus.pages import DECODE_ERROR, GZIP_MAGIC, HTML_MEDIA_TYPES, NOT_HTML, TOO_LARGE, TRUNCATED, Page
from service.parsing.content_type import media_type

GZIP_MEMBER_MAGIC = GZIP_MAGIC + b"\x08"  # a gzip member with deflate: what a resync looks for
WARC_MAGIC = b"WARC/"
HTTP_STATUS = b"HTTP/"  # how an HTTP response's status line begins
RESYNC_WINDOW_BYTES = 1 << 20  # how much of the file is scanned at a time for the next record after a broken one
PROBE_BYTES = 1 << 14  # compressed bytes tried at a candidate gzip member to see whether a WARC record starts there
# a decoded payload is read this much at a time: FastWARC's decoding reader allocates the size asked for at
# every read, so one read of the whole limit (10 MB) cost a page 0.1-0.2 ms more than the page itself
PAYLOAD_CHUNK_BYTES = 1 << 20


class _Broken(Exception):
    """Reading stopped; ``position`` is where to look for the next record, or (``again``) where it starts."""

    def __init__(self, position: int, *, again: bool = False) -> None:
        super().__init__(position)
        self.position = position
        self.again = again


def read_warc(stream: BinaryIO, source: str, max_page_bytes: int) -> Iterator[Page]:
    """Every response record of the file (plain or gzip), in file order."""
    gzipped = stream.read(2) == GZIP_MAGIC
    start: int | None = 0
    while start is not None:
        try:
            yield from _records(stream, start, gzipped, source, max_page_bytes)
            return
        except _Broken as broken:
            start = broken.position if broken.again else _next_record(stream, broken.position, gzipped)


def _records(stream: BinaryIO, start: int, gzipped: bool, source: str, max_page_bytes: int) -> Iterator[Page]:
    """Pages from ``start`` on; raises :class:`_Broken` (after yielding its row) where the input stops decoding."""
    stream.seek(start)
    records = iter(ArchiveIterator(stream, parse_http=False))
    last = start - 1
    while True:
        try:
            record = next(records)
        except StopIteration:
            return
        except (OSError, ValueError) as error:  # a gzip member or record that does not decode
            if last >= start:
                # After a record that read, bytes may follow that start no record (its Content-Length said less
                # than its block holds): read again from the next record's magic, which gets its own row if broken.
                raise _Broken(_broken_record(stream, last + 1, gzipped), again=True) from error
            yield Page(source, start, None, error=DECODE_ERROR, message=f"the record does not decode: {error}")
            raise _Broken(start + 1) from error
        last = record.stream_pos
        if record.record_type == WarcRecordType.response or _headers_cut(record):
            try:
                yield _page(record, source, max_page_bytes)
            except (OSError, ValueError) as error:
                yield _failed(record, source, DECODE_ERROR, f"the record's block does not decode: {error}")
                raise _Broken(last + 1) from error


def _headers_cut(record: WarcRecord) -> bool:
    """A record whose headers broke off before its type or length: it may have been a response."""
    return not (record.headers.get("Content-Length") or "").isdigit()


def _page(record: WarcRecord, source: str, max_page_bytes: int) -> Page:
    declared = record.headers.get("Content-Length") or ""
    if not declared.isdigit():
        return _failed(record, source, TRUNCATED, "the record's headers break off before its Content-Length")
    if int(declared) > max_page_bytes:
        return _failed(record, source, TOO_LARGE, f"the record is {declared} bytes; the limit is {max_page_bytes}")
    block = record.reader.read()
    if len(block) < int(declared):
        return _failed(record, source, TRUNCATED, f"the record declares {declared} bytes but has {len(block)}")
    content_type = record.headers.get("Content-Type") or ""
    # a response record without a Content-Type still holds an HTTP message where its block starts with a status line
    if not (content_type.startswith("application/http") or (not content_type and block.startswith(HTTP_STATUS))):
        return _checked(record, source, block, media_type(content_type), None)
    http = WarcRecord()
    http.init_headers(WarcRecordType.response)
    http.set_bytes_content(block)
    http.is_http = True
    try:
        http.parse_http(auto_decode="all")
        payload = _read_at_most(http.reader, max_page_bytes + 1)  # a compression bomb stops at the limit too
    except (OSError, ValueError) as error:
        return _failed(record, source, DECODE_ERROR, f"the HTTP payload does not decode: {error}")
    if http.http_headers.status_code is None:
        return _failed(record, source, DECODE_ERROR, "the record's block does not start with an HTTP status line")
    if len(payload) > max_page_bytes:
        return _failed(record, source, TOO_LARGE, f"the decoded page exceeds the limit of {max_page_bytes} bytes")
    declared_type = (http.http_content_type or "", http.http_charset)
    return _checked(record, source, payload, declared_type, http.http_headers.status_code)


def _read_at_most(reader: WarcRecordPayloadReader, limit: int) -> bytes:
    """Up to ``limit`` bytes (a chunk more at most) of a FastWARC payload reader, without allocating the limit."""
    chunks: list[bytes] = []
    size = 0
    while size < limit and (chunk := reader.read(min(PAYLOAD_CHUNK_BYTES, limit - size))):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _checked(
    record: WarcRecord, source: str, payload: bytes, declared: tuple[str, str | None], status: int | None
) -> Page:
    """The page, or a ``not_html`` row when its Content-Type names something else (no type: the page check decides)."""
    media, charset = declared
    page = Page(
        source,
        record.stream_pos,
        record.headers.get("WARC-Target-URI"),
        payload,
        record_id=record.record_id,
        charset=charset,
        http_status=status,
        content_type=media or None,
        fetched_at=record.headers.get("WARC-Date"),
    )
    if media and media not in HTML_MEDIA_TYPES:
        return replace(page, content=None, error=NOT_HTML, message=f"the response is {media}")
    return page


def _failed(record: WarcRecord, source: str, code: str, message: str) -> Page:
    return Page(
        source,
        record.stream_pos,
        record.headers.get("WARC-Target-URI"),
        record_id=record.record_id,
        fetched_at=record.headers.get("WARC-Date"),
        error=code,
        message=message,
    )


def _broken_record(stream: BinaryIO, after: int, gzipped: bool) -> int:
    """Where the record that failed to decode starts: the first record magic at or after ``after``."""
    stream.seek(after)
    found = stream.read(RESYNC_WINDOW_BYTES).find(GZIP_MEMBER_MAGIC if gzipped else WARC_MAGIC)
    return after + max(found, 0)


def _next_record(stream: BinaryIO, start: int, gzipped: bool) -> int | None:
    """The offset of the next record at or after ``start`` that begins to decode, or None at the end of the file."""
    magic = GZIP_MEMBER_MAGIC if gzipped else WARC_MAGIC
    offset = start
    while True:
        stream.seek(offset)
        window = stream.read(RESYNC_WINDOW_BYTES + len(magic))
        if len(window) < len(magic):
            return None
        found = window.find(magic)
        while 0 <= found < RESYNC_WINDOW_BYTES:
            if not gzipped or _starts_a_record(stream, offset + found):
                return offset + found
            found = window.find(magic, found + 1)
        offset += RESYNC_WINDOW_BYTES


def _starts_a_record(stream: BinaryIO, offset: int) -> bool:
    """Whether the gzip member at ``offset`` decompresses into the start of a WARC record."""
    stream.seek(offset)
    try:
        head = zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(stream.read(PROBE_BYTES), len(WARC_MAGIC))
    except zlib.error:
        return False
    return head.startswith(WARC_MAGIC)
