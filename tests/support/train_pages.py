"""Labeled train pages made of HTML and gold in a temporary folder: the augmentation tests share them."""

from __future__ import annotations

from pathlib import Path

from service.evaluation.datasets import Page
from service.evaluation.labels import LabelCache, labels_for
from service.parsing.lexbor import parse_html
from service.training.data import LabeledDocument


def labeled_pages(folder: Path, pages: list[tuple[bytes, str]]) -> list[LabeledDocument]:
    """Each ``(html, gold)`` as a train page (ids ``0``, ``1``, ...), labelled by the alignment cached in ``folder``."""
    docs = []
    for i, (html, gold) in enumerate(pages):
        path = folder / f"{i}.html"
        path.write_bytes(html)
        page = Page(id=str(i), html_path=path, main_content=gold)
        document = parse_html(html)
        docs.append(LabeledDocument(page, document, labels_for(page, document, cache=LabelCache(folder))))
    return docs
