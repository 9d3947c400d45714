"""The corpus readers: one page per record, every unreadable record a page with its code, formats known by content."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from support.corpus_inputs import Expected, article, crawl, encoded_response, jsonl, parquet

pytest.importorskip("pyarrow", reason="the corpus extra: pip install -e '.[corpus]'")
pytest.importorskip("fastwarc", reason="the corpus extra: pip install -e '.[corpus]'")

from service.corpus.batch import DEFAULT_MAX_PAGE_BYTES
from service.corpus.formats import UnknownInput, expand, format_of
from service.corpus.pages import Page

MIB = 1024 * 1024


def read(path: Path, max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES) -> list[Page]:
    with path.open("rb") as stream:
        return list(format_of(path).read(stream, str(path), max_page_bytes))


def outcomes(pages: list[Page]) -> list[Expected]:
    """What the reader decided; pages it passed on may still be refused by the page check (not_html, empty_body)."""
    return [Expected(page.url, page.error or "") for page in pages]


def reader_view(expected: list[Expected]) -> list[Expected]:
    """The expectations as far as the reader goes: the page check's refusals are the extractor's, later."""
    return [Expected(e.url, "" if e.error in ("empty_body",) else e.error) for e in expected]


def test_every_response_record_of_a_broken_warc_gz_is_one_page(tmp_path: Path) -> None:
    path = tmp_path / "crawl.warc.gz"
    expected = crawl(path, big_page_bytes=12 * MIB)
    pages = read(path)
    got = outcomes(pages)
    # the binary page sent as text/html passes the reader (its Content-Type says HTML) and is refused later
    noise = next(i for i, e in enumerate(expected) if e.url == "http://example.org/noise")
    assert got[noise] == Expected("http://example.org/noise", "")
    assert [g for i, g in enumerate(got) if i != noise] == [
        e for i, e in enumerate(reader_view(expected)) if i != noise
    ]
    assert [p.position for p in pages] == sorted({p.position for p in pages})  # distinct offsets, in file order
    assert pages[0].content == article(0) and pages[0].charset == "utf-8" and pages[0].http_status == 200
    assert pages[0].record_id and pages[0].record_id.startswith("<urn:uuid:")
    big = next(p for p in pages if p.url == "http://example.org/big")
    assert big.content is None and "limit" in (big.message or "")


def test_reading_resumes_after_a_broken_gzip_member(tmp_path: Path) -> None:
    path = tmp_path / "crawl.warc.gz"
    expected = crawl(path, pages=5)
    pages = read(path)
    broken = next(i for i, e in enumerate(expected) if e.url is None)
    assert pages[broken].error == "decode_error"
    after = [p.url for p in pages[broken + 1 :] if p.error is None]
    assert "http://example.org/3" in after and "http://example.org/4" in after


def test_a_response_whose_block_is_no_http_is_a_decode_error(tmp_path: Path) -> None:
    block = b"no status line here\r\n\r\n<p>x</p>"  # written by hand: warcio refuses to write it
    headers = (
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.org/odd\r\n"
        "WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(block)}\r\n\r\n"
    )
    path = tmp_path / "odd.warc"
    path.write_bytes(headers.encode() + block + b"\r\n\r\n")
    (page,) = read(path)
    assert (page.url, page.error) == ("http://example.org/odd", "decode_error") and "status line" in str(page.message)


def _response(url: str, declared: int | None = None) -> bytes:
    """A response record written by hand, its Content-Length ``declared`` (its block's length when None)."""
    block = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>the page at {url}</p>".encode()
    headers = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(block) if declared is None else declared}\r\n\r\n"
    )
    return headers.encode() + block + b"\r\n\r\n"


@pytest.mark.parametrize("compressed", [False, True])
def test_a_record_that_declares_fewer_bytes_than_it_holds_costs_the_next_record_nothing(
    tmp_path: Path, compressed: bool
) -> None:
    """The short record's tail starts no record: the intact records after it are read, one row each."""
    records = [_response("http://a/0", declared=10), _response("http://a/1"), _response("http://a/2")]
    path = tmp_path / ("short.warc.gz" if compressed else "short.warc")
    path.write_bytes(b"".join(gzip.compress(r) for r in records) if compressed else b"".join(records))
    pages = read(path)
    assert [page.url for page in pages] == ["http://a/0", "http://a/1", "http://a/2"]
    assert not pages[0].content  # its 10 bytes: an HTTP status line cut short, no page (empty_body, downstream)
    assert [page.error for page in pages[1:]] == [None, None]
    assert [page.content for page in pages[1:]] == [b"<p>the page at http://a/1</p>", b"<p>the page at http://a/2</p>"]


def test_a_big_page_under_the_limit_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "crawl.warc.gz"
    crawl(path, pages=4, big_page_bytes=3 * MIB)
    (big,) = [p for p in read(path, max_page_bytes=4 * MIB) if p.url == "http://example.org/big"]
    assert big.error is None and big.content is not None and len(big.content) > 3 * MIB - 4096


def test_a_gzip_encoded_page_is_decoded_whole_under_the_limit_and_too_large_over_it(tmp_path: Path) -> None:
    # a few hundred kB over the wire, 3 MiB decoded: read in several chunks, and a bomb is stopped by the decoded size
    page = b"<html><body>" + b"<p>" + article(1) * (3 * MIB // len(article(1))) + b"</p></body></html>"
    path = tmp_path / "encoded.warc.gz"
    path.write_bytes(encoded_response("http://example.org/zipped", gzip.compress(page)))
    (whole,) = read(path, max_page_bytes=len(page))
    assert whole.error is None and whole.content == page
    (bomb,) = read(path, max_page_bytes=len(page) - 1)
    assert bomb.error == "too_large" and bomb.content is None and "decoded page" in (bomb.message or "")


def test_an_uncompressed_warc_cut_in_its_headers_ends_with_a_truncated_page(tmp_path: Path) -> None:
    packed = tmp_path / "crawl.warc.gz"
    crawl(packed, pages=3)
    whole = b"".join(_members(packed.read_bytes()))
    start = whole.rindex(b"WARC/1.")
    plain = tmp_path / "crawl.warc"
    plain.write_bytes(whole[: start + 40])  # inside the last record's headers
    pages = read(plain)
    assert pages[-1].error == "truncated_record"
    # read whole: the 3 articles, and the binary and the empty body sent as text/html (refused by the page check later)
    assert sum(p.error is None for p in pages) == 3 + 2


def _members(data: bytes) -> list[bytes]:
    """The decompressed gzip members of ``data`` that decompress (the broken one and the cut one are left out)."""
    import zlib  # noqa: PLC0415

    out, rest = [], data
    while rest:
        inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
        try:
            out.append(inflater.decompress(rest))
        except zlib.error:
            nxt = rest.find(b"\x1f\x8b\x08", 1)
            rest = rest[nxt:] if nxt > 0 else b""
            continue
        rest = inflater.unused_data
    return [m for m in out if m.startswith(b"WARC/")]


@pytest.mark.parametrize("compress", [False, True])
def test_json_lines_give_a_page_per_line_and_a_code_per_bad_line(tmp_path: Path, compress: bool) -> None:
    path = tmp_path / "pages.jsonl"
    expected = jsonl(path, range(5), compress=compress)
    pages = read(path)
    assert outcomes(pages) == expected
    assert [p.position for p in pages] == list(range(len(expected)))
    assert pages[0].content == article(0)


def test_a_json_line_over_the_limit_is_too_large_and_the_next_line_is_read(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl"
    jsonl(path, range(3))
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([lines[0], b'{"url": "big", "html": "' + b"x" * 5000 + b'"}\n', *lines[1:]]))
    pages = read(path, max_page_bytes=2000)
    assert [p.error for p in pages[:3]] == [None, "too_large", "decode_error"]
    assert len(pages) == len(lines) + 1


def test_parquet_rows_are_pages_and_a_null_html_is_an_invalid_record(tmp_path: Path) -> None:
    path = tmp_path / "pages.parquet"
    expected = parquet(path, range(7))
    pages = read(path)
    assert outcomes(pages) == expected
    assert [p.position for p in pages] == list(range(8))


def test_parquet_without_an_html_column_still_gives_a_row_per_row(tmp_path: Path) -> None:
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    path = tmp_path / "urls.parquet"
    pq.write_table(pa.table({"url": ["a", "b"]}), path)
    assert outcomes(read(path)) == [Expected("a", "invalid_record"), Expected("b", "invalid_record")]


def test_formats_are_known_by_content_whatever_the_name(tmp_path: Path) -> None:
    crawl(tmp_path / "a.warc.gz", pages=1)
    shutil.copy(tmp_path / "a.warc.gz", tmp_path / "misnamed.txt")
    jsonl(tmp_path / "lines.dat", range(1), compress=True)
    parquet(tmp_path / "table.bin", range(1))
    assert format_of(tmp_path / "misnamed.txt").name == "warc"
    assert format_of(tmp_path / "lines.dat").name == "jsonl"
    assert format_of(tmp_path / "table.bin").name == "parquet"
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(UnknownInput, match="not a recognised input"):
        format_of(tmp_path / "image.png")


def test_directories_and_globs_expand_to_the_input_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    crawl(tmp_path / "sub" / "a.warc.gz", pages=1)
    jsonl(tmp_path / "b.jsonl", range(1))
    (tmp_path / "notes.txt").write_text("not an input")
    found = expand([str(tmp_path)])
    assert [p.name for p in found] == ["b.jsonl", "a.warc.gz"]
    assert [p.name for p in expand([str(tmp_path / "**" / "*.warc.gz")])] == ["a.warc.gz"]
    assert expand([str(tmp_path / "b.jsonl"), str(tmp_path)]) == [tmp_path / "b.jsonl", tmp_path / "sub" / "a.warc.gz"]
    with pytest.raises(UnknownInput, match="no such file"):
        expand([str(tmp_path / "missing*.warc")])
