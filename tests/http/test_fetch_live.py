"""The fetcher against real web servers on 127.0.0.1, plain and TLS: pinning, redirects, caps, timeouts."""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
from collections.abc import Iterator, Sequence
from ipaddress import IPv4Address, ip_network

import pytest
import trustme

from service.fetching.addresses import IPAddress
from service.fetching.errors import (
    FetchError,
    TooManyRedirects,
    UpstreamError,
    UpstreamNotHtml,
    UpstreamStatus,
    UpstreamTimeout,
    UpstreamTooLarge,
    UrlNotAllowed,
)
from service.fetching.fetcher import FetchedPage, Fetcher, FetchPolicy
from service.settings import Settings

from support.pages import ARTICLE
from support.upstream import MapResolver, Upstream

pytestmark = pytest.mark.timeout(60)

LOOPBACK = IPv4Address("127.0.0.1")


def policy(**overrides: object) -> FetchPolicy:
    settings = Settings(**{"fetch_allow_networks": [ip_network("127.0.0.1/32")], **overrides})  # type: ignore[arg-type]
    return FetchPolicy.from_settings(settings)


def fetch_each(
    urls: Sequence[str],
    resolver: MapResolver | None = None,
    ssl_context: ssl.SSLContext | None = None,
    *,
    allow_error_status: bool = False,
    **limits: object,
) -> list[FetchedPage]:
    """Each URL in turn, through one fetcher (what it keeps between fetches shows)."""

    async def run() -> list[FetchedPage]:
        fetcher = Fetcher(policy(**limits), resolver=resolver or MapResolver({}), ssl_context=ssl_context)
        try:
            return [await fetcher.fetch(url, allow_error_status=allow_error_status) for url in urls]
        finally:
            await fetcher.aclose()

    return asyncio.run(run())


def fetch(
    url: str,
    resolver: MapResolver | None = None,
    ssl_context: ssl.SSLContext | None = None,
    *,
    allow_error_status: bool = False,
    **limits: object,
) -> FetchedPage:
    return fetch_each([url], resolver, ssl_context, allow_error_status=allow_error_status, **limits)[0]


def test_a_page_from_an_allowlisted_server(upstream: Upstream) -> None:
    page = fetch(upstream.url("/page"))
    assert page.status == 200
    assert b"real content that a reader came for" in page.body
    assert page.charset == "utf-8"
    assert page.final_url == upstream.url("/page")


def test_the_name_goes_in_the_host_header_while_the_connection_goes_to_the_checked_address(upstream: Upstream) -> None:
    resolver = MapResolver({"news.test": [LOOPBACK]})
    page = fetch(upstream.url("/page?x=1#frag", host="news.test"), resolver)
    assert page.final_url == upstream.url("/page?x=1", host="news.test")
    assert ("/page?x=1", f"news.test:{upstream.port}") in upstream.requests
    assert resolver.asked == ["news.test"]


def test_an_answer_outside_2xx_is_refused_unless_allowed(upstream: Upstream) -> None:
    with pytest.raises(UpstreamStatus, match="answered HTTP 404 Not Found") as refused:
        fetch(upstream.url("/missing"))
    assert refused.value.status == 404
    page = fetch(upstream.url("/missing"), allow_error_status=True)
    assert page.status == 404
    assert b"No such page here" in page.body


def test_no_cookie_is_kept_from_one_fetch_to_the_next(upstream: Upstream) -> None:
    """A shared cookie jar, keyed by the pinned IP, would hand one caller's session to the next."""
    first, second = fetch_each([upstream.url("/cookie"), upstream.url("/cookie")])
    assert b"Cookie sent: None" in first.body
    assert b"Cookie sent: None" in second.body


def test_the_charset_header_comes_back(upstream: Upstream) -> None:
    greek = fetch(upstream.url("/greek"))
    assert greek.charset == "iso-8859-7"
    assert "Ελληνικά".encode("iso-8859-7") in greek.body


def test_five_redirects_are_followed_and_each_hop_is_resolved_again(upstream: Upstream) -> None:
    resolver = MapResolver({"hops.test": [LOOPBACK]})
    page = fetch(upstream.url("/hops/5", host="hops.test"), resolver)
    assert page.final_url == upstream.url("/page", host="hops.test")
    assert resolver.asked == ["hops.test"] * 6


class RebindingResolver(MapResolver):
    """A DNS server that answers each question with the next record set (the last one again once out)."""

    def __init__(self, *answers: Sequence[IPAddress]) -> None:
        super().__init__({})
        self.sequence = answers

    async def __call__(self, host: str, port: int) -> Sequence[IPAddress]:
        self.asked.append(host)
        return self.sequence[min(len(self.asked), len(self.sequence)) - 1]


BOTH_LOOPBACKS = [ip_network("127.0.0.1/32"), ip_network("127.0.0.2/32")]


def test_the_connection_goes_to_the_checked_address_not_a_second_answer(
    upstream: Upstream, upstream_2: Upstream
) -> None:
    """Name checked as 127.0.0.2; asked again, it would say 127.0.0.1, where a server listens at the same port."""
    resolver = RebindingResolver([upstream_2.address_ip], [upstream.address_ip])
    page = fetch(upstream_2.url("/page?pinned", host="rebind.test"), resolver, fetch_allow_networks=BOTH_LOOPBACKS)
    assert b"real content" in page.body
    assert resolver.asked == ["rebind.test"]
    host = f"rebind.test:{upstream.port}"
    assert ("/page?pinned", host) in upstream_2.requests
    assert not any(seen == host for _, seen in upstream.requests)


def test_each_hop_connects_to_the_address_checked_for_that_hop(upstream: Upstream, upstream_2: Upstream) -> None:
    resolver = RebindingResolver([upstream_2.address_ip], [upstream.address_ip])
    fetch(upstream_2.url("/hops/1", host="moving.test"), resolver, fetch_allow_networks=BOTH_LOOPBACKS)
    assert resolver.asked == ["moving.test", "moving.test"]
    host = f"moving.test:{upstream.port}"
    assert ("/hops/1", host) in upstream_2.requests
    assert ("/page", host) in upstream.requests
    assert ("/page", host) not in upstream_2.requests


def test_a_name_that_rebinds_to_a_private_address_on_a_redirect_is_refused(upstream_2: Upstream) -> None:
    resolver = RebindingResolver([upstream_2.address_ip], [IPv4Address("10.0.0.1")])
    with pytest.raises(UrlNotAllowed, match=r"rebound\.test resolves to 10\.0\.0\.1"):
        fetch(upstream_2.url("/hops/1", host="rebound.test"), resolver, fetch_allow_networks=BOTH_LOOPBACKS)
    assert resolver.asked == ["rebound.test", "rebound.test"]


def test_a_sixth_redirect_is_refused(upstream: Upstream) -> None:
    with pytest.raises(TooManyRedirects):
        fetch(upstream.url("/hops/6"))


@pytest.mark.parametrize(
    "location",
    [
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://0x7f.0.0.2/",  # 127.0.0.2: loopback, outside the /32 allowlist
        "file:///etc/passwd",
        "http://internal.test/",  # a name that resolves to a private address
    ],
)
def test_a_redirect_to_a_private_address_is_refused_before_connecting(upstream: Upstream, location: str) -> None:
    resolver = MapResolver({"internal.test": [IPv4Address("10.1.2.3")]})
    before = len(upstream.requests)
    with pytest.raises(UrlNotAllowed):
        fetch(upstream.url(f"/to?location={location}"), resolver)
    assert len(upstream.requests) == before + 1  # the redirecting hop only


def test_a_name_that_resolves_to_a_private_address_is_refused_without_connecting() -> None:
    resolver = MapResolver({"intranet.test": [IPv4Address("192.168.1.10")]})
    with pytest.raises(UrlNotAllowed, match=r"192\.168\.1\.10"):
        fetch("http://intranet.test/", resolver)


def test_an_unresolvable_name_is_an_upstream_error() -> None:
    with pytest.raises(UpstreamError, match="cannot resolve"):
        fetch("http://nowhere.test/")


def test_content_types_outside_the_allowlist_are_refused(upstream: Upstream) -> None:
    with pytest.raises(UpstreamNotHtml, match="image/png"):
        fetch(upstream.url("/image"))


@pytest.mark.parametrize("path", ["/big", "/big-undeclared", "/bomb"])
def test_pages_over_the_byte_cap_are_refused(upstream: Upstream, path: str) -> None:
    with pytest.raises(UpstreamTooLarge):
        fetch(upstream.url(path), fetch_max_bytes=100_000)


@pytest.mark.parametrize("how", ["gzip", "gzip-members", "gzip-trailing-junk", "zlib", "raw-deflate"])
def test_a_compressed_page_is_read_whole(upstream: Upstream, how: str) -> None:
    assert fetch(upstream.url(f"/encoded?as={how}")).body == ARTICLE.encode()


@pytest.mark.parametrize(
    ("how", "said"),
    [("gzip-cut", "ends early"), ("not-gzip", "does not decode"), ("br", "was not asked for")],
)
def test_a_compressed_page_cut_short_or_garbled_is_an_upstream_error(upstream: Upstream, how: str, said: str) -> None:
    with pytest.raises(UpstreamError, match=said):  # half a page was extracted as if whole
        fetch(upstream.url(f"/encoded?as={how}"))


def test_a_silent_server_times_out(upstream: Upstream) -> None:
    with pytest.raises(UpstreamTimeout):
        fetch(upstream.url("/slow"), fetch_read_timeout_s=0.2)


def test_the_total_timeout_covers_every_hop(upstream: Upstream) -> None:
    with pytest.raises(UpstreamTimeout):
        fetch(upstream.url("/slow"), fetch_total_timeout_s=0.3, fetch_connect_timeout_s=0.3)


def test_a_refused_connection_is_an_upstream_error(upstream: Upstream) -> None:
    with pytest.raises(FetchError):
        fetch("http://127.0.0.1:9/")  # discard port: nothing listens


# TLS: the connection goes to 127.0.0.1, the certificate is checked against the name (SNI).


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def tls_upstream(ca: trustme.CA) -> Iterator[Upstream]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("pinned.test").configure_cert(context)
    with Upstream(tls=context) as server:
        yield server


def client_context(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context


def test_tls_to_the_checked_address_verifies_the_name(tls_upstream: Upstream, ca: trustme.CA) -> None:
    resolver = MapResolver({"pinned.test": [LOOPBACK]})
    page = fetch(tls_upstream.url("/page", host="pinned.test"), resolver, client_context(ca))
    assert page.status == 200
    assert tls_upstream.server_names[-1] == "pinned.test"
    assert tls_upstream.requests[-1] == ("/page", f"pinned.test:{tls_upstream.port}")


def test_tls_refuses_a_certificate_for_another_name(tls_upstream: Upstream, ca: trustme.CA) -> None:
    resolver = MapResolver({"other.test": [LOOPBACK]})
    with pytest.raises(UpstreamError, match=r"other\.test failed: .*(?i:hostname mismatch)"):
        fetch(tls_upstream.url("/page", host="other.test"), resolver, client_context(ca))


CHUNKED_HTML = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"


def _answering_once(answer: bytes) -> tuple[str, threading.Thread]:
    """A server on 127.0.0.1 that reads one request and writes ``answer``, whatever HTTP says of it."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with listener, listener.accept()[0] as connection:
            connection.recv(65536)
            connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/", thread


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (CHUNKED_HTML + b"zz\r\n", "illegal chunk header"),
        (b"garbage " + b"x" * 20_000 + b"\r\n\r\n", "illegal status line"),
    ],
)
def test_a_protocol_error_says_what_broke_without_echoing_the_upstreams_bytes(answer: bytes, reason: str) -> None:
    """h11 appends the bytes it refused ("bytearray(b'zz\\r\\n')"): up to a whole status line in an answer and a log."""
    url, thread = _answering_once(answer)
    with pytest.raises(UpstreamError) as refused:
        fetch(url)
    thread.join(5)
    message = str(refused.value)
    assert message == f"fetching from 127.0.0.1 failed: {reason}"
