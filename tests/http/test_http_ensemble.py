"""An ``ensemble`` backend served alone over HTTP by a real uvicorn: its members are loaded behind it, unlisted."""

from __future__ import annotations

import httpx

from service.settings import Settings

from support.live_server import LiveServer
from support.paths import FIXTURES_DIR

ARTICLE = FIXTURES_DIR / "article.html"


def test_served_over_http_alone_its_members_loaded_behind_it() -> None:
    settings = Settings(enabled_backends=["ensemble_cpu"], default_backend="ensemble_cpu")
    with LiveServer(settings) as server, httpx.Client(base_url=server.url, timeout=30.0) as http:
        response = http.post("/extract", content=ARTICLE.read_bytes(), headers={"Content-Type": "text/html"})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["backend"] == "ensemble_cpu"
        assert "the sleeper train looked like a relic" in body["text"]
        assert [b["name"] for b in http.get("/backends").json()["backends"]] == ["ensemble_cpu"]
