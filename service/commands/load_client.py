"""The load client: requests to ``POST /extract``, each one timed into a :class:`Sample`.

The default client speaks HTTP/1.1 over raw asyncio streams (keep-alive,
one connection per concurrent request): it costs a fraction of what
``httpx.AsyncClient`` does per request, so at high concurrency the
client's core is not the limit. ``client="httpx"`` measures with httpx.
``fresh=True`` opens a new connection for every request instead, as
one-shot clients do.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from service.commands.pages import HOST

REQUEST_TIMEOUT_S = 120.0


@dataclass(slots=True)
class Sample:
    """One request's answer as the client saw it."""

    index: int
    status: int  # 0: no answer (transport error)
    latency_ms: float
    app_ms: float | None = None  # Server-Timing: the app's share
    pipeline_ms: float | None = None  # timings_ms.total in the body: parse + classify + render
    retry_after: str | None = None
    error: str | None = None


def _server_timing(value: str | None) -> float | None:
    if not value:
        return None
    for part in value.split(";"):
        if part.startswith("dur="):
            return float(part[4:])
    return None


def _pipeline_total(body: bytes) -> float | None:
    """``timings_ms.total`` from the answer without parsing it all: the key is unescaped only there."""
    at = body.rfind(b'"total":')
    if at < 0:
        return None
    end = at + 8
    while end < len(body) and body[end] not in b",}":
        end += 1
    return float(body[at + 8 : end])


class RawConnection:
    """HTTP/1.1 over one asyncio stream: no client library in the measured path.

    Keep-alive by default; ``fresh`` opens a new connection for every request
    and asks the server to close it (``Connection: close``), as one-shot
    clients (a script, curl in a loop) do: each request then also costs the
    server an accept, which it must keep up with while it is busy.
    """

    def __init__(self, port: int, *, fresh: bool = False) -> None:
        self.port = port
        self.fresh = fresh
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        reader, writer = self.reader, self.writer
        if reader is None:
            raise ConnectionError("no connection")
        closing = "Connection: close\r\n" if self.fresh else ""
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nContent-Type: text/html\r\n"
            f"Content-Length: {len(body)}\r\n{closing}\r\n"
        )
        writer.write(head.encode())
        writer.write(body)
        await writer.drain()
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            content = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            content = await self._chunked(reader)
        else:
            content = await reader.read()
            await self.close()
        if self.fresh or headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, content

    @staticmethod
    async def _chunked(reader: asyncio.StreamReader) -> bytes:
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            parts.append(await reader.readexactly(size + 2))
            if size == 0:
                return b"".join(part[:-2] for part in parts)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
        self.reader = self.writer = None


def _sample(index: int, started: float, status: int, headers: Any, content: bytes) -> Sample:
    latency_ms = (time.perf_counter() - started) * 1e3
    return Sample(
        index,
        status,
        latency_ms,
        app_ms=_server_timing(headers.get("server-timing")),
        pipeline_ms=_pipeline_total(content) if status == 200 else None,
        retry_after=headers.get("retry-after"),
    )


async def _drive(
    port: int,
    pages: Sequence[bytes],
    *,
    concurrency: int,
    requests: int,
    duration_s: float,
    client: str,
    fresh: bool,
) -> tuple[list[Sample], float]:
    """``concurrency`` requests at a time, page ``i % len(pages)`` for request ``i``; the samples and the seconds."""
    samples: list[Sample] = []
    next_index = 0
    deadline = time.perf_counter() + duration_s
    path = "/extract"
    url = f"http://{HOST}:{port}{path}"
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=0 if fresh else concurrency)
    pool = httpx.AsyncClient(limits=limits, timeout=REQUEST_TIMEOUT_S) if client == "httpx" else None

    async def one_worker() -> None:
        nonlocal next_index
        connection = RawConnection(port, fresh=fresh)
        try:
            while next_index < requests and time.perf_counter() < deadline:
                index = next_index
                next_index += 1
                body = pages[index % len(pages)]
                started = time.perf_counter()
                try:
                    if pool is not None:
                        response = await pool.post(url, content=body, headers={"Content-Type": "text/html"})
                        samples.append(
                            _sample(index, started, response.status_code, response.headers, response.content)
                        )
                    else:
                        status, headers, content = await asyncio.wait_for(
                            connection.post(path, body), REQUEST_TIMEOUT_S
                        )
                        samples.append(_sample(index, started, status, headers, content))
                except (OSError, asyncio.IncompleteReadError, TimeoutError, httpx.TransportError) as error:
                    latency_ms = (time.perf_counter() - started) * 1e3
                    samples.append(Sample(index, 0, latency_ms, error=type(error).__name__))
                    await connection.close()
        finally:
            await connection.close()

    started = time.perf_counter()
    try:
        await asyncio.gather(*(one_worker() for _ in range(concurrency)))
    finally:
        if pool is not None:
            await pool.aclose()
    return sorted(samples, key=lambda s: s.index), time.perf_counter() - started


def drive(
    url: str,
    pages: Sequence[bytes],
    concurrency: int,
    requests: int,
    duration_s: float,
    *,
    client: str = "raw",
    fresh: bool = False,
) -> tuple[list[Sample], float]:
    """Run one round against ``url`` (``http://127.0.0.1:PORT``): bounded by ``requests`` and ``duration_s``.

    ``fresh``: a new connection for every request instead of keep-alive.
    """
    port = int(url.rsplit(":", 1)[1])
    return asyncio.run(
        _drive(
            port,
            pages,
            concurrency=concurrency,
            requests=requests,
            duration_s=duration_s,
            client=client,
            fresh=fresh,
        )
    )
