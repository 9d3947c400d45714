"""``POST /extract/batch``: many pages in one request, results in the order sent, each its own success or error."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import ValidationError

from service.api.body import check_query, parse_json, read_body
from service.api.deps import API_KEY, AppState, State, label_backend
from service.api.disconnect import watching_departure
from service.api.errors import TooManyDocuments, UnsupportedMediaType, counted_error, error_fields
from service.api.responses import as_json, to_response
from service.api.schemas import (
    EXAMPLE_HTML,
    BatchEnvelope,
    BatchRequest,
    BatchResponse,
    ErrorBody,
    ErrorResponse,
    ExtractResponse,
    PageInput,
    error_responses,
    request_body,
)
from service.errors import ExtractionError
from service.parsing.content_type import media_type
from service.parsing.page_check import check_page
from service.pipeline import Extraction
from service.serving.extraction import Job, Page

router = APIRouter(tags=["extraction"], dependencies=API_KEY)


@router.post(
    "/extract/batch",
    response_model=BatchResponse,
    responses=error_responses(400, 401, 408, 413, 415, 422, 429),
    summary="Extract many pages in one request",
    openapi_extra=request_body(
        BatchRequest, {"documents": [{"html": EXAMPLE_HTML}, {"html": "<p>Two</p>"}]}, raw_html=False
    ),
)
async def extract_batch(request: Request, state: State) -> Response:
    """Every document goes through the same backend and format.

    A document that cannot be extracted (not a page, empty, the wrong shape) gets its own
    ``{"error": {code, message}}`` in its place; the others are extracted as usual. What
    concerns the whole request (an unknown backend or option, too many documents, overload)
    still fails it.
    """
    if media_type(request.headers.get("content-type", ""))[0] != "application/json":
        raise UnsupportedMediaType("send the batch as application/json")
    check_query(request, options=False)  # the envelope carries them
    batch = parse_json(await read_body(request, state.settings), BatchEnvelope)
    label_backend(request, state, batch.backend)
    state.extractor.backend(batch.backend)  # an unknown backend fails the request, not each document
    limit = state.settings.max_batch_documents
    if len(batch.documents) > limit:
        raise TooManyDocuments(f"{len(batch.documents)} documents; at most {limit} per batch")
    prepared = [_job(document, batch) for document in batch.documents]
    async with watching_departure(request) as departure:
        extracted = iter(await state.extraction.run([job for job in prepared if isinstance(job, Job)], departure.gone))
    results = [_result(state, next(extracted) if isinstance(job, Job) else job, batch) for job in prepared]
    return as_json(BatchResponse(results=results))


def _job(document: object, batch: BatchEnvelope) -> Job | Exception:
    """The document's job, or why it is not a page to extract (the wrong shape, empty, binary)."""
    try:
        given = PageInput.model_validate(document)
        page = Page(given.html, None, given.url)
        check_page(page.html, page.charset)
    except ValidationError as error:
        return RequestValidationError([{**e, "loc": ("document", *e["loc"])} for e in error.errors()])
    except ExtractionError as error:
        return error
    return Job(page, batch.backend, batch.extraction_options())


def _result(state: AppState, outcome: Extraction | Exception, batch: BatchEnvelope) -> ExtractResponse | ErrorResponse:
    if isinstance(outcome, Extraction):
        return to_response(outcome, batch.include_blocks)
    _, code, message = counted_error(outcome, state.metrics)
    return ErrorResponse(error=ErrorBody(code=code, message=message, **error_fields(outcome)))
