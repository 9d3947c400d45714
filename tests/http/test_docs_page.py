"""The API docs (Swagger UI at /docs, ReDoc at /redoc) in headless Chromium with no way out of 127.0.0.1.

They must render the operations from what the service serves itself: no CDN, no fonts, no validator badge.
Skipped, saying why, where /usr/bin/chromium or the playwright package is missing (tests/support/browser.py).
"""

from __future__ import annotations

import httpx
import pytest

from support.browser import OfflineTab
from support.live_server import LiveServer

pytestmark = pytest.mark.timeout(120)


def test_swagger_ui_renders_the_operations_offline(offline_tab: OfflineTab, live_server: LiveServer) -> None:
    page = offline_tab.page
    page.goto(live_server.url + "/docs")
    extract = page.locator(".opblock-post:has(.opblock-summary-path[data-path='/extract'])")
    extract.wait_for()
    assert page.locator(".opblock-get .opblock-summary-path[data-path='/healthz']").count() == 1
    extract.locator(".opblock-summary").click()  # expanding an operation shows its request body and example
    page.get_by_text("Request body").first.wait_for()
    assert offline_tab.outside == []


def test_redoc_renders_the_operations_offline(offline_tab: OfflineTab, live_server: LiveServer) -> None:
    page = offline_tab.page
    page.goto(live_server.url + "/redoc")
    page.locator("[data-section-id='tag/extraction']").wait_for()
    operations = page.locator("[data-section-id^='operation/']")
    assert operations.count() > 5
    assert page.get_by_text("/extract/batch").count() > 0
    assert offline_tab.outside == []


def test_only_the_shipped_docs_assets_are_served(client: httpx.Client) -> None:
    assert client.get("/docs/assets/swagger-ui.css").headers["content-type"].startswith("text/css")
    for name in ("core.py", "..%2F__init__.py", "nothing.js"):
        response = client.get(f"/docs/assets/{name}")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
