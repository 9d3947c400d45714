"""Tables in the line layout: a pipe grid where the dialect has one and every cell is plain, else a line per row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from service.output.dialects import PARAGRAPH_GAP, Chunks, LineDialect
from service.output.tree import Container, Paragraph

CELL_SEPARATOR = " | "
T = TypeVar("T")


def table_lines(node: Container, dialect: LineDialect, chunks: Chunks) -> str:
    """Lay a table out as a pipe grid where the dialect has one and all cells are plain, else a line per row."""
    nth = dialect.document.elem_nth
    before: list[str] = []
    rows: list[list[tuple[int, str]]] = []
    simple = True
    for child in node.children:
        if not isinstance(child, Container) or child.kind != "tr":
            before.extend(chunks([child], dialect))
            simple = simple and isinstance(child, Container) and child.kind == "caption"
            continue
        row = []
        for cell in child.children:
            if isinstance(cell, Container) and cell.kind in ("td", "th"):
                paragraphs = [p for p in cell.children if isinstance(p, Paragraph) and p.kind != "pre"]
                if len(paragraphs) == len(cell.children):
                    text = " ".join(dialect.inline(p, one_line=True) for p in paragraphs)
                else:
                    simple = False
                    text = dialect.flatten(" ".join(chunks(cell.children, dialect.in_cell())))
                row.append((int(nth[cell.elem]), text))
            else:
                simple = False
                row.extend((0, dialect.flatten(chunk)) for chunk in chunks([cell], dialect.in_cell()))
        rows.append(row)
    grid = dialect.grid(rows) if simple and rows else None
    if grid is None:
        lines = [dialect.escape_line_starts(CELL_SEPARATOR.join(with_gaps(row, ""))) for row in rows]
        grid = dialect.row_separator.join(lines)
    return PARAGRAPH_GAP.join([*before, grid]) if before else grid


def with_gaps(row: Sequence[tuple[int, T]], empty: T) -> list[T]:
    """A row's cells with ``empty`` for every column no kept cell fills (``column`` 0: no cell, in order).

    An empty or dropped cell left out moved the values after it one column left: "Norway | 3 | 5"
    under "Name | Gold | Silver | Bronze" read 3 gold medals. The text layouts and the HTML writer fill alike.
    """
    cells: list[T] = []
    last = 0
    for column, cell in row:
        if column > last + 1:
            cells.extend([empty] * (column - last - 1))
        cells.append(cell)
        last = column or last
    return cells
