"""Reading a request body within a byte limit and a time limit, and the page it carries (checked to be one).

A body sent with ``Content-Encoding: gzip`` is decompressed as it arrives, and the
byte limit applies to what it decompresses to, so a small bomb is refused as soon
as it passes the limit. Other encodings are refused (415); a body that does not
decompress is a 400.
"""

from __future__ import annotations

import asyncio
import zlib
from collections import Counter
from typing import TypeVar

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect

from service.api.errors import (
    BadContentEncoding,
    BodyTimeout,
    BodyTooLarge,
    InvalidJson,
    UnsupportedContentEncoding,
    UnsupportedMediaType,
)
from service.api.schemas import PageInput, PageOptions
from service.errors import EmptyPage
from service.parsing.content_type import media_type
from service.parsing.page_check import check_page
from service.runtime.errors import ClientGone
from service.serving.extraction import Page
from service.settings import Settings

HTML_MEDIA_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
JSON_MEDIA_TYPES = frozenset({"application/json"})
GZIP_ENCODINGS = frozenset({"gzip", "x-gzip"})
IDENTITY = "identity"
_GZIP_WBITS = 31  # zlib's window bits for a gzip header and trailer

Model = TypeVar("Model", bound=BaseModel)
Options = TypeVar("Options", bound=PageOptions)
Payload = TypeVar("Payload", bound=PageInput)


async def read_body(request: Request, settings: Settings) -> bytes:
    """The whole body, gunzipped if it says so, within ``max_body_bytes`` and ``body_timeout_s``.

    413 from the Content-Length header alone when it says too much; 408 when the
    client has not sent it all in time, however slowly it trickles in.
    """
    max_bytes = settings.max_body_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise BodyTooLarge(f"body of {declared} bytes exceeds the limit of {max_bytes} bytes")
    gunzip = _decompressor(request.headers.get("content-encoding", IDENTITY))
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(settings.body_timeout_s):
            async for received in request.stream():
                # At most one byte past the limit, so a bomb is never inflated further than that.
                chunk = gunzip.decompress(received, max_bytes - size + 1) if gunzip is not None else received
                size += len(chunk)
                if size > max_bytes:
                    raise BodyTooLarge(f"body exceeds the limit of {max_bytes} bytes")
                chunks.append(chunk)
    except ClientDisconnect as error:  # the client left mid-body: its request, not the service, failed
        raise ClientGone("the client closed the connection before its body was sent") from error
    except TimeoutError as error:
        raise BodyTimeout(f"the body did not arrive within {settings.body_timeout_s:g} s") from error
    except zlib.error as error:
        raise BadContentEncoding(f"the body is not valid gzip: {error}") from error
    if gunzip is not None and (not gunzip.eof or gunzip.unused_data):
        raise BadContentEncoding("the body is not one whole gzip stream")
    body = b"".join(chunks)
    if not body.strip():
        raise EmptyPage("the request has no page: send HTML as the body, or JSON with an 'html' field")
    return body


def _decompressor(content_encoding: str) -> zlib._Decompress | None:
    """A gzip decompressor for a gzip body, None for an identity one; any other encoding is refused."""
    encoding = content_encoding.strip().lower() or IDENTITY
    if encoding in GZIP_ENCODINGS:
        return zlib.decompressobj(wbits=_GZIP_WBITS)
    if encoding != IDENTITY:
        raise UnsupportedContentEncoding(f"unsupported Content-Encoding {encoding!r}; send gzip or none")
    return None


def parse_json(body: bytes, model: type[Model]) -> Model:
    """A JSON body as ``model``: 400 invalid_json when it does not parse, 422 when it does not fit."""
    try:
        return model.model_validate_json(body)
    except ValidationError as error:
        errors = error.errors()
        if any(e["type"] == "json_invalid" for e in errors):
            raise InvalidJson(f"the body is not valid JSON: {errors[0]['msg']}") from error
        raise RequestValidationError(errors) from error


def check_query(request: Request, *, options: bool = True) -> None:
    """422 for a query string that would be read in part: a name given twice, or any name where the body has them.

    FastAPI reads the last of a repeated name, and none beside a JSON body: nothing is silently ignored.
    """
    items = request.query_params.multi_items()
    if items and not options:
        beside = "the JSON body carries the options: leave the query string out"
        raise RequestValidationError([_query_error(name, value, beside) for name, value in items])
    repeated = sorted(name for name, count in Counter(name for name, _ in items).items() if count > 1)
    if repeated:
        raise RequestValidationError([_query_error(name, None, "given more than once") for name in repeated])


def _query_error(name: str, value: str | None, message: str) -> dict[str, object]:
    return {"type": "value_error", "loc": ("query", name), "msg": message, "input": value}


async def read_page(
    request: Request, settings: Settings, query: Options, json_model: type[Payload]
) -> tuple[Page, Options | Payload]:
    """The page of a request that carries either JSON (``json_model``) or raw HTML with ``query`` options."""
    media, charset = media_type(request.headers.get("content-type", ""))
    if media not in HTML_MEDIA_TYPES | JSON_MEDIA_TYPES:
        raise UnsupportedMediaType(
            f"unsupported Content-Type {media or '(none)'!r}; send text/html or application/json"
        )
    check_query(request, options=media not in JSON_MEDIA_TYPES)
    body = await read_body(request, settings)
    if media in JSON_MEDIA_TYPES:
        payload = parse_json(body, json_model)
        check_page(payload.html)
        return Page(payload.html, None, payload.url), payload
    check_page(body, charset)
    return Page(body, charset, query.url), query
