"""A fetched body's Content-Encoding, decoded here so that a compressed body cut short is an error.

httpx decodes gzip and deflate as they arrive but never checks that the compressed
stream ended: a body cut short inside a complete HTTP message (a proxy that dropped
the tail, a server that died mid-write) decoded to the part that came, and that part
was extracted as if it were the page. A POST body cut short is a 400
``bad_content_encoding``; a fetched one is refused the same way. Decoding here also
stops a bomb at the size limit inside a chunk, not after it.
"""

from __future__ import annotations

import zlib

ACCEPT_ENCODING = "gzip, deflate"  # what the fetchers ask for, and so all this reads
GZIP_CODINGS = frozenset({"gzip", "x-gzip"})
DEFLATE = "deflate"
IDENTITY = "identity"
GZIP_MAGIC = b"\x1f\x8b"
_GZIP_WBITS = zlib.MAX_WBITS | 16
_RAW_DEFLATE_WBITS = -zlib.MAX_WBITS  # "deflate" as some servers send it: no zlib header


class ContentDecodingError(ValueError):
    """A body whose Content-Encoding is not one asked for, does not decode, or ends early."""


class BodyDecoder:
    """Decodes one body, chunk by chunk, to at most a limit; :meth:`end` checks the compressed stream ended."""

    def __init__(self, content_encoding: str) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip().lower() not in ("", IDENTITY)]
        if len(codings) > 1 or (codings and codings[0] not in GZIP_CODINGS | {DEFLATE}):
            raise ContentDecodingError(f"Content-Encoding {content_encoding!r} was not asked for ({ACCEPT_ENCODING})")
        self._coding = codings[0] if codings else IDENTITY
        self._gzip = self._coding in GZIP_CODINGS
        self._inflater = zlib.decompressobj(_GZIP_WBITS) if self._gzip else None  # deflate: once its header is read
        self._head = b""  # deflate's first bytes, held until there are two: they say which deflate it is
        self._ended = False  # the stream has ended: what follows is not read

    def decode(self, chunk: bytes, room: int) -> bytes:
        """``chunk`` decoded: all of it, or more than ``room`` bytes (the caller's limit is passed then)."""
        if self._coding == IDENTITY:
            return chunk
        if self._ended:
            return b""
        inflater = self._inflater
        if inflater is None:
            self._head += chunk
            if len(self._head) < 2:
                return b""
            chunk, self._head = self._head, b""
            inflater = self._inflater = zlib.decompressobj(_deflate_wbits(chunk))
        try:
            return self._inflate(inflater, chunk, room)
        except zlib.error as error:
            raise ContentDecodingError(f"the {self._coding} body does not decode: {error}") from error

    def _inflate(self, inflater: zlib._Decompress, chunk: bytes, room: int) -> bytes:
        out = inflater.decompress(chunk, room + 1)
        # A gzip body of several members (RFC 1952) goes on; other bytes after the end are ignored, as httpx
        # did, and not kept (an endless tail would otherwise pile up in unused_data, outside the size limit).
        while self._gzip and inflater.eof and inflater.unused_data.startswith(GZIP_MAGIC) and len(out) <= room:
            rest = inflater.unused_data
            inflater = self._inflater = zlib.decompressobj(_GZIP_WBITS)
            out += inflater.decompress(rest, room + 1 - len(out))
        if inflater.eof and not (self._gzip and GZIP_MAGIC.startswith(inflater.unused_data[: len(GZIP_MAGIC)])):
            self._ended = True  # (a lone first byte of the magic may be a next member cut by the chunking)
        return out

    def end(self) -> None:
        """Raise if the compressed stream did not reach its end: the body was cut short."""
        if self._coding != IDENTITY and (self._inflater is None or not self._inflater.eof):
            raise ContentDecodingError(f"the {self._coding} body ends early: it was cut short")


def _deflate_wbits(head: bytes) -> int:
    """A zlib stream's or a raw one's: "deflate" (RFC 9110) starts with a zlib header; some servers' does not.

    The header is checked (RFC 1950: method 8, a window of at most 32 KiB, the pair a multiple of 31)
    rather than tried: a raw stream's first byte alone passes for a header's, so trying failed only on a
    later byte, after the first chunk, where a body sent a byte at a time had already been taken for zlib.
    """
    method, flags = head[0], head[1]
    return (
        zlib.MAX_WBITS
        if method & 0x0F == 8 and method >> 4 <= 7 and (method << 8 | flags) % 31 == 0
        else _RAW_DEFLATE_WBITS
    )
