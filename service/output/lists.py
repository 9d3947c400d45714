"""Lists in the line layout: items one per line, marked, nested items indented under their marker."""

from __future__ import annotations

from service.output.dialects import Chunks, LineDialect
from service.output.tree import Container
from service.parsing.document import Document

TEXT_BULLET = "- "


def list_lines(node: Container, dialect: LineDialect, chunks: Chunks) -> str:
    """List items one per line, marked, continuation lines indented under the marker."""
    document = dialect.document
    first = _list_start(document, node) - 1 if node.kind == "ol" else None
    items = []
    for child in node.children:
        if not isinstance(child, Container) or child.kind != "li":
            items.extend(chunks([child], dialect))
            continue
        # An ordered item's number is its position in the source list, so
        # dropped items leave the remaining numbers as the reader saw them.
        marker = TEXT_BULLET if first is None else f"{first + int(document.elem_nth[child.elem])}. "
        body = "\n".join(chunks(child.children, dialect))
        items.append(marker + body.replace("\n", "\n" + " " * len(marker)))
    return "\n".join(items)


def _list_start(document: Document, node: Container) -> int:
    """Read the number of an ordered list's first item (its ``start`` attribute)."""
    try:
        return int(document.elem_attribute("start", "ol").get(node.elem) or 1)
    except ValueError:
        return 1
