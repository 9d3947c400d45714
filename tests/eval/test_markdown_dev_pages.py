"""Markdown round trip over every WCXB dev page whose kept content has a list, a table or a code block.

The content tree says what a reader should get; markdown-it-py (CommonMark + GFM tables) says what our
Markdown is read as. Outside tables (whose cells are flattened on purpose) the counts must agree: list
items, headings, block quotes and code blocks, each code block with the language its <pre> named; and
every Markdown table's header row holds the first row of a table of the tree. Skips without the data.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from service.evaluation.datasets import load_corpus
from service.options import Options
from service.output.dialects import MarkdownDialect
from service.output.markup import code_language
from service.output.tree import HEADING_TAGS, Container, Paragraph, build_tree
from service.pipeline import default_extractor

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
COMMONMARK = MarkdownIt("commonmark").enable("table")
BACKEND = "mlp"


def expected(node: Container, dialect: MarkdownDialect, counts: Counter[str], fences: list[str]) -> None:
    """What the tree holds outside table rows (captions are written before the table), as markdown-it names it."""
    for child in node.children:
        if node.kind == "table" and isinstance(child, Container) and child.kind == "tr":
            continue
        if isinstance(child, Paragraph):
            if child.kind in HEADING_TAGS:
                counts["heading_open"] += 1
            elif child.kind == "pre":
                counts["fence"] += 1
                fences.append(code_language(dialect.document, child.elem))
        else:
            counts["table"] += child.kind == "table"
            counts["list_item_open"] += child.kind == "li"
            counts["blockquote_open"] += child.kind == "blockquote"
            expected(child, dialect, counts, fences)


def test_markdown_reads_back_as_the_tree_on_every_dev_page(data_dir: Path) -> None:
    extractor = default_extractor()
    checked, failures = 0, []
    for page in load_corpus(data_dir):
        extraction = extractor.extract(page.html(), backend=BACKEND, url=page.url or None, options=Options("markdown"))
        document, keep = extraction.document, extraction.labels.labels
        dialect = MarkdownDialect(document, page.url or None)
        counts: Counter[str] = Counter()
        fences: list[str] = []
        expected(build_tree(document, keep), dialect, counts, fences)
        if not (counts["list_item_open"] or counts["table"] or counts["fence"]):
            continue
        checked += 1
        tokens = COMMONMARK.parse(extraction.content)
        outside_tables: list = []
        depth = 0
        for token in tokens:
            depth += token.type == "table_open"
            depth -= token.type == "table_close"
            if not depth:
                outside_tables.append(token)
        got = Counter(t.type for t in outside_tables)
        got_fences = [t.info for t in outside_tables if t.type in ("fence", "code_block")]
        wanted = {k: counts[k] for k in ("list_item_open", "heading_open", "blockquote_open")}
        if {k: got[k] for k in wanted} != wanted or got_fences != fences:
            failures.append(f"{page.id}: tree {wanted} {fences}, markdown {dict(got)} {got_fences}")
            continue
        for at, token in enumerate(tokens):
            if token.type == "thead_open" and tokens[at + 1].type != "tr_open":
                failures.append(f"{page.id}: a table without its header row")
    assert checked > 100, checked
    assert not failures, f"{len(failures)} of {checked} pages:\n" + "\n".join(failures[:20])
