"""The output formats in one registry: a format's name, what it is, and its renderer.

Adding a format is a renderer and one entry in :data:`FORMATS`: the pipeline,
the HTTP API's allowed values and response fields, and the CLI's choices are
all built from it. ``text`` is special only in that every extraction carries it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from service.errors import UnknownFormat
from service.output.dialects import PARAGRAPH_GAP, MarkdownDialect, TextDialect
from service.output.html_writer import write_html
from service.output.layout import layout
from service.output.markup import Markup
from service.output.tree import build_tree
from service.parsing.document import Document

_BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")  # 2+ blank lines: at most one survives

TEXT = "text"


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """What a caller may ask of every renderer."""

    base_url: str | None = None  # relative links and images are resolved against it


def render_text(document: Document, keep: np.ndarray, options: RenderOptions | None = None) -> str:
    """Render the kept blocks as plain text, laid out as :mod:`service.output.dialects` describes."""
    text = layout(build_tree(document, keep, inline_markup=False), TextDialect(document))
    return _BLANK_RUN.sub(PARAGRAPH_GAP, text).strip()


def render_html(document: Document, keep: np.ndarray, options: RenderOptions | None = None) -> str:
    """Render the kept blocks as clean semantic HTML (no attributes but ``href``)."""
    chosen = options or RenderOptions()
    return write_html(build_tree(document, keep), Markup(document, chosen.base_url))


def render_markdown(document: Document, keep: np.ndarray, options: RenderOptions | None = None) -> str:
    """Render the kept blocks as Markdown (CommonMark; GFM pipe tables where a table is plain)."""
    chosen = options or RenderOptions()
    return layout(build_tree(document, keep), MarkdownDialect(document, chosen.base_url)).strip()


Renderer = Callable[[Document, np.ndarray, RenderOptions], str]


@dataclass(frozen=True, slots=True)
class OutputFormat:
    """One output format: its name in requests and responses, a line for the docs, its renderer."""

    name: str
    description: str
    render: Renderer


FORMATS: Mapping[str, OutputFormat] = {
    spec.name: spec
    for spec in (
        OutputFormat(TEXT, "plain text, the layout the WCXB gold uses", render_text),
        OutputFormat("html", "clean semantic HTML, safe to embed", render_html),
        OutputFormat("markdown", "CommonMark, with GFM pipe tables where a table is plain", render_markdown),
    )
}


def output_format(name: str) -> OutputFormat:
    """The format called ``name``; :class:`~service.errors.UnknownFormat` listing the known ones otherwise."""
    spec = FORMATS.get(name)
    if spec is None:
        raise UnknownFormat(name, tuple(FORMATS))
    return spec
