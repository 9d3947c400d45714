"""``POST /extract``: raw HTML or JSON in, the main content out."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from service.api.body import read_body
from service.api.deps import State
from service.api.errors import InvalidJson, UnsupportedMediaType
from service.api.schemas import (
    BlockModel,
    ErrorResponse,
    ExtractOptions,
    ExtractRequest,
    ExtractResponse,
    LocatorModel,
)
from service.pipeline import Extraction

router = APIRouter(tags=["extraction"])

HTML_MEDIA_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
JSON_MEDIA_TYPES = frozenset({"application/json"})

_ERRORS = {status: {"model": ErrorResponse} for status in (400, 413, 415, 422)}


def _media_type(request: Request) -> tuple[str, str | None]:
    """(media type, charset parameter) of the request's Content-Type."""
    media, _, params = request.headers.get("content-type", "").partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip("\"' ")
    return media.strip().lower(), charset


def to_response(extraction: Extraction, include_blocks: bool) -> ExtractResponse:
    blocks = None
    if include_blocks:
        blocks = [
            BlockModel(
                index=b.index,
                text=b.text,
                score=b.score,
                is_content=b.is_content,
                locator=LocatorModel(selector=b.locator.selector, text_node=b.locator.text_node),
            )
            for b in extraction.blocks
        ]
    return ExtractResponse(
        backend=extraction.backend,
        backend_version=extraction.backend_version,
        title=extraction.title,
        text=extraction.text,
        html=extraction.html,
        markdown=extraction.markdown,
        url=extraction.url,
        blocks=blocks,
        timings_ms=extraction.timings,
    )


@router.post(
    "/extract",
    response_model=ExtractResponse,
    response_model_exclude_none=True,
    responses=_ERRORS,  # type: ignore[arg-type]
    summary="Extract the main content of a page",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": ExtractRequest.model_json_schema()},
                "text/html": {"schema": {"type": "string"}, "example": "<html><body><p>Text</p></body></html>"},
            },
        }
    },
)
async def extract(request: Request, state: State, options: Annotated[ExtractOptions, Query()]) -> ExtractResponse:
    """Send the page as a raw ``text/html`` body (options in the query string) or as JSON."""
    media, charset = _media_type(request)
    if media not in HTML_MEDIA_TYPES | JSON_MEDIA_TYPES:
        raise UnsupportedMediaType(
            f"unsupported Content-Type {media or '(none)'!r}; send text/html or application/json"
        )
    body = await read_body(request, state.settings.max_body_bytes)
    page: str | bytes = body
    if media in JSON_MEDIA_TYPES:
        try:
            payload = json.loads(body)
        except (ValueError, RecursionError) as error:
            raise InvalidJson(f"the body is not valid JSON: {error}") from error
        try:
            parsed = ExtractRequest.model_validate(payload)
        except ValidationError as error:
            raise RequestValidationError(error.errors()) from error
        page, options, charset = parsed.html, parsed, None
    extraction = await run_in_threadpool(
        state.extractor.extract,
        page,
        backend=options.backend,
        url=options.url,
        output=options.format,
        charset=charset,
    )
    return to_response(extraction, options.include_blocks)
