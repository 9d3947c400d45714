"""The line layout of a whole tree: each node as lines, lists and tables by their own rooms."""

from __future__ import annotations

from service.output.dialects import PARAGRAPH_GAP, LineDialect
from service.output.lists import list_lines
from service.output.tables import table_lines
from service.output.tree import Container, Paragraph


def chunks(nodes: list[Container | Paragraph], dialect: LineDialect) -> list[str]:
    """Each node laid out as lines; the caller decides what separates them."""
    out = []
    for node in nodes:
        if isinstance(node, Paragraph):
            out.append(dialect.paragraph(node))
        elif node.kind in ("ul", "ol"):
            out.append(list_lines(node, dialect, chunks))
        elif node.kind == "table":
            out.append(table_lines(node, dialect, chunks))
        elif node.kind == "blockquote":
            out.append(dialect.quote(PARAGRAPH_GAP.join(chunks(node.children, dialect))))
        else:  # caption, or a container out of place: its content as paragraphs
            out.extend(chunks(node.children, dialect))
    return out


def layout(root: Container, dialect: LineDialect) -> str:
    """The whole tree in the dialect, its top-level chunks a blank line apart."""
    return PARAGRAPH_GAP.join(chunks(root.children, dialect))
