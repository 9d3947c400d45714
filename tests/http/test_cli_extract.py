"""``python -m service extract``: the same rule as the API for what is a page, and for what a charset means."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import main
from service.commands.extract import TooLarge, _read
from service.settings import Settings

from support.pages import ARTICLE, DECLARED_TEXT, EXOTIC_CODECS, page_declaring
from support.upstream import Upstream

pytestmark = pytest.mark.timeout(60)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["extract", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(folder: Path, name: str, data: bytes) -> str:
    path = folder / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (random.Random(7).randbytes(20_000), "not_html"),
        (b"\x7fELF\x02\x01\x01" + bytes(2000), "not_html"),
        (b"", "empty_body"),
        (b"  \n\t\r\n ", "empty_body"),
    ],
)
def test_what_is_no_page_exits_2_with_the_api_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes, code: str
) -> None:
    status, out, err = run(capsys, write(tmp_path, "page.html", data))
    assert (status, out) == (2, "")
    assert err.startswith(f"error: {code}: ")


def test_the_exit_status_reaches_the_shell(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "service", "extract", write(tmp_path, "empty.html", b"")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("error: empty_body: ")


def test_a_gzip_bomb_stops_at_the_body_limit(tmp_path: Path) -> None:
    bomb = write(tmp_path, "bomb.gz", gzip.compress(b" " * 20_000_000 + b"<p>x</p>"))
    with pytest.raises(TooLarge, match="EXTRACT_MAX_BODY_BYTES"):
        _read(bomb, Settings(max_body_bytes=1_000_000))


def test_a_reader_that_stops_early_or_a_full_disk_is_no_traceback(tmp_path: Path) -> None:
    """`| head` closes the pipe: exit 1, quietly; /dev/full: exit 1 with the reason."""
    page = write(tmp_path, "long.html", ("<article>" + "<p>A paragraph of the story, kept.</p>" * 20_000).encode())
    command = [sys.executable, "-m", "service", "extract", page, "--backend", "boilerpipe"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.read(10)
        process.stdout.close()
        assert process.wait(timeout=60) == 1
        assert process.stderr.read() == b""
    with Path("/dev/full").open("wb") as full:
        done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    assert done.returncode == 1 and done.stderr.startswith("error: cannot write the output: ")


def test_gzip_is_known_by_its_magic_number_not_its_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, _ = run(capsys, write(tmp_path, "page.html", gzip.compress(ARTICLE.encode())))
    assert status == 0
    assert "real content that a reader came for" in out


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (ARTICLE.encode(), "not gzip data"),
        (gzip.compress(ARTICLE.encode())[:40], "ended before the end-of-stream marker"),
        (gzip.compress(ARTICLE.encode())[:12] + bytes(200), ""),
    ],
)
def test_a_gz_file_that_is_no_good_gzip_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes, reason: str
) -> None:
    path = write(tmp_path, "page.html.gz", data)
    status, out, err = run(capsys, path)
    assert (status, out) == (2, "")
    assert err.startswith(f"error: cannot read {path}: ")
    assert reason in err


@pytest.mark.parametrize("label", EXOTIC_CODECS)
def test_a_python_codec_name_as_a_charset_is_an_unknown_label(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, label: str
) -> None:
    path = write(tmp_path, "page.html", page_declaring(label).encode())
    assert run(capsys, path) == (0, DECLARED_TEXT + "\n", "")
    assert run(capsys, path, "--charset", label) == (0, DECLARED_TEXT + "\n", "")


def test_charset_labels_read_as_in_browsers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, "page.html", "<p>①～ 日本語</p>".encode("cp932"))
    status, out, _ = run(capsys, path, "--charset", "shift_jis", "--format", "json")
    assert status == 0
    assert [block["text"] for block in json.loads(out)["blocks"]] == ["①～ 日本語"]


@pytest.mark.parametrize("label", ["rot13", "zlib_codec", "idna"])
def test_a_fetched_page_with_a_python_codec_name_as_its_charset(
    capsys: pytest.CaptureFixture[str], upstream: Upstream, label: str
) -> None:
    assert run(capsys, upstream.url(f"/charset?header={label}&meta={label}")) == (0, DECLARED_TEXT + "\n", "")


def test_a_fetched_page_is_read_in_its_header_charset(capsys: pytest.CaptureFixture[str], upstream: Upstream) -> None:
    """As in browsers, the Content-Type's charset wins over <meta>; --charset wins over both."""
    url = upstream.url("/charset?header=utf-8&meta=windows-1252")
    assert run(capsys, url) == (0, DECLARED_TEXT + "\n", "")
    _, out, _ = run(capsys, url, "--charset", "windows-1252")
    assert out.startswith("CrÃ¨me brÃ»lÃ©e")


def test_the_extraction_options_are_flags(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    linked_page = ARTICLE.replace("real content", 'real <a href="https://example.org/c">content</a>')
    page = write(tmp_path, "page.html", linked_page.encode())
    code, out, _ = run(capsys, page, "--backend", "boilerpipe", "--format", "markdown", "--front-matter")
    assert code == 0 and out.startswith('---\ntitle: "')
    code, linked, _ = run(capsys, page, "--backend", "boilerpipe", "--format", "markdown")
    code, plain, _ = run(capsys, page, "--backend", "boilerpipe", "--format", "markdown", "--no-include-links")
    assert "](" not in plain and plain != linked
    status, out, err = run(capsys, page, "--backend", "boilerpipe", "--target-selector", "#nowhere")
    assert (status, out) == (2, "") and err.startswith("error: nothing_selected: ")
    code, out, _ = run(capsys, page, "--backend", "boilerpipe", "--format", "json")
    assert 0.0 <= json.loads(out)["readable"] <= 1.0


def test_json_output_carries_the_metadata(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    html = (
        '<html lang="en"><head><title>Night trains | Rail Weekly</title>'
        '<meta property="og:site_name" content="Rail Weekly"></head>'
        "<body><h1>Night trains</h1><p>By Ines Moreau</p><p>March 12, 2026</p><p>Sleepers are back.</p></body></html>"
    )
    status, out, _ = run(capsys, write(tmp_path, "page.html", html.encode()), "--format", "json")
    assert status == 0
    metadata = json.loads(out)["metadata"]
    assert metadata["title"] == json.loads(out)["title"] == "Night trains"
    assert (metadata["author"], metadata["date_published"]) == (["Ines Moreau"], "2026-03-12")
    assert (metadata["site_name"], metadata["language"]) == ("Rail Weekly", "en")


def test_a_file_or_stdin_is_read_to_the_body_limit_and_no_further(tmp_path: Path) -> None:
    data = ARTICLE.encode() * 4  # 2-3 KB
    page = write(tmp_path, "page.html", data)
    small = {"EXTRACT_MAX_BODY_BYTES": "1024", "PATH": "/usr/bin:/bin"}
    for argv, stdin in (([page], None), (["-"], data)):
        command = [sys.executable, "-m", "service", "extract", *argv, "--backend", "boilerpipe"]
        done = subprocess.run(command, input=stdin, capture_output=True, timeout=60, check=False, env=small)
        assert done.returncode == 2 and b"over 1024 bytes (EXTRACT_MAX_BODY_BYTES)" in done.stderr, done.stderr
    with Path("/dev/zero").open("rb") as endless:  # ends at the limit, not in the memory's end
        command = [sys.executable, "-m", "service", "extract", "-", "--backend", "boilerpipe"]
        done = subprocess.run(command, stdin=endless, capture_output=True, timeout=60, check=False)
    assert done.returncode == 2 and b"EXTRACT_MAX_BODY_BYTES" in done.stderr


@pytest.mark.parametrize(
    ("argv", "shell", "status", "said"),
    [
        (["PAGE"], ">&-", 1, "error: cannot write the output: stdout is closed"),
        (["-"], "<&-", 2, "error: cannot read -: stdin is closed"),
        (["PAGE"], "", 1, "error: cannot write the output in ascii: set PYTHONIOENCODING=utf-8"),
    ],
)
def test_a_closed_or_narrow_standard_stream_is_one_line(
    tmp_path: Path, argv: list[str], shell: str, status: int, said: str
) -> None:
    page = write(tmp_path, "page.html", ARTICLE.replace("reader", "rëader").encode())
    words = " ".join([sys.executable, "-m", "service", "extract", *(page if a == "PAGE" else a for a in argv)])
    env = {"PATH": "/usr/bin:/bin", **({} if shell else {"PYTHONIOENCODING": "ascii"})}
    done = subprocess.run(f"{words} --backend boilerpipe {shell}", shell=True, capture_output=True, text=True,
                          timeout=60, check=False, env=env)  # fmt: skip
    assert (done.returncode, done.stderr.strip()) == (status, said)
