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
        self._inflater = (
            None if self._coding == IDENTITY else zlib.decompressobj(_GZIP_WBITS if self._gzip else zlib.MAX_WBITS)
        )
        self._started = False
        self._ended = False  # the stream has ended: what follows is not read

    def decode(self, chunk: bytes, room: int) -> bytes:
        """``chunk`` decoded: all of it, or more than ``room`` bytes (the caller's limit is passed then)."""
        inflater = self._inflater
        if inflater is None:
            return chunk
        if self._ended:
            return b""
        try:
            try:
                return self._inflate(inflater, chunk, room)
            except zlib.error:
                if self._gzip or self._started:
                    raise
                self._inflater = zlib.decompressobj(_RAW_DEFLATE_WBITS)  # deflate without its zlib header
                return self._inflate(self._inflater, chunk, room)
        except zlib.error as error:
            raise ContentDecodingError(f"the {self._coding} body does not decode: {error}") from error
        finally:
            self._started = True

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
        if self._inflater is not None and not self._inflater.eof:
            raise ContentDecodingError(f"the {self._coding} body ends early: it was cut short")
