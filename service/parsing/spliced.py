"""Link lists of one page put into another, written out as HTML: training's boilerplate splicing.

Training uses it to show a model teaser lists and share rows inside an
article's text (see :mod:`service.training.augment`); here because only
:mod:`service.parsing` reads the tree with selectolax. Pages are decoded as
a request's would be, so a copy has the same text.
"""

from __future__ import annotations

from collections.abc import Sequence

from selectolax.lexbor import LexborHTMLParser

from service.parsing.decode import to_utf8

BLOCK_TAGS = "ul, ol, div, section, aside, nav, table"
MIN_LINKS = 3
MIN_LINK_SHARE = 0.5  # of the block's characters, inside its links
MIN_CHARS, MAX_CHARS = 30, 1500  # a row of links to a block of teasers, not a whole menu column
# A private-use character cannot occur in a decoded page's markup by chance.
_MARK = "\ue000splice{}\ue000"


def _tree(html: bytes) -> LexborHTMLParser:
    return LexborHTMLParser(to_utf8(html)[0])


def link_blocks(html: bytes) -> list[tuple[str, str]]:
    """(outer HTML, text with a line per text node) of each link-dense block of ``html``, in page order."""
    blocks = []
    for node in _tree(html).css(BLOCK_TAGS):
        text = node.text(separator="\n", strip=True)
        if not MIN_CHARS <= len(text) <= MAX_CHARS:
            continue
        links = node.css("a")
        if len(links) >= MIN_LINKS and sum(len(a.text(strip=True)) for a in links) >= MIN_LINK_SHARE * len(text):
            blocks.append((node.html or "", text))
    return blocks


def paragraph_texts(html: bytes) -> list[str]:
    """The text of every ``<p>`` of ``html``, in page order."""
    return [node.text() for node in _tree(html).css("p")]


def with_blocks_after(html: bytes, inserts: Sequence[tuple[int, str]]) -> str:
    """``html`` with the markup of each ``(i, fragment)`` of ``inserts`` right after its i-th ``<p>``."""
    tree = _tree(html)
    paragraphs = tree.css("p")
    for n, (i, _) in enumerate(inserts):
        paragraphs[i].insert_after(_MARK.format(n))
    out = tree.html or ""
    for n, (_, fragment) in enumerate(inserts):
        out = out.replace(_MARK.format(n), fragment, 1)
    return out
