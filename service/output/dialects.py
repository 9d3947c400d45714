"""Plain text and Markdown: one line layout, two dialects (how each writes a paragraph, a heading, a cell, a grid).

Plain text layout, the one the WCXB ground truth uses: paragraphs and
headings separated by blank lines; list items on their own lines marked
``- `` or ``N. `` (nested items indented under their parent), one newline
between items of one list; table rows one per line with the cells of a row
joined by ``" | "``; ``<br>`` is a newline inside a paragraph; pre text kept
as it is (except that runs of blank lines collapse to one).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from copy import copy

from service.output.markup import (
    BACKTICK_RUNS,
    MARKDOWN_HARD_BREAK,
    MD_LINE_START,
    MarkdownMarkup,
    code_language,
    escape_line_start,
    write_inline,
)
from service.output.tree import HEADING_TAGS, Container, Paragraph
from service.parsing.document import Document

PARAGRAPH_GAP = "\n\n"
# Wider tables (or cells placed that far right) are written a row per line.
MAX_GRID_COLUMNS = 24
MAX_LIST_NUMBER = 999_999_999  # CommonMark's largest ordered list number (nine digits)
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


class LineDialect:
    """How a line-based format writes each part of the layout; the defaults write no markup."""

    # Rows of a table that is not laid out as a grid are joined with this.
    row_separator = "\n"
    # What a <br> becomes inside a paragraph.
    hard_break = "\n"
    # Between the paragraphs (and nested lists) of one list item.
    item_gap = "\n"

    def __init__(self, document: Document) -> None:
        self.document = document

    def inline(self, paragraph: Paragraph, *, one_line: bool = False) -> str:
        text = paragraph.plain()
        return text.replace("\n", " ") if one_line else text

    def flatten(self, text: str) -> str:
        """Laid-out lines as one line (a table cell holding lists or paragraphs)."""
        return " ".join(text.replace(self.hard_break, " ").split())

    def paragraph(self, paragraph: Paragraph) -> str:
        if paragraph.kind == "pre":
            return self.preformatted(paragraph.plain(), code_language(self.document, paragraph.elem))
        if paragraph.kind in HEADING_TAGS:
            return self.heading(int(paragraph.kind[1]), self.inline(paragraph, one_line=True))
        return self.escape_line_starts(self.inline(paragraph))

    def preformatted(self, text: str, language: str) -> str:
        return text.strip("\n").rstrip()

    def heading(self, level: int, text: str) -> str:
        return text

    def escape_line_starts(self, text: str) -> str:
        return text

    def quote(self, body: str) -> str:
        return body

    def grid(self, rows: list[list[tuple[int, str]]]) -> str | None:
        """Lay a table out as a grid; None where rows as lines will do."""
        return None

    def in_cell(self) -> LineDialect:
        """The dialect for what a table's cell holds beyond text, flattened to one line: no grid in there."""
        return self

    def item_marker(self, number: int | None) -> str:
        """An ordered list item's marker for its ``number``, or a bullet's (None)."""
        return "- " if number is None else f"{number}. "


class TextDialect(LineDialect):
    """Plain text: the defaults, with a fast path for the common paragraph."""

    def paragraph(self, paragraph: Paragraph) -> str:
        if paragraph.kind == "p":  # most of every page: skip the hooks, which add nothing here
            return paragraph.plain()
        return LineDialect.paragraph(self, paragraph)


class MarkdownDialect(LineDialect):
    """CommonMark with GFM pipe tables; text escaped where it would read as markup."""

    row_separator = PARAGRAPH_GAP  # rows as lines must not run together into one paragraph
    item_gap = PARAGRAPH_GAP  # one newline would join an item's second paragraph to its first
    hard_break = MARKDOWN_HARD_BREAK

    def __init__(self, document: Document, base_url: str | None, *, links: bool = True) -> None:
        super().__init__(document)
        self.markup = MarkdownMarkup(document, base_url, links=links)
        # A paragraph of several lines also escapes "|": there a line of pipes and dashes under a line of
        # pipes would be a GFM table. One line cannot be ("Home | News" stays as written).
        self.lines_markup = MarkdownMarkup(document, base_url, links=links, pipes=True)
        self.lines_markup.hrefs = self.markup.hrefs  # one cache of resolved links for both
        self.grids = True

    def in_cell(self) -> LineDialect:
        # a table in a cell flattened to one line: as a grid its "|---|" row would be text in the outer one
        flat = copy(self)
        flat.grids = False
        return flat

    def item_marker(self, number: int | None) -> str:
        # CommonMark reads 0 to 999,999,999 only: beyond, "-3." or "1000000000." would be a paragraph
        return super().item_marker(None if number is None else min(max(number, 0), MAX_LIST_NUMBER))

    def inline(self, paragraph: Paragraph, *, one_line: bool = False) -> str:
        if one_line:
            return write_inline(paragraph, self.markup).replace(self.hard_break, " ")
        several = "\n" in paragraph.runs.separators[paragraph.start + 1 : paragraph.stop]  # a <br> inside it
        return write_inline(paragraph, self.lines_markup if several else self.markup)

    def preformatted(self, text: str, language: str) -> str:
        longest = max((len(run) for run in BACKTICK_RUNS.findall(text)), default=0)
        fence = "`" * max(3, longest + 1)  # longer than any backtick run inside, so it cannot close early
        body = text.strip("\n").rstrip()
        return f"{fence}{language}\n{body}\n{fence}"

    def heading(self, level: int, text: str) -> str:
        if text.endswith("#"):  # "We are #" would end in a closing sequence, which CommonMark drops
            text = text[:-1] + "\\#"
        return f"{'#' * level} {text}"

    def escape_line_starts(self, text: str) -> str:
        return MD_LINE_START.sub(escape_line_start, text)

    def quote(self, body: str) -> str:
        return "\n".join(f"> {line}" if line else ">" for line in body.split("\n"))

    def grid(self, rows: list[list[tuple[int, str]]]) -> str | None:
        if not self.grids:
            return None
        width = max((column for row in rows for column, _ in row), default=0)
        if not 0 < width <= MAX_GRID_COLUMNS:
            return None
        lines = []
        for number, row in enumerate(rows):
            cells = [""] * width
            for column, text in row:
                cells[column - 1] = _UNESCAPED_PIPE.sub(r"\\|", text)  # text's are escaped, a code span's not
            lines.append(f"| {' | '.join(cells)} |")
            if number == 0:
                lines.append(f"|{'---|' * width}")
        return "\n".join(lines)


# The layout's own "each node as lines" (service.output.layout.chunks), handed to the list and table rooms
# so that they can lay out what their items and cells hold without importing the layout back.
Chunks = Callable[[list[Container | Paragraph], LineDialect], list[str]]
