"""Noticing that a client has gone, so the work it asked for and that has not begun is not done.

A client that times out or is killed leaves its request behind; under load, fetching
and extracting for it takes fetch slots and threads from callers who still wait. After
the body is read, the ASGI ``receive`` channel carries nothing until the client
disconnects (or the answer is sent), so a task waiting on it can cancel a fetch in
flight and set an event the worker threads check between pages.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from fastapi import Request

from service.runtime.errors import ClientGone

DISCONNECT = "http.disconnect"

Result = TypeVar("Result")


class Departure:
    """Whether the client has left: an event for worker threads, and a race for what the event loop awaits."""

    def __init__(self, watcher: asyncio.Task[None], gone: threading.Event) -> None:
        self._watcher = watcher
        self.gone = gone

    async def unless_gone(self, work: Coroutine[Any, Any, Result]) -> Result:
        """``work``'s result; if the client leaves first, ``work`` is cancelled and :class:`ClientGone` raised."""
        task = asyncio.ensure_future(work)
        try:
            await asyncio.wait({task, self._watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():  # the client left (or this request was cancelled): give the work up
                task.cancel()
                await asyncio.wait({task})  # its own cleanup (a connection closed, a slot given back) first
        if task.cancelled():
            raise ClientGone("the client closed the connection: what it asked for was given up")
        return task.result()


@asynccontextmanager
async def watching_departure(request: Request) -> AsyncIterator[Departure]:
    """Watches ``request``'s client while the context lasts; enter it only once the body has been read."""
    gone = threading.Event()

    async def watch() -> None:
        while (await request.receive())["type"] != DISCONNECT:
            pass  # what is left of a body no route reads (a GET's)
        gone.set()

    watcher = asyncio.create_task(watch())
    try:
        yield Departure(watcher, gone)
    finally:
        watcher.cancel()
