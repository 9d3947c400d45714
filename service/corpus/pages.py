"""What a reader yields for each input page, and the codes for pages that could not be read.

A reader never drops a record it cannot read: it yields a :class:`Page` with
``error`` set, so every record of the input has exactly one output row.
"""

from __future__ import annotations

from dataclasses import dataclass

# Codes a reader gives a page it could not hand to the extractor. The extractor's own
# refusals use the API's codes (empty_body, not_html) from service.api.errors.
TOO_LARGE = "too_large"  # the page is over --max-page-bytes; it is skipped unread
TRUNCATED = "truncated_record"  # the input ends (or a record's headers break off) before the record does
DECODE_ERROR = "decode_error"  # a broken gzip member, a Content-Encoding that does not decode, a line that is no JSON
INVALID_RECORD = "invalid_record"  # readable, but not the shape the format promises ({"url", "html"})
NOT_HTML = "not_html"  # a response whose Content-Type is not HTML (the API's code for binary bytes too)
INTERNAL_ERROR = "internal_error"  # the extractor raised something unexpected: a bug, reported per page

READ_ERRORS = (TOO_LARGE, TRUNCATED, DECODE_ERROR, INVALID_RECORD, NOT_HTML)

# Media types that are pages; a response without a Content-Type is left to the page check.
HTML_MEDIA_TYPES = frozenset({"text/html", "application/xhtml+xml"})
GZIP_MAGIC = b"\x1f\x8b"  # how a gzip file (a .warc.gz member, a .jsonl.gz) begins, whatever its name


@dataclass(frozen=True, slots=True)
class Page:
    """One input page: where it came from, its bytes (None when unreadable) and what went wrong reading it."""

    source: str  # the input file
    position: int  # byte offset of a WARC record, line number of a JSON line, row number of a Parquet row
    url: str | None
    content: bytes | None = None
    record_id: str | None = None  # WARC-Record-ID
    charset: str | None = None  # from the response's Content-Type
    http_status: int | None = None
    content_type: str | None = None  # the response's media type
    fetched_at: str | None = None  # WARC-Date
    error: str | None = None
    message: str | None = None

    @property
    def size(self) -> int:
        return len(self.content) if self.content is not None else 0
