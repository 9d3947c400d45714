"""Every answer names its request: ``X-Request-ID``, the client's where it sent a usable one, else a new one.

A client, a proxy and the service's own log lines can then speak of the same request. A client's id is
echoed only when it is short and plain (letters, digits, ``._:-``): a header value goes into logs.
"""

from __future__ import annotations

import re
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = b"x-request-id"
STATE_KEY = "request_id"  # where the routes and the log lines find it: scope["state"]
_USABLE = re.compile(rb"[A-Za-z0-9._:-]{1,128}")


def request_id_of(scope: Scope) -> str:
    """The id :func:`with_request_ids` gave the request ("-" outside one)."""
    return str(scope.get("state", {}).get(STATE_KEY, "-"))


def with_request_ids(app: ASGIApp) -> ASGIApp:
    """``app``, with each HTTP request's id in its scope's state and its answer's ``X-Request-ID``."""

    async def naming(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        sent = next((value for name, value in scope["headers"] if name == HEADER), b"")
        request_id = sent if _USABLE.fullmatch(sent) else uuid.uuid4().hex.encode()
        scope.setdefault("state", {})[STATE_KEY] = request_id.decode()

        async def naming_the_answer(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), (HEADER, request_id)]}
            await send(message)

        await app(scope, receive, naming_the_answer)

    return naming
