"""``GET /extract?url=``: the SSRF matrix and fetching through a real uvicorn; traffic stays on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from ipaddress import IPv4Address, IPv6Address, ip_network

import httpx
import pytest
from conftest import DECLARED_TEXT, EXOTIC_CODECS, NON_PUBLIC_LITERAL_URLS, LiveServer, Upstream

from service.backends.registry import default_registry
from service.fetching.addresses import IPAddress
from service.fetching.errors import UpstreamError
from service.settings import Settings

pytestmark = pytest.mark.timeout(60)

# Test DNS: a name for a private address, localhost as the hosts file has it, and nothing else.
ANSWERS: dict[str, Sequence[IPAddress]] = {
    "localhost": [IPv4Address("127.0.0.1"), IPv6Address("::1")],
    "internal.test": [IPv4Address("10.0.0.1")],
    "metadata.test": [IPv4Address("169.254.169.254")],
    "mixed.test": [IPv4Address("93.184.216.34"), IPv4Address("192.168.0.10")],
    "upstream.test": [IPv4Address("127.0.0.1")],
}


async def fake_dns(host: str, port: int) -> Sequence[IPAddress]:
    if host not in ANSWERS:
        raise UpstreamError(f"cannot resolve {host} (test DNS)")
    return ANSWERS[host]


@pytest.fixture(scope="module")
def guarded() -> Iterator[httpx.Client]:
    """The service as deployed: no allowlist."""
    with (
        LiveServer(Settings(), resolver=fake_dns) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def allowlisted() -> Iterator[httpx.Client]:
    """The service with 127.0.0.1 allowlisted, so it can fetch from the test upstream."""
    settings = Settings(fetch_allow_networks=[ip_network("127.0.0.1/32")], fetch_read_timeout_s=0.5)
    with (
        LiveServer(settings, resolver=fake_dns) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client


def error_code(response: httpx.Response) -> str:
    return str(response.json()["error"]["code"])


def blocked_count(client: httpx.Client) -> float:
    lines = client.get("/metrics").text.splitlines()
    return sum(float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith("extract_blocked_urls_total{"))


@pytest.mark.parametrize(
    "url",
    [
        *NON_PUBLIC_LITERAL_URLS,
        "http://localhost/",
        "http://internal.test/",
        "http://metadata.test/computeMetadata/v1/",
        "http://mixed.test/",
        "https://[fd00:ec2::254]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[2002:7f00:1::1]/",
        "file:///etc/passwd",
        "gopher://127.0.0.1:70/",
        "http://user:pw@example.com/",
    ],
)
def test_the_ssrf_matrix_is_refused_with_403(guarded: httpx.Client, url: str) -> None:
    before = blocked_count(guarded)
    response = guarded.get("/extract", params={"url": url})
    assert response.status_code == 403, response.text
    assert error_code(response) == "url_not_allowed"
    assert blocked_count(guarded) == before + 1


@pytest.mark.parametrize("url", ["not a url", "example.com/page", "http://", "http://256.1.1.1/"])
def test_urls_that_do_not_parse_are_400(guarded: httpx.Client, url: str) -> None:
    response = guarded.get("/extract", params={"url": url})
    assert response.status_code == 400
    assert error_code(response) == "invalid_url"


def test_an_unresolvable_host_is_a_502(guarded: httpx.Client) -> None:
    response = guarded.get("/extract", params={"url": "http://nowhere.test/"})
    assert response.status_code == 502
    assert error_code(response) == "upstream_error"


def test_the_allowlisted_upstream_is_fetched_and_extracted(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/hops/2"), "format": "markdown"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert "real content that a reader came for" in body["text"]
    assert body["final_url"] == upstream.url("/page")
    assert body["url"] == upstream.url("/page")
    assert body["upstream_status"] == 200
    assert body["markdown"].startswith("#") or "real content" in body["markdown"]
    assert body["timings_ms"]["fetch"] > 0


def test_a_name_is_sent_as_the_host_header(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/page?from=name", host="upstream.test")})
    assert response.status_code == 200
    assert ("/page?from=name", f"upstream.test:{upstream.port}") in upstream.requests


def test_the_upstream_status_is_reported(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/missing")})
    assert response.status_code == 200
    assert response.json()["upstream_status"] == 404


def test_the_charset_comes_from_the_upstream_header(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/greek"), "include_blocks": True})
    assert response.json()["blocks"][0]["text"].startswith("Ελληνικά κείμενα")


def test_include_source_returns_the_decoded_page(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/greek"), "include_source": True})
    assert "Ελληνικά" in response.json()["source_html"]


@pytest.mark.parametrize("label", EXOTIC_CODECS)
def test_a_python_codec_name_as_the_upstream_charset_is_an_unknown_label(
    allowlisted: httpx.Client, upstream: Upstream, label: str
) -> None:
    url = upstream.url(f"/charset?header={label}&meta={label}")
    response = allowlisted.get("/extract", params={"url": url, "include_source": True})
    assert response.status_code == 200, response.text
    assert response.json()["text"] == DECLARED_TEXT
    assert DECLARED_TEXT in response.json()["source_html"]


def test_the_upstream_header_charset_wins_over_meta(allowlisted: httpx.Client, upstream: Upstream) -> None:
    url = upstream.url("/charset?header=utf-8&meta=windows-1252")
    assert allowlisted.get("/extract", params={"url": url}).json()["text"] == DECLARED_TEXT


@pytest.mark.parametrize(
    "location",
    ["http://10.0.0.1/admin", "http://169.254.169.254/latest/meta-data/", "http://internal.test/", "http://[::1]/"],
)
def test_a_redirect_to_a_private_address_is_403(allowlisted: httpx.Client, upstream: Upstream, location: str) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url(f"/to?location={location}")})
    assert response.status_code == 403
    assert error_code(response) == "url_not_allowed"


def test_upstream_failures_map_to_502_and_504(allowlisted: httpx.Client, upstream: Upstream) -> None:
    cases = {
        "/hops/6": (502, "too_many_redirects"),
        "/image": (502, "upstream_not_html"),
        "/slow": (504, "upstream_timeout"),
    }
    for path, (status, code) in cases.items():
        response = allowlisted.get("/extract", params={"url": upstream.url(path)})
        assert (response.status_code, error_code(response)) == (status, code), path


def test_backend_all_compares_a_fetched_page(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/page"), "backend": "all"})
    assert response.status_code == 200
    body = response.json()
    assert [r["backend"] for r in body["results"]] == default_registry(Settings()).names()
    assert body["final_url"] == upstream.url("/page")


def test_fetched_bytes_are_counted(allowlisted: httpx.Client, upstream: Upstream) -> None:
    def fetched() -> float:
        line = next(
            x for x in allowlisted.get("/metrics").text.splitlines() if x.startswith("extract_fetched_bytes_total ")
        )
        return float(line.split()[1])

    before = fetched()
    allowlisted.get("/extract", params={"url": upstream.url("/page")})
    assert fetched() > before
