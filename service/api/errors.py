"""One error model for the HTTP edge: ``{"error": {"code", "message"}}``.

Domain errors know nothing of HTTP; this table is the only place that
gives each error class a status and a stable snake_case code.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.errors import ExtractionError, UnknownBackend, UnknownFormat


class RequestError(ExtractionError):
    """A request the API cannot read (raised by the HTTP layer only)."""


class EmptyBody(RequestError):
    """No page in the request."""


class BodyTooLarge(RequestError):
    """A body above the configured byte limit."""


class UnsupportedMediaType(RequestError):
    """A body that is neither HTML nor JSON."""


class InvalidJson(RequestError):
    """A JSON body that does not parse."""


# error class -> (HTTP status, stable code). Looked up along the class's MRO.
ERROR_TABLE: dict[type[Exception], tuple[int, str]] = {
    UnknownBackend: (400, "unknown_backend"),
    UnknownFormat: (400, "unknown_format"),
    EmptyBody: (400, "empty_body"),
    InvalidJson: (400, "invalid_json"),
    BodyTooLarge: (413, "body_too_large"),
    UnsupportedMediaType: (415, "unsupported_media_type"),
    RequestValidationError: (422, "validation_error"),
    ExtractionError: (400, "bad_request"),
}

# What Starlette raises itself (unknown route, wrong method) -> stable code.
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def status_and_code(error: Exception) -> tuple[int, str]:
    for klass in type(error).__mro__:
        found = ERROR_TABLE.get(klass)
        if found is not None:
            return found
    return 500, "internal_error"


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def _message(error: Exception) -> str:
    if isinstance(error, RequestValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}" for e in error.errors())
    return str(error) or type(error).__name__


async def _handle(_: Request, error: Exception) -> JSONResponse:
    status, code = status_and_code(error)
    return error_response(status, code, _message(error) if status < 500 else "internal error")


async def _handle_http(_: Request, error: Exception) -> JSONResponse:
    status = getattr(error, "status_code", 500)
    detail = getattr(error, "detail", "")
    return error_response(status, _HTTP_CODES.get(status, "http_error"), str(detail), getattr(error, "headers", None))


def install_error_handlers(app: FastAPI) -> None:
    """Route every error through the table, so each response has the same shape."""
    app.add_exception_handler(StarletteHTTPException, _handle_http)
    app.add_exception_handler(RequestValidationError, _handle)
    app.add_exception_handler(ExtractionError, _handle)
    app.add_exception_handler(Exception, _handle)
