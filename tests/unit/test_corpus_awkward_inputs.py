"""Inputs that broke a whole shard or run (a probe's finds) now give their rows; a stopped run's workers end."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from support.corpus_inputs import Expected, article, jsonl

pytest.importorskip("pyarrow", reason="the corpus extra: pip install -e '.[corpus]'")
pytest.importorskip("fastwarc", reason="the corpus extra: pip install -e '.[corpus]'")

from service.corpus.batch import DEFAULT_MAX_PAGE_BYTES
from service.corpus.formats import UnknownInput, expand, format_of
from service.corpus.pages import Page


def read(path: Path) -> list[Page]:
    with path.open("rb") as stream:
        return list(format_of(path).read(stream, str(path), DEFAULT_MAX_PAGE_BYTES))


def test_a_gzip_that_breaks_off_gives_its_lines_then_one_truncated_row(tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    expected = jsonl(whole, range(30))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(whole.read_bytes())[:-300])
    pages = read(cut)
    assert len(pages) > 10
    assert [Expected(p.url, p.error or "") for p in pages[:-1]] == expected[: len(pages) - 1]
    assert (pages[-1].error, pages[-1].position) == ("truncated_record", pages[-2].position + 1)


def test_a_gzip_that_fails_its_check_gives_its_lines_then_one_decode_error(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl.gz"
    jsonl(tmp_path / "plain.jsonl", range(3))
    data = bytearray(gzip.compress((tmp_path / "plain.jsonl").read_bytes()))
    data[-8] ^= 0xFF  # the CRC
    path.write_bytes(bytes(data))
    pages = read(path)
    assert pages[-1].error == "decode_error" and "does not decode" in (pages[-1].message or "")
    assert [p.url for p in pages[:-1] if p.error is None] == [f"http://example.net/{n}" for n in range(3)]


def test_a_parquet_file_that_does_not_read_is_one_decode_error_row(tmp_path: Path) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1" + b"\0" * 64 + b"PAR1")  # the magic, no readable footer
    assert [(p.position, p.error) for p in read(path)] == [(0, "decode_error")]


@pytest.mark.parametrize(
    ("first_line", "by_bytes"),
    [
        (b"\xef\xbb\xbf" + json.dumps({"url": "u", "html": "<p>x</p>"}).encode(), True),  # a byte-order mark
        (b"{not json", True),
        (b"[1, 2]", False),
    ],
)
def test_a_json_lines_file_is_read_whatever_its_first_line_holds(
    tmp_path: Path, first_line: bytes, by_bytes: bool
) -> None:
    path = tmp_path / "pages.jsonl"
    path.write_bytes(first_line + b"\n" + json.dumps({"url": "v", "html": article(1).decode()}).encode() + b"\n")
    pages = read(path)
    assert len(pages) == 2 and pages[1].error is None
    assert pages[0].error in (None, "decode_error", "invalid_record")
    other = tmp_path / "pages.txt"  # no name of a format: its bytes alone decide
    other.write_bytes(path.read_bytes())
    if by_bytes:
        assert format_of(other).name == "jsonl"
    else:
        with pytest.raises(UnknownInput, match="not a recognised input"):
            format_of(other)


def test_a_url_with_a_lone_surrogate_is_kept_readable(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl"
    path.write_text('{"url": "http://x/\\ud800", "html": "<p>x</p>"}\n', encoding="ascii")
    (page,) = read(path)
    assert page.url == "http://x/\ufffd" and page.url.encode("utf-8")


def test_a_response_record_without_a_content_type_is_read_as_http(tmp_path: Path) -> None:
    block = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + article(2)
    headers = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.uuid4()}>\r\n"
        f"WARC-Target-URI: http://x/\r\nContent-Length: {len(block)}\r\n\r\n"
    )
    path = tmp_path / "a.warc"
    path.write_bytes(headers.encode() + block + b"\r\n\r\n")
    (page,) = read(path)
    assert (page.error, page.http_status, page.charset, page.content) == (None, 404, "utf-8", article(2))


def test_nothing_under_out_is_an_input(tmp_path: Path) -> None:
    jsonl(tmp_path / "pages.jsonl", range(1))
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("{}")
    (out / "pages.jsonl.0123.parquet").write_bytes(b"PAR1")
    assert expand([str(tmp_path)], out) == [tmp_path / "pages.jsonl"]
    with pytest.raises(UnknownInput, match="inside --out"):
        expand([str(out / "summary.json")], out)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_killed_runs_workers_end_with_it(tmp_path: Path) -> None:
    lines = [json.dumps({"url": f"u{n}", "html": article(n, words=400).decode()}) for n in range(400)]
    for name in ("a", "b"):
        (tmp_path / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    command = [sys.executable, "-m", "service", "corpus", str(tmp_path), "--out", str(tmp_path / "out")]
    run = subprocess.Popen([*command, "--workers", "2", "--backend", "mlp", "--batch-size", "4"])
    workers = _children(run.pid, within_s=60, count=2)
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in workers if _alive(pid)]


def _children(parent: int, *, within_s: float, count: int) -> list[int]:
    """The pool's worker processes (the multiprocessing resource tracker aside), once ``count`` are there."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = [
            int(entry.name)
            for entry in Path("/proc").iterdir()
            if entry.name.isdigit() and _parent_of(int(entry.name)) == parent and _is_worker(int(entry.name))
        ]
        if len(found) >= count:
            return found
        time.sleep(0.2)
    raise AssertionError(f"fewer than {count} workers started within {within_s} s")


def _parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _is_worker(pid: int) -> bool:
    try:
        return b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
