"""Shared fixtures: a real uvicorn server on 127.0.0.1 and the dev-corpus location."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from service.api.app import create_app
from service.paths import default_data_dir
from service.settings import Settings

SERVER_START_TIMEOUT_S = 20.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """A real uvicorn serving the app in a thread of this process, on loopback."""

    def __init__(self, settings: Settings) -> None:
        self.port = _free_port()
        config = uvicorn.Config(
            create_app(settings), host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=SERVER_START_TIMEOUT_S)


@pytest.fixture(scope="session")
def live_server() -> Iterator[LiveServer]:
    with LiveServer(Settings(max_body_bytes=1_000_000)) as server:
        yield server


@pytest.fixture
def client(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=30.0) as http:
        yield http


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The WCXB dev pages; tests that need them skip cleanly when they are absent."""
    path = default_data_dir()
    if not (path / "html").is_dir():
        pytest.skip(f"WCXB dev pages not found at {path} (set EXTRACT_DATA_DIR)")
    return path
