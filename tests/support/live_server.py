"""A real uvicorn serving the app on 127.0.0.1, in a thread of the test process."""

from __future__ import annotations

import threading
import time
from typing import Any

import uvicorn

from service.api.app import create_app
from service.api.protocol import HttpProtocol
from service.commands.pages import free_port
from service.settings import Settings

RULES_DEFAULT = "boilerpipe"  # the shared test server's default: no model needed, fast
SERVER_START_TIMEOUT_S = 20.0


class LiveServer:
    """A real uvicorn serving the app in a thread of this process, on loopback.

    ``app_options`` go to :func:`create_app` (a test registry of backends, a test resolver).
    """

    def __init__(self, settings: Settings, **app_options: Any) -> None:
        self.port = free_port()
        config = uvicorn.Config(
            create_app(settings, **app_options),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=settings.graceful_shutdown_timeout_s,
            http=HttpProtocol,  # as `python -m service serve` runs it
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
