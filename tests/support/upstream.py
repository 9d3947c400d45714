"""An upstream web server on loopback for the fetcher, plain or TLS, and the test DNS that names it."""

from __future__ import annotations

import gzip
import ssl
import threading
import time
import zlib
from collections.abc import Sequence
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import IPv4Address
from urllib.parse import parse_qsl, unquote

from service.fetching.addresses import IPAddress
from service.fetching.errors import UpstreamError

from support.pages import ARTICLE, page_declaring

SLOW_PAGE_TIMEOUT_S = 20.0  # /slow answers when the test releases it, at teardown, or after this

_PACKED = gzip.compress(ARTICLE.encode())
_HALVES = ARTICLE.encode()[:500], ARTICLE.encode()[500:]
# how -> (Content-Encoding, body): the article as servers compress it, and as they break it
ENCODED = {
    "gzip": ("gzip", _PACKED),
    "gzip-members": ("gzip", gzip.compress(_HALVES[0]) + gzip.compress(_HALVES[1])),  # RFC 1952: one page
    "gzip-trailing-junk": ("gzip", _PACKED + b"\r\n"),
    "zlib": ("deflate", zlib.compress(ARTICLE.encode())),
    "raw-deflate": ("deflate", zlib.compress(ARTICLE.encode(), wbits=-zlib.MAX_WBITS)),
    "gzip-cut": ("gzip", _PACKED[: len(_PACKED) // 2]),
    "not-gzip": ("gzip", ARTICLE.encode()),
    "br": ("br", ARTICLE.encode()),  # never asked for
}


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
        elif path == "/blank":  # labelled HTML, but white space
            self._send(handler, 200, b"  \n\t ", "text/html")
        elif path == "/binary":  # labelled HTML, but an image
            self._send(handler, 200, b"\x89PNG\r\n\x1a\n" + bytes(4096), "text/html")
        elif path == "/bad-link":  # an article with a link whose host is no IPv6 address: "http://["
            body = ARTICLE.replace("in it.</p>", 'in it, and <a href="http://[oops">the notes</a>.</p>', 1)
            self._send(handler, 200, body.encode(), "text/html")
        elif path == "/image":
            self._send(handler, 200, b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png")
        elif path == "/big":
            self._send(handler, 200, b"<p>" + b"x" * 200_000 + b"</p>", "text/html")
        elif path == "/big-undeclared":
            self._send(handler, 200, b"<p>" + b"x" * 200_000 + b"</p>", "text/html", declare_length=False)
        elif path == "/bomb":
            body = gzip.compress(b"<p>" + b"x" * 5_000_000 + b"</p>")
            self._send(handler, 200, body, "text/html", extra={"Content-Encoding": "gzip"})
        elif path == "/encoded":  # ?as=HOW: the article, compressed as HOW says, with Content-Encoding to match
            coding, body = ENCODED[query.removeprefix("as=")]
            self._send(handler, 200, body, "text/html", extra={"Content-Encoding": coding})
        elif path == "/endless":  # a page that trickles on until the client hangs up (or a minute has passed)
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html")
            handler.end_headers()
            for _ in range(300):
                try:
                    handler.wfile.write(b"<p>more</p>")
                    handler.wfile.flush()
                except OSError:
                    break
                time.sleep(0.2)
            handler.close_connection = True
        elif path == "/slow":
            self.release.wait(SLOW_PAGE_TIMEOUT_S)
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
