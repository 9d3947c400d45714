"""Lists in the line layout: items one per line, marked, nested items indented under their marker."""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from service.output.dialects import Chunks, LineDialect
from service.output.tree import Container, Paragraph
from service.parsing.document import Document


def list_lines(node: Container, dialect: LineDialect, chunks: Chunks) -> str:
    """List items one per line, marked, continuation lines indented under the marker.

    Text that sits in the list outside any item is set apart by the dialect's item gap, so that
    Markdown does not read it as the previous item's continuation.
    """
    document = dialect.document
    numbers = item_numbers(document, node) if node.kind == "ol" else None
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
        # An ordered item's number is the one the page shows it with, so dropped items leave the
        # remaining numbers as the reader saw them.
        marker = dialect.item_marker(None if numbers is None else numbers.by_item.get(child.elem, 1))
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


class ItemNumbers(NamedTuple):
    """An ordered list's numbering as a browser shows it."""

    by_item: dict[int, int]  # each <li> element (kept or not): its number
    backwards: bool  # the list is ``reversed``: each item one less than the one before
    default_start: int  # the first number without a ``start``: 1, or the count of items where reversed


def item_numbers(document: Document, node: Container) -> ItemNumbers:
    """Each ``<li>`` of an ordered list, by element (kept or not), with the number a browser shows it with.

    HTML's rules: from ``start`` (by default 1, or the count of items where the list is ``reversed``),
    one up each item (down where reversed); an item's ``value`` sets its number and those after it.
    """
    items = [
        int(elem)
        for elem in np.flatnonzero(document.elem_parent == node.elem).tolist()
        if document.elem_tag[elem] == "li"
    ]
    backwards = node.elem in document.elem_attribute("reversed", "ol")
    default_start = len(items) if backwards else 1
    number = list_start(document, node, default=default_start)
    values = document.elem_attribute("value", "li") if items else {}
    numbers: dict[int, int] = {}
    for item in items:
        given = html_integer(values.get(item)) if item in values else None
        number = number if given is None else given
        numbers[item] = number
        number += -1 if backwards else 1
    return ItemNumbers(numbers, backwards, default_start)


def list_start(document: Document, node: Container, default: int = 1) -> int:
    """The number of an ordered list's first item: its ``start`` read as browsers read it, else ``default``."""
    start = html_integer(document.elem_attribute("start", "ol").get(node.elem))
    return default if start is None else start


def html_integer(text: str | None) -> int | None:
    """``text`` by HTML's rules for integers: white space, a sign and ASCII digits, whatever follows ignored.

    "3rd" is 3; "1_0" is 1 (Python's ``int`` read 10); a value beyond a 32-bit integer is none.
    """
    match = _HTML_INTEGER.match(text or "")
    number = int(match.group(1)) if match else None
    return number if number is not None and -(2**31) <= number < 2**31 else None


_HTML_INTEGER = re.compile(r"[\t\n\f\r ]*([+-]?[0-9]+)")
