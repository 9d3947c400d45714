"""The compiled block walk against the Python walk over every WCXB dev page (WCXB, Murrough Foley 2026).

The same columns bit for bit, and the same text, HTML and Markdown; tests/unit/test_walk_compiled.py checks
the same over generated malformed pages.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from service.backends.coherence import whole_paragraphs
from service.commands.pages import load_pages
from service.output.formats import render_html, render_markdown, render_text
from service.parsing import lexbor
from service.parsing.decode import to_utf8
from service.parsing.lexbor import Walk, parse_html, python_walk
from service.pipeline import default_extractor

from support.walks import assert_walks_agree, compiled


@compiled
@pytest.mark.data
@pytest.mark.slow
def test_every_dev_page_is_walked_alike(data_dir: Path) -> None:
    pages = load_pages(data_dir)
    assert pages
    for page in pages:
        assert_walks_agree(to_utf8(page)[0])


def _outputs_digest(pages: list[bytes], walk: Walk) -> str:
    """One digest of the default backend's text, HTML and Markdown of every page, parsed with ``walk``."""
    backend = default_extractor().backend(None)
    digest = hashlib.sha256()
    for page in pages:
        document = parse_html(page, walk=walk)
        keep = whole_paragraphs(document, backend.classify(document)).labels
        for rendered in (render_text(document, keep), render_html(document, keep), render_markdown(document, keep)):
            digest.update(rendered.encode() + b"\0")
    return digest.hexdigest()


@compiled
@pytest.mark.data
@pytest.mark.slow
def test_no_output_changes_on_any_dev_page(data_dir: Path) -> None:
    pages = load_pages(data_dir)
    assert lexbor.compiled_walk is not None
    assert _outputs_digest(pages, lexbor.compiled_walk) == _outputs_digest(pages, python_walk)
