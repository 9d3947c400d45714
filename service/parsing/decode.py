"""Bytes to UTF-8, the way a browser picks an encoding, but never raising.

Order of evidence: a byte-order mark, then a ``<meta charset>`` or
``http-equiv`` declaration in the first bytes, then the charset the caller
was given (an HTTP header, say), then strict UTF-8, then a statistical
detector. Undecodable bytes become U+FFFD instead of an exception.

The result is UTF-8 bytes, not ``str``: the parser reads UTF-8 natively,
and most pages already are UTF-8, so they pass through without a copy.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

# How far into the document a <meta> declaration is looked for. The HTML
# standard's prescan reads 1,024 bytes; real pages put long <head>s first,
# and browsers look further, so we do too.
META_PRESCAN_BYTES = 8192

# How much of the document the statistical detector reads: enough to be
# right, bounded so a 50 MB page costs no more than a 64 KB one.
DETECTOR_SAMPLE_BYTES = 65536

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_META_CHARSET = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]+)""",
    re.IGNORECASE,
)

# The HTML standard: a page that declares UTF-16 in its own ASCII-compatible
# bytes cannot really be UTF-16, and is read as UTF-8.
_META_OVERRIDES = {"utf-16": "utf-8", "utf-16le": "utf-8", "utf-16be": "utf-8", "x-user-defined": "windows-1252"}

# WHATWG: these labels mean windows-1252 in every browser.
_LABEL_ALIASES = {
    "iso-8859-1": "windows-1252",
    "latin1": "windows-1252",
    "us-ascii": "windows-1252",
    "ascii": "windows-1252",
}


def normalize_charset(label: str | None) -> str | None:
    """Python codec name for an encoding label, or None when it is unknown."""
    if not label:
        return None
    name = label.strip().strip("\"'").lower()
    name = _LABEL_ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def sniff_bom(data: bytes) -> tuple[str, int] | None:
    """(codec, length of the BOM) when the data starts with a byte-order mark."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    return None


def sniff_meta_charset(data: bytes) -> str | None:
    """The charset a <meta> element declares near the start of the page."""
    match = _META_CHARSET.search(data, 0, META_PRESCAN_BYTES)
    if match is None:
        return None
    label = match.group(1).decode("ascii", "replace").lower()
    return normalize_charset(_META_OVERRIDES.get(label, label))


def detect_charset(data: bytes) -> str:
    """Guess an encoding for undeclared, non-UTF-8 bytes."""
    best = from_bytes(data[:DETECTOR_SAMPLE_BYTES]).best()
    return normalize_charset(best.encoding if best else None) or "windows-1252"


def to_utf8(data: bytes | str, charset: str | None = None) -> tuple[bytes, str]:
    """The page as UTF-8 bytes and the encoding it was read with. Never raises."""
    if isinstance(data, str):
        return data.encode("utf-8", "replace"), "str"
    bom = sniff_bom(data)
    if bom is not None:
        codec, skip = bom
        body = data[skip:]
        return (body if codec == "utf-8" else _recode(body, codec)), codec
    declared = sniff_meta_charset(data) or normalize_charset(charset)
    if declared is None:
        try:
            data.decode("utf-8")
            declared = "utf-8"
        except UnicodeDecodeError:
            declared = detect_charset(data)
    # Invalid UTF-8 in a page that claims UTF-8 is replaced by the parser.
    return (data if declared == "utf-8" else _recode(data, declared)), declared


def _recode(data: bytes, codec: str) -> bytes:
    return data.decode(codec, "replace").encode("utf-8", "replace")
