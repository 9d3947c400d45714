"""Request metrics as a pure ASGI middleware: a few microseconds per request, no body buffering.

It also tells the client how long the app held the request (``Server-Timing: app;dur=<ms>``, from
entering the app to the response's start), so a load test can split its latency into the app's
share and what uvicorn, the socket and the client add.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.deps import BACKEND_LABEL_KEY
from service.metrics import NO_BACKEND, Metrics, outcome_of

SERVER_TIMING = b"server-timing"
UNMATCHED = "unmatched"  # the endpoint label of a request no route took (404, 405): paths are not labels


def endpoints_of(routes: Iterable[BaseRoute]) -> list[str]:
    """``"METHOD /path/template"`` for every route: the bounded set of endpoint labels."""
    labels = [f"{method} {path}" for route in routes for method, path in methods_and_path(route)]
    return [*labels, UNMATCHED]


def methods_and_path(route: BaseRoute) -> list[tuple[str, str]]:
    methods = getattr(route, "methods", None) or ()
    return [(method, getattr(route, "path", "")) for method in sorted(methods)]


def endpoint_label(scope: Scope) -> str:
    route = scope.get("route")
    if route is None or scope["method"] not in (getattr(route, "methods", None) or ()):
        return UNMATCHED
    return f"{scope['method']} {route.path}"


class MetricsMiddleware:
    """Counts every request by endpoint, backend and outcome, times it, and tracks requests in flight.

    Every response carries the app's time in a ``Server-Timing`` header.

    The route tells the backend through the request state (:func:`service.api.deps.label_backend`).
    """

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # what the client gets when the app raises before answering
        started = time.perf_counter()

        async def send_and_note_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                app_ms = (time.perf_counter() - started) * 1e3
                timing = (SERVER_TIMING, b"app;dur=%.3f" % app_ms)
                message = {**message, "headers": [*message.get("headers", ()), timing]}
            await send(message)

        metrics = self.metrics
        metrics.in_flight.inc()
        try:
            await self.app(scope, receive, send_and_note_status)
        finally:
            metrics.in_flight.dec()
            endpoint = endpoint_label(scope)
            backend = scope.get("state", {}).get(BACKEND_LABEL_KEY, NO_BACKEND)
            metrics.requests.labels(endpoint, backend, outcome_of(status)).inc()
            metrics.request_duration.labels(endpoint).observe(time.perf_counter() - started)
