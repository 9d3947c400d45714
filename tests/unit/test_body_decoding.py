"""A fetched body's Content-Encoding, decoded in any chunking: whole pages whole, cut ones refused, bombs capped."""

from __future__ import annotations

import gzip
import zlib

import pytest

from service.fetching.decoding import BodyDecoder, ContentDecodingError

PAGE = b"".join(b"<p>paragraph %d of the page</p>" % i for i in range(5000))
TWO_MEMBERS = gzip.compress(PAGE[:70_000]) + gzip.compress(PAGE[70_000:])


def decoded(coding: str, body: bytes, step: int, limit: int = 10**8) -> bytes:
    decoder = BodyDecoder(coding)
    out = b""
    for start in range(0, len(body), step):
        out += decoder.decode(body[start : start + step], limit - len(out))
        if len(out) > limit:
            break
    else:
        decoder.end()
    return out


@pytest.mark.parametrize("step", [1, 2, 3, 4096, 1 << 20])  # a member's end and the next magic split every way
@pytest.mark.parametrize(
    ("coding", "body"),
    [
        ("gzip", TWO_MEMBERS),
        ("x-gzip", gzip.compress(PAGE) + b"\r\n" * 1000),  # a tail that is no member: ignored
        ("deflate", zlib.compress(PAGE)),
        ("deflate", zlib.compress(PAGE, wbits=-zlib.MAX_WBITS)),  # without its zlib header, as some servers send it
        ("identity", PAGE),
        ("", PAGE),
    ],
)
def test_a_body_decodes_whole_in_any_chunking(coding: str, body: bytes, step: int) -> None:
    assert decoded(coding, body, step) == PAGE


@pytest.mark.parametrize("step", [1, 4096])
@pytest.mark.parametrize(
    ("coding", "body"),
    [
        ("gzip", gzip.compress(PAGE)),
        ("deflate", zlib.compress(PAGE)),
        ("deflate", zlib.compress(PAGE, wbits=-zlib.MAX_WBITS)),
    ],
)
@pytest.mark.parametrize("kept", [1, 8, 100, 0.5])  # bytes of the body that came, or a share of it
def test_a_compressed_body_cut_short_is_refused(coding: str, body: bytes, step: int, kept: float) -> None:
    with pytest.raises(ContentDecodingError, match="ends early"):
        decoded(coding, body[: int(len(body) * kept) if kept < 1 else int(kept)], step)


def test_deflate_that_is_neither_zlib_nor_raw_is_refused() -> None:
    with pytest.raises(ContentDecodingError, match="does not decode"):
        decoded("deflate", b"\x78\x9c" + b"\xff" * 64, 1)


@pytest.mark.parametrize(("coding", "said"), [("br", "not asked for"), ("gzip, gzip", "not asked for")])
def test_an_encoding_not_asked_for_is_refused(coding: str, said: str) -> None:
    with pytest.raises(ContentDecodingError, match=said):
        BodyDecoder(coding)


def test_a_bomb_stops_one_byte_past_the_limit_inside_a_chunk() -> None:
    bomb = gzip.compress(b" " * 50_000_000)  # 50 KB that inflate to 50 MB, in one chunk
    assert len(decoded("gzip", bomb, len(bomb), limit=1_000_000)) == 1_000_001
