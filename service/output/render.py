"""Placeholder renderer (replaced by the full one): paragraphs joined by blank lines."""

from __future__ import annotations

import numpy as np

from service.parsing.document import Document


def render_text(document: Document, keep: np.ndarray) -> str:
    paragraphs: dict[int, list[str]] = {}
    for i in np.flatnonzero(keep).tolist():
        paragraphs.setdefault(int(document.block_paragraph[i]), []).append(document.texts[i])
    return "\n\n".join(" ".join(parts) for parts in paragraphs.values())


def render_html(document: Document, keep: np.ndarray, base_url: str | None = None) -> str:
    raise NotImplementedError


def render_markdown(document: Document, keep: np.ndarray, base_url: str | None = None) -> str:
    raise NotImplementedError
