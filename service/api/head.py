"""HEAD answered wherever GET is (RFC 9110, 9.3.2): ``curl -I``, uptime checkers and load balancers send it.

FastAPI's routes take the methods they name, and GET routes do not name HEAD, so a HEAD was a 405.
The app sees a GET and answers it as one (same status and headers); uvicorn, which still knows the
request's method, sends no body. Counted as the GET it runs.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class HeadAsGet:
    """Runs a HEAD request as the GET of the same path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "HEAD":
            scope = {**scope, "method": "GET"}
        await self.app(scope, receive, send)
