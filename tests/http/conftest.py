"""Fixtures of the tests that meet real servers on loopback: the app under uvicorn, upstream web servers,
a headless browser, and registries of test backends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import httpx
import pytest

from service.backends.boilerpipe import BoilerpipeBackend
from service.backends.registry import BackendRegistry
from service.settings import Settings

from support.live_server import RULES_DEFAULT, LiveServer
from support.upstream import Upstream


@pytest.fixture(scope="session")
def live_server() -> Iterator[LiveServer]:
    with LiveServer(Settings(max_body_bytes=1_000_000, default_backend=RULES_DEFAULT)) as server:
        yield server


@pytest.fixture
def client(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=30.0) as http:
        yield http


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per browser test module (they import support/browser.py, which skips them without one).

    Module scope, not session: Playwright's sync API runs an event loop on the main thread while it is
    open, and every later test that calls asyncio.run would fail with "cannot be called from a running
    event loop".
    """
    from support.browser import launch_chromium  # noqa: PLC0415 -- playwright is imported by the browser tests only

    with launch_chromium() as chromium:
        yield chromium


@pytest.fixture
def offline_tab(browser: Any) -> Iterator[Any]:
    """A tab that reaches 127.0.0.1 only (see support/browser.py); its page's scripts must not throw."""
    from support.browser import OfflineTab  # noqa: PLC0415

    tab = OfflineTab(browser)
    yield tab
    tab.close()
    assert tab.errors == [], tab.errors


def _same(backend: object) -> object:
    return backend


@pytest.fixture(scope="session")
def registry_with() -> Callable[..., BackendRegistry]:
    """Boilerpipe plus the given test backends: API tests that need no trained model, whatever is shipped."""

    def build(*backends: Any) -> BackendRegistry:
        registry = BackendRegistry()
        registry.register("boilerpipe", BoilerpipeBackend)
        for backend in backends:
            registry.register(backend.name, partial(_same, backend))
        return registry

    return build


@pytest.fixture(scope="session")
def upstream() -> Iterator[Upstream]:
    with Upstream() as server:
        yield server


@pytest.fixture(scope="session")
def upstream_2(upstream: Upstream) -> Iterator[Upstream]:
    """A second upstream on 127.0.0.2, at the first one's port: a name that moves between them changes only
    the address, and an allowlist of 127.0.0.2/32 leaves every spelling of 127.0.0.1 refused (Linux routes all
    of 127/8 to loopback)."""
    with Upstream(address="127.0.0.2", port=upstream.port) as server:
        yield server
