"""``POST /extract/batch``: many pages in one request, results in the order sent."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from service.api.body import Page, parse_json, read_body
from service.api.deps import API_KEY, State, label_backend
from service.api.errors import TooManyDocuments, UnsupportedMediaType
from service.api.extraction import Job, run_extractions
from service.api.responses import as_json, to_response
from service.api.schemas import EXAMPLE_HTML, BatchRequest, BatchResponse, error_responses, request_body
from service.fetching.fetcher import media_type
from service.parsing.page_check import check_page

router = APIRouter(tags=["extraction"], dependencies=API_KEY)


@router.post(
    "/extract/batch",
    response_model=BatchResponse,
    responses=error_responses(400, 401, 413, 415, 422, 429),
    summary="Extract many pages in one request",
    openapi_extra=request_body(
        BatchRequest, {"documents": [{"html": EXAMPLE_HTML}, {"html": "<p>Two</p>"}]}, raw_html=False
    ),
)
async def extract_batch(request: Request, state: State) -> Response:
    """Every document goes through the same backend and format; one bad document fails the whole batch."""
    if media_type(request.headers.get("content-type", ""))[0] != "application/json":
        raise UnsupportedMediaType("send the batch as application/json")
    batch = parse_json(await read_body(request, state.settings.max_body_bytes), BatchRequest)
    label_backend(request, state, batch.backend)
    limit = state.settings.max_batch_documents
    if len(batch.documents) > limit:
        raise TooManyDocuments(f"{len(batch.documents)} documents; at most {limit} per batch")
    pages = [Page(document.html, None, document.url) for document in batch.documents]
    for page in pages:
        check_page(page.html, page.charset)
    extractions = await run_extractions(state, [Job(page, batch.backend, batch.format) for page in pages])
    return as_json(BatchResponse(results=[to_response(e, batch.include_blocks) for e in extractions]))
