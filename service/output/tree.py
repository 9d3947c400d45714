"""The content tree: kept leaves grouped into paragraphs inside containers, the one structure every format writes.

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
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import add

import numpy as np

from service.output.word_breaks import BROKEN, JOINED, SPACED, separate_items
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
BARE_PRE_TAGS = PRE_TAGS - {"pre"}  # not block-level to the walk (service.parsing.document.BLOCK_LEVEL_TAGS)
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

# -- the intermediate tree ------------------------------------------------------

# What goes between two leaves of a paragraph, by code: nothing, a space, a <br>.
SEPARATORS = np.array(["", " ", "\n"], dtype=object)


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


@dataclass(frozen=True, slots=True)
class Image:
    """An image kept with the content: where it goes and what a reader's browser loads."""

    elem: int  # the <img> element
    before_block: int  # it comes before this block (len(document) for after the last)
    src: str  # absolute where a base URL was given, never a script
    alt: str


@dataclass(slots=True)
class Paragraph:
    """What a browser lays out as one block: the kept leaves sharing a block-level parent, or one image."""

    kind: str  # "p", "h1".."h6", "pre", or "img" (then ``image`` is set and there are no leaves)
    bare: bool  # the text sits directly in a li/td/th/caption (no <p> of its own)
    runs: Runs
    start: int  # its leaves are runs[start:stop]
    stop: int
    image: Image | None = None
    elem: int = -1  # the block-level element it comes from (-1: made up, as an added title)

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


def _paragraph_elements(document: Document) -> np.ndarray:
    """Each block's paragraph element: its block-level parent, or the <listing>, <xmp> or <plaintext> it is in.

    Browsers show those three as blocks of preformatted text; the walk's block-level tags, which the models'
    features were fitted with, leave them out. One inside a <pre> stays in it (the <pre> names the language).
    """
    paragraph = document.block_paragraph
    if BARE_PRE_TAGS.isdisjoint(document.path_tag):  # nearly every page: not a per-element pass on each render
        return paragraph
    nearest = document.nearest_marked(document.elem_tagged(BARE_PRE_TAGS))[document.block_elem]
    in_pre = document.elem_tagged(PRE_TAGS)[paragraph]
    return np.where((nearest > paragraph) & ~in_pre, nearest, paragraph)


def _separator_codes(document: Document, keep: np.ndarray, kept: np.ndarray, unseen: np.ndarray | None) -> np.ndarray:
    """How each kept leaf follows the kept one before it: BROKEN, SPACED or JOINED.

    Its own white space and line break, and a space for dropped text between them; dropped leaves no
    reader sees (``unseen``) are no such text: the white space and breaks around them count instead.
    """
    spaced = document.block_space_before[kept] | (np.diff(kept, prepend=-1) != 1)
    broken = document.block_break_before[kept].copy()
    if unseen is not None and spaced.size:
        previous = np.concatenate(([-1], kept[:-1]))
        seen_dropped = np.concatenate(([0], np.cumsum(~keep & ~unseen)))  # [i]: those before leaf i
        hidden_gap = (kept - previous > 1) & (seen_dropped[kept] == seen_dropped[previous + 1])
        if hidden_gap.any():
            spaces = np.concatenate(([0], np.cumsum(document.block_space_before)))  # [i + 1]: up to leaf i
            breaks = np.concatenate(([0], np.cumsum(document.block_break_before)))
            spaced[hidden_gap] = (spaces[kept + 1] - spaces[previous + 1] > 0)[hidden_gap]
            broken[hidden_gap] = (breaks[kept + 1] - breaks[previous + 1] > 0)[hidden_gap]
    return np.where(broken, BROKEN, np.where(spaced, SPACED, JOINED))


def build_tree(
    document: Document,
    keep: np.ndarray,
    *,
    inline_markup: bool = True,
    images: Sequence[Image] = (),
    unseen: np.ndarray | None = None,
) -> Container:
    """Build the container tree of the kept blocks: the one structure every format serializes.

    Consecutive leaves with the same nearest block-level ancestor form one
    paragraph; a kept leaf after dropped ones in the same paragraph joins it
    with a space, so dropping a word never glues its neighbours; but where
    only ``unseen`` leaves were dropped between them (text no reader sees:
    "Hel<span hidden>xx</span>lo"), as the page's white space says. Per-leaf
    work is columnar (numpy, one list each); Python loops once per paragraph.
    ``inline_markup=False`` leaves links and styles out (plain text needs
    neither, and they are the only per-leaf element look-ups). ``images``, in
    document order, each become a paragraph of their own in their container.
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
    paragraph_of = _paragraph_elements(document)
    changes = np.zeros(len(document), dtype=np.int64)
    np.not_equal(paragraph_of[1:], paragraph_of[:-1], out=changes[1:], casting="unsafe")
    first = np.flatnonzero(np.diff(np.cumsum(changes)[kept], prepend=-1))
    codes = _separator_codes(document, keep, kept, unseen)
    in_pre = document.block_in_pre[kept]
    all_texts = document.texts
    texts = [all_texts[i] for i in kept.tolist()]
    facts = _ElementFacts(document, inline_markup=inline_markup)
    codes[first] = SPACED  # not JOINED while separate_items looks; a paragraph's first separator is ""
    separate_items(texts, codes, in_pre, partial(_items, facts, document.block_elem[kept]))
    codes[first] = JOINED
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
    first_blocks = kept[first].tolist()
    image_elems = np.fromiter((image.elem for image in images), dtype=np.int64, count=len(images))
    queue = list(zip(images, [info[0] for info in facts.lookup(image_elems)], strict=True))
    placed = 0
    parent, last_chain = root, _ROOT_INFO[0]
    # the loop runs once per paragraph: locals only, the images' and the containers' calls only where needed
    for number, (para, (chain, _, leaf, _, _, _)) in enumerate(
        zip(paragraph_elems.tolist(), facts.lookup(paragraph_elems), strict=True)
    ):
        if placed < len(queue):
            placed = _place_images(queue, placed, first_blocks[number], runs=runs, nodes=nodes, root=root, tags=tags)
        if chain is not last_chain:  # a paragraph mostly shares its predecessor's container (facts pass it on)
            parent, last_chain = _container(chain, nodes, root, tags), chain
        start, stop = bounds[number], bounds[number + 1]
        paragraph = Paragraph(leaf, parent.elem == para and parent.kind in bare_kinds, runs, start, stop, None, para)
        if raw is not None and True in raw[start:stop]:
            _fix_raw_white_space(paragraph, raw, kept, document.pre_indents)
        parent.children.append(paragraph)
    _place_images(queue, placed, len(document), runs=runs, nodes=nodes, root=root, tags=tags)
    return root


def _items(facts: _ElementFacts, elems: np.ndarray, at: np.ndarray) -> list[int]:
    """The link or button of the leaves at ``at`` (of the leaves whose elements are ``elems``), -1 for none."""
    return [info[5] for info in facts.lookup(elems[at])]


def _place_images(
    queue: list[tuple[Image, tuple[int, ...]]],
    placed: int,
    before_block: int,
    *,
    runs: Runs,
    nodes: dict[int, Container],
    root: Container,
    tags: list[str],
) -> int:
    """Append the queued images (each with its container chain) that come before ``before_block``; the count placed."""
    while placed < len(queue) and queue[placed][0].before_block <= before_block:
        image, chain = queue[placed]
        _container(chain, nodes, root, tags).children.append(Paragraph("img", False, runs, 0, 0, image))
        placed += 1
    return placed


def _container(chain: tuple[int, ...], nodes: dict[int, Container], root: Container, tags: list[str]) -> Container:
    """The innermost container of ``chain``, made (with its missing ancestors) if it was not yet."""
    return (nodes.get(chain[-1]) or _open_containers(chain, nodes, root, tags)) if chain else root


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


def _fix_raw_white_space(paragraph: Paragraph, raw: list[bool], kept: np.ndarray, indents: Mapping[int, str]) -> None:
    """Adjust the leaves whose white space the parser kept raw.

    Inside a <pre> paragraph the leaves carry their own spaces, and the indentation that blank nodes
    left before a leaf (``indents``, by block; ``kept``: the blocks of the runs) is put back in front
    of it, so a space separator is only kept where the parser stripped the white space (newlines at
    leaf edges: one space stands for it). A raw leaf in running text (a <textarea>) is collapsed like
    the rest.
    """
    texts, separators = paragraph.runs.texts, paragraph.runs.separators
    for i in range(paragraph.start, paragraph.stop):
        if paragraph.kind != "pre":
            if raw[i]:
                texts[i] = " ".join(texts[i].split())
            continue
        indent = indents.get(int(kept[i])) if indents else None
        if indent:
            texts[i] = indent + texts[i]
        if i > paragraph.start and separators[i] == " " and (texts[i - 1][-1].isspace() or texts[i][0].isspace()):
            separators[i] = ""
