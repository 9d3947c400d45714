"""``/extract``: a page in (raw HTML, JSON, or a URL the service fetches), its main content out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from service.api.body import check_query, read_page
from service.api.deps import API_KEY, AppState, State, label_backend
from service.api.disconnect import Departure, watching_departure
from service.api.responses import as_json, fetch_fields, to_compare, to_response
from service.api.schemas import (
    ALL_BACKENDS,
    EXAMPLE_HTML,
    CompareResponse,
    ExtractOptions,
    ExtractRequest,
    ExtractResponse,
    FetchOptions,
    OutputOptions,
    error_responses,
    request_body,
)
from service.serving.extraction import Job, Page

router = APIRouter(tags=["extraction"], dependencies=API_KEY)


async def _answer(
    departure: Departure,
    state: AppState,
    page: Page,
    backend: str | None,
    options: OutputOptions,
    *,
    fetch_ms: float | None = None,
    **fields: object,
) -> Response:
    """One backend's result, or every backend's side by side when ``backend`` is ``all``."""
    names = state.extraction.backends_to_compare(None) if backend == ALL_BACKENDS else [backend]
    jobs = [Job(page, name, options.extraction_options()) for name in names]
    extractions = await state.extraction.extract(jobs, departure.gone)
    if backend == ALL_BACKENDS:
        return as_json(to_compare(extractions, options.include_blocks, **fields))
    (extraction,) = extractions
    extra = {"fetch": fetch_ms} if fetch_ms is not None else None
    return as_json(to_response(extraction, options.include_blocks, extra_timings_ms=extra, **fields))


@router.post(
    "/extract",
    response_model=ExtractResponse | CompareResponse,
    responses=error_responses(400, 401, 408, 413, 415, 422, 429),
    summary="Extract the main content of a page you send",
    openapi_extra=request_body(ExtractRequest, {"html": EXAMPLE_HTML, "format": "text"}, raw_html=True),
)
async def extract_page(request: Request, state: State, options: Annotated[ExtractOptions, Query()]) -> Response:
    """Send the page as a raw ``text/html`` body or as JSON.

    A raw body takes its options from the query string and its charset from the
    Content-Type; a JSON body carries its options, and a query string beside it is 422.
    """
    page, chosen = await read_page(request, state.settings, options, ExtractRequest)
    label_backend(request, state, chosen.backend)
    async with watching_departure(request) as departure:
        return await _answer(departure, state, page, chosen.backend, chosen)


@router.get(
    "/extract",
    response_model=ExtractResponse | CompareResponse,
    responses=error_responses(
        400,
        401,
        422,
        429,
        described={
            403: "url_not_allowed: a scheme, credentials, port or address the service must not reach (redirects "
            "too); robots_disallowed: with respect_robots, the host's robots.txt refuses the URL",
            502: "upstream_error, upstream_status (a final answer outside 2xx, unless allow_error_status; the error "
            "carries upstream_status), too_many_redirects, upstream_too_large or upstream_not_html",
            504: "upstream_timeout",
        },
    ),
    summary="Fetch a URL and extract its main content",
)
async def extract_url(request: Request, state: State, options: Annotated[FetchOptions, Query()]) -> Response:
    """The service fetches ``url`` itself, safely.

    http(s) only, public addresses only, at most 5 redirects, each one checked.
    The answer adds the final URL, the upstream status and the fetch time. An
    upstream answer outside 2xx is a 502 ``upstream_status`` carrying that status,
    unless ``allow_error_status`` asks for the error page to be extracted.
    """
    check_query(request)
    label_backend(request, state, options.backend)
    async with watching_departure(request) as departure:
        fetched, fetch_ms = await departure.unless_gone(
            state.fetching.fetch(
                options.url, allow_error_status=options.allow_error_status, respect_robots=options.respect_robots
            )
        )
        page = Page(fetched.body, fetched.charset, fetched.final_url)
        fields = fetch_fields(fetched, options.include_source)
        return await _answer(departure, state, page, options.backend, options, fetch_ms=fetch_ms, **fields)
