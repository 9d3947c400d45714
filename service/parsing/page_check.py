"""Whether some bytes or text are a page at all, before any of it is parsed.

One rule for every front door (a raw or JSON body, each batch document, the
command line): nothing but white space is an :class:`EmptyPage`, mostly
control bytes is :class:`NotHtml`. Anything else is a page, however broken:
the parser never raises.
"""

from __future__ import annotations

import re

from service.errors import EmptyPage, NotHtml
from service.parsing.decode import UTF16_CODECS, browser_codec, sniff_bom

# A page is refused as binary when more than this share of its first bytes
# are control characters other than white space and ESC (ISO-2022 uses it).
# Text has next to none; compressed or random data has about 11%; UTF-16
# (declared, or with a BOM) is exempt: it is half NULs.
BINARY_SAMPLE_BYTES = 4096
MAX_CONTROL_SHARE = 0.05
_CONTROL_BYTES = bytes(sorted(set(range(32)) - {9, 10, 12, 13, 27})) + b"\x7f"

# ASCII white space, the same for bytes and text, so a page is blank or not whichever way it came. A page is
# blank where nothing else is found: a search stops at the first other character, where a strip copied the page.
_WHITESPACE = " \t\n\r\f\v"
_NOT_BLANK = re.compile(f"[^{_WHITESPACE}]")
_NOT_BLANK_BYTES = re.compile(f"[^{_WHITESPACE}]".encode("ascii"))


def check_page(html: str | bytes, charset: str | None = None) -> None:
    """Raise :class:`EmptyPage` or :class:`NotHtml` for what is no page; ``charset`` is the one its sender declared.

    A byte-order mark is no content: after one, the page is read in its codec for the white-space test.
    """
    blank = (
        _NOT_BLANK_BYTES.search(html) if isinstance(html, bytes) else _NOT_BLANK.search(html, html.startswith("\ufeff"))
    ) is None
    if blank:
        raise EmptyPage("the page is empty or only white space")
    if isinstance(html, bytes) and (bom := sniff_bom(html)) is not None and _blank_after(html, bom):
        raise EmptyPage("the page is a byte-order mark and white space")
    if isinstance(html, bytes) and _is_utf16(html, charset):
        return
    sample = html[:BINARY_SAMPLE_BYTES]
    data = sample.encode("utf-8", "replace") if isinstance(sample, str) else sample
    controls = len(data) - len(data.translate(None, _CONTROL_BYTES))
    if controls > MAX_CONTROL_SHARE * len(data):
        raise NotHtml(f"the page looks binary: {controls} of its first {len(data)} bytes are control characters")


def _blank_after(data: bytes, bom: tuple[str, int]) -> bool:
    """Whether ``data`` holds nothing but white space after its byte-order mark (read in the mark's codec)."""
    codec, length = bom
    if _NOT_BLANK.search(data[length : length + BINARY_SAMPLE_BYTES].decode(codec, "replace")) is not None:
        return False  # most pages: markup right after the mark
    return _NOT_BLANK.search(data[length:].decode(codec, "replace")) is None


def _is_utf16(data: bytes, charset: str | None) -> bool:
    bom = sniff_bom(data)
    return (bom[0] if bom is not None else browser_codec(charset)) in UTF16_CODECS
