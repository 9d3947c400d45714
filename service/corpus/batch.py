"""The per-batch function both engines run: pages in, one output row per page out, never fewer.

Extraction goes through :mod:`service.pipeline`, the code path of the HTTP API
and the CLI, after the same page check (``empty_body``, ``not_html``); where the
settings batch a model's inference, through the serving layer's micro-batcher. A page
the reader could not read keeps the reader's code; a page the extractor fails
on unexpectedly is an ``internal_error`` row, and the batch goes on.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from prometheus_client import CollectorRegistry

from service.corpus.pages import INTERNAL_ERROR, Page
from service.errors import ExtractionError
from service.metrics import Metrics
from service.options import Options as ExtractionOptions
from service.output.formats import output_format
from service.parsing.page_check import check_page
from service.pipeline import Extraction, default_extractor, warm_up
from service.runtime.heap import settle_heap
from service.serving import extraction as serving
from service.serving.blocking import BlockingExtraction
from service.settings import Settings

log = logging.getLogger(__name__)

Row = dict[str, Any]

DEFAULT_MAX_PAGE_BYTES = 10 * 1024 * 1024  # the API's default body limit (EXTRACT_MAX_BODY_BYTES)


@dataclass(frozen=True)
class Options:
    """What every shard is extracted with; part of each shard's fingerprint, so a change redoes the shards."""

    backend: str
    output: str = "text"  # text, markdown or html: markdown and html add that column beside text
    # add the columns of what the input says about each page (WARC-Date, HTTP status, ...) and what the
    # page says about itself (the extraction's metadata, as a JSON object)
    metadata: bool = False
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES
    batch_size: int = 64  # pages handed to the extractor at once, and rows written at once

    def __post_init__(self) -> None:
        output_format(self.output)  # UnknownFormat, listing the known ones


def schema(options: Options) -> pa.Schema:
    """The output columns for ``options``; every shard of one run has exactly these."""
    fields = [
        pa.field("source", pa.string(), nullable=False),
        pa.field("position", pa.int64(), nullable=False),
        pa.field("record_id", pa.string()),
        pa.field("url", pa.string()),
        pa.field("title", pa.string()),
        pa.field("text", pa.string()),
    ]
    if options.output != "text":
        fields.append(pa.field(options.output, pa.string()))
    fields += [
        pa.field("backend", pa.string(), nullable=False),
        pa.field("backend_version", pa.string(), nullable=False),
        pa.field("error", pa.string(), nullable=False),
        pa.field("error_message", pa.string()),
    ]
    if options.metadata:
        fields += [
            pa.field("fetched_at", pa.string()),
            pa.field("http_status", pa.int32()),
            pa.field("content_type", pa.string()),
            pa.field("charset", pa.string()),
            pa.field("page_bytes", pa.int64(), nullable=False),
            pa.field("metadata", pa.string()),
        ]
    return pa.schema(fields)


class BatchExtractor:
    """The models, loaded once per worker process or Ray actor, and the per-batch function.

    Where the settings batch a batched backend's inference (a GPU provider, or
    ``EXTRACT_BATCH_MAX_SIZE``), a batch's pages go through the serving layer's
    micro-batcher together, as concurrent requests do in the server; elsewhere
    they are extracted one after another.
    """

    def __init__(self, options: Options) -> None:
        self.options = options
        self.extractor = default_extractor()  # the same registry, page budget and metadata reader as extract()
        self.extraction_options = ExtractionOptions(format=options.output)
        self.backend = self.extractor.backend(options.backend)  # an unknown name fails here, before any shard
        warm_up(self.extractor, [self.backend.name])
        self.served = self._serve(Settings())
        settle_heap()  # as the server does once ready: full collections no longer walk the models and tables

    def _serve(self, settings: Settings) -> BlockingExtraction | None:
        """The extraction service with the backend's micro-batcher, where the settings give it one; else None."""
        if not settings.micro_batching:
            return None
        served = BlockingExtraction(
            settings,
            self.extractor,
            {self.backend.name: self.backend},
            Metrics(CollectorRegistry()),  # counted nowhere: the corpus summary counts the outcomes
            max_in_flight=self.options.batch_size,
            threads=1,  # a worker is one process per core; the batcher's inference thread is the second
        )
        if not served.service.batchers:  # a backend that does not batch
            served.close()
            return None
        return served

    def rows(self, pages: Sequence[Page]) -> list[Row]:
        """One row per page, in the order given."""
        rows = [self._row(page) for page in pages]
        checked = ((page, self._checked(page, row), row) for page, row in zip(pages, rows, strict=True))
        todo = [(page, content, row) for page, content, row in checked if content is not None]
        if self.served is None:
            for page, content, row in todo:
                self._extract(page, content, row)
        else:
            self._extract_batched(self.served, todo)
        return rows

    def _row(self, page: Page) -> Row:
        """The page's row before extraction: where it came from, and the reader's error if it had one."""
        row: Row = {
            "source": page.source,
            "position": page.position,
            "record_id": page.record_id,
            "url": page.url,
            "title": None,
            "text": None,
            "backend": self.backend.name,
            "backend_version": self.backend.version,
            "error": page.error or "",
            "error_message": page.message,
        }
        if self.options.output != "text":
            row[self.options.output] = None
        if self.options.metadata:
            row |= {
                "fetched_at": page.fetched_at,
                "http_status": page.http_status,
                "content_type": page.content_type,
                "charset": page.charset,
                "page_bytes": page.size,
                "metadata": None,
            }
        return row

    def _checked(self, page: Page, row: Row) -> bytes | None:
        """The page's bytes when they are a page to extract; else None, and the row says why not."""
        if page.error is not None or page.content is None:
            return None
        try:
            check_page(page.content, page.charset)
        except ExtractionError as error:
            row["error"], row["error_message"] = code_of(error), str(error)
            return None
        return page.content

    def _extract(self, page: Page, content: bytes, row: Row) -> None:
        try:
            result = self.extractor.extract(
                content, backend=self.backend.name, url=page.url, charset=page.charset, options=self.extraction_options
            )
        except ExtractionError as error:
            row["error"], row["error_message"] = code_of(error), str(error)
        except Exception as error:  # a bug on one page must not cost the others their rows
            log.exception("extraction failed on %s at %s", page.source, page.position)
            row["error"], row["error_message"] = INTERNAL_ERROR, f"{type(error).__name__}: {error}"
        else:
            self._fill(row, result)

    def _extract_batched(self, served: BlockingExtraction, todo: Sequence[tuple[Page, bytes, Row]]) -> None:
        """Every page of ``todo`` through the micro-batcher in one call; page by page if that call fails whole."""
        jobs = [
            serving.Job(serving.Page(content, page.charset, page.url), self.backend.name, self.extraction_options)
            for page, content, _ in todo
        ]
        try:
            outcomes = served.run(jobs)
        except Exception:  # a bug (or a full queue) fails the whole call: page by page, only its page says so
            log.warning("a batch of %d pages failed together; extracting them one by one", len(jobs), exc_info=True)
            for page, content, row in todo:
                self._extract(page, content, row)
            return
        for (_, _, row), outcome in zip(todo, outcomes, strict=True):
            if isinstance(outcome, ExtractionError):
                row["error"], row["error_message"] = code_of(outcome), str(outcome)
            else:
                self._fill(row, outcome)

    def _fill(self, row: Row, result: Extraction) -> None:
        row["title"], row["text"] = result.title, result.text
        if self.options.output != "text":
            row[self.options.output] = result.content
        if self.options.metadata:
            row["metadata"] = json.dumps(result.metadata.to_json(), ensure_ascii=False)


def code_of(error: ExtractionError) -> str:
    """The API's stable code for a domain error (``empty_body``, ``not_html``, ...), from its one table."""
    from service.api.errors import status_and_code  # noqa: PLC0415 - the web framework, imported on the first refusal

    return status_and_code(error)[1]
