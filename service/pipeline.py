"""bytes → Document → backend labels → Extraction: the whole pipeline, in-process.

This is the Python API (``from service import extract``) and what the CLI
and the HTTP layer call. It knows nothing of HTTP.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property

from service.backends.base import WARM_UP_PAGE, Backend, BlockLabels
from service.backends.coherence import whole_paragraphs
from service.backends.registry import BackendRegistry, default_registry
from service.errors import UnknownFormat
from service.metadata.fields import Metadata
from service.metadata.reader import MetadataReader, load_metadata_reader
from service.models.store import ModelStore
from service.output.render import render_html, render_markdown, render_text
from service.parsing.document import Document, Locator
from service.parsing.lexbor import parse_html
from service.settings import DEFAULT_BACKEND, Settings

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
    title: str  # the metadata's title, else the page's <title>
    backend: str
    backend_version: str
    timings: dict[str, float]  # milliseconds per stage: parse, classify, render, metadata, total
    metadata: Metadata = field(default_factory=Metadata)
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

    def __init__(
        self, registry: BackendRegistry, default_backend: str = DEFAULT_BACKEND, metadata: MetadataReader | None = None
    ) -> None:
        self.registry = registry
        self.default_backend = default_backend
        self.metadata = metadata or MetadataReader()  # without a page-type model unless given one

    def backend(self, name: str | None) -> Backend:
        """The backend called ``name`` (the default one for None); unknown names list the known ones."""
        return self.registry.get(name or self.default_backend)

    def extract(
        self,
        html: str | bytes,
        *,
        backend: str | None = None,
        url: str | None = None,
        output: str = "text",
        charset: str | None = None,
    ) -> Extraction:
        check_output(output)
        chosen = self.backend(backend)
        document, parse_ms = timed_parse(html, charset)
        started = time.perf_counter()
        labels = chosen.classify(document)
        return finish(
            document,
            labels,
            chosen,
            output=output,
            url=url,
            parse_ms=parse_ms,
            classify_ms=elapsed_ms(started),
            metadata_reader=self.metadata,
        )


def check_output(output: str) -> None:
    if output not in OUTPUT_FORMATS:
        raise UnknownFormat(output, OUTPUT_FORMATS)


def elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1e3


def timed_parse(html: str | bytes, charset: str | None = None) -> tuple[Document, float]:
    """The first stage: the page's Document and the milliseconds the parse took."""
    started = time.perf_counter()
    return parse_html(html, charset=charset), elapsed_ms(started)


def finish(
    document: Document,
    labels: BlockLabels,
    backend: Backend,
    *,
    output: str,
    url: str | None,
    parse_ms: float,
    classify_ms: float,
    metadata_reader: MetadataReader,
) -> Extraction:
    """The last stage: whole paragraphs, render the kept blocks and assemble the Extraction.

    Separate from :meth:`Extractor.extract` so that a caller which classifies
    elsewhere (the HTTP layer's micro-batcher) assembles exactly the same result.
    Every backend's labels pass through :func:`whole_paragraphs` here, so no
    backend cuts a sentence.
    """
    started = time.perf_counter()
    labels = whole_paragraphs(document, labels)
    keep = labels.labels
    text = render_text(document, keep)
    rendered_html = render_html(document, keep, base_url=url) if output == "html" else None
    rendered_markdown = render_markdown(document, keep, base_url=url) if output == "markdown" else None
    render_ms = elapsed_ms(started)
    started = time.perf_counter()
    metadata = metadata_reader.read(document, url)
    metadata_ms = elapsed_ms(started)
    return Extraction(
        text=text,
        title=metadata.title or document.title,
        backend=backend.name,
        backend_version=backend.version,
        timings={
            "parse": parse_ms,
            "classify": classify_ms,
            "render": render_ms,
            "metadata": metadata_ms,
            "total": parse_ms + classify_ms + render_ms + metadata_ms,
        },
        metadata=metadata,
        html=rendered_html,
        markdown=rendered_markdown,
        url=url,
        document=document,
        labels=labels,
    )


def warm_up(extractor: Extractor, backends: Iterable[str]) -> None:
    """Extract a small page once with each backend, so no request pays a one-time cost.

    The first use builds lookup tables (the character classes take a few tenths of a second)
    and runs each model for the first time.
    """
    for name in backends:
        for output in OUTPUT_FORMATS:
            extractor.extract(WARM_UP_PAGE, backend=name, output=output)


@cache
def default_extractor() -> Extractor:
    """The extractor behind :func:`extract`, built on first call, not at import."""
    settings = Settings()
    return Extractor(default_registry(settings), metadata=load_metadata_reader(ModelStore(settings.model_store_dir)))


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
