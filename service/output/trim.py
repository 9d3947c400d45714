"""What a caller leaves out of the content tree or adds to it: tables, the title.

Both work on the tree, so every format agrees. A table that holds most of the
kept paragraphs lays the page out rather than presenting data, and stays.
"""

from __future__ import annotations

from service.output.tree import HEADING_TAGS, Container, Paragraph, Runs

# A table holding more than this share of the tree's paragraphs is the page's layout.
LAYOUT_TABLE_SHARE = 0.5


def without_tables(root: Container) -> Container:
    """``root`` with its data tables left out (in place)."""
    total = _paragraphs(root)

    def prune(node: Container) -> None:
        kept: list[Container | Paragraph] = []
        for child in node.children:
            if isinstance(child, Container):
                if child.kind == "table" and _paragraphs(child) <= LAYOUT_TABLE_SHARE * total:
                    continue
                prune(child)
            kept.append(child)
        node.children = kept

    prune(root)
    return root


def with_title(root: Container, title: str) -> Container:
    """``root`` with ``title`` as its first heading, unless a kept heading already says it (in place)."""
    wanted = _words(title)
    if not wanted or any(_same_title(_words(p.plain()), wanted) for p in _headings(root)):
        return root
    root.children.insert(0, Paragraph("h1", False, Runs([""], [title], [-1], [0]), 0, 1))
    return root


def _same_title(heading: str, title: str) -> bool:
    """A heading says the title when one holds the other and is at least half of it.

    ("Title" under "Title | Site", or "Title: the subtitle" under "Title").
    """
    shorter, longer = sorted((heading, title), key=len)
    return bool(shorter) and shorter in longer and len(shorter) >= len(longer) / 2


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def _paragraphs(node: Container) -> int:
    return sum(_paragraphs(c) if isinstance(c, Container) else 1 for c in node.children)


def _headings(node: Container) -> list[Paragraph]:
    found: list[Paragraph] = []
    for child in node.children:
        if isinstance(child, Container):
            found += _headings(child)
        elif child.kind in HEADING_TAGS:
            found.append(child)
    return found
