"""Whole paragraphs: no backend returns a sentence with a hole in it."""

from __future__ import annotations

import numpy as np
import pytest

from service.backends.base import Backend, BlockLabels
from service.backends.coherence import cut_paragraphs, whole_paragraphs
from service.backends.registry import BackendRegistry, default_registry
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.pipeline import Extractor, extract

from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR
BYLINE = "<p>By <a href='/a'>Inès Moreau</a> · 12 March 2026</p>"
SCHEDULE = "<p>Check out the <a href='/tv'>Live tv schedule</a> for MLS</p>"


class DropLinks(Backend):
    """Keeps every leaf except link text: the leaf-level mistake the issue reports."""

    name = "drop_links"
    kind = "rules"
    version = "test-1"

    def classify(self, document: Document) -> BlockLabels:
        return BlockLabels.from_scores((~document.block_in_link).astype(np.float32))


def labels_of(document: Document, keep: list[bool]) -> BlockLabels:
    return BlockLabels(np.asarray(keep, dtype=np.float32), np.asarray(keep, dtype=bool))


def test_a_link_in_a_sentence_is_kept_with_it() -> None:
    registry = BackendRegistry()
    registry.register("drop_links", DropLinks)
    result = Extractor(registry, "drop_links").extract(f"<body>{BYLINE}{SCHEDULE}</body>")
    assert result.text == "By Inès Moreau · 12 March 2026\n\nCheck out the Live tv schedule for MLS"
    assert cut_paragraphs(result.document, result.labels.labels) == 0


def test_the_longer_part_decides_and_a_tie_keeps() -> None:
    document = parse_html("<p>short <a href='/'>a much longer piece of link text</a></p><p>abc<b>abc</b></p>")
    assert document.texts[:2] == ["short", "a much longer piece of link text"]
    coherent = whole_paragraphs(document, labels_of(document, [True, False, True, False]))
    assert coherent.labels.tolist() == [False, False, True, True]
    assert coherent.scores.tolist() == [1.0, 0.0, 1.0, 0.0]  # scores are the backend's own


def test_paragraphs_are_split_at_line_breaks_and_blocks() -> None:
    document = parse_html("<div>first line<br>second line<p>inner</p>tail</div>")
    keep = [True, False, True, False]
    assert whole_paragraphs(document, labels_of(document, keep)).labels.tolist() == keep
    assert cut_paragraphs(document, np.asarray(keep)) == 0


def test_cut_paragraphs_counts_partly_kept_ones() -> None:
    document = parse_html(f"<body>{BYLINE}{SCHEDULE}<p>whole</p></body>")
    keep = ~document.block_in_link
    assert cut_paragraphs(document, keep) == 2
    assert cut_paragraphs(document, np.ones(len(document), dtype=bool)) == 0


@pytest.mark.parametrize("backend", default_registry().names())
def test_no_shipped_backend_cuts_a_paragraph(backend: str) -> None:
    page = (FIXTURES / "article.html").read_bytes()
    byline_page = page.replace(b"<body>", f"<body><header>{BYLINE}{SCHEDULE}</header>".encode(), 1)
    for html in (page, byline_page):
        result = extract(html, backend=backend)
        assert cut_paragraphs(result.document, result.labels.labels) == 0
