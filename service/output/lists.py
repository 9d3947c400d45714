"""Lists in the line layout: items one per line, marked, nested items indented under their marker."""

from __future__ import annotations

import re

from service.output.dialects import Chunks, LineDialect
from service.output.tree import Container, Paragraph
from service.parsing.document import Document


def list_lines(node: Container, dialect: LineDialect, chunks: Chunks) -> str:
    """List items one per line, marked, continuation lines indented under the marker.

    Text that sits in the list outside any item is set apart by the dialect's item gap, so that
    Markdown does not read it as the previous item's continuation.
    """
    document = dialect.document
    first = list_start(document, node) - 1 if node.kind == "ol" else None
    out: list[str] = []
    after_item = False
    for child in node.children:
        is_item = isinstance(child, Container) and child.kind == "li"
        if out:
            out.append("\n" if is_item and after_item else dialect.item_gap)
        after_item = is_item
        if not isinstance(child, Container) or child.kind != "li":
            out.append("\n".join(chunks([child], dialect)))
            continue
        # An ordered item's number is its position in the source list, so
        # dropped items leave the remaining numbers as the reader saw them.
        marker = dialect.item_marker(None if first is None else first + int(document.elem_nth[child.elem]))
        body = "".join(
            (_gap(part, dialect) if number else "") + "\n".join(chunks([part], dialect))
            for number, part in enumerate(child.children)
        )
        first_line, *rest = body.split("\n")
        indent = " " * len(marker)  # continuation lines under the marker; blank lines stay empty
        out.append("\n".join([marker + first_line, *(indent + line if line else line for line in rest)]))
    return "".join(out)


def _gap(node: Container | Paragraph, dialect: LineDialect) -> str:
    """What comes before the second and later parts of an item: a bullet list may follow its text directly."""
    return "\n" if isinstance(node, Container) and node.kind == "ul" else dialect.item_gap


def list_start(document: Document, node: Container) -> int:
    """The number of an ordered list's first item: its ``start`` attribute read as browsers read it, else 1.

    HTML's rules for integers: white space, a sign and ASCII digits, whatever follows them ignored ("3rd"
    is 3); a value out of a 32-bit integer's range is none. Python's ``int`` read "1_0" as 10 and "3rd"
    as nothing.
    """
    match = _HTML_INTEGER.match(document.elem_attribute("start", "ol").get(node.elem) or "")
    number = int(match.group(1)) if match else 1
    return number if -(2**31) <= number < 2**31 else 1


_HTML_INTEGER = re.compile(r"[\t\n\f\r ]*([+-]?[0-9]+)")
