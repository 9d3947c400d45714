"""``POST /compare``: every backend on the same page, side by side."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from service.api.body import read_page
from service.api.deps import API_KEY, State, label_backend
from service.api.disconnect import watching_departure
from service.api.responses import as_json, to_compare
from service.api.schemas import (
    ALL_BACKENDS,
    EXAMPLE_HTML,
    CompareOptions,
    CompareRequest,
    CompareResponse,
    error_responses,
    request_body,
)
from service.serving.extraction import Job

router = APIRouter(tags=["extraction"], dependencies=API_KEY)


@router.post(
    "/compare",
    response_model=CompareResponse,
    responses=error_responses(400, 401, 408, 413, 415, 422, 429),
    summary="Run every backend on the same page and compare them",
    openapi_extra=request_body(CompareRequest, {"html": EXAMPLE_HTML}, raw_html=True),
)
async def compare(request: Request, state: State, options: Annotated[CompareOptions, Query()]) -> Response:
    """Texts, per-block scores and labels, pairwise agreement and timings of each backend on one page."""
    label_backend(request, state, ALL_BACKENDS)
    page, chosen = await read_page(request, state.settings, options, CompareRequest)
    names = state.extraction.backends_to_compare(chosen.backends)
    jobs = [Job(page, name, chosen.extraction_options()) for name in names]
    async with watching_departure(request) as departure:
        extractions = await state.extraction.extract(jobs, departure.gone)
    return as_json(to_compare(extractions, chosen.include_blocks))
