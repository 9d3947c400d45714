"""bytes → Document → backend labels → Extraction: the whole pipeline, in-process.

This is the Python API (``from service import extract``) and what the CLI
and the HTTP layer call. It knows nothing of HTTP.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from functools import cache, cached_property, partial
from typing import Any

from service.backends.base import WARM_UP_PAGE, Backend, BlockLabels
from service.backends.coherence import unseen_in_view, whole_paragraphs
from service.backends.favor import decision_shift, shift_labels
from service.backends.pruning import instead_of_nothing, prune_boilerplate
from service.backends.registry import BackendRegistry, default_registry
from service.errors import InvalidOption
from service.features.readable import readable_score
from service.metadata.fields import ARTICLE, Metadata
from service.metadata.reader import MetadataReader, load_metadata_reader
from service.models.store import ModelStore
from service.options import Options
from service.output.formats import FORMATS, TEXT, RenderOptions, output_format, render_text
from service.parsing.budget import PageBudget
from service.parsing.document import Document, Locator
from service.parsing.lexbor import parse_html
from service.parsing.page_check import check_page
from service.parsing.urls import document_base_url, readable_url
from service.settings import DEFAULT_BACKEND, Settings

DEFAULT_OPTIONS = Options()


# The metadata fields a Markdown front matter carries after the title, in Metadata's order, where the page
# gives them: every field but the title (first, the response's) and the page type's confidence (a number).
FRONT_MATTER_FIELDS = tuple(f.name for f in fields(Metadata) if f.name not in {"title", "page_type_confidence"})


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
    """The result of one extraction: always its plain text, and ``content`` in the ``format`` asked for."""

    text: str
    title: str  # the metadata's title, else the page's <title>
    backend: str
    backend_version: str
    timings: dict[str, float]  # milliseconds per stage: parse, classify, render, metadata, total
    format: str = TEXT  # a name in service.output.formats.FORMATS
    content: str = ""  # the content in that format (the text itself for text)
    readable: float = 0.0  # is there an article here at all: service.features.readable.readable_score
    metadata: Metadata = field(default_factory=Metadata)
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
        self,
        registry: BackendRegistry,
        default_backend: str = DEFAULT_BACKEND,
        budget: PageBudget | None = None,
        metadata: MetadataReader | None = None,
    ) -> None:
        self.registry = registry
        self.default_backend = default_backend
        self.budget = budget or PageBudget()  # what one page may cost: every page is checked against it
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
        charset: str | None = None,
        options: Options = DEFAULT_OPTIONS,
    ) -> Extraction:
        chosen = self.backend(backend)
        document, parse_ms = timed_parse(html, charset, options, self.budget)
        metadata, type_probabilities, metadata_ms = timed_metadata(self.metadata, document, url)
        started = time.perf_counter()
        labels = chosen.for_page(type_probabilities).classify(document)
        return finish(
            document,
            labels,
            chosen,
            options=options,
            url=url,
            timings={"parse": parse_ms, "classify": elapsed_ms(started), "metadata": metadata_ms},
            metadata=metadata,
            article_probability=type_probabilities.get(ARTICLE),
        )


def elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1e3


def timed_parse(
    html: str | bytes,
    charset: str | None = None,
    options: Options = DEFAULT_OPTIONS,
    budget: PageBudget | None = None,
) -> tuple[Document, float]:
    """The first stage: the page's Document and the milliseconds it took.

    The page is checked against ``budget`` and pruned by the caller's selectors.
    """
    started = time.perf_counter()
    document = parse_html(
        html,
        charset=charset,
        target_selector=options.target_selector,
        remove_selector=options.remove_selector,
        budget=budget,
    )
    return document, elapsed_ms(started)


def timed_metadata(
    reader: MetadataReader, document: Document, url: str | None
) -> tuple[Metadata, dict[str, float], float]:
    """The second stage: the metadata, each page type's probability, the milliseconds; read before classification.

    The page type's probabilities may choose the model (:meth:`Backend.for_page`).
    """
    started = time.perf_counter()
    metadata, type_probabilities = reader.read_typed(document, url)
    return metadata, type_probabilities, elapsed_ms(started)


def finish(
    document: Document,
    labels: BlockLabels,
    backend: Backend,
    *,
    options: Options = DEFAULT_OPTIONS,
    url: str | None,
    timings: dict[str, float],
    metadata: Metadata,
    article_probability: float | None = None,
) -> Extraction:
    """The last stage: the caller's favor (and the article shift), whole paragraphs, pruning, render, assemble.

    Separate from :meth:`Extractor.extract` so that a caller which classifies
    elsewhere (the serving layer's micro-batcher) assembles exactly the same result.
    Every backend's labels pass through :func:`whole_paragraphs` here, so no
    backend cuts a sentence, then through :func:`prune_boilerplate` (comment
    threads, unless ``include_comments``, link lists and furniture on pages not made of them).
    """
    started = time.perf_counter()
    page_type = metadata.page_type  # it guards the pruning and moves the threshold on articles
    shift = decision_shift(backend.name, options.favor, page_type)
    labels = final_labels(
        document,
        labels,
        shift,
        include_comments=options.include_comments,
        page_type=page_type,
        article_probability=article_probability,
    )
    keep = labels.labels
    title = metadata.title or document.title  # the response's, the heading's and the front matter's
    chosen = render_options(title, backend, options, url, metadata, document=document)
    text = render_text(document, keep, chosen)
    content = text if options.format == TEXT else output_format(options.format).render(document, keep, chosen)
    stages = {**timings, "render": elapsed_ms(started)}  # timings: the earlier stages' (parse, metadata, classify)
    return Extraction(
        text=text,
        title=title,
        backend=backend.name,
        backend_version=backend.version,
        timings={**stages, "total": sum(stages.values())},
        format=options.format,
        content=content,
        readable=readable_score(document),
        metadata=metadata,
        url=url,
        document=document,
        labels=labels,
    )


def final_labels(
    document: Document,
    labels: BlockLabels,
    shift: float,
    *,
    include_comments: bool | None,
    page_type: str | None,
    article_probability: float | None = None,
) -> BlockLabels:
    """What a page keeps: ``labels`` at the threshold moved by ``shift``, whole paragraphs, pruned.

    A raised threshold (the article shift, ``favor=precision``) never empties a page the backend kept
    text on: there the backend's own threshold decides (a short post whose every block scored just
    above it came out empty). Shared by :func:`finish` and ``eval --article-sweep``, which tries
    shifts on the same path. Where nothing is kept at all, Readability's body is
    (:func:`~service.backends.pruning.instead_of_nothing`).
    """
    decided = partial(
        _decided, include_comments=include_comments, page_type=page_type, article_probability=article_probability
    )
    kept = decided(document, labels, shift)
    if shift > 0 and not kept.labels.any() and labels.labels.any():
        kept = decided(document, labels, 0.0)
    if kept.labels.any():
        return kept
    return whole_paragraphs(
        document, replace(kept, labels=instead_of_nothing(document, include_comments=include_comments))
    )


def _decided(
    document: Document,
    labels: BlockLabels,
    shift: float,
    *,
    include_comments: bool | None,
    page_type: str | None,
    article_probability: float | None,
) -> BlockLabels:
    labels = whole_paragraphs(document, shift_labels(labels, shift))
    pruned = prune_boilerplate(
        document,
        labels,
        include_comments=include_comments,
        page_type=page_type,
        article_probability=article_probability,
    )
    return whole_paragraphs(document, pruned)  # again: a hidden span or a button inside a paragraph was pruned


def render_options(
    title: str, backend: Backend, options: Options, url: str | None, metadata: Metadata, *, document: Document
) -> RenderOptions:
    """What the renderers are asked for: the caller's choices, with the page's ``title`` and front matter.

    Links and images resolve against the ``document``'s ``<base href>`` read against ``url``.
    """
    return RenderOptions(
        base_url=document_base_url(url, document.markup.base_href),  # a URL urllib cannot read resolves nothing
        links=options.include_links,
        images=options.include_images,
        tables=options.include_tables,
        title=title if options.include_title else None,
        front_matter=front_matter_fields(title, metadata, url, backend.name) if options.front_matter else None,
        unseen=unseen_in_view(document),
    )


def front_matter_fields(
    title: str, metadata: Metadata, url: str | None, backend: str
) -> dict[str, str | tuple[str, ...]]:
    """The page's metadata as Markdown front matter: its title, the fields the page gives, url, backend."""
    record = {
        "title": title,
        **{name: getattr(metadata, name) for name in FRONT_MATTER_FIELDS},
        "url": url,
        "backend": backend,
    }
    return {key: value for key, value in record.items() if value}


def warm_up(extractor: Extractor, backends: Iterable[str]) -> None:
    """Extract a small page once with each backend, so no request pays a one-time cost.

    The first use builds lookup tables (the character classes take a few tenths of a second)
    and runs each model for the first time. This is the one place a backend is warmed: loading
    one does not run it, so whoever serves or times backends calls this first.
    """
    for name in backends:
        for output in FORMATS:
            extractor.extract(WARM_UP_PAGE, backend=name, options=Options(format=output, include_images=True))
        backend, page = extractor.backend(name), parse_html(WARM_UP_PAGE)
        extracted_by = backend.for_page(extractor.metadata.read_typed(page)[1])
        for model in (backend, *(route.backend for route in backend.routes.values())):  # those it was not routed to
            if model is not extracted_by:
                model.classify(page)


@cache
def default_extractor() -> Extractor:
    """The extractor behind :func:`extract`, built on first call, not at import, configured by ``EXTRACT_*``."""
    settings = Settings()
    metadata = load_metadata_reader(ModelStore(settings.model_store_dir))
    return Extractor(
        default_registry(settings), settings.default_backend, budget=settings.page_budget, metadata=metadata
    )


def extract(
    html: str | bytes | bytearray | memoryview,
    *,
    backend: str | None = None,
    url: str | None = None,
    output: str = TEXT,
    charset: str | None = None,
    **choices: Any,
) -> Extraction:
    """Extract the main content of one page with the shipped backends.

    ``output`` names a format of :data:`~service.output.formats.FORMATS` (text, html, markdown); ``text``
    is always set, ``content`` holds the content in ``output``. ``choices`` are the other fields of
    :class:`~service.options.Options` (``favor="precision"``, ``include_comments=False``, ...); a name
    it does not have is a TypeError. ``html`` may be any bytes-like object; a page that is none raises
    what the HTTP API answers with (:class:`~service.errors.EmptyPage`, :class:`~service.errors.NotHtml`),
    an option's value no request could mean :class:`~service.errors.InvalidOption` (an unknown ``favor``, a
    ``url`` urllib cannot read), and an argument of the wrong type a TypeError that names it.
    """
    page = bytes(html) if isinstance(html, bytearray | memoryview) else html
    if not isinstance(page, str | bytes):
        raise TypeError(f"html must be str or bytes, not {type(html).__name__}")
    if "format" in choices:  # the HTTP API's name for it: choices would pass it to Options beside output
        raise TypeError("extract() takes the format as output=, not format=")
    for name, value in (("backend", backend), ("url", url), ("output", output), ("charset", charset)):
        if not isinstance(value, str | None):
            raise TypeError(f"{name} must be a str or None, not {value!r}")
    if url and readable_url(url) is None:  # as the HTTP API's schema refuses it
        raise InvalidOption(f"url {url!r} is not a URL: urllib cannot read it")
    options = Options(format=output, **choices)
    check_page(page, charset)
    return default_extractor().extract(page, backend=backend, url=url, charset=charset, options=options)
