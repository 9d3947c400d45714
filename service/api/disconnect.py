"""Noticing that a client has gone, so the pages it asked for and that have not begun are not extracted.

A client that times out or is killed leaves its request behind; under load, extracting
its remaining pages takes threads from callers who still wait. After the body is read,
the ASGI ``receive`` channel carries nothing until the client disconnects (or the answer
is sent), so a task waiting on it can set an event the worker threads check between pages.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Request

DISCONNECT = "http.disconnect"


@asynccontextmanager
async def watching_disconnect(request: Request) -> AsyncIterator[threading.Event]:
    """An event set when ``request``'s client disconnects; enter it only once the body has been read."""
    gone = threading.Event()

    async def watch() -> None:
        while (await request.receive())["type"] != DISCONNECT:
            pass  # what is left of a body no route reads (a GET's)
        gone.set()

    watcher = asyncio.create_task(watch())
    try:
        yield gone
    finally:
        watcher.cancel()
