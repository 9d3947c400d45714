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

And a request uvicorn's parser refuses (a malformed ``Content-Length``, a control
byte in a header) gets the service's error shape,
``{"error": {"code": "bad_request", ...}}``, where uvicorn answered in plain text.

A bound on the request's head (its request line and headers), which uvicorn's httptools
parser does not have: one longer than :data:`MAX_HEAD_BYTES` gets 431, one not complete
:data:`HEAD_TIMEOUT_S` after the connection was made or the last answer sent gets 408.
Without them a client that sent half a header line held its connection for good, and
one that sent 100 MB of headers held as much memory until it left.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from typing import Any, cast

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from service.api.errors import BAD_REQUEST

_log = logging.getLogger("uvicorn.error")  # where uvicorn logs what its parser refuses
LINGER_S = 5.0  # longest wait for a client to stop sending a body nobody will read
# The longest request line and headers (Node allows 16 KiB, nginx 8 KiB a line).
MAX_HEAD_BYTES = 64 * 1024
HEAD_TIMEOUT_S = 10.0  # from the connection (or the last answer) to the end of the next request's headers
HEAD_TOO_LARGE = "request_head_too_large"
HEAD_TIMEOUT = "request_head_timeout"
_HEAD_ENDS = (b"\r\n\r\n", b"\n\n")  # the blank line after the headers (bare line feeds: the parser's leniency)


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
    head_bytes: int | None = None  # of the request head on its way; None once it is complete
    head_tail = b""  # its last bytes, where a blank line may begin that the next data ends
    head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(_Transport(cast(asyncio.Transport, transport), self))  # uvloop's is no subclass
        self._await_head()

    def _await_head(self) -> None:
        """Count and time the next request's head from now."""
        self.head_bytes, self.head_tail = 0, b""
        if self.head_timer is not None:
            self.head_timer.cancel()
        self.head_timer = asyncio.get_running_loop().call_later(HEAD_TIMEOUT_S, self._head_timed_out)

    def _head_timed_out(self) -> None:
        cycle = getattr(self, "cycle", None)
        busy = cycle is not None and not cycle.response_complete  # a pipelined request, its head read, is served
        if self.head_bytes is not None and not busy and not self.transport.is_closing():
            self._refuse(b"408 Request Timeout", HEAD_TIMEOUT, f"no whole request head within {HEAD_TIMEOUT_S:g} s")

    def _head_arrives(self, data: bytes) -> bool:
        """Follow the head through ``data``; False (and the connection answered and closed) where it is too long."""
        seen = self.head_tail + data
        ends = [at + len(end) for end in _HEAD_ENDS if (at := seen.find(end)) >= 0]
        length = (self.head_bytes or 0) - len(self.head_tail) + (min(ends) if ends else len(seen))
        if length > MAX_HEAD_BYTES:
            self._refuse(
                b"431 Request Header Fields Too Large", HEAD_TOO_LARGE, f"request head over {MAX_HEAD_BYTES} bytes"
            )
            return False
        if ends:
            self.head_bytes = None
            if self.head_timer is not None:
                self.head_timer.cancel()
        else:
            self.head_bytes, self.head_tail = length, seen[-3:]
        return True

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()

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
        self._refuse(b"400 Bad Request", BAD_REQUEST, msg)

    def _refuse(self, status: bytes, code: str, message: str) -> None:
        """Answer ``status`` with the error shape of every other answer, before the app saw the request; close.

        Logged: the app's metrics never see it.
        """
        _log.warning("%s refused before the app: %s (%s)", status.decode(), code, message)
        body = json.dumps({"error": {"code": code, "message": message}}).encode()
        head = [b"HTTP/1.1 " + status]
        head += [name + b": " + value for name, value in self.server_state.default_headers]
        head += [b"content-type: application/json", b"content-length: %d" % len(body), b"connection: close"]
        self.transport.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self.lingering is not None:  # once lingering, the rest of the body is dropped unparsed
            return
        if self.head_bytes is None or self._head_arrives(data):
            super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self.lingering, self.head_timer):
            if timer is not None:
                timer.cancel()
        super().connection_lost(exc)
