"""The reader page's response headers: no other site may frame it, and its type is not sniffed."""

from __future__ import annotations

import httpx


def test_the_reader_page_cannot_be_framed_by_other_sites(client: httpx.Client) -> None:
    response = client.get("/")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"
