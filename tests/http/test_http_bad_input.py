"""The bad-input matrix against a real uvicorn: every input gets a clear 2xx or 4xx, never a 5xx."""

from __future__ import annotations

import contextlib
import json
import random
import socket
import time

import httpx
import pytest

from service.api import protocol
from service.backends.registry import default_registry
from service.settings import Settings

from support.live_server import LiveServer
from support.pages import ARTICLE, DECLARED_TEXT, EXOTIC_CODECS, page_declaring

pytestmark = pytest.mark.timeout(60)

FIFTY_MB = 50 * 1024 * 1024
HTML = {"Content-Type": "text/html"}


def error_code(response: httpx.Response) -> str:
    return str(response.json()["error"]["code"])


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        (b"", HTML),
        (b"   \n\t ", HTML),
        (b"", {"Content-Type": "application/json"}),
    ],
)
def test_empty_bodies_are_400(client: httpx.Client, body: bytes, headers: dict[str, str]) -> None:
    response = client.post("/extract", content=body, headers=headers)
    assert (response.status_code, error_code(response)) == (400, "empty_body")


@pytest.mark.parametrize(
    "body",
    [
        bytes(range(256)) * 50,
        random.Random(7).randbytes(100_000),
        b"\x89PNG\r\n\x1a\n" + bytes(4096),
        b"\x7fELF\x02\x01\x01" + bytes(2000),
        b"PK\x03\x04" + random.Random(8).randbytes(5000),
    ],
)
def test_binary_bodies_are_422_not_html(client: httpx.Client, body: bytes) -> None:
    response = client.post("/extract", content=body, headers=HTML)
    assert (response.status_code, error_code(response)) == (422, "not_html")


def test_binary_in_a_json_string_is_422_not_html(client: httpx.Client) -> None:
    response = client.post("/extract", json={"html": "\u0000\u0001\u0002" * 1000})
    assert (response.status_code, error_code(response)) == (422, "not_html")


def test_a_few_control_bytes_in_a_real_page_are_fine(client: httpx.Client) -> None:
    page = ARTICLE.replace("real content", "real\x00content\x08")
    assert client.post("/extract", content=page.encode(), headers=HTML).status_code == 200


def test_utf16_with_a_bom_is_html_not_binary(client: httpx.Client) -> None:
    response = client.post("/extract", content=ARTICLE.encode("utf-16"), headers=HTML)
    assert response.status_code == 200
    assert "real content that a reader came for" in response.json()["text"]


@pytest.mark.parametrize("label", ["utf-16", "UTF-16LE", "unicode", "ucs-2", "csunicode"])
def test_utf16_declared_with_any_whatwg_label_is_html_not_binary(client: httpx.Client, label: str) -> None:
    body = ARTICLE.encode("utf-16-le")
    response = client.post("/extract", content=body, headers={"Content-Type": f"text/html; charset={label}"})
    assert response.status_code == 200, response.text
    assert "real content that a reader came for" in response.json()["text"]


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("<p>Café crème brûlée, déjà vu à Noël.</p>".encode("latin-1"), "text/html; charset=utf-8"),
        ("<p>Ελληνικά κείμενα εδώ</p>".encode("iso-8859-7"), "text/html; charset=klingon"),
        ("<p>日本語のテキストです。</p>".encode("shift_jis"), "text/html; charset=utf-16"),
        (b"<p>\xff\xfe\xfd broken \xc3\x28 utf-8</p>", "text/html"),
    ],
)
def test_wrong_or_unknown_charsets_still_extract(client: httpx.Client, body: bytes, content_type: str) -> None:
    """A wrong declaration garbles the text (U+FFFD, mojibake); it is never an error."""
    response = client.post("/extract", content=body, headers={"Content-Type": content_type})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("label", EXOTIC_CODECS)
def test_a_python_codec_name_as_a_charset_is_an_unknown_label(client: httpx.Client, label: str) -> None:
    """Header and <meta> alike: the page reads as if it named no charset, never a 500."""
    page = page_declaring(label)
    named = {"Content-Type": f"text/html; charset={label}"}
    one = {"backends": "boilerpipe"}
    answers = {
        "raw, header and meta": client.post("/extract", content=page.encode(), headers=named),
        "raw, meta": client.post("/extract", content=page.encode(), headers=HTML),
        "json, meta": client.post("/extract", json={"html": page}),
        "compare raw, header and meta": client.post("/compare", params=one, content=page.encode(), headers=named),
        "compare json, meta": client.post("/compare", json={"html": page, "backends": ["boilerpipe"]}),
        "batch, meta": client.post("/extract/batch", json={"documents": [{"html": page}, {"html": ARTICLE}]}),
    }
    for door, response in answers.items():
        assert response.status_code == 200, (door, response.text)
        body = response.json()
        first = body["results"][0] if "results" in body else body
        assert first["text"] == DECLARED_TEXT, door


@pytest.mark.parametrize(
    ("label", "body", "expected"),
    [
        ("Shift_JIS", "<p>①～ 日本語</p>".encode("cp932"), "①～ 日本語"),
        ("gb2312", "<p>體鎔堃</p>".encode("gbk"), "體鎔堃"),
        ("euc-kr", "<p>똠방각하</p>".encode("cp949"), "똠방각하"),
        ("iso-8859-1", b"<p>\x93quoted\x94</p>", "“quoted”"),
    ],
)
def test_charset_labels_read_as_in_browsers(client: httpx.Client, label: str, body: bytes, expected: str) -> None:
    assert block_texts(client, body, f"text/html; charset={label}") == [expected]


def test_the_header_charset_wins_over_meta(client: httpx.Client) -> None:
    page = '<meta charset="windows-1252"><p>Crème brûlée</p>'.encode()
    assert block_texts(client, page, "text/html; charset=utf-8") == ["Crème brûlée"]
    assert block_texts(client, page, "text/html; charset=windows-1252") == ["CrÃ¨me brÃ»lÃ©e"]
    # without a header, bytes that are valid UTF-8 are read so, whatever a stale <meta> says
    assert block_texts(client, page, "text/html") == ["Crème brûlée"]
    latin = '<meta charset="windows-1252"><p>Crème brûlée</p>'.encode("cp1252")
    assert block_texts(client, latin, "text/html") == ["Crème brûlée"]


def block_texts(client: httpx.Client, body: bytes, content_type: str) -> list[str]:
    response = client.post("/extract?include_blocks=true", content=body, headers={"Content-Type": content_type})
    return [block["text"] for block in response.json()["blocks"]]


@pytest.mark.parametrize("html", ["", "   ", " \n\t\r "])
def test_an_empty_page_in_json_is_400_empty_body(client: httpx.Client, html: str) -> None:
    """The same rule as a raw body: a page of white space is no page."""
    answers = [client.post("/extract", json={"html": html}), client.post("/compare", json={"html": html})]
    assert [(r.status_code, error_code(r)) for r in answers] == [(400, "empty_body")] * 2
    batch = client.post("/extract/batch", json={"documents": [{"html": ARTICLE}, {"html": html}]})
    assert batch.status_code == 200  # the empty document fails alone
    first, second = batch.json()["results"]
    assert "real content" in first["text"]
    assert second["error"]["code"] == "empty_body"


def test_a_url_that_is_no_url_is_422_and_fails_its_document_alone(client: httpx.Client) -> None:
    """urllib cannot read "http://[" (an IPv6 host that is none): the caller's base URL is a typo, not a 500."""
    for url in ("http://[", "http://[x]/"):
        answers = [
            client.post("/extract", json={"html": ARTICLE, "url": url}),
            client.post("/extract", params={"url": url}, content=ARTICLE.encode(), headers=HTML),
            client.post("/compare", json={"html": ARTICLE, "url": url}),
        ]
        assert [(r.status_code, error_code(r)) for r in answers] == [(422, "validation_error")] * 3
    batch = client.post("/extract/batch", json={"documents": [{"html": ARTICLE}, {"html": ARTICLE, "url": "http://["}]})
    assert batch.status_code == 200
    assert [bool(result.get("error")) for result in batch.json()["results"]] == [False, True]


def test_hostile_markup_in_a_page_is_no_500(client: httpx.Client) -> None:
    """A link that is no URL (with a base to join it to), JSON-LD nested past the parser, 6,000 options."""
    bad_link = ARTICLE.replace("in it.</p>", 'in it, and <a href="http://[oops">the notes</a>.</p>', 1)
    linked = client.post("/extract", json={"html": bad_link, "url": "https://example.org/", "format": "markdown"})
    assert linked.status_code == 200 and "the notes" in linked.json()["markdown"]
    deep_ld = ARTICLE.replace("</body>", '<script type="application/ld+json">' + "[" * 5000 + "</script></body>")
    assert client.post("/extract", json={"html": deep_ld}).status_code == 200
    options = "<select>" + "<option>x" * 6_000 + "</select>"  # 54 kB, the budget 5,000
    too_many = client.post("/extract", content=ARTICLE.replace("</body>", options + "</body>").encode(), headers=HTML)
    assert (too_many.status_code, error_code(too_many)) == (422, "page_too_complex")


def _raw_post(port: int, head: str, body_part: bytes) -> bytes:
    """Send headers and only a small part of a huge body; read what the server answers.

    The server may answer and close before it has read what was sent: sending then fails, and
    the answer is still there to read.
    """
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        with contextlib.suppress(OSError):  # no half-close: uvicorn would take it for a client gone away
            sock.sendall(head.encode() + body_part)
        received = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                received += chunk
        return received


@pytest.mark.parametrize(
    "head",
    [
        "POST /extract HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/html\r\nContent-Length: 12x\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Bad: a\x01b\r\n\r\n",
    ],
)
def test_a_request_the_http_parser_refuses_is_400_in_the_error_shape(live_server: LiveServer, head: str) -> None:
    """uvicorn's parser answers these before the app sees them; in plain text, until the protocol said otherwise."""
    status_line, _, rest = _raw_post(live_server.port, head, b"").partition(b"\r\n")
    headers, _, body = rest.partition(b"\r\n\r\n")
    assert status_line == b"HTTP/1.1 400 Bad Request"
    assert b"content-type: application/json" in headers.lower()
    assert json.loads(body)["error"]["code"] == "bad_request"


def _answer(raw: bytes) -> tuple[bytes, str]:
    status_line, _, rest = raw.partition(b"\r\n")
    return status_line, json.loads(rest.partition(b"\r\n\r\n")[2])["error"]["code"]


@pytest.mark.parametrize(
    "head",
    [
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a" * 70_000 + "\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + "X-Many: a\r\n" * 7_000,  # and never ending
        "GET /extract?url=http://example.com/" + "a" * 70_000 + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",  # was 400
    ],
)
def test_a_request_head_over_64_kib_is_431_before_it_is_all_read(live_server: LiveServer, head: str) -> None:
    assert _answer(_raw_post(live_server.port, head, b"")) == (
        b"HTTP/1.1 431 Request Header Fields Too Large",
        "request_head_too_large",
    )


def test_a_request_head_that_stalls_is_408(live_server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "HEAD_TIMEOUT_S", 0.5)  # read as each connection is made
    stalled = "POST /extract HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # and nothing more: held for good before
    answer = _answer(_raw_post(live_server.port, stalled, b""))
    assert answer == (b"HTTP/1.1 408 Request Timeout", "request_head_timeout")


def test_the_head_timer_starts_again_for_each_request_on_a_connection(
    live_server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(protocol, "HEAD_TIMEOUT_S", 1.0)
    with socket.create_connection(("127.0.0.1", live_server.port), timeout=20) as sock:
        for pause_s in (0.6, 0.6):  # 1.2 s in all: over the timeout, but each head within it
            time.sleep(pause_s)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")


def test_a_50_mb_body_is_413_from_its_content_length_before_it_is_read(live_server: LiveServer) -> None:
    head = (
        "POST /extract HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/html\r\n"
        f"Content-Length: {FIFTY_MB}\r\nConnection: close\r\n\r\n"
    )
    answer = _raw_post(live_server.port, head, b"<p>" + b"x" * 65536)  # 64 KB of the 50 MB are ever sent
    assert answer.startswith(b"HTTP/1.1 413")
    assert b'"body_too_large"' in answer


def test_a_50_mb_chunked_body_is_413_once_the_limit_is_passed(live_server: LiveServer) -> None:
    head = (
        "POST /extract HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/html\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    chunk = b"x" * 65536
    sent = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(20))  # 1.3 MB, over the 1 MB test limit
    answer = _raw_post(live_server.port, head, sent)
    assert answer.startswith(b"HTTP/1.1 413")


def test_a_50_mb_batch_is_413(live_server: LiveServer) -> None:
    head = (
        "POST /extract/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {FIFTY_MB}\r\nConnection: close\r\n\r\n"
    )
    assert _raw_post(live_server.port, head, b'{"documents": [').startswith(b"HTTP/1.1 413")


def test_100000_deep_nesting_extracts(client: httpx.Client) -> None:
    page = "<html><body>" + "<div>" * 100_000 + "<p>Deep down there is some text worth keeping.</p>" + "</div>" * 100
    response = client.post("/extract", content=page.encode(), headers=HTML)
    assert response.status_code == 200
    assert response.json()["title"] == ""


def test_100000_deep_json_is_invalid_json(client: httpx.Client) -> None:
    body = b'{"html": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    response = client.post("/extract", content=body, headers={"Content-Type": "application/json"})
    assert (response.status_code, error_code(response)) == (400, "invalid_json")


@pytest.mark.parametrize(
    "body",
    [b"{not json", b'{"html": "unterminated', b'{"html": "\xff\xfe"}', b"\x00\x01", b"{}garbage", b"nan"],
)
def test_invalid_json_is_400(client: httpx.Client, body: bytes) -> None:
    response = client.post("/extract", content=body, headers={"Content-Type": "application/json"})
    assert (response.status_code, error_code(response)) == (400, "invalid_json")


@pytest.mark.parametrize(
    "payload",
    [[], "just a string", 42, None, {"html": 42}, {"html": ["a"]}, {"html": "<p>x</p>", "include_blocks": "maybe"}],
)
def test_json_of_the_wrong_shape_is_422(client: httpx.Client, payload: object) -> None:
    response = client.post("/extract", content=json.dumps(payload), headers={"Content-Type": "application/json"})
    assert (response.status_code, error_code(response)) == (422, "validation_error")


def test_unknown_backend_lists_the_known_ones(client: httpx.Client) -> None:
    for response in (
        client.post("/extract?backend=nope", content=ARTICLE, headers=HTML),
        client.post("/extract/batch", json={"documents": [{"html": ARTICLE}], "backend": "nope"}),
    ):
        assert (response.status_code, error_code(response)) == (400, "unknown_backend")
        message = response.json()["error"]["message"]
        assert message.endswith("known backends: " + ", ".join(default_registry(Settings()).names()))


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("POST", "/extract?format=pdf", 422, "validation_error"),
        ("POST", "/extract?include_blocks=maybe", 422, "validation_error"),
        ("GET", "/extract", 422, "validation_error"),
        ("PUT", "/extract", 405, "method_not_allowed"),
        ("DELETE", "/backends", 405, "method_not_allowed"),
        ("GET", "/nope/%00/..%2f", 404, "not_found"),
    ],
)
def test_bad_requests_have_the_error_shape(
    client: httpx.Client, method: str, path: str, status: int, code: str
) -> None:
    response = client.request(method, path, content=ARTICLE, headers=HTML)
    assert (response.status_code, error_code(response)) == (status, code)


@pytest.mark.parametrize("content_type", [None, "application/pdf", "multipart/form-data; boundary=x", "image/png"])
def test_other_media_types_are_415(client: httpx.Client, content_type: str | None) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = client.post("/extract", content=b"%PDF-1.4 whatever", headers=headers)
    assert (response.status_code, error_code(response)) == (415, "unsupported_media_type")


def test_a_trailing_slash_is_an_unknown_path_not_a_redirect_to_the_host_header(client: httpx.Client) -> None:
    """Starlette redirected "/extract/" to the Host header's host: a client following it sent its page there."""
    response = client.post(
        "/extract/", content=b"<p>x</p>", headers={"Host": "evil.example", "Content-Type": "text/html"}
    )
    assert response.status_code == 404 and "location" not in response.headers
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("path", "allowed"), [("/extract", "GET, HEAD, POST"), ("/backends", "GET, HEAD"), ("/compare", "POST")]
)
def test_a_405_names_every_method_the_path_answers(client: httpx.Client, path: str, allowed: str) -> None:
    """Starlette named the first route's: "Allow: POST" for /extract, which GET answers too."""
    response = client.request("PUT", path, content=ARTICLE, headers=HTML)
    assert response.status_code == 405 and response.headers["allow"] == allowed
