"""Kept blocks to text, HTML or Markdown, through one intermediate tree.

The classifiers label text leaves; readers want paragraphs, headings, lists
and tables. :func:`build_tree` turns the kept leaves into a small tree of
*containers* (blockquote, ul/ol, li, table, caption, tr, td/th) whose leaves
are *paragraphs* (p, h1-h6 or pre), ranges into one columnar table of inline
*runs* (separator, text, link, style). What the tree needs about an element
(its container chain, paragraph kind, enclosing link, style and item) changes
only at a few "significant" elements; a numpy jump table sends every element
to its nearest significant ancestor and the facts are memoised per
significant element, so no block ever walks its ancestor chain: a page costs
O(elements) in numpy plus O(paragraphs + significant elements) in Python.

Three serializers read the tree: plain text and Markdown share one line
layout (:class:`_TextDialect` / :class:`_MarkdownDialect`), HTML walks it as
markup; HTML and Markdown share the inline-markup assembly (:func:`_markup`).

Plain text layout, the one the WCXB ground truth uses: paragraphs and
headings separated by blank lines; list items on their own lines marked
``- `` or ``N. `` (nested items indented under their parent), one newline
between items of one list; table rows one per line with the cells of a row
joined by ``" | "``; ``<br>`` is a newline inside a paragraph; pre text kept
as it is (except that runs of blank lines collapse to one).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import groupby
from operator import add, itemgetter
from urllib.parse import urljoin

import numpy as np

from service.parsing.document import Document

# -- element vocabulary -------------------------------------------------------

# Elements that become containers in the tree, and the kind they become.
CONTAINER_KINDS: dict[str, str] = {
    "blockquote": "blockquote",
    "ul": "ul",
    "ol": "ol",
    "menu": "ul",
    "dir": "ul",
    "li": "li",
    "table": "table",
    "caption": "caption",
    "tr": "tr",
    "td": "td",
    "th": "th",
}
# Containers that only make sense directly inside a given one (tbody and
# thead are looked through); elsewhere the element is treated as inline
# wrapping, so the tree never holds a stray <li> or <td>.
REQUIRED_PARENT: dict[str, frozenset[str]] = {
    "li": frozenset({"ul", "ol"}),
    "caption": frozenset({"table"}),
    "tr": frozenset({"table"}),
    "td": frozenset({"tr"}),
    "th": frozenset({"tr"}),
}
# Containers whose own text needs no <p> around it in HTML.
BARE_TEXT_CONTAINERS = frozenset({"li", "caption", "td", "th"})
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
PRE_TAGS = frozenset({"pre", "listing", "xmp", "plaintext"})
# Items a site's CSS nearly always sets apart (menus of links, button bars):
# adjacent ones with no white space between them still read as two words.
ITEM_TAGS = frozenset({"a", "button"})
# Deeper container nesting is flattened into the deepest kept level: keeps
# the serializers' recursion and Markdown indentation bounded.
MAX_NESTING = 32

# Inline styles as bits, so a run's style is one small int.
EMPHASIS, STRONG, CODE = 1, 2, 4
STYLE_BITS: dict[str, int] = {
    "em": EMPHASIS,
    "i": EMPHASIS,
    "cite": EMPHASIS,
    "dfn": EMPHASIS,
    "strong": STRONG,
    "b": STRONG,
    "code": CODE,
    "kbd": CODE,
    "samp": CODE,
    "tt": CODE,
}
# Link targets that must never reach a reader's browser.
UNSAFE_SCHEMES = ("javascript:", "vbscript:", "data:")
_URL_INVISIBLES = re.compile(r"[\x00-\x20]")  # browsers drop these before reading a scheme

# Layout constants.
PARAGRAPH_GAP = "\n\n"
CELL_SEPARATOR = " | "
TEXT_BULLET = "- "
# Wider tables (or cells placed that far right) are written a row per line.
MAX_GRID_COLUMNS = 24
MARKDOWN_HARD_BREAK = "\\\n"  # CommonMark: a backslash at the end of a line
_BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")  # 2+ blank lines: at most one survives

# -- the intermediate tree ------------------------------------------------------

# What goes between two leaves of a paragraph, by code: nothing, a space, a <br>.
SEPARATORS = np.array(["", " ", "\n"], dtype=object)
_JOINED, _SPACED, _BROKEN = 0, 1, 2


@dataclass(slots=True)
class Runs:
    """The inline runs of the whole tree, one entry per kept leaf, as columns.

    Stored once for the tree rather than per paragraph: building a
    paragraph is then O(1), which matters as most paragraphs hold one leaf.
    """

    separators: list[str]  # before each leaf: "", " " or "\n" (a <br>); "" where a paragraph starts
    texts: list[str]
    links: list[int]  # element id of the enclosing <a href>, -1 if none
    styles: list[int]  # STYLE_BITS mask


@dataclass(slots=True)
class Paragraph:
    """What a browser lays out as one block: the kept leaves sharing a block-level parent."""

    kind: str  # "p", "h1".."h6" or "pre"
    bare: bool  # the text sits directly in a li/td/th/caption (no <p> of its own)
    runs: Runs
    start: int  # its leaves are runs[start:stop]
    stop: int

    def plain(self) -> str:
        """Join the leaves with their separators, no markup."""
        if self.stop - self.start == 1:
            return self.runs.texts[self.start]
        runs, start, stop = self.runs, self.start, self.stop
        return "".join(map(add, runs.separators[start:stop], runs.texts[start:stop]))

    def items(self) -> Iterator[tuple[str, str, int, int]]:
        """Each leaf as (separator, text, link, style)."""
        runs, start, stop = self.runs, self.start, self.stop
        return zip(
            runs.separators[start:stop],
            runs.texts[start:stop],
            runs.links[start:stop],
            runs.styles[start:stop],
            strict=True,
        )


@dataclass(slots=True)
class Container:
    """A structural element kept because some kept text is inside it."""

    kind: str  # "root" or a value of CONTAINER_KINDS
    elem: int  # element id, -1 for the root
    children: list[Container | Paragraph] = field(default_factory=list)


# Per-element facts: (container chain, kind of the innermost container,
# paragraph kind, enclosing link element, style mask, enclosing item).
_ElemInfo = tuple[tuple[int, ...], str, str, int, int, int]
_ROOT_INFO: _ElemInfo = ((), "root", "p", -1, 0, -1)
# Elements that change those facts; every other element shares its parent's.
# Plain text reads only the structural ones.
_STRUCTURAL_TAGS = frozenset(CONTAINER_KINDS) | HEADING_TAGS | PRE_TAGS | ITEM_TAGS
_INLINE_TAGS = frozenset(STYLE_BITS) | {"a"}


class _ElementFacts:
    """Per-element facts, derived only at the few elements that change them.

    A jump table sends every element to its nearest *significant* ancestor
    (or itself), built by pointer doubling in numpy, so Python code runs once
    per significant element (a few dozen on a page), not once per ancestor
    of every paragraph.
    """

    def __init__(self, document: Document, *, inline_markup: bool) -> None:
        self.document = document
        self.inline_markup = inline_markup
        significant_tags = _STRUCTURAL_TAGS | _INLINE_TAGS if inline_markup else _STRUCTURAL_TAGS
        count = len(document.elem_tag)
        parent = document.elem_parent
        nearest = document.nearest_marked(document.elem_tagged(significant_tags))
        # index `count` stands for "above the root" (its facts are the root's defaults)
        self.nearest = jump = np.append(np.where(nearest < 0, count, nearest), count)
        # The nearest significant strict ancestor of every element (a list:
        # the walk in _significant reads single items).
        self.above: list[int] = jump[np.where(parent < 0, count, parent)].tolist()
        self.memo: dict[int, _ElemInfo] = {count: _ROOT_INFO}

    def lookup(self, elems: np.ndarray) -> list[_ElemInfo]:
        """Facts of many elements at once."""
        memo = self.memo
        return [memo.get(s) or self._significant(s) for s in self.nearest[elems].tolist()]

    def _significant(self, elem: int) -> _ElemInfo:
        """Facts of a significant element: its nearest significant ancestor's, changed by its own tag."""
        memo, above = self.memo, self.above
        pending = [elem]
        while True:
            elem = above[elem]
            info = memo.get(elem)
            if info is not None:
                break
            pending.append(elem)
        for e in reversed(pending):
            info = memo[e] = self._derive(info, e)
        return info

    def _derive(self, parent: _ElemInfo, elem: int) -> _ElemInfo:
        chain, last_kind, leaf, link, style, item = parent
        tag = self.document.elem_tag[elem]
        kind = CONTAINER_KINDS.get(tag)
        if kind is not None and len(chain) < MAX_NESTING:
            allowed = REQUIRED_PARENT.get(kind)
            if allowed is None or last_kind in allowed:
                return (*chain, elem), kind, "p", link, style, item
        if tag in ITEM_TAGS:
            item = elem
        if tag in HEADING_TAGS:
            leaf = tag
        elif tag in PRE_TAGS:
            leaf = "pre"
        elif tag == "a" and self.inline_markup and self.document.elem_href(elem):  # plain text has no links
            link = elem
        else:
            style |= STYLE_BITS.get(tag, 0)
        return chain, last_kind, leaf, link, style, item


def build_tree(document: Document, keep: np.ndarray, *, inline_markup: bool = True) -> Container:
    """Build the container tree of the kept blocks: the one structure every format serializes.

    Consecutive leaves with the same nearest block-level ancestor form one
    paragraph; a kept leaf after dropped ones in the same paragraph joins it
    with a space, so dropping a word never glues its neighbours. Per-leaf
    work is columnar (numpy, one list each); Python loops once per paragraph.
    ``inline_markup=False`` leaves links and styles out (plain text needs
    neither, and they are the only per-leaf element look-ups).
    """
    keep = np.asarray(keep, dtype=bool)
    if keep.shape != (len(document),):
        raise ValueError(f"keep has shape {keep.shape}, the document has {len(document)} blocks")
    root = Container("root", -1)
    kept = np.flatnonzero(keep)
    if kept.size == 0:
        return root
    # A paragraph starts wherever the block-level parent changes in the page,
    # so text on both sides of a dropped <p> never merges.
    paragraph_of = document.block_paragraph
    changes = np.zeros(len(document), dtype=np.int64)
    np.not_equal(paragraph_of[1:], paragraph_of[:-1], out=changes[1:], casting="unsafe")
    first = np.flatnonzero(np.diff(np.cumsum(changes)[kept], prepend=-1))
    codes = np.where(
        document.block_break_before[kept],
        _BROKEN,
        np.where(document.block_space_before[kept] | (np.diff(kept, prepend=-1) != 1), _SPACED, _JOINED),
    )
    in_pre = document.block_in_pre[kept]
    all_texts = document.texts
    texts = [all_texts[i] for i in kept.tolist()]
    facts = _ElementFacts(document, inline_markup=inline_markup)
    codes[first] = _SPACED  # not _JOINED while _separate_items looks; a paragraph's first separator is ""
    _separate_items(document.block_elem[kept], texts, codes, in_pre, facts)
    codes[first] = _JOINED
    separators: list[str] = SEPARATORS[codes].tolist()
    if inline_markup:
        inline = facts.lookup(document.block_elem[kept])
        runs = Runs(separators, texts, [info[3] for info in inline], [info[4] for info in inline])
    else:
        runs = Runs(separators, texts, [-1] * len(texts), [0] * len(texts))
    raw: list[bool] | None = in_pre.tolist() if in_pre.any() else None

    # Containers are made when their first kept paragraph comes, and appended
    # to their parent then: paragraphs arrive in document order, so every
    # container's children are in document order too, with no stack to diff.
    tags, bare_kinds = document.elem_tag, BARE_TEXT_CONTAINERS
    nodes: dict[int, Container] = {}
    bounds = first.tolist()
    bounds.append(len(texts))
    paragraph_elems = paragraph_of[kept[first]]
    for number, (para, (chain, _, leaf, _, _, _)) in enumerate(
        zip(paragraph_elems.tolist(), facts.lookup(paragraph_elems), strict=True)
    ):
        parent = (nodes.get(chain[-1]) or _open_containers(chain, nodes, root, tags)) if chain else root
        start, stop = bounds[number], bounds[number + 1]
        paragraph = Paragraph(leaf, parent.elem == para and parent.kind in bare_kinds, runs, start, stop)
        if raw is not None and True in raw[start:stop]:
            _fix_raw_white_space(paragraph, raw)
        parent.children.append(paragraph)
    return root


def _separate_items(
    elems: np.ndarray, texts: list[str], codes: np.ndarray, in_pre: np.ndarray, facts: _ElementFacts
) -> None:
    """Turn "no white space" into a space where two leaves clearly are separate words.

    A browser glues adjacent inline leaves ("A <b>B</b>C" reads "A BC"), but a
    site's CSS often sets them apart: ``<a>Home</a><a>News</a>`` is a menu and
    ``<span>Old Town</span><span>Ocean Kayak</span>`` a brand and a product
    name; gluing them would invent "HomeNews" and "TownOcean". So a space goes
    where the leaves meet letter to letter and either belong to different links
    or buttons, or meet lower case to upper case (a word does not change case
    there, a drop cap "<span>T</span>he" goes the other way). "<a>link</a>!"
    still reads "link!"; preformatted text keeps its own white space.
    """
    joined = np.flatnonzero((codes == _JOINED) & ~in_pre).tolist()
    candidates = []
    for j in joined:
        before, after = texts[j - 1][-1], texts[j][0]
        if before.islower() and after.isupper():
            codes[j] = _SPACED
        elif before.isalnum() and after.isalnum():
            candidates.append(j)
    if not candidates:
        return
    at = np.asarray(candidates)
    items_before = facts.lookup(elems[at - 1])
    items_after = facts.lookup(elems[at])
    for j, before_info, after_info in zip(candidates, items_before, items_after, strict=True):
        if before_info[5] != after_info[5]:
            codes[j] = _SPACED


def _open_containers(
    chain: tuple[int, ...], nodes: dict[int, Container], root: Container, tags: list[str]
) -> Container:
    """Make the containers of ``chain`` not made yet, each appended to its parent; return the innermost."""
    depth = len(chain) - 1
    while depth >= 0 and chain[depth] not in nodes:
        depth -= 1
    parent = nodes[chain[depth]] if depth >= 0 else root
    for elem in chain[depth + 1 :]:
        container = nodes[elem] = Container(CONTAINER_KINDS[tags[elem]], elem)
        parent.children.append(container)
        parent = container
    return parent


def _fix_raw_white_space(paragraph: Paragraph, raw: list[bool]) -> None:
    """Adjust the leaves whose white space the parser kept raw.

    Inside a <pre> paragraph the leaves carry their own spaces, so a space
    separator is only kept where the parser stripped the white space (newlines
    at leaf edges, blank-only nodes: its kind is unknown, one space stands for
    it). A raw leaf in running text (a <textarea>) is collapsed like the rest.
    """
    texts, separators = paragraph.runs.texts, paragraph.runs.separators
    for i in range(paragraph.start, paragraph.stop):
        if paragraph.kind != "pre":
            if raw[i]:
                texts[i] = " ".join(texts[i].split())
        elif i > paragraph.start and separators[i] == " " and (texts[i - 1][-1].isspace() or texts[i][0].isspace()):
            separators[i] = ""


# -- plain text and Markdown: one line layout, two dialects ------------------------


class _LineDialect:
    """How a line-based format writes each part of the layout; the defaults write no markup."""

    # Rows of a table that is not laid out as a grid are joined with this.
    row_separator = "\n"
    # What a <br> becomes inside a paragraph.
    hard_break = "\n"

    def __init__(self, document: Document) -> None:
        self.document = document

    def inline(self, paragraph: Paragraph, *, one_line: bool = False) -> str:
        text = paragraph.plain()
        return text.replace("\n", " ") if one_line else text

    def flatten(self, text: str) -> str:
        """Laid-out lines as one line (a table cell holding lists or paragraphs)."""
        return " ".join(text.replace(self.hard_break, " ").split())

    def paragraph(self, paragraph: Paragraph) -> str:
        if paragraph.kind == "pre":
            return self.preformatted(paragraph.plain())
        if paragraph.kind in HEADING_TAGS:
            return self.heading(int(paragraph.kind[1]), self.inline(paragraph, one_line=True))
        return self.escape_line_starts(self.inline(paragraph))

    def preformatted(self, text: str) -> str:
        return text.strip("\n").rstrip()

    def heading(self, level: int, text: str) -> str:
        return text

    def escape_line_starts(self, text: str) -> str:
        return text

    def quote(self, body: str) -> str:
        return body

    def cell(self, text: str) -> str:
        return text

    def grid(self, rows: list[list[tuple[int, str]]]) -> str | None:
        """Lay a table out as a grid; None where rows as lines will do."""
        return None


class _TextDialect(_LineDialect):
    """Plain text: the defaults, with a fast path for the common paragraph."""

    def paragraph(self, paragraph: Paragraph) -> str:
        if paragraph.kind == "p":  # most of every page: skip the hooks, which add nothing here
            return paragraph.plain()
        return _LineDialect.paragraph(self, paragraph)


class _MarkdownDialect(_LineDialect):
    """CommonMark with GFM pipe tables; text escaped where it would read as markup."""

    row_separator = PARAGRAPH_GAP  # rows as lines must not run together into one paragraph
    hard_break = MARKDOWN_HARD_BREAK

    def __init__(self, document: Document, base_url: str | None) -> None:
        super().__init__(document)
        self.markup = _MarkdownMarkup(document, base_url)

    def inline(self, paragraph: Paragraph, *, one_line: bool = False) -> str:
        text = _markup(paragraph, self.markup)
        return text.replace(self.hard_break, " ") if one_line else text

    def preformatted(self, text: str) -> str:
        longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
        fence = "`" * max(3, longest + 1)  # longer than any backtick run inside, so it cannot close early
        body = text.strip("\n").rstrip()
        return f"{fence}\n{body}\n{fence}"

    def heading(self, level: int, text: str) -> str:
        return f"{'#' * level} {text}"

    def escape_line_starts(self, text: str) -> str:
        return _MD_LINE_START.sub(_escape_line_start, text)

    def quote(self, body: str) -> str:
        return "\n".join(f"> {line}" if line else ">" for line in body.split("\n"))

    def cell(self, text: str) -> str:
        return text.replace("|", "\\|")

    def grid(self, rows: list[list[tuple[int, str]]]) -> str | None:
        width = max((column for row in rows for column, _ in row), default=0)
        if not 0 < width <= MAX_GRID_COLUMNS:
            return None
        lines = []
        for number, row in enumerate(rows):
            cells = [""] * width
            for column, text in row:
                cells[column - 1] = text
            lines.append(f"| {' | '.join(cells)} |")
            if number == 0:
                lines.append(f"|{'---|' * width}")
        return "\n".join(lines)


def _chunks(nodes: list[Container | Paragraph], dialect: _LineDialect) -> list[str]:
    """Each node laid out as lines; the caller decides what separates them."""
    out = []
    for node in nodes:
        if isinstance(node, Paragraph):
            out.append(dialect.paragraph(node))
        elif node.kind in ("ul", "ol"):
            out.append(_list(node, dialect))
        elif node.kind == "table":
            out.append(_table(node, dialect))
        elif node.kind == "blockquote":
            out.append(dialect.quote(PARAGRAPH_GAP.join(_chunks(node.children, dialect))))
        else:  # caption, or a container out of place: its content as paragraphs
            out.extend(_chunks(node.children, dialect))
    return out


def _list(node: Container, dialect: _LineDialect) -> str:
    """List items one per line, marked, continuation lines indented under the marker."""
    document = dialect.document
    first = _list_start(document, node) - 1 if node.kind == "ol" else None
    items = []
    for child in node.children:
        if not isinstance(child, Container) or child.kind != "li":
            items.extend(_chunks([child], dialect))
            continue
        # An ordered item's number is its position in the source list, so
        # dropped items leave the remaining numbers as the reader saw them.
        marker = TEXT_BULLET if first is None else f"{first + int(document.elem_nth[child.elem])}. "
        body = "\n".join(_chunks(child.children, dialect))
        items.append(marker + body.replace("\n", "\n" + " " * len(marker)))
    return "\n".join(items)


def _list_start(document: Document, node: Container) -> int:
    """Read the number of an ordered list's first item (its ``start`` attribute)."""
    try:
        return int(document.elem_attribute("start", "ol").get(node.elem) or 1)
    except ValueError:
        return 1


def _table(node: Container, dialect: _LineDialect) -> str:
    """Lay a table out as a pipe grid where the dialect has one and all cells are plain, else a line per row."""
    nth = dialect.document.elem_nth
    before: list[str] = []
    rows: list[list[tuple[int, str]]] = []
    simple = True
    for child in node.children:
        if not isinstance(child, Container) or child.kind != "tr":
            before.extend(_chunks([child], dialect))
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
                    text = dialect.flatten(" ".join(_chunks(cell.children, dialect)))
                row.append((int(nth[cell.elem]), dialect.cell(text)))
            else:
                simple = False
                row.extend((0, dialect.flatten(chunk)) for chunk in _chunks([cell], dialect))
        rows.append(row)
    grid = dialect.grid(rows) if simple and rows else None
    if grid is None:
        lines = [dialect.escape_line_starts(CELL_SEPARATOR.join(text for _, text in row)) for row in rows]
        grid = dialect.row_separator.join(lines)
    return PARAGRAPH_GAP.join([*before, grid]) if before else grid


def _layout(root: Container, dialect: _LineDialect) -> str:
    return PARAGRAPH_GAP.join(_chunks(root.children, dialect))


# -- inline markup, shared by HTML and Markdown ----------------------------------------

_LINK_OF = itemgetter(2)  # of a (separator, text, link, style) run
_STYLE_OF = itemgetter(3)


class _Markup:
    """How one markup language writes escaped text, styles, links and breaks (HTML here)."""

    # Markdown only: a "!" right before a link would turn it into an image.
    guards_images = False

    def __init__(self, document: Document, base_url: str | None) -> None:
        self.document = document
        self.base_url = base_url
        self.hrefs: dict[int, str | None] = {}

    def href(self, elem: int) -> str | None:
        """Resolve a link target as a reader's browser should get it: absolute, never a script."""
        if elem in self.hrefs:
            return self.hrefs[elem]
        href = self.document.elem_href(elem)
        if href and _URL_INVISIBLES.sub("", href).lower().startswith(UNSAFE_SCHEMES):
            href = None
        if href and self.base_url:
            href = urljoin(self.base_url, href)
        self.hrefs[elem] = href
        return href

    def escape(self, text: str, style: int) -> str:
        return html.escape(text, quote=False)

    def separator(self, separator: str, *, verbatim: bool) -> str:
        return "<br>" if separator == "\n" and not verbatim else separator

    def style(self, text: str, style: int) -> str:
        if style & CODE:
            text = f"<code>{text}</code>"
        if style & EMPHASIS:
            text = f"<em>{text}</em>"
        if style & STRONG:
            text = f"<strong>{text}</strong>"
        return text

    def link(self, text: str, href: str) -> str:
        return f'<a href="{html.escape(href)}">{text}</a>'


class _MarkdownMarkup(_Markup):
    """Markdown inline syntax."""

    guards_images = True

    def escape(self, text: str, style: int) -> str:
        return text if style & CODE else _MD_SPECIAL.sub(r"\\\1", text)

    def separator(self, separator: str, *, verbatim: bool) -> str:
        return MARKDOWN_HARD_BREAK if separator == "\n" else separator

    def style(self, text: str, style: int) -> str:
        if style & CODE:
            longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
            fence = "`" * (longest + 1)
            pad = " " if text.startswith("`") or text.endswith("`") else ""
            text = f"{fence}{pad}{text}{pad}{fence}"
        if style & EMPHASIS:
            text = f"*{text}*"
        if style & STRONG:
            text = f"**{text}**"
        return text

    def link(self, text: str, href: str) -> str:
        return f"[{text}]({_MD_URL_UNSAFE.sub(_percent_encode, href)})"


def _markup(paragraph: Paragraph, markup: _Markup) -> str:
    """Write runs as inline markup: a link per enclosing <a>, a style wrapper per equal-style stretch.

    Separators go outside the wrappers, so no markup opens or closes on white space.
    """
    verbatim = paragraph.kind == "pre"
    out: list[str] = []
    for link, link_group in groupby(paragraph.items(), key=_LINK_OF):
        link_runs = list(link_group)
        separator = markup.separator(link_runs[0][0], verbatim=verbatim)
        spans: list[str] = []
        for style, style_group in groupby(link_runs, key=_STYLE_OF):
            style_runs = list(style_group)
            if spans:
                spans.append(markup.separator(style_runs[0][0], verbatim=verbatim))
            text = markup.escape(style_runs[0][1], style) + "".join(
                [
                    markup.separator(sep, verbatim=verbatim) + markup.escape(txt, style)
                    for sep, txt, _, _ in style_runs[1:]
                ]
            )
            spans.append(markup.style(text, style) if style else text)
        inner = "".join(spans)
        href = markup.href(link) if link >= 0 else None
        if href is None:
            out.append(separator + inner)
            continue
        if markup.guards_images and not separator and out and out[-1].endswith("!"):
            out[-1] = out[-1][:-1] + "\\!"  # only escaped plain text can end in "!"
        out.append(separator + markup.link(inner, href))
    return "".join(out)


# Markdown escaping: characters that open markup anywhere in a line, and
# line starts that would read as a heading, list item, quote or rule.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<]|&(?=#?\w+;))")  # "&" only where it would start an entity
_MD_LINE_START = re.compile(r"^([-+=#>])|^(\d{1,9})([.)])(?=\s|$)", re.MULTILINE)
_MD_URL_UNSAFE = re.compile(r"[\s()<>]")
_BACKTICK_RUNS = re.compile(r"`+")


def _escape_line_start(match: re.Match[str]) -> str:
    if match.group(1):
        return "\\" + match.group(1)
    return f"{match.group(2)}\\{match.group(3)}"


def _percent_encode(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group(0).encode())


# -- HTML -------------------------------------------------------------------------


def _html(node: Container | Paragraph, markup: _Markup) -> str:
    """Write the tree as semantic HTML; every element opened here is closed here."""
    if isinstance(node, Paragraph):
        inner = _markup(node, markup)
        return inner if node.bare else f"<{node.kind}>{inner}</{node.kind}>"
    inner = "\n".join(_html(child, markup) for child in node.children)
    return inner if node.kind == "root" else f"<{node.kind}>{inner}</{node.kind}>"


# -- public API --------------------------------------------------------------------


def render_text(document: Document, keep: np.ndarray) -> str:
    """Render the kept blocks as plain text, laid out as the module docstring describes."""
    text = _layout(build_tree(document, keep, inline_markup=False), _TextDialect(document))
    return _BLANK_RUN.sub(PARAGRAPH_GAP, text).strip()


def render_html(document: Document, keep: np.ndarray, base_url: str | None = None) -> str:
    """Render the kept blocks as clean semantic HTML (no attributes but ``href``)."""
    return _html(build_tree(document, keep), _Markup(document, base_url))


def render_markdown(document: Document, keep: np.ndarray, base_url: str | None = None) -> str:
    """Render the kept blocks as Markdown (CommonMark; GFM pipe tables where a table is plain)."""
    return _layout(build_tree(document, keep), _MarkdownDialect(document, base_url)).strip()
