"""Reading a request body within a byte limit, and the page it carries (checked to be one) before it is parsed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from service.api.errors import BodyTooLarge, InvalidJson, UnsupportedMediaType
from service.api.schemas import PageInput, PageOptions
from service.errors import EmptyPage
from service.fetching.fetcher import media_type
from service.parsing.page_check import check_page

HTML_MEDIA_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
JSON_MEDIA_TYPES = frozenset({"application/json"})

Model = TypeVar("Model", bound=BaseModel)
Options = TypeVar("Options", bound=PageOptions)
Payload = TypeVar("Payload", bound=PageInput)


@dataclass(frozen=True, slots=True)
class Page:
    """One page to extract: its bytes or text, the charset its sender declared, where it came from."""

    html: str | bytes
    charset: str | None = None
    url: str | None = None


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The whole body; 413 from the Content-Length header alone when it says too much."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise BodyTooLarge(f"body of {declared} bytes exceeds the limit of {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise BodyTooLarge(f"body exceeds the limit of {max_bytes} bytes")
        chunks.append(chunk)
    body = b"".join(chunks)
    if not body.strip():
        raise EmptyPage("the request has no page: send HTML as the body, or JSON with an 'html' field")
    return body


def parse_json(body: bytes, model: type[Model]) -> Model:
    """A JSON body as ``model``: 400 invalid_json when it does not parse, 422 when it does not fit."""
    try:
        return model.model_validate_json(body)
    except ValidationError as error:
        errors = error.errors()
        if any(e["type"] == "json_invalid" for e in errors):
            raise InvalidJson(f"the body is not valid JSON: {errors[0]['msg']}") from error
        raise RequestValidationError(errors) from error


async def read_page(
    request: Request, max_bytes: int, query: Options, json_model: type[Payload]
) -> tuple[Page, Options | Payload]:
    """The page of a request that carries either JSON (``json_model``) or raw HTML with ``query`` options."""
    media, charset = media_type(request.headers.get("content-type", ""))
    if media not in HTML_MEDIA_TYPES | JSON_MEDIA_TYPES:
        raise UnsupportedMediaType(
            f"unsupported Content-Type {media or '(none)'!r}; send text/html or application/json"
        )
    body = await read_body(request, max_bytes)
    if media in JSON_MEDIA_TYPES:
        payload = parse_json(body, json_model)
        check_page(payload.html)
        return Page(payload.html, None, payload.url), payload
    check_page(body, charset)
    return Page(body, charset, query.url), query
