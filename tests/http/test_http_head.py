"""HEAD on a real uvicorn: answered wherever GET is, without a body (RFC 9110); a 405 where GET is not."""

from __future__ import annotations

import httpx
import pytest

from support.scrapes import scrape, value


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/backends", "/metrics", "/", "/docs"])
def test_head_answers_as_get_without_a_body(client: httpx.Client, path: str) -> None:
    got, head = client.get(path), client.head(path)
    assert got.status_code == head.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]


def test_head_on_a_post_only_path_is_405_naming_post(client: httpx.Client) -> None:
    response = client.head("/compare")
    assert response.status_code == 405 and response.headers["allow"] == "POST"


def test_a_head_is_counted_as_the_get_it_runs(client: httpx.Client) -> None:
    labels = {"endpoint": "GET /healthz", "backend": "none", "outcome": "ok"}
    before = value(scrape(client.get("/metrics").text), "extract_requests_total", **labels)
    client.head("/healthz")
    assert value(scrape(client.get("/metrics").text), "extract_requests_total", **labels) == before + 1
