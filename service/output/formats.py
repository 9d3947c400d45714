"""The output formats in one registry: a format's name, what it is, and its renderer.

Adding a format is a renderer and one entry in :data:`FORMATS`: the pipeline,
the HTTP API's allowed values and response fields, and the CLI's choices are
all built from it. ``text`` is special only in that every extraction carries it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from service.errors import UnknownFormat
from service.output.dialects import PARAGRAPH_GAP, MarkdownDialect, TextDialect
from service.output.html_writer import write_html
from service.output.images import kept_images
from service.output.layout import layout
from service.output.markup import Markup
from service.output.tree import Container, build_tree
from service.output.trim import with_title, without_tables
from service.parsing.document import Document

_BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")  # 2+ blank lines: at most one survives
# What JSON leaves as it is and a YAML front matter may not hold as it is: the characters YAML 1.1 does not
# allow in a stream (DEL, the C1 controls, U+FFFE and U+FFFF), the three it reads as line breaks, and "<",
# ">" and "&", which a Markdown renderer that does not know front matter would read as raw HTML.
_YAML_ESCAPED = re.compile("[\x7f-\x9f\ufffe\uffff\u2028\u2029<>&]")

TEXT = "text"


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """What a caller may ask of every renderer (each reads what concerns its format)."""

    base_url: str | None = None  # relative links and images are resolved against it
    links: bool = True
    images: bool = False
    tables: bool = True
    title: str | None = None  # put first as a heading (unless a kept heading says it already)
    front_matter: Mapping[str, str | Sequence[str]] | None = None  # markdown: these fields as YAML front matter
    # the leaves no reader sees that were dropped inside paragraphs one does (bool per block; the pipeline's
    # whole_paragraphs drops them): the kept text on both sides of them joins as the page's white space says
    unseen: np.ndarray | None = None


DEFAULTS = RenderOptions()


def content_tree(document: Document, keep: np.ndarray, options: RenderOptions, *, markup: bool = True) -> Container:
    """The tree every format writes, with the caller's choices applied."""
    images = kept_images(document, keep, options.base_url) if markup and options.images else ()
    root = build_tree(document, keep, inline_markup=markup, images=images, unseen=options.unseen)
    if not options.tables:
        without_tables(root)
    if options.title:
        with_title(root, options.title)
    return root


def render_text(document: Document, keep: np.ndarray, options: RenderOptions = DEFAULTS) -> str:
    """Render the kept blocks as plain text, laid out as :mod:`service.output.dialects` describes."""
    text = layout(content_tree(document, keep, options, markup=False), TextDialect(document))
    return _BLANK_RUN.sub(PARAGRAPH_GAP, text).strip()


def render_html(document: Document, keep: np.ndarray, options: RenderOptions = DEFAULTS) -> str:
    """Render the kept blocks as clean semantic HTML (see :mod:`service.output.html_writer`)."""
    markup = Markup(document, options.base_url, links=options.links)
    return write_html(content_tree(document, keep, options), markup)


def render_markdown(document: Document, keep: np.ndarray, options: RenderOptions = DEFAULTS) -> str:
    """Render the kept blocks as Markdown (CommonMark; GFM pipe tables where a table is plain)."""
    dialect = MarkdownDialect(document, options.base_url, links=options.links)
    body = layout(content_tree(document, keep, options), dialect).strip()
    return front_matter(options.front_matter) + body if options.front_matter is not None else body


def front_matter(fields: Mapping[str, str | Sequence[str]]) -> str:
    r"""YAML front matter; each value as JSON (a string, or a list of strings), which YAML reads as the same value.

    What JSON leaves as it is and YAML may not hold (:data:`_YAML_ESCAPED`) is escaped as YAML's
    double-quoted strings allow (``\u007f``).
    """
    lines = [
        f"{key}: {_YAML_ESCAPED.sub(_escaped, json.dumps(value, ensure_ascii=False))}" for key, value in fields.items()
    ]
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n\n"


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


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
