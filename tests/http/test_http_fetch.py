"""``GET /extract?url=`` through a real uvicorn: fetching, upstream failures, redirects; traffic stays on 127.0.0.1.

The SSRF matrix, direct and through redirects, is in test_ssrf_matrix.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from ipaddress import IPv4Address, ip_network
from urllib.parse import quote

import httpx
import pytest

from service.backends.registry import default_registry
from service.settings import Settings

from support.live_server import LiveServer
from support.pages import DECLARED_TEXT, EXOTIC_CODECS
from support.upstream import MapResolver, Upstream

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def allowlisted() -> Iterator[httpx.Client]:
    """The service with 127.0.0.1 allowlisted, so it can fetch from the test upstream."""
    settings = Settings(fetch_allow_networks=[ip_network("127.0.0.1/32")], fetch_read_timeout_s=0.5)
    resolver = MapResolver({"upstream.test": [IPv4Address("127.0.0.1")]})
    with (
        LiveServer(settings, resolver=resolver) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client


def error_code(response: httpx.Response) -> str:
    return str(response.json()["error"]["code"])


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


def test_an_upstream_404_is_a_502_that_carries_the_status(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/missing")})
    assert response.status_code == 502
    assert response.json() == {
        "error": {"code": "upstream_status", "message": "127.0.0.1 answered HTTP 404 Not Found", "upstream_status": 404}
    }


def test_allow_error_status_extracts_the_error_page(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/missing"), "allow_error_status": True})
    assert response.status_code == 200
    body = response.json()
    assert body["upstream_status"] == 404
    assert "No such page here" in body["text"]


def test_the_charset_comes_from_the_upstream_header(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/greek"), "include_blocks": True})
    assert response.json()["blocks"][0]["text"].startswith("Ελληνικά κείμενα")


def test_include_source_returns_the_decoded_page(allowlisted: httpx.Client, upstream: Upstream) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url("/greek"), "include_source": True})
    assert "Ελληνικά" in response.json()["source_html"]


# Location headers that once escaped as a 500: each is now a refusal with a code, before any connection.
INVALID_LOCATIONS = [
    "http:\\\\127.0.0.1\\",
    "\\\\127.0.0.1",
    "/\\127.0.0.1",
    "https:/\\evil.example",
    "http://a b.example/",
    "http://a\x01b.example/",
    "/page\x7f",
    "",
    "http://::1/",  # IPv6 without brackets
    "http://[::1",
    "http://example.com:99999/",
    "http://example.com:0/",
    "http://example.com:-1/",
    "http://example.com:abc/",
    "http://\u00ad/",
    "http://%00/",
    "http://",
    "http:",
]


@pytest.mark.parametrize("location", INVALID_LOCATIONS)
def test_a_redirect_to_an_invalid_url_is_a_502(allowlisted: httpx.Client, upstream: Upstream, location: str) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url(f"/to?location={quote(location)}")})
    assert response.status_code == 502, response.text
    assert error_code(response) == "upstream_error"
    assert "redirected to an invalid URL" in response.json()["error"]["message"]


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
    "location", ["data:text/html,<p>hi</p>", "javascript:alert(1)", "file:///etc/passwd", "ftp://example.com/"]
)
def test_a_redirect_to_another_scheme_is_403(allowlisted: httpx.Client, upstream: Upstream, location: str) -> None:
    response = allowlisted.get("/extract", params={"url": upstream.url(f"/to?location={quote(location)}")})
    assert response.status_code == 403, response.text
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


@pytest.mark.parametrize("path", ["/blank", "/binary"])
def test_an_html_answer_that_is_no_page_is_502_upstream_not_html(
    allowlisted: httpx.Client, upstream: Upstream, path: str
) -> None:
    """The checks a page posted to the API passes (empty_body, not_html there): the upstream sent no page."""
    response = allowlisted.get("/extract", params={"url": upstream.url(path)})
    assert (response.status_code, error_code(response)) == (502, "upstream_not_html")


@pytest.mark.parametrize("output", ["markdown", "html"])
def test_a_link_that_is_no_url_in_a_fetched_page_keeps_its_text(
    allowlisted: httpx.Client, upstream: Upstream, output: str
) -> None:
    """Every fetched page has a base URL to resolve links against; "http://[oops" resolves to nothing."""
    response = allowlisted.get("/extract", params={"url": upstream.url("/bad-link"), "format": output})
    assert response.status_code == 200, response.text
    assert "the notes" in response.json()[output] and "oops" not in response.json()[output]


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
