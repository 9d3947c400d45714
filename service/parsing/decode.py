"""Bytes to UTF-8, the way a browser picks an encoding, but never raising.

Order of evidence, as in browsers: a byte-order mark, then the charset the
caller was given (an HTTP ``Content-Type`` header, say), then a
``<meta charset>`` or ``http-equiv`` declaration in the first bytes, then
strict UTF-8, then a statistical detector. Undecodable bytes become U+FFFD
instead of an exception.

Unlike a browser, bytes that are valid UTF-8 with non-ASCII text in them are
read as UTF-8 whatever their ``<meta>`` declares: a saved or crawled page has
lost the HTTP header that said UTF-8 and overrode its stale "ISO-8859-1"
(5 of the 1,358 WCXB dev pages and 13 of Dragnet's 1,115, whose text came
out as "â€œasksâ€�"), and legacy-encoded text is almost never valid UTF-8
by chance. The caller's charset is still obeyed.

Only labels of the WHATWG Encoding Standard (``webencodings``' table) name
an encoding; anything else, Python codec names such as ``rot13`` or
``zlib_codec`` included, is an unknown label and falls through to the next
piece of evidence. Each encoding is read with the Python codec that decodes
like a browser (checked byte by byte against Chromium's ``TextDecoder``).

The result is UTF-8 bytes, not ``str``: the parser reads UTF-8 natively,
and most pages already are UTF-8, so they pass through without a copy.
"""

from __future__ import annotations

import codecs
import re
from functools import cache

import webencodings
from charset_normalizer import from_bytes

# How far into the document a <meta> declaration is looked for. The HTML
# standard's prescan reads 1,024 bytes; real pages put long <head>s first,
# and browsers look further, so we do too.
META_PRESCAN_BYTES = 8192

# How much of the document the statistical detector reads: enough to be
# right, bounded so a 50 MB page costs no more than a 64 KB one.
DETECTOR_SAMPLE_BYTES = 65536

UTF16_CODECS = frozenset({"utf-16-le", "utf-16-be"})

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_META_CHARSET = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]+)""",
    re.IGNORECASE,
)

# WHATWG encoding -> Python codec, where webencodings' codec decodes unlike a browser.
# GBK is read with the gb18030 decoder (GB2312/GBK labels included): Python's gbk lacks
# about 2,300 two-byte characters browsers read. x-user-defined maps high bytes to
# private-use code points, nothing a reader can use: windows-1252 is read instead.
_BROWSER_CODECS = {"gbk": "gb18030", "x-user-defined": "cp1252"}

# The HTML standard: a page that declares UTF-16 in its own ASCII-compatible
# bytes cannot really be UTF-16, and is read as UTF-8.
_META_UTF16 = frozenset({"utf-16le", "utf-16be"})

# The Encoding Standard's "replacement" encoding (ISO-2022-KR, HZ and the like) decodes a page
# to one U+FFFD, a guard browsers need and an extractor does not: its labels count as unknown.
_REPLACEMENT = "replacement"

# What a guess falls back to, and the ASCII bytes a guessed codec must read as ASCII.
_FALLBACK = "cp1252"
_MARKUP = b"<html><p>Text</p>"

# Error handler: U+FFFD for each undecodable sequence, except the lone byte 0x80
# that the WHATWG gb18030 decoder (and Windows' code page 936) reads as the euro sign.
_ERRORS = "extract-browser-replace"


def _browser_replace(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    if error.encoding == "gb18030" and error.object[error.start] == 0x80:
        return "\u20ac", error.start + 1
    return "\ufffd", error.end


codecs.register_error(_ERRORS, _browser_replace)


def _encoding(label: str | None) -> webencodings.Encoding | None:
    """The WHATWG encoding a label names, or None when browsers do not know the label."""
    if not label or not label.isascii():  # every label browsers know is ASCII; webencodings fails on a surrogate
        return None
    encoding = webencodings.lookup(label.strip().strip("\"'"))
    return None if encoding is None or encoding.name == _REPLACEMENT else encoding


def _codec(encoding: webencodings.Encoding) -> str:
    return _BROWSER_CODECS.get(encoding.name) or str(encoding.codec_info.name)


def browser_codec(label: str | None) -> str | None:
    """The Python codec that reads ``label``'s encoding as a browser does, or None for an unknown label."""
    encoding = _encoding(label)
    return None if encoding is None else _codec(encoding)


def sniff_bom(data: bytes) -> tuple[str, int] | None:
    """(codec, length of the BOM) when the data starts with a byte-order mark."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    return None


def sniff_meta_charset(data: bytes) -> str | None:
    """The codec of the first <meta> near the start of the page that declares a known charset."""
    for match in _META_CHARSET.finditer(data, 0, META_PRESCAN_BYTES):
        encoding = _encoding(match.group(1).decode("ascii"))
        if encoding is not None:
            return "utf-8" if encoding.name in _META_UTF16 else _codec(encoding)
    return None


@cache
def _browser_codecs_by_python_codec() -> dict[str, str]:
    """Python codec -> the codec a browser reads its encoding with, for every codec a WHATWG label names."""
    table: dict[str, str] = {}
    for label in webencodings.LABELS:
        encoding = _encoding(label)
        try:
            if encoding is not None:
                table[codecs.lookup(label).name] = _codec(encoding)
        except LookupError:  # a WHATWG label Python does not know
            continue
    return table


def detect_charset(data: bytes) -> str:
    """Guess an encoding for undeclared, non-UTF-8 bytes, read as browsers read it where they know it.

    The detector proposes only text codecs; one browsers do not know (cp949, say) is used as it is.
    As in browsers, a guess never reads the page's ASCII markup as something else (UTF-16, EBCDIC):
    the detector says UTF-16 for short pages with one stray byte.
    """
    best = from_bytes(data[:DETECTOR_SAMPLE_BYTES]).best()
    codec = codecs.lookup(best.encoding).name if best is not None else _FALLBACK
    codec = _browser_codecs_by_python_codec().get(codec, codec)
    return codec if _MARKUP.decode(codec, "replace") == _MARKUP.decode("ascii") else _FALLBACK


def to_utf8(data: bytes | str, charset: str | None = None) -> tuple[bytes, str]:
    """The page as UTF-8 bytes and the codec it was read with. Never raises."""
    if isinstance(data, str):
        return data.encode("utf-8", "replace"), "str"
    bom = sniff_bom(data)
    if bom is not None:
        codec, skip = bom
        body = data[skip:]
        return (body if codec == "utf-8" else _recode(body, codec)), codec
    declared = browser_codec(charset)
    if declared is None:
        declared = sniff_meta_charset(data)
        if declared not in (None, "utf-8") and not data.isascii() and _valid_utf8(data):
            declared = "utf-8"
    if declared is None:
        declared = "utf-8" if _valid_utf8(data) else detect_charset(data)
    # Invalid UTF-8 in a page that claims UTF-8 is replaced by the parser.
    return (data if declared == "utf-8" else _recode(data, declared)), declared


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _recode(data: bytes, codec: str) -> bytes:
    return data.decode(codec, _ERRORS).encode("utf-8", "replace")
