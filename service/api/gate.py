"""Refusing work at the door: a 429 before routing, dependencies and the body when admission is already full.

Under overload the refusal is the common answer, so it must cost the event
loop as little as possible: every CPU millisecond it spends on a request it
refuses is one it does not spend accepting the next connection. This pure ASGI
middleware answers a request for an extracting route with the same 429
``overloaded`` (same body, ``Retry-After``, counted by code and, through the
metrics middleware around it, by endpoint) as soon as not even one more
document would be admitted. It admits nothing itself: the route admits for
real once the page is read (:meth:`service.serving.extraction.ExtractionService.run`), and a
batch that is too big for the room left is refused there.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from service.api.deps import STATE_KEY, AppState
from service.api.errors import counted_error, error_headers, error_response
from service.metrics import Metrics
from service.runtime.errors import Overloaded


class AdmissionGate:
    """Answers 429 at once for ``routes`` (by method and path) while the process admits no more documents."""

    def __init__(self, app: ASGIApp, metrics: Metrics, routes: Mapping[tuple[str, str], BaseRoute]) -> None:
        self.app = app
        self.metrics = metrics
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = self.routes.get((scope["method"], scope["path"])) if scope["type"] == "http" else None
        if route is not None:
            state: AppState = scope["state"][STATE_KEY]
            admission = state.extraction.admission
            if admission.full():
                scope["route"] = route  # the metrics middleware labels the answer with its endpoint
                error = Overloaded(admission.refusal(), admission.retry_after_s)
                status, code, message = counted_error(error, self.metrics)
                await error_response(status, code, message, error_headers(error))(scope, receive, send)
                return
        await self.app(scope, receive, send)
