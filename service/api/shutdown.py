"""A request the server cancels at shutdown gets the error shape: 503 ``shutting_down``.

When ``EXTRACT_GRACEFUL_SHUTDOWN_TIMEOUT_S`` runs out, uvicorn cancels the requests still running and
answered each with a plain-text 500, counted as a server error (what the paging alert watches). The
client is better told the truth in the usual shape: the server is going away, retry (another replica).
"""

from __future__ import annotations

import asyncio
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.errors import SHUTTING_DOWN, error_response
from service.api.request_ids import request_id_of
from service.metrics import Metrics

RETRY_AFTER_S = 1
log = logging.getLogger(__name__)


def answer_when_cancelled(app: ASGIApp, metrics: Metrics) -> ASGIApp:
    """``app``, answering 503 ``shutting_down`` where the server cancels a request that has not begun its answer."""

    async def answering(scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def noting_the_start(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await app(scope, receive, noting_the_start)
        except asyncio.CancelledError:
            if started or scope["type"] != "http":
                raise
            # The request is over either way; its task ends here, answered, instead of unwinding as an error.
            log.warning(
                "%s %s (%s) cancelled at shutdown: answered 503", scope["method"], scope["path"], request_id_of(scope)
            )
            status, code = SHUTTING_DOWN
            metrics.errors.labels(code).inc()
            message = "the server is shutting down and stopped this request; send it again"
            response = error_response(status, code, message, {"Retry-After": str(RETRY_AFTER_S)})
            await response(scope, receive, send)

    return answering
