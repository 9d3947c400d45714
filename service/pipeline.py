"""bytes → Document → backend labels → Extraction: the whole pipeline, in-process.

This is the Python API (``from service import extract``) and what the CLI
and the HTTP layer call. It knows nothing of HTTP.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cache, cached_property

from service.backends.base import BlockLabels
from service.backends.registry import BackendRegistry, default_registry
from service.errors import UnknownFormat
from service.output.render import render_html, render_markdown, render_text
from service.parsing.document import Document, Locator
from service.parsing.lexbor import parse_html
from service.settings import DEFAULT_BACKEND

OUTPUT_FORMATS = ("text", "html", "markdown")


@dataclass(frozen=True, slots=True)
class ExtractedBlock:
    """One block as a caller sees it: its text, the backend's verdict and where it is."""

    index: int
    text: str
    score: float
    is_content: bool
    locator: Locator


@dataclass(frozen=True)
class Extraction:
    """The result of one extraction. ``html``/``markdown`` are set when asked for."""

    text: str
    title: str
    backend: str
    backend_version: str
    timings: dict[str, float]  # milliseconds per stage: parse, classify, render, total
    html: str | None = None
    markdown: str | None = None
    url: str | None = None
    document: Document = field(repr=False, compare=False, default=None)  # type: ignore[assignment]
    labels: BlockLabels = field(repr=False, compare=False, default=None)  # type: ignore[assignment]

    @cached_property
    def blocks(self) -> tuple[ExtractedBlock, ...]:
        """Every block with its score, label and locator (built on first access)."""
        doc, scores, labels = self.document, self.labels.scores.tolist(), self.labels.labels.tolist()
        return tuple(ExtractedBlock(i, doc.texts[i], scores[i], labels[i], doc.locator(i)) for i in range(len(doc)))


class Extractor:
    """Runs the pipeline against one registry of backends."""

    def __init__(self, registry: BackendRegistry, default_backend: str = DEFAULT_BACKEND) -> None:
        self.registry = registry
        self.default_backend = default_backend

    def extract(
        self,
        html: str | bytes,
        *,
        backend: str | None = None,
        url: str | None = None,
        output: str = "text",
        charset: str | None = None,
    ) -> Extraction:
        if output not in OUTPUT_FORMATS:
            raise UnknownFormat(output, OUTPUT_FORMATS)
        chosen = self.registry.get(backend or self.default_backend)
        started = time.perf_counter()
        document = parse_html(html, charset=charset)
        parsed = time.perf_counter()
        labels = chosen.classify(document)
        classified = time.perf_counter()
        keep = labels.labels
        text = render_text(document, keep)
        rendered_html = render_html(document, keep, base_url=url) if output == "html" else None
        rendered_markdown = render_markdown(document, keep, base_url=url) if output == "markdown" else None
        done = time.perf_counter()
        return Extraction(
            text=text,
            title=document.title,
            backend=chosen.name,
            backend_version=chosen.version,
            timings={
                "parse": (parsed - started) * 1e3,
                "classify": (classified - parsed) * 1e3,
                "render": (done - classified) * 1e3,
                "total": (done - started) * 1e3,
            },
            html=rendered_html,
            markdown=rendered_markdown,
            url=url,
            document=document,
            labels=labels,
        )


@cache
def default_extractor() -> Extractor:
    """The extractor behind :func:`extract`, built on first call, not at import."""
    return Extractor(default_registry())


def extract(
    html: str | bytes,
    *,
    backend: str | None = None,
    url: str | None = None,
    output: str = "text",
    charset: str | None = None,
) -> Extraction:
    """Extract the main content of one page with the shipped backends.

    ``output`` is ``"text"``, ``"html"`` or ``"markdown"``; ``text`` is always set.
    """
    return default_extractor().extract(html, backend=backend, url=url, output=output, charset=charset)
