"""The content tree as semantic HTML, safe to embed.

No attributes but ``href``, an image's ``src``/``alt``, a list's numbers (``<ol start reversed>``,
``<li value>``, integers) and a code block's ``language-x`` class. Safe to embed: every text is
escaped, every element is one this module writes, and every URL went through
:func:`~service.output.markup.safe_url`.
"""

from __future__ import annotations

from service.output.lists import item_numbers
from service.output.markup import Markup, code_language, write_inline
from service.output.tables import with_gaps
from service.output.tree import Container, Paragraph


def write_html(node: Container | Paragraph, markup: Markup) -> str:
    """Write the tree as semantic HTML; every element opened here is closed here."""
    if isinstance(node, Paragraph):
        inner = write_inline(node, markup)
        if node.kind == "pre" and (language := code_language(markup.document, node.elem)):
            inner = f'<code class="language-{language}">{inner}</code>'  # the name is [\w+#.-] only
        return inner if node.bare or node.image is not None else f"<{node.kind}>{inner}</{node.kind}>"
    if node.kind == "tr":
        inner = "\n".join(_cells_with_gaps(node, markup))
    elif node.kind == "ol":
        return _ordered_list(node, markup)
    else:
        inner = "\n".join(write_html(child, markup) for child in node.children)
    return inner if node.kind == "root" else f"<{node.kind}>{inner}</{node.kind}>"


def _ordered_list(node: Container, markup: Markup) -> str:
    """An ``<ol>`` whose items show the numbers the page shows them with.

    Its ``start`` and ``reversed``, and a ``value`` on each item whose number is not the one before it
    plus one (minus one reversed): after a dropped item, or where the page set it.
    """
    numbers = item_numbers(markup.document, node)
    step = -1 if numbers.backwards else 1
    items = [child for child in node.children if isinstance(child, Container) and child.kind == "li"]
    first = numbers.by_item.get(items[0].elem, 1) if items else 1
    expected = first
    parts: list[str] = []
    for child in node.children:
        if isinstance(child, Container) and child.kind == "li":
            number = numbers.by_item.get(child.elem, expected)
            value = f' value="{number}"' if number != expected else ""
            parts.append(f"<li{value}>" + "\n".join(write_html(c, markup) for c in child.children) + "</li>")
            expected = number + step
        else:
            parts.append(write_html(child, markup))
    start = f' start="{first}"' if first != numbers.default_start else ""
    return f"<ol{' reversed' if numbers.backwards else ''}{start}>" + "\n".join(parts) + "</ol>"


def _cells_with_gaps(row: Container, markup: Markup) -> list[str]:
    """A row's cells, with an empty ``<td>`` for each column no kept cell fills: values stay under their headers."""
    nth = markup.document.elem_nth
    cells = [
        (
            int(nth[child.elem]) if isinstance(child, Container) and child.kind in ("td", "th") else 0,
            write_html(child, markup),
        )
        for child in row.children
    ]
    return with_gaps(cells, "<td></td>")
