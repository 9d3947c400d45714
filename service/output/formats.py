"""The public renderers: kept blocks to plain text, HTML or Markdown, each through the one content tree."""

from __future__ import annotations

import re

import numpy as np

from service.output.dialects import PARAGRAPH_GAP, MarkdownDialect, TextDialect
from service.output.html_writer import write_html
from service.output.layout import layout
from service.output.markup import Markup
from service.output.tree import build_tree
from service.parsing.document import Document

_BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")  # 2+ blank lines: at most one survives


def render_text(document: Document, keep: np.ndarray) -> str:
    """Render the kept blocks as plain text, laid out as :mod:`service.output.dialects` describes."""
    text = layout(build_tree(document, keep, inline_markup=False), TextDialect(document))
    return _BLANK_RUN.sub(PARAGRAPH_GAP, text).strip()


def render_html(document: Document, keep: np.ndarray, base_url: str | None = None) -> str:
    """Render the kept blocks as clean semantic HTML (no attributes but ``href``)."""
    return write_html(build_tree(document, keep), Markup(document, base_url))


def render_markdown(document: Document, keep: np.ndarray, base_url: str | None = None) -> str:
    """Render the kept blocks as Markdown (CommonMark; GFM pipe tables where a table is plain)."""
    return layout(build_tree(document, keep), MarkdownDialect(document, base_url)).strip()
