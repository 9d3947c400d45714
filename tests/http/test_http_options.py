"""The extraction options over HTTP (query string, JSON body, batch, compare) on a real uvicorn; robots.txt
through the test upstream on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields
from ipaddress import ip_network

import httpx
import pytest

from service.options import Options
from service.output.formats import FORMATS
from service.settings import Settings

from support.front_matter import read_front_matter
from support.live_server import LiveServer
from support.upstream import Upstream

pytestmark = pytest.mark.timeout(60)

PAGE = """<html><head><title>Night trains</title></head><body><nav><a href="/">Home</a></nav><article>
<h1>Night trains are back</h1><p>Across Europe, operators are bringing back sleeper services that were cut
twenty years ago, and the first new routes are selling out weeks in advance.</p>
<p>Travellers say the appeal is simple: you board after dinner and wake up in another city.</p></article>
<section id="comments"><p>Great news, I will take the train to Vienna next month with my whole family.</p></section>
</body></html>"""
RAW = {"Content-Type": "text/html"}


def test_query_options_reach_the_pipeline(client: httpx.Client) -> None:
    params = {"format": "markdown", "front_matter": "true", "include_comments": "true"}
    response = client.post("/extract", params=params, content=PAGE, headers=RAW)
    assert response.status_code == 200, response.text
    body = response.json()
    front_matter, _ = read_front_matter(body["markdown"])
    assert front_matter["title"] == body["title"] == "Night trains are back"  # the metadata's, as the response's
    assert front_matter["backend"] == "boilerpipe" and front_matter["page_type"] == body["metadata"]["page_type"]
    assert "Vienna" in body["markdown"]
    assert 0.0 <= body["readable"] <= 1.0
    without = client.post("/extract", params={**params, "include_comments": "false"}, content=PAGE, headers=RAW)
    assert "Vienna" not in without.json()["text"] and "sleeper services" in without.json()["text"]


def test_json_options_and_selectors(client: httpx.Client) -> None:
    response = client.post("/extract", json={"html": PAGE, "remove_selector": "article"})
    assert response.status_code == 200, response.text
    assert "sleeper services" not in response.json()["text"]
    response = client.post("/extract", json={"html": PAGE, "include_title": True, "format": "html"})
    html = response.json()["html"]
    assert html.count("Night trains are back") == 1 and "<h1>Night trains</h1>" not in html


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"target_selector": "#nowhere"}, "nothing_selected"),
        ({"remove_selector": "div >"}, "invalid_selector"),
        ({"favor": "speed"}, "validation_error"),
        ({"include_everything": True}, "validation_error"),
    ],
)
def test_bad_options_are_refused_with_a_code(client: httpx.Client, options: dict[str, object], code: str) -> None:
    for response in (
        client.post("/extract", json={"html": PAGE, **options}),
        client.post("/extract", params=options, content=PAGE, headers=RAW),  # type: ignore[arg-type]
        client.post("/extract/batch", json={"documents": [{"html": PAGE}], **options}),
    ):
        if response.status_code == 200:  # a page error in a batch is that document's own result
            assert response.json()["results"][0]["error"]["code"] == code
        else:
            assert response.status_code == 422, response.text
            assert response.json()["error"]["code"] == code


@pytest.fixture(scope="module")
def fetching() -> Iterator[httpx.Client]:
    settings = Settings(fetch_allow_networks=[ip_network("127.0.0.1/32")], default_backend="boilerpipe")
    with LiveServer(settings) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def test_respect_robots_refuses_what_robots_txt_disallows(fetching: httpx.Client, upstream: Upstream) -> None:
    refused = fetching.get("/extract", params={"url": upstream.url("/hops/1"), "respect_robots": "true"})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "robots_disallowed"
    allowed = fetching.get("/extract", params={"url": upstream.url("/page"), "respect_robots": "true"})
    assert allowed.status_code == 200, allowed.text
    assert fetching.get("/extract", params={"url": upstream.url("/hops/1")}).status_code == 200  # opt-in only
    robots_reads = [path for path, _ in upstream.requests if path == "/robots.txt"]
    assert len(robots_reads) == 1  # cached per host
    # a host the service must not reach is refused as such, not as a robots.txt it could not read
    private = fetching.get("/extract", params={"url": "http://10.0.0.1/", "respect_robots": "true"})
    assert (private.status_code, private.json()["error"]["code"]) == (403, "url_not_allowed")
    # and a URL that is none is refused as such (robots.txt's check read it with urllib first: a 500)
    for url in ("http://[", "http://[x]/", "http://a/\\"):
        invalid = fetching.get("/extract", params={"url": url, "respect_robots": "true"})
        assert (invalid.status_code, invalid.json()["error"]["code"]) == (400, "invalid_url"), url


def test_every_option_is_documented_in_openapi(client: httpx.Client) -> None:
    schema = client.get("/openapi.json").json()
    wanted = {spec.name for spec in fields(Options)}
    for method in ("get", "post"):
        parameters = {p["name"]: p for p in schema["paths"]["/extract"][method]["parameters"]}
        assert wanted <= parameters.keys(), method
        assert all(parameters[name].get("description") for name in wanted)
    assert parameters["format"]["schema"]["enum"] == list(FORMATS)
    assert "readable" in schema["components"]["schemas"]["ExtractResponse"]["required"]


@pytest.mark.parametrize(
    ("method", "path", "query", "body"),
    [
        ("POST", "/extract", "format=html", {"json": {"html": PAGE}}),  # the JSON body carries the options
        ("POST", "/extract/batch", "zzz=1&format=html", {"json": {"documents": [{"html": PAGE}]}}),
        ("POST", "/compare", "format=html", {"json": {"html": PAGE}}),
        ("POST", "/extract", "format=html&format=markdown", {"content": PAGE, "headers": RAW}),  # which one?
        ("GET", "/extract", "url=http://a.example/&url=http://b.example/", {}),
    ],
)
def test_a_query_string_that_would_be_read_in_part_is_422(
    client: httpx.Client, method: str, path: str, query: str, body: dict[str, object]
) -> None:
    response = client.request(method, f"{path}?{query}", **body)  # type: ignore[arg-type]
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert "query." in error["message"] and ("JSON body" in error["message"] or "more than once" in error["message"])
