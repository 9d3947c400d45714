"""Every answer of a real uvicorn names its request: X-Request-ID, the client's where usable, else a new one."""

from __future__ import annotations

import re

import httpx
import pytest

from support.pages import ARTICLE

NEW_ID = re.compile(r"[0-9a-f]{32}")


def test_an_answer_carries_a_new_id_each_time(client: httpx.Client) -> None:
    first, second = (client.post("/extract", content=ARTICLE, headers={"Content-Type": "text/html"}) for _ in "ab")
    assert NEW_ID.fullmatch(first.headers["x-request-id"]) and NEW_ID.fullmatch(second.headers["x-request-id"])
    assert first.headers["x-request-id"] != second.headers["x-request-id"]


@pytest.mark.parametrize("path", ["/healthz", "/nope", "/extract"])  # an answer, a 404, a 400 (no page)
def test_a_usable_client_id_is_echoed_on_every_answer(client: httpx.Client, path: str) -> None:
    response = client.get(path, headers={"X-Request-ID": "crawl-7.page:42"})
    assert response.headers["x-request-id"] == "crawl-7.page:42"


@pytest.mark.parametrize("sent", [b"a b", b"x" * 129, b"<script>", "é".encode()])
def test_an_id_unfit_for_a_log_line_is_replaced(client: httpx.Client, sent: bytes) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": sent})
    assert NEW_ID.fullmatch(response.headers["x-request-id"])
