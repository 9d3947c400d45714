"""Shared fixtures: a real uvicorn server on 127.0.0.1, an upstream web server to fetch from, test
backends, and the dev-corpus location."""

from __future__ import annotations

import gzip
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote

import httpx
import numpy as np
import pytest
import uvicorn

from service.api.app import create_app
from service.api.protocol import HttpProtocol
from service.backends.base import Backend, BlockLabels
from service.backends.boilerpipe import BoilerpipeBackend
from service.backends.registry import BackendRegistry
from service.commands.pages import free_port
from service.fetching.addresses import IPAddress
from service.fetching.errors import UpstreamError
from service.parsing.document import Document
from service.paths import default_data_dir
from service.settings import Settings

RULES_DEFAULT = "boilerpipe"  # the shared test server's default: no model needed, fast
SERVER_START_TIMEOUT_S = 20.0
GATE_TIMEOUT_S = 20.0  # a gate nobody opens fails the test instead of hanging it

ARTICLE = (
    "<html><head><title>A page</title></head><body><nav><a href='/'>Home</a> <a href='/a'>About</a></nav>"
    "<article><h1>A headline</h1>"
    + "<p>This is a long paragraph of real content that a reader came for, with enough words in it.</p>" * 4
    + "</article><footer><a href='/c'>Contact</a></footer></body></html>"
)

# Address literals that are not public, in every spelling a URL allows (decimal, hex, octal, short
# IPv4; IPv6 forms that carry an IPv4 address): the policy unit tests and the SSRF matrix refuse each.
NON_PUBLIC_LITERAL_URLS = [
    "http://127.0.0.1/",
    "http://0x7f.0.0.1/",
    "http://0x7f.1/",
    "http://2130706433/",
    "http://0177.1/",
    "http://127.1/",
    "http://127.0.0.1./",
    "http://[::1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",  # IPv4-compatible
    "http://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "http://[64:ff9b:1::a00:1]/",  # local-use NAT64 of 10.0.0.1
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[2001:0:4136:e378:8000:63bf:3f57:fefe]/",  # Teredo, client 192.168.1.1
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/",
    "http://[fd00:ec2::254]/",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://255.255.255.255/",
]

# Python codecs that are no text encodings, or cannot decode: none is a WHATWG encoding label, so a page
# naming one as its charset (Content-Type, <meta>, --charset) is read as if it named none.
EXOTIC_CODECS = ("rot13", "zlib_codec", "bz2_codec", "base64", "hex", "uu_codec", "quopri_codec", "idna", "undefined")
DECLARED_TEXT = "Crème brûlée, ①, is a dessert of rich custard under a layer of hard caramel, served cool."


def page_declaring(label: str) -> str:
    """A page whose <meta> names ``label`` as its charset; sent as UTF-8, its text reads :data:`DECLARED_TEXT`."""
    return f'<html><head><meta charset="{label}"></head><body><p>{DECLARED_TEXT}</p></body></html>'


class LiveServer:
    """A real uvicorn serving the app in a thread of this process, on loopback.

    ``app_options`` go to :func:`create_app` (a test registry of backends, a test resolver).
    """

    def __init__(self, settings: Settings, **app_options: Any) -> None:
        self.port = free_port()
        config = uvicorn.Config(
            create_app(settings, **app_options),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=settings.graceful_shutdown_timeout_s,
            http=HttpProtocol,  # as `python -m service serve` runs it
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=SERVER_START_TIMEOUT_S)


@pytest.fixture(scope="session")
def live_server() -> Iterator[LiveServer]:
    with LiveServer(Settings(max_body_bytes=1_000_000, default_backend=RULES_DEFAULT)) as server:
        yield server


@pytest.fixture
def client(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=30.0) as http:
        yield http


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per browser test module (they import tests/browser.py, which skips them without one).

    Module scope, not session: Playwright's sync API runs an event loop on the main thread while it is
    open, and every later test that calls asyncio.run would fail with "cannot be called from a running
    event loop".
    """
    from browser import launch_chromium  # noqa: PLC0415 -- playwright is imported by the browser tests only

    with launch_chromium() as chromium:
        yield chromium


@pytest.fixture
def offline_tab(browser: Any) -> Iterator[Any]:
    """A tab that reaches 127.0.0.1 only (see tests/browser.py); its page's scripts must not throw."""
    from browser import OfflineTab  # noqa: PLC0415

    tab = OfflineTab(browser)
    yield tab
    tab.close()
    assert tab.errors == [], tab.errors


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The WCXB dev pages; tests that need them skip cleanly when they are absent."""
    path = default_data_dir()
    if not (path / "html").is_dir():
        pytest.skip(f"WCXB dev pages not found at {path} (set EXTRACT_DATA_DIR)")
    return path


# Test backends: what API tests need without a model (the registry takes any object with the protocol).


class KeepAllBackend(Backend):
    """Labels every block content: a second opinion that always disagrees with Boilerpipe on boilerplate."""

    name = "keep_all"
    kind = "rules"
    version = "test-1"

    def classify(self, document: Document) -> BlockLabels:
        return BlockLabels.from_scores(np.ones(len(document), dtype=np.float32))


class GateBackend(Backend):
    """Holds every classify call until the test opens the gate, so "N requests in flight" is a fact, not a race."""

    name = "gate"
    kind = "rules"
    version = "test-1"

    def __init__(self) -> None:
        self.opened = threading.Event()
        self._entered = threading.Semaphore(0)

    def classify(self, document: Document) -> BlockLabels:
        self._entered.release()
        if not self.opened.wait(GATE_TIMEOUT_S):
            raise RuntimeError("the test never opened the gate")
        return BlockLabels.from_scores(np.ones(len(document), dtype=np.float32))

    def wait_entered(self, count: int) -> None:
        for _ in range(count):
            if not self._entered.acquire(timeout=GATE_TIMEOUT_S):
                raise AssertionError("fewer requests reached the backend than expected")


def _same(backend: object) -> object:
    return backend


@pytest.fixture(scope="session")
def registry_with() -> Callable[..., BackendRegistry]:
    """Boilerpipe plus the given test backends: API tests that need no trained model, whatever is shipped."""

    def build(*backends: Any) -> BackendRegistry:
        registry = BackendRegistry()
        registry.register("boilerpipe", BoilerpipeBackend)
        for backend in backends:
            registry.register(backend.name, partial(_same, backend))
        return registry

    return build


# An upstream web server on loopback for the fetcher, plain or TLS, and the test DNS that names it.


class MapResolver:
    """Test DNS: fixed answers, and a record of what was asked (the fetcher must ask once per hop)."""

    def __init__(self, answers: dict[str, Sequence[IPAddress]]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> Sequence[IPAddress]:
        self.asked.append(host)
        if host not in self.answers:
            raise UpstreamError(f"cannot resolve {host} (test DNS)")
        return self.answers[host]


class Upstream:
    """A small threaded web server with canned pages; records each request's path, Host header and TLS SNI."""

    def __init__(self, tls: ssl.SSLContext | None = None, address: str = "127.0.0.1", port: int = 0) -> None:
        self.requests: list[tuple[str, str | None]] = []
        self.server_names: list[str | None] = []
        self.release = threading.Event()  # lets /slow answer, at teardown
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:  # quiet
                return

            def do_GET(self) -> None:
                upstream.requests.append((self.path, self.headers.get("Host")))
                upstream.route(self)

        self.server = ThreadingHTTPServer((address, port), Handler)
        self.server.daemon_threads = True
        if tls is not None:
            tls.sni_callback = lambda _sock, name, _ctx: self.server_names.append(name)  # type: ignore[assignment]
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.address = address
        self.address_ip = IPv4Address(address)
        self.port = int(self.server.server_address[1])
        self.scheme = "https" if tls is not None else "http"
        self.thread = threading.Thread(target=partial(self.server.serve_forever, poll_interval=0.05), daemon=True)

    def url(self, path: str, host: str | None = None) -> str:
        return f"{self.scheme}://{host or self.address}:{self.port}{path}"

    def route(self, handler: BaseHTTPRequestHandler) -> None:
        path, _, query = handler.path.partition("?")
        if path == "/page":
            self._send(handler, 200, ARTICLE.encode(), "text/html; charset=utf-8")
        elif path == "/missing":
            self._send(handler, 404, b"<html><body><p>No such page here.</p></body></html>", "text/html")
        elif path == "/cookie":  # sets a cookie, and shows the one it was sent
            body = f"<html><body><p>Cookie sent: {handler.headers.get('Cookie')}</p></body></html>".encode()
            self._send(handler, 200, body, "text/html", extra={"Set-Cookie": "session=secret; Path=/"})
        elif path == "/greek":
            body = "<html><body><p>Ελληνικά κείμενα εδώ, αρκετά μεγάλα.</p></body></html>".encode("iso-8859-7")
            self._send(handler, 200, body, "text/html; charset=iso-8859-7")
        elif path == "/charset":  # ?header=NAME&meta=NAME: a UTF-8 page that names them in its header and <meta>
            labels = dict(parse_qsl(query))
            body = page_declaring(labels["meta"]).encode()
            self._send(handler, 200, body, f"text/html; charset={labels['header']}")
        elif path.startswith("/hops/"):
            left = int(path.removeprefix("/hops/"))
            self._redirect(handler, f"/hops/{left - 1}" if left > 1 else "/page")
        elif path == "/to":
            self._redirect(handler, unquote(query.removeprefix("location=")))
        elif path == "/robots.txt":  # the hops are off limits to every robot
            self._send(handler, 200, b"User-agent: *\nDisallow: /hops/\n", "text/plain")
        elif path == "/image":
            self._send(handler, 200, b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png")
        elif path == "/big":
            self._send(handler, 200, b"<p>" + b"x" * 200_000 + b"</p>", "text/html")
        elif path == "/big-undeclared":
            self._send(handler, 200, b"<p>" + b"x" * 200_000 + b"</p>", "text/html", declare_length=False)
        elif path == "/bomb":
            body = gzip.compress(b"<p>" + b"x" * 5_000_000 + b"</p>")
            self._send(handler, 200, body, "text/html", extra={"Content-Encoding": "gzip"})
        elif path == "/slow":
            self.release.wait(GATE_TIMEOUT_S)
            self._send(handler, 200, ARTICLE.encode(), "text/html")
        else:
            self._send(handler, 404, b"not found", "text/plain")

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        content_type: str,
        *,
        declare_length: bool = True,
        extra: dict[str, str] | None = None,
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        for key, value in (extra or {}).items():
            handler.send_header(key, value)
        if declare_length:
            handler.send_header("Content-Length", str(len(body)))
        else:
            handler.send_header("Connection", "close")
            handler.close_connection = True
        handler.end_headers()
        handler.wfile.write(body)

    @staticmethod
    def _redirect(handler: BaseHTTPRequestHandler, location: str) -> None:
        handler.send_response(302)
        handler.send_header("Location", location.encode().decode("latin-1"))  # UTF-8 on the wire, as servers send it
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def __enter__(self) -> Upstream:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def upstream() -> Iterator[Upstream]:
    with Upstream() as server:
        yield server


@pytest.fixture(scope="session")
def upstream_2(upstream: Upstream) -> Iterator[Upstream]:
    """A second upstream on 127.0.0.2, at the first one's port: a name that moves between them changes only
    the address, and an allowlist of 127.0.0.2/32 leaves every spelling of 127.0.0.1 refused (Linux routes all
    of 127/8 to loopback)."""
    with Upstream(address="127.0.0.2", port=upstream.port) as server:
        yield server
