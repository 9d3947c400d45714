"""Headless Chromium for the browser tests: Debian's package driven by Playwright (no downloaded browser).

A test module that imports this is skipped, saying why, where /usr/bin/chromium or the playwright
package is missing. Every context it opens is offline: a request to anything but the test server's
127.0.0.1 is recorded and aborted, so a test can assert that a page tried to reach nothing outside.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing: make install")

# No sandbox (root in a container), no GPU, and nothing that phones home: pages talk to 127.0.0.1 only.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 20_000
LOOPBACK = "127.0.0.1"


@contextmanager
def launch_chromium() -> Iterator[sync_api.Browser]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class OfflineTab:
    """A new tab in its own context whose every request beyond loopback is recorded in ``outside`` and aborted.

    ``errors`` collects what the page's scripts threw.
    """

    def __init__(self, browser: sync_api.Browser) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)  # every frame's requests, the framed page's included
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _route(self, route: sync_api.Route) -> None:
        if urlsplit(route.request.url).hostname == LOOPBACK:
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort("internetdisconnected")

    def close(self) -> None:
        self.context.close()
