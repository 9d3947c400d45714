"""One error model for the HTTP edge: ``{"error": {"code", "message"}}``.

Domain errors know nothing of HTTP; :data:`ERROR_TABLE` is the only place
that gives each error class a status and a stable snake_case code, and
every error response is counted by its code. Anything the table does not
know is a bug: a 500 ``internal_error`` whose details go to the log only.
"""

from __future__ import annotations

import logging
import math

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.api.request_ids import request_id_of
from service.errors import (
    EmptyPage,
    ExtractionError,
    InvalidOption,
    InvalidSelector,
    NothingSelected,
    NotHtml,
    PageTooComplex,
    UnknownBackend,
    UnknownFormat,
)
from service.fetching.errors import (
    InvalidUrl,
    RobotsDisallowed,
    TooManyRedirects,
    UpstreamError,
    UpstreamNotHtml,
    UpstreamStatus,
    UpstreamTimeout,
    UpstreamTooLarge,
    UrlNotAllowed,
)
from service.metrics import CLIENT_CLOSED_REQUEST, Metrics
from service.runtime.errors import ClientGone, Overloaded


class RequestError(ExtractionError):
    """A request the API cannot read (raised by the HTTP layer only)."""


class BodyTooLarge(RequestError):
    """A body above the configured byte limit (decompressed, for a gzip body)."""


class BodyTimeout(RequestError):
    """A body that did not arrive within the configured time: a client that trickles it, or stalls."""


class UnsupportedContentEncoding(RequestError):
    """A body in a Content-Encoding other than gzip or identity."""


class BadContentEncoding(RequestError):
    """A gzip body that does not decompress, or holds more than one gzip stream."""


class TooManyDocuments(RequestError):
    """A batch with more documents than the configured limit."""


class UnsupportedMediaType(RequestError):
    """A body that is neither HTML nor JSON."""


class InvalidJson(RequestError):
    """A JSON body that does not parse."""


class Unauthorized(RequestError):
    """No API key, or one the service does not know."""


class NotReady(RequestError):
    """The process is starting, draining, or a backend reports it cannot serve."""


BAD_REQUEST = "bad_request"  # the code of a 400 that nothing more precise names (uvicorn's parser's too)

log = logging.getLogger(__name__)

# error class -> (HTTP status, stable code). Looked up along the class's MRO,
# so a subclass without its own row gets its parent's.
ERROR_TABLE: dict[type[Exception], tuple[int, str]] = {
    UnknownBackend: (400, "unknown_backend"),
    UnknownFormat: (400, "unknown_format"),
    InvalidOption: (422, "validation_error"),  # what the request schema answers for the same values
    EmptyPage: (400, "empty_body"),
    InvalidJson: (400, "invalid_json"),
    BadContentEncoding: (400, "bad_content_encoding"),
    InvalidUrl: (400, "invalid_url"),
    Unauthorized: (401, "unauthorized"),
    UrlNotAllowed: (403, "url_not_allowed"),
    RobotsDisallowed: (403, "robots_disallowed"),
    BodyTimeout: (408, "body_timeout"),
    BodyTooLarge: (413, "body_too_large"),
    TooManyDocuments: (413, "too_many_documents"),
    UnsupportedMediaType: (415, "unsupported_media_type"),
    UnsupportedContentEncoding: (415, "unsupported_content_encoding"),
    RequestValidationError: (422, "validation_error"),
    NotHtml: (422, "not_html"),
    InvalidSelector: (422, "invalid_selector"),
    NothingSelected: (422, "nothing_selected"),
    PageTooComplex: (422, "page_too_complex"),
    ClientGone: (CLIENT_CLOSED_REQUEST, "client_closed_request"),
    Overloaded: (429, "overloaded"),
    TooManyRedirects: (502, "too_many_redirects"),
    UpstreamTooLarge: (502, "upstream_too_large"),
    UpstreamNotHtml: (502, "upstream_not_html"),
    UpstreamStatus: (502, "upstream_status"),
    UpstreamError: (502, "upstream_error"),
    NotReady: (503, "not_ready"),
    UpstreamTimeout: (504, "upstream_timeout"),
    ExtractionError: (400, BAD_REQUEST),
}

# What Starlette raises itself (unknown route, wrong method) -> stable code.
HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}
INTERNAL = (500, "internal_error")
SHUTTING_DOWN = (503, "shutting_down")  # a request the server cancelled at shutdown (service.api.shutdown)

# Every code a response can carry, for pre-initialising the error counter.
ERROR_CODES = sorted(
    {code for _, code in ERROR_TABLE.values()} | {*HTTP_CODES.values(), "http_error", INTERNAL[1], SHUTTING_DOWN[1]}
)


def status_and_code(error: Exception) -> tuple[int, str]:
    for klass in type(error).__mro__:
        found = ERROR_TABLE.get(klass)
        if found is not None:
            return found
    return INTERNAL


def error_headers(error: Exception) -> dict[str, str] | None:
    """Headers a client needs to act on the error: when to retry, how to authenticate."""
    if isinstance(error, Overloaded):
        return {"Retry-After": str(max(1, math.ceil(error.retry_after_s)))}
    if isinstance(error, Unauthorized):
        return {"WWW-Authenticate": "Bearer"}
    return None


def counted_error(error: Exception, metrics: Metrics) -> tuple[int, str, str]:
    """(status, code, message) of an error, counted by its code; an internal error's details stay in the log."""
    status, code = status_and_code(error)
    metrics.errors.labels(code).inc()
    return status, code, "internal error" if (status, code) == INTERNAL else _message(error)


def error_fields(error: Exception) -> dict[str, object]:
    """Facts a client may act on beyond the code and message: the upstream's own status."""
    if isinstance(error, UpstreamStatus):
        return {"upstream_status": error.status}
    return {}


METHOD_NOT_ALLOWED = 405


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None, **fields: object
) -> JSONResponse:
    body = {"code": code, "message": message, **fields}
    return JSONResponse({"error": body}, status_code=status, headers=headers)


def _message(error: Exception) -> str:
    if isinstance(error, RequestValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}" for e in error.errors())
    return str(error) or type(error).__name__


def allowed_methods(request: Request, starlettes: str) -> str:
    """Every method the app's API answers at the request's path, as its OpenAPI schema lists them.

    A path the schema does not list keeps Starlette's ``starlettes``.
    """
    listed = request.app.openapi().get("paths", {}).get(request.scope.get("path", ""), {})
    methods = {method.upper() for method in listed}
    if "GET" in methods:
        methods.add("HEAD")  # service.api.head answers it
    return ", ".join(sorted(methods)) or starlettes


def install_error_handlers(app: FastAPI, metrics: Metrics) -> None:
    """Route every error through the table, so each response has the same shape and is counted."""

    async def handle(request: Request, error: Exception) -> JSONResponse:
        # An internal error's details reach the log: Starlette re-raises after this response; this line ties
        # the traceback after it to the answer's X-Request-ID.
        status, code, message = counted_error(error, metrics)
        if (status, code) == INTERNAL:
            log.error(
                "internal error on %s %s (request %s)", request.method, request.url.path, request_id_of(request.scope)
            )
        return error_response(status, code, message, error_headers(error), **error_fields(error))

    async def handle_http(request: Request, error: Exception) -> JSONResponse:
        status = getattr(error, "status_code", 500)
        code = HTTP_CODES.get(status, "http_error")
        metrics.errors.labels(code).inc()
        headers = getattr(error, "headers", None)
        if status == METHOD_NOT_ALLOWED:  # Starlette names the first route's methods: /extract has a GET and a POST
            headers = {**(headers or {}), "Allow": allowed_methods(request, (headers or {}).get("Allow", ""))}
        return error_response(status, code, str(getattr(error, "detail", "")), headers)

    app.add_exception_handler(StarletteHTTPException, handle_http)
    app.add_exception_handler(RequestValidationError, handle)
    app.add_exception_handler(ExtractionError, handle)
    app.add_exception_handler(Exception, handle)
