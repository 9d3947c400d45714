"""The content tree as semantic HTML, safe to embed.

No attributes but ``href``, an image's ``src``/``alt``, an ``<ol start>`` and a code
block's ``language-x`` class. Safe to embed: every text is escaped, every element is one this module writes, and
every URL went through :func:`~service.output.markup.safe_url`.
"""

from __future__ import annotations

from service.output.lists import list_start
from service.output.markup import Markup, code_language, write_inline
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
    else:
        inner = "\n".join(write_html(child, markup) for child in node.children)
    if node.kind == "root":
        return inner
    start = list_start(markup.document, node) if node.kind == "ol" else 1
    opening = f'<ol start="{start}">' if start != 1 else f"<{node.kind}>"
    return f"{opening}{inner}</{node.kind}>"


def _cells_with_gaps(row: Container, markup: Markup) -> list[str]:
    """A row's cells, with an empty ``<td>`` for each column no kept cell fills: values stay under their headers."""
    nth = markup.document.elem_nth
    cells: list[str] = []
    last = 0
    for child in row.children:
        column = int(nth[child.elem]) if isinstance(child, Container) and child.kind in ("td", "th") else 0
        if column > last + 1:
            cells.extend(["<td></td>"] * (column - last - 1))
        cells.append(write_html(child, markup))
        last = column or last
    return cells
