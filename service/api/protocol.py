"""The HTTP protocol uvicorn runs: its own (httptools when installed, else h11), with two changes at the socket.

TCP_NODELAY on every connection. asyncio turns Nagle's algorithm off only on
sockets whose protocol number is TCP. With several workers uvicorn binds the
listening socket itself without one, so the connections it accepts kept Nagle
on: the response body, written after the headers, waited for the client's
delayed ACK. With ``workers=2`` that was 40 ms added to every request
(``bench --http``: 48 ms p50 at concurrency 1 against 4.4 ms with one worker).

A lingering close when the answer went out before the request's body came in.
Under overload a request is refused with 429 before its body is read; when the
client asked for ``Connection: close``, uvicorn closed the socket at once, and
closing a socket with unread bytes makes the kernel send a reset: a client
still sending its body got "connection reset" instead of the 429 (a 16 MB body
always did). Such a connection is half-closed instead (the answer, then FIN),
what the client still sends is dropped unparsed, and it is closed when the
client closes its side (uvicorn's ``eof_received`` lets the transport close) or after
:data:`LINGER_S`.

And a request uvicorn's parser refuses (a request line over its limit, a malformed
``Content-Length``, a control byte in a header) gets the service's error shape,
``{"error": {"code": "bad_request", ...}}``, where uvicorn answered in plain text.
"""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any, cast

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from service.api.errors import BAD_REQUEST

LINGER_S = 5.0  # longest wait for a client to stop sending a body nobody will read


class _Transport:
    """The connection's transport as uvicorn sees it: every call passes through but ``close``."""

    def __init__(self, transport: asyncio.Transport, protocol: HttpProtocol) -> None:
        self._transport = transport
        self._protocol = protocol

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def is_closing(self) -> bool:
        return self._protocol.lingering is not None or self._transport.is_closing()

    def close(self) -> None:
        self._protocol.close_connection(self._transport)


class HttpProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]  # uvicorn picks the class at import
    """uvicorn's HTTP protocol with TCP_NODELAY and a lingering close (see the module's docstring)."""

    lingering: asyncio.TimerHandle | None = None  # set while half-closed, waiting for the client to close

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(_Transport(cast(asyncio.Transport, transport), self))  # uvloop's is no subclass

    def close_connection(self, transport: asyncio.Transport) -> None:
        """Close now, or half-close and linger when part of the request's body is still on its way."""
        if self.lingering is not None or transport.is_closing():
            return
        cycle = getattr(self, "cycle", None)
        if cycle is None or not getattr(cycle, "more_body", False) or not transport.can_write_eof():
            transport.close()
            return
        transport.write_eof()  # the answer is in the buffer before it: the client reads it, then FIN
        transport.resume_reading()  # uvicorn pauses reading while a body waits unread
        self.lingering = asyncio.get_running_loop().call_later(LINGER_S, transport.close)

    def send_400_response(self, msg: str) -> None:
        """The answer to a request uvicorn's parser refuses, in the error shape of every other answer; then close."""
        body = json.dumps({"error": {"code": BAD_REQUEST, "message": msg}}).encode()
        head = [b"HTTP/1.1 400 Bad Request"]
        head += [name + b": " + value for name, value in self.server_state.default_headers]
        head += [b"content-type: application/json", b"content-length: %d" % len(body), b"connection: close"]
        self.transport.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self.lingering is None:  # once lingering, the rest of the body is dropped unparsed
            super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.lingering is not None:
            self.lingering.cancel()
        super().connection_lost(exc)
