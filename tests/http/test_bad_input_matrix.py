"""The bad-input matrix: every bad input we know of, to every front door that takes a page.

The doors: ``POST /extract`` with a raw body and with JSON, ``POST /extract/batch`` (the bad page
beside a good one), ``POST /compare``, and ``python -m service extract``. Each input gets a 200 or
a 4xx with a code (the CLI: exit 0, or exit 2 and ``error: <code>: ...``), never a 5xx, never a
hang; a batch document gets the code the single-page door gives. The server is a real one in its
own process (``python -m service serve``, boilerpipe only), so that its resident memory, read from
``/proc/<pid>/status``, is its own: after the whole matrix it is back within 10 % of where it was
after warming up.

The big inputs are the sizes that took minutes before the page budget (two million siblings, 200,000
levels, 100,000 attributes); they are refused from a count of their bytes, so the matrix stays fast.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from service.cli import main
from service.commands.pages import free_port

from support.pages import ARTICLE
from support.paths import REPO

pytestmark = pytest.mark.timeout(120)

BODY_TIMEOUT_S = 1.0
START_TIMEOUT_S = 60.0
RSS_TOLERANCE = 0.10
CLIENT_TIMEOUT_S = 30.0  # a hang fails the test instead of stalling it
ARTICLE_TEXT = "real content that a reader came for"


@dataclass(frozen=True)
class Bad:
    """A bad input: its bytes, the charset a sender declares (None: none), and the code it must get (None: any)."""

    body: bytes
    charset: str | None = None
    code: str | None = None


def _nested(depth: int) -> bytes:
    return b"<html><body>" + b"<div>" * depth + b"<p>Deep down there is some text.</p>"


def _attributes(count: int) -> bytes:
    return b"<html><body><div " + b" ".join(b"a%d" % i for i in range(count)) + b"><p>x</p></div>"


INPUTS = {
    "python codec rot13 in the header": Bad(ARTICLE.encode(), "rot13"),
    "python codec zlib_codec in the header": Bad(ARTICLE.encode(), "zlib_codec"),
    "bogus charset in the header": Bad(ARTICLE.encode(), "klingon"),
    "python codec in meta": Bad(ARTICLE.replace("<head>", '<head><meta charset="base64">').encode()),
    "bogus charset in meta": Bad(ARTICLE.replace("<head>", '<head><meta charset="x-nonsense">').encode()),
    "utf-8 bom, windows-1252 header": Bad(b"\xef\xbb\xbf" + ARTICLE.encode(), "windows-1252"),
    "utf-16 bom, utf-8 meta": Bad(ARTICLE.replace("<head>", '<head><meta charset="utf-8">').encode("utf-16")),
    "utf-8 bom, utf-16 header": Bad(b"\xef\xbb\xbf" + ARTICLE.encode(), "utf-16"),
    "invalid utf-8": Bad(ARTICLE.replace("real", "r\udcffe\udcc3al").encode("utf-8", "surrogateescape")),
    "invalid utf-8 declared utf-8": Bad(b"<p>\xff\xfe\xfd broken \xc3\x28 utf-8</p>" * 20, "utf-8"),
    "utf-16 without a bom": Bad(ARTICLE.encode("utf-16-le")),
    "a few nul bytes": Bad(ARTICLE.replace("real content", "real\x00content\x00").encode()),
    "mostly nul bytes": Bad(b"\x00" * 10_000 + ARTICLE.encode(), code="not_html"),
    "200,000-deep nesting": Bad(_nested(200_000), code="page_too_complex"),
    "2 million siblings": Bad(b"<html><body>" + b"<p>" * 2_000_000, code="page_too_complex"),
    "1 million sibling links": Bad(b"<html><body>" + b"<a>x</a>" * 1_000_000, code="page_too_complex"),
    "100,000 attributes on an element": Bad(_attributes(100_000), code="page_too_complex"),
    "one 5 MB text node": Bad(b"<html><body><p>" + b"word " * 1_000_000 + b"</p></body></html>"),
}


# -- the server, in its own process ---------------------------------------------------------------


class Server:
    def __init__(self) -> None:
        self.port = free_port()
        env = {
            **os.environ,
            "EXTRACT_ENABLED_BACKENDS": '["boilerpipe"]',
            "EXTRACT_DEFAULT_BACKEND": "boilerpipe",
            "EXTRACT_BODY_TIMEOUT_S": str(BODY_TIMEOUT_S),
            "EXTRACT_HOST": "127.0.0.1",
            "EXTRACT_PORT": str(self.port),
        }
        command = [sys.executable, "-m", "service", "serve"]
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 -- closed in stop(); a file, as a full pipe would stall it
        self.process = subprocess.Popen(command, cwd=REPO, env=env, stdout=self.log, stderr=self.log)
        self.url = f"http://127.0.0.1:{self.port}"
        self.baseline_rss_kb = 0

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the server exited: {self.process.stderr.read().decode() if self.process.stderr else ''}"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server()
    try:
        running.wait_ready()
        with httpx.Client(base_url=running.url, timeout=CLIENT_TIMEOUT_S) as http:
            for door in DOORS.values():  # warm up every path once, so the baseline is a served server's
                for _ in range(3):
                    assert door(http, ARTICLE.encode(), None)[0] == 200
        running.baseline_rss_kb = running.rss_kb()
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def http(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=CLIENT_TIMEOUT_S) as client:
        yield client


# -- the doors: each answers (status, code or None, text or None) ---------------------------------

Answer = tuple[int, str | None, str | None]


def _answer(response: httpx.Response) -> Answer:
    assert response.status_code < 500, response.text[:500]
    body = response.json()
    if response.status_code == 200:
        return 200, None, body.get("text", body.get("results", [{}])[0].get("text"))
    return response.status_code, body["error"]["code"], None


def _content_type(charset: str | None) -> dict[str, str]:
    return {"Content-Type": f"text/html; charset={charset}" if charset else "text/html"}


def _as_text(body: bytes) -> str:
    """What a JSON client sends for these bytes: text, read as UTF-8 where it can be."""
    return body.decode("utf-8", "replace")


def raw_extract(http: httpx.Client, body: bytes, charset: str | None) -> Answer:
    return _answer(http.post("/extract", content=body, headers=_content_type(charset)))


def json_extract(http: httpx.Client, body: bytes, _: str | None) -> Answer:
    return _answer(http.post("/extract", json={"html": _as_text(body)}))


def raw_compare(http: httpx.Client, body: bytes, charset: str | None) -> Answer:
    response = http.post("/compare", params={"backends": "boilerpipe"}, content=body, headers=_content_type(charset))
    assert response.status_code < 500, response.text[:500]
    if response.status_code != 200:
        return _answer(response)
    return 200, None, response.json()["results"][0]["text"]


def batch(http: httpx.Client, body: bytes, _: str | None) -> Answer:
    """The bad page beside a good one: the batch answers 200, the bad page gets its own result or error."""
    response = http.post("/extract/batch", json={"documents": [{"html": _as_text(body)}, {"html": ARTICLE}]})
    assert response.status_code == 200, response.text[:500]
    bad, good = response.json()["results"]
    assert ARTICLE_TEXT in good["text"]
    return (200, None, bad["text"]) if "error" not in bad else (422, bad["error"]["code"], None)


DOORS = {"raw /extract": raw_extract, "json /extract": json_extract, "/compare": raw_compare, "batch": batch}


@pytest.mark.parametrize("name", INPUTS)
@pytest.mark.parametrize("door", DOORS)
def test_every_http_door_answers_200_or_a_4xx_with_a_code(http: httpx.Client, door: str, name: str) -> None:
    bad = INPUTS[name]
    if door in ("json /extract", "batch") and bad.charset is not None:
        pytest.skip("JSON carries text: no charset to declare")
    status, code, _ = DOORS[door](http, bad.body, bad.charset)
    if bad.code is not None:
        assert code == bad.code, (door, name, status)
    assert status == 200 or (400 <= status < 500 and code), (door, name, status, code)


def test_a_batch_document_gets_the_code_of_the_single_page_door(http: httpx.Client) -> None:
    for name in ("2 million siblings", "100,000 attributes on an element", "mostly nul bytes"):
        body = INPUTS[name].body
        assert batch(http, body, None)[1] == json_extract(http, body, None)[1] == INPUTS[name].code, name


# -- gzip bodies, slow bodies, wrong content types ------------------------------------------------

GZIP = {"Content-Encoding": "gzip"}


def test_a_gzip_body_is_read_on_every_door(http: httpx.Client) -> None:
    packed = gzip.compress(ARTICLE.encode())
    answers = [
        http.post("/extract", content=packed, headers={**GZIP, "Content-Type": "text/html"}),
        http.post("/compare?backends=boilerpipe", content=packed, headers={**GZIP, "Content-Type": "text/html"}),
        http.post("/extract", content=gzip.compress(httpx.Request("POST", "/", json={"html": ARTICLE}).content),
                  headers={**GZIP, "Content-Type": "application/json"}),
        http.post("/extract/batch", content=gzip.compress(
            httpx.Request("POST", "/", json={"documents": [{"html": ARTICLE}]}).content),
            headers={**GZIP, "Content-Type": "application/json"}),
    ]  # fmt: skip
    for response in answers:
        assert response.status_code == 200, response.text
        assert ARTICLE_TEXT in response.text


@pytest.mark.parametrize(
    ("body", "encoding", "status", "code"),
    [
        (gzip.compress(b"<p>" + b"x" * 50_000_000), "gzip", 413, "body_too_large"),  # 49 KB that inflate to 50 MB
        (gzip.compress(ARTICLE.encode())[:-20], "gzip", 400, "bad_content_encoding"),  # cut short
        (b"not gzip at all" * 10, "gzip", 400, "bad_content_encoding"),
        (gzip.compress(ARTICLE.encode()) * 2, "x-gzip", 400, "bad_content_encoding"),  # two streams
        (ARTICLE.encode(), "br", 415, "unsupported_content_encoding"),
        (ARTICLE.encode(), "deflate, gzip", 415, "unsupported_content_encoding"),
    ],
)
def test_bad_gzip_bodies_are_refused_with_a_code(
    http: httpx.Client, body: bytes, encoding: str, status: int, code: str
) -> None:
    for path, media in (("/extract", "text/html"), ("/compare", "text/html"), ("/extract/batch", "application/json")):
        response = http.post(path, content=body, headers={"Content-Encoding": encoding, "Content-Type": media})
        assert (response.status_code, response.json()["error"]["code"]) == (status, code), path


@pytest.mark.parametrize(
    ("path", "media"),
    [("/extract", "text/html"), ("/extract", "application/json"), ("/compare", "text/html"),
     ("/extract/batch", "application/json")],
)  # fmt: skip
def test_a_body_that_trickles_in_is_408_body_timeout(server: Server, path: str, media: str) -> None:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {media}\r\n"
        f"Content-Length: 100000\r\nConnection: close\r\n\r\n"
    ).encode()
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=CLIENT_TIMEOUT_S) as sock:
        sock.sendall(head)
        sock.settimeout(0.2)
        answer = b""
        while not answer and time.monotonic() - started < CLIENT_TIMEOUT_S:
            with contextlib.suppress(OSError):
                sock.sendall(b"<")  # a byte at a time, far slower than the body timeout allows
            with contextlib.suppress(TimeoutError):
                answer = sock.recv(65536)
        sock.settimeout(CLIENT_TIMEOUT_S)
        while b'"body_timeout"' not in answer and answer.startswith(b"HTTP/1.1 408"):  # the body may come apart
            more = sock.recv(65536)
            if not more:
                break
            answer += more
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b'"body_timeout"' in answer


@pytest.mark.parametrize("content_type", [None, "application/pdf", "image/png", "multipart/form-data; boundary=x"])
def test_wrong_content_types_are_415_on_every_door(http: httpx.Client, content_type: str | None) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    for path in ("/extract", "/compare", "/extract/batch"):
        response = http.post(path, content=ARTICLE.encode(), headers=headers)
        assert (response.status_code, response.json()["error"]["code"]) == (415, "unsupported_media_type"), path
    raw_as_batch = http.post("/extract/batch", content=ARTICLE.encode(), headers=_content_type(None))
    assert (raw_as_batch.status_code, raw_as_batch.json()["error"]["code"]) == (415, "unsupported_media_type")


# -- the command line -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", INPUTS)
def test_the_cli_exits_0_or_2_with_the_code(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str) -> None:
    bad = INPUTS[name]
    path = tmp_path / "page.html"
    path.write_bytes(bad.body)
    charset = ["--charset", bad.charset] if bad.charset else []
    status = main(["extract", "--backend", "boilerpipe", *charset, str(path)])
    out, err = capsys.readouterr()
    if status == 0:
        assert bad.code is None and err == "", (name, err)
    else:
        assert (status, out) == (2, ""), name
        assert err.startswith(f"error: {bad.code or ''}"), (name, err)
        assert err.split(":")[1].strip().isidentifier(), (name, err)


def test_the_cli_reads_a_gzip_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "page"
    path.write_bytes(gzip.compress(ARTICLE.encode()))
    assert main(["extract", "--backend", "boilerpipe", str(path)]) == 0
    assert ARTICLE_TEXT in capsys.readouterr().out


# -- and afterwards -------------------------------------------------------------------------------


def test_the_server_memory_is_back_within_10_percent_after_the_matrix(server: Server, http: httpx.Client) -> None:
    """Runs last in this module (pytest keeps file order): every input above has been through the server."""
    assert raw_extract(http, ARTICLE.encode(), None)[0] == 200
    rss = server.rss_kb()
    assert rss <= server.baseline_rss_kb * (1 + RSS_TOLERANCE), (server.baseline_rss_kb, rss)
