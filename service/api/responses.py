"""Extractions as response bodies: one place that turns domain results into the API's models."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
from fastapi.responses import Response
from pydantic import BaseModel

from service.api.schemas import (
    Agreement,
    BlockModel,
    ComparedBlock,
    CompareResponse,
    ExtractResponse,
    LocatorModel,
)
from service.fetching.fetcher import FetchedPage
from service.output.formats import TEXT
from service.parsing.decode import to_utf8
from service.pipeline import ExtractedBlock, Extraction


def as_json(model: BaseModel) -> Response:
    """The body serialised once, absent fields left out; returned as is, FastAPI would validate it again first."""
    return Response(model.model_dump_json(exclude_none=True), media_type="application/json")


def _locator(block: ExtractedBlock) -> LocatorModel:
    return LocatorModel(selector=block.locator.selector, text_node=block.locator.text_node)


def fetch_fields(fetched: FetchedPage | None, include_source: bool) -> dict[str, object]:
    """What a response adds when the service fetched the page itself."""
    if fetched is None:
        return {}
    fields: dict[str, object] = {"final_url": fetched.final_url, "upstream_status": fetched.status}
    if include_source:
        fields["source_html"] = to_utf8(fetched.body, fetched.charset)[0].decode("utf-8", "replace")
    return fields


def format_fields(extraction: Extraction) -> dict[str, str]:
    """The content in the format asked for, under that format's name (``text`` is always there)."""
    return {} if extraction.format == TEXT else {extraction.format: extraction.content}


def to_response(
    extraction: Extraction, include_blocks: bool, *, extra_timings_ms: dict[str, float] | None = None, **fields: object
) -> ExtractResponse:
    blocks = None
    if include_blocks:
        blocks = [
            BlockModel(
                index=b.index,
                text=b.text,
                score=b.score,
                is_content=b.is_content,
                locator=_locator(b),
            )
            for b in extraction.blocks
        ]
    timings = {**extra_timings_ms, **extraction.timings} if extra_timings_ms else extraction.timings
    return ExtractResponse.model_validate(
        {
            "backend": extraction.backend,
            "backend_version": extraction.backend_version,
            "title": extraction.title,
            "text": extraction.text,
            "readable": extraction.readable,
            "metadata": extraction.metadata.to_json(),
            "url": extraction.url,
            "blocks": blocks,
            "timings_ms": timings,
            **format_fields(extraction),
            **fields,
        }
    )


def to_compare(extractions: Sequence[Extraction], include_blocks: bool, **fields: object) -> CompareResponse:
    """Every backend's result on one page, side by side, with per-block verdicts and pairwise agreement."""
    first = extractions[0]
    blocks = None
    if include_blocks:
        scores = {e.backend: e.labels.scores.tolist() for e in extractions}
        labels = {e.backend: e.labels.labels.tolist() for e in extractions}
        blocks = [
            ComparedBlock(
                index=b.index,
                text=b.text,
                locator=_locator(b),
                scores={name: values[b.index] for name, values in scores.items()},
                is_content={name: values[b.index] for name, values in labels.items()},
            )
            for b in first.blocks
        ]
    return CompareResponse.model_validate(
        {
            "title": first.title,
            "url": first.url,
            "results": [to_response(e, include_blocks=False) for e in extractions],
            "blocks": blocks,
            "agreement": pairwise_agreement(extractions),
            **fields,
        }
    )


def pairwise_agreement(extractions: Sequence[Extraction]) -> list[Agreement]:
    """How far every pair of backends agrees on the same page's blocks."""
    pairs = []
    for a, b in combinations(extractions, 2):
        left, right = a.labels.labels, b.labels.labels
        same = float(np.mean(left == right)) if len(left) else 1.0
        either = int(np.count_nonzero(left | right))
        both = int(np.count_nonzero(left & right))
        pairs.append(
            Agreement(backends=(a.backend, b.backend), agreement=same, jaccard=both / either if either else 1.0)
        )
    return pairs
