"""The SSRF matrix through a real uvicorn: every form of a non-public address, a non-HTTP scheme and a
parser trick is refused, as the URL asked for and as the target of a redirect. Traffic stays on loopback.

Redirects come from an upstream on 127.0.0.2 with only 127.0.0.2/32 allowlisted, so every spelling of
127.0.0.1 stays refused there too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from ipaddress import IPv4Address, IPv6Address, ip_network
from urllib.parse import quote

import httpx
import pytest

from service.fetching.addresses import IPAddress
from service.settings import Settings

from support.addresses import NON_PUBLIC_LITERAL_URLS
from support.live_server import LiveServer
from support.upstream import MapResolver, Upstream

pytestmark = pytest.mark.timeout(60)

REFUSED = (403, "url_not_allowed")
INVALID = (400, "invalid_url")

# Test DNS: names for non-public addresses (localhost as the hosts file has it), nothing else.
DNS: dict[str, Sequence[IPAddress]] = {
    "localhost": [IPv4Address("127.0.0.1"), IPv6Address("::1")],
    "internal.test": [IPv4Address("10.0.0.1")],
    "metadata.test": [IPv4Address("169.254.169.254")],
    "mixed.test": [IPv4Address("93.184.216.34"), IPv4Address("192.168.0.10")],
}

MATRIX: list[tuple[str, tuple[int, str]]] = [
    *((url, REFUSED) for url in NON_PUBLIC_LITERAL_URLS),
    ("http://[fe80::1%25eth0]/", REFUSED),  # with a zone
    ("http://0177.0.0.1/", INVALID),  # httpx refuses a dotted quad with an octal part outright
    ("http://127.000.000.001/", INVALID),
    ("http://127.0.0.1:99999/", INVALID),
    # names that resolve to non-public addresses, however they are written
    ("http://localhost/", REFUSED),
    ("http://LOCALHOST./", REFUSED),
    ("http://LocalHost:80/", REFUSED),
    ("http://internal.test/", REFUSED),
    ("http://metadata.test/computeMetadata/v1/", REFUSED),
    ("http://mixed.test/", REFUSED),  # one private record is enough
    # parser tricks: what a browser reads as another host than a library does
    ("http://public.example@127.0.0.1/", REFUSED),
    ("http://user:pw@example.com/", REFUSED),
    ("http://public.example\\@127.0.0.1/", INVALID),
    ("http:\\\\127.0.0.1\\", INVALID),
    ("http://%31%32%37.0.0.1/", INVALID),
    ("http://%6c%6f%63%61%6c%68%6f%73%74/", INVALID),  # "localhost"
    ("http://１２７.０.０.１/", INVALID),  # fullwidth digits: 127.0.0.1 to a browser
    ("http://ｌｏｃａｌｈｏｓｔ/", INVALID),
    ("http://127.0.0.1\t/", INVALID),
    # other schemes
    ("file:///etc/passwd", REFUSED),
    ("ftp://127.0.0.1/", REFUSED),
    ("gopher://127.0.0.1:6379/_INFO", REFUSED),
    ("dict://127.0.0.1:11211/stats", REFUSED),
    ("data:text/html,<p>hi</p>", REFUSED),
    ("javascript:alert(1)", REFUSED),
]


@pytest.fixture(scope="module")
def guarded() -> Iterator[httpx.Client]:
    """The service as deployed: no allowlist."""
    with (
        LiveServer(Settings(), resolver=MapResolver(DNS)) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def redirecting(upstream_2: Upstream) -> Iterator[httpx.Client]:
    """The service with only the upstream at 127.0.0.2 allowlisted, so it can be redirected from there."""
    settings = Settings(fetch_allow_networks=[ip_network("127.0.0.2/32")], fetch_read_timeout_s=0.5)
    with (
        LiveServer(settings, resolver=MapResolver(DNS)) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client


def blocked_count(client: httpx.Client) -> float:
    lines = client.get("/metrics").text.splitlines()
    return sum(float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith("extract_blocked_urls_total{"))


def status_and_code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, str(response.json()["error"]["code"])


def test_the_matrix_covers_at_least_30_forms() -> None:
    assert len({url for url, _ in MATRIX}) == len(MATRIX) >= 30


@pytest.mark.parametrize(("url", "expected"), MATRIX)
def test_each_form_is_refused_as_the_url_asked_for(guarded: httpx.Client, url: str, expected: tuple[int, str]) -> None:
    before = blocked_count(guarded)
    response = guarded.get("/extract", params={"url": url})
    assert status_and_code(response) == expected, response.text
    assert blocked_count(guarded) == before + (expected == REFUSED)


@pytest.mark.parametrize(("url", "expected"), MATRIX)
def test_each_form_is_refused_as_a_redirect_target(
    redirecting: httpx.Client, upstream_2: Upstream, url: str, expected: tuple[int, str]
) -> None:
    """A refused target stays a 403; one that does not parse is the upstream's fault, a 502."""
    before = len(upstream_2.requests)
    response = redirecting.get("/extract", params={"url": upstream_2.url(f"/to?location={quote(url)}")})
    if expected == REFUSED:
        assert status_and_code(response) == REFUSED, response.text
    else:
        assert status_and_code(response) == (502, "upstream_error"), response.text
        assert "redirected to an invalid URL" in response.json()["error"]["message"]
    assert len(upstream_2.requests) == before + 1  # the redirecting hop, nothing after it


def test_an_address_spelled_plainly_is_named_once(guarded: httpx.Client) -> None:
    response = guarded.get("/extract", params={"url": "http://169.254.169.254/latest/meta-data/"})
    assert response.json()["error"]["message"] == "169.254.169.254 is not a public address (link-local)"
    response = guarded.get("/extract", params={"url": "http://0xa9fea9fe/"})
    assert response.json()["error"]["message"] == (
        "0xa9fea9fe is 169.254.169.254, which is not a public address (link-local)"
    )


@pytest.mark.parametrize("url", ["not a url", "example.com/page", "http://", "http://256.1.1.1/", ""])
def test_urls_that_do_not_parse_are_400(guarded: httpx.Client, url: str) -> None:
    response = guarded.get("/extract", params={"url": url})
    assert status_and_code(response) == INVALID


def test_an_unresolvable_host_is_a_502(guarded: httpx.Client) -> None:
    response = guarded.get("/extract", params={"url": "http://nowhere.test/"})
    assert status_and_code(response) == (502, "upstream_error")
