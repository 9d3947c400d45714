"""The content tree as semantic HTML: no attributes but ``href``."""

from __future__ import annotations

from service.output.markup import Markup, write_inline
from service.output.tree import Container, Paragraph


def write_html(node: Container | Paragraph, markup: Markup) -> str:
    """Write the tree as semantic HTML; every element opened here is closed here."""
    if isinstance(node, Paragraph):
        inner = write_inline(node, markup)
        return inner if node.bare else f"<{node.kind}>{inner}</{node.kind}>"
    inner = "\n".join(write_html(child, markup) for child in node.children)
    return inner if node.kind == "root" else f"<{node.kind}>{inner}</{node.kind}>"
