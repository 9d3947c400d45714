"""The one document model every backend, feature and renderer reads.

A page is parsed once into two columnar tables: *elements* (tag, parent,
position among siblings, id/class tokens, link target) and *blocks*, the
non-empty text leaves in document order as in BoilerNet (``<p>A<b>B</b>C</p>``
gives A, B, C). Per-block facts that are cheap to keep during the walk are
stored as arrays; everything else (tag paths, token paths, locators) is
derived from the element table on first use and cached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np

from service.parsing.markup import AuthorMarks, PageMarkup

# Tags whose box starts on a new line in a browser: a change of the
# nearest such ancestor between two text leaves is a paragraph break.
BLOCK_LEVEL_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd",
        "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr",
        "html", "legend", "li", "main", "menu", "nav", "noscript", "ol", "p", "pre",
        "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip


class AttributeSource(Protocol):
    """Element attributes, read from the parsed tree only when asked for (most requests never need them)."""

    def all(self) -> list[dict[str, str | None]]:
        """Every element's attributes, by element id."""
        ...

    def named(self, name: str, tag: str = "") -> dict[int, str]:
        """The value of attribute ``name`` of every element (every ``tag`` element) that has it, by element id."""
        ...

    def markup(self) -> PageMarkup:
        """What the page says about itself in <head>, scripts, <time>, <h1> and body <meta> (not walked as blocks)."""
        ...

    def author_marks(self) -> AuthorMarks:
        """Microdata authors and the text of elements named for the author: a scan of the whole tree."""
        ...


@dataclass(frozen=True, slots=True)
class Locator:
    """Where a browser finds a block again.

    ``document.querySelector(selector).childNodes[text_node]``; ``text_node``
    is None where the parse flattened absurd nesting and only the enclosing
    element is known.
    """

    selector: str
    text_node: int | None


@dataclass(frozen=True, slots=True)
class Block:
    """One text leaf, as callers outside the pipeline see it."""

    index: int
    text: str
    tag_path: tuple[str, ...]
    tokens: tuple[str, ...]
    in_link: bool
    paragraph: int
    locator: Locator


@dataclass(frozen=True, eq=False)
class Document:
    """A parsed page: element table, block table and page-level facts."""

    # Element table, in document (pre-)order; element 0 is <html>.
    elem_tag: list[str]
    elem_parent: np.ndarray  # int32, -1 for the root
    elem_nth: np.ndarray  # int32, 1-based position among element siblings (CSS :nth-child)
    elem_path: np.ndarray  # int32, id of the element's root-to-element tag path
    attributes: AttributeSource  # the elements' attributes, read on first use
    # Tag-path trie: path p is path_parent[p]'s path plus path_tag[p].
    path_parent: list[int]
    path_tag: list[str]
    # Block table, in document order.
    texts: list[str]
    # float64 (read-only), every block's length in characters, read by the walk as it makes the text:
    # pruning, features and metadata all weigh by it
    block_chars: np.ndarray
    block_elem: np.ndarray  # int32, the element holding the text leaf
    block_child: np.ndarray  # int32, index among that element's child nodes, -1 if unknown
    block_paragraph: np.ndarray  # int32, nearest block-level ancestor element
    block_in_link: np.ndarray  # bool, inside an <a>
    block_in_pre: np.ndarray  # bool, inside <pre>/<textarea>: white space kept
    block_space_before: np.ndarray  # bool, white space separates it from the previous leaf
    block_break_before: np.ndarray  # bool, a <br> separates it from the previous leaf
    # Page-level facts.
    title: str = ""
    lang: str = ""
    doctype: str = ""
    encoding: str = ""
    source_bytes: int = 0  # size of the page as UTF-8
    # by block inside a <pre>: the indentation blank nodes left before it, which its text lacks (the renderer's)
    pre_indents: Mapping[int, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.texts)

    # -- derived per-element facts ----------------------------------------
    @cached_property
    def elem_attributes(self) -> list[dict[str, str | None]]:
        """Every element's attributes, as parsed (read lazily: the hot path needs only tags)."""
        return self.attributes.all()

    @cached_property
    def _named_attributes(self) -> dict[tuple[str, str], dict[int, str]]:
        return {}

    def elem_attribute(self, name: str, tag: str = "") -> dict[int, str]:
        """Attribute ``name`` of the elements (the ``tag`` elements) that have it, by element id; read once.

        Much cheaper than :attr:`elem_attributes` where few elements carry the attribute.
        """
        found = self._named_attributes.get((name, tag))
        if found is None:
            found = self._named_attributes[(name, tag)] = self.attributes.named(name, tag)
        return found

    @cached_property
    def markup(self) -> PageMarkup:
        """The page's meta tags, links, JSON-LD, <time>s and <h1>s; read on first use."""
        return self.attributes.markup()

    @cached_property
    def author_marks(self) -> AuthorMarks:
        """Microdata authors and author/byline/user-name elements' texts; a tree scan, so read only where needed."""
        return self.attributes.author_marks()

    def elem_attribute_counts(self, names: Sequence[str]) -> np.ndarray:
        """How many of the attributes ``names`` each element has (int32 per element).

        From :meth:`elem_attribute`'s values, read once per page: the names counted (id, class) are the ones
        pruning reads anyway, so a second pass of the matcher only to count them would be wasted.
        """
        counts = np.zeros(len(self.elem_tag), dtype=np.int32)
        for name in names:
            counts[list(self.elem_attribute(name))] += 1  # an element is once among a name's
        return counts

    @cached_property
    def elem_tokens(self) -> list[tuple[str, ...]]:
        """Every element's own id and class tokens, lower-cased (each distinct class value split once)."""
        out: list[tuple[str, ...]] = [()] * len(self.elem_tag)
        split: dict[str, tuple[str, ...]] = {}  # a page repeats its class values over many elements
        for elem, value in self.elem_attribute("class").items():
            tokens = split.get(value)
            if tokens is None:
                tokens = split[value] = tuple(value.lower().split())
            out[elem] = tokens
        for elem, value in self.elem_attribute("id").items():  # ids are the element's own: first, as always
            out[elem] = tuple(value.lower().split()) + out[elem]
        return out

    def elem_href(self, elem: int) -> str | None:
        """The link target of an ``<a href>`` element."""
        href = self.elem_attribute("href", "a").get(elem) if self.elem_tag[elem] == "a" else None
        return href.strip() if href else None

    def ancestors(self, elem: int) -> list[int]:
        """Element ids from the root down to ``elem`` inclusive."""
        chain = []
        parent = self.elem_parent
        while elem >= 0:
            chain.append(elem)
            elem = int(parent[elem])
        chain.reverse()
        return chain

    def elem_tagged(self, tags: AbstractSet[str]) -> np.ndarray:
        """Whether each element's tag is one of ``tags`` (bool per element; decided once per distinct tag path)."""
        return np.array([tag in tags for tag in self.path_tag], dtype=bool)[self.elem_path]

    def nearest_marked(self, marked: np.ndarray) -> np.ndarray:
        """For every element, its nearest ancestor-or-self where ``marked`` (bool per element) holds; -1 if none.

        Pointer doubling in numpy: about log2(depth) passes, no Python loop per element.
        """
        count = len(self.elem_tag)
        parent = self.elem_parent
        # jump[e]: e where marked, else its parent; index `count` stands for "above the root" and is a fixed point
        jump = np.append(np.where(marked, np.arange(count), np.where(parent < 0, count, parent)), count)
        while True:
            further = jump[jump]
            if np.array_equal(further, jump):
                break
            jump = further
        nearest = jump[:-1]
        return np.where(nearest == count, -1, nearest)

    @cached_property
    def subtree_ends(self) -> np.ndarray:
        """One past the last element of each element's subtree (int64): the subtree is ``[e, subtree_ends[e])``.

        Elements are in pre-order, so a subtree is a range; its end is found by following each element's
        last child down, by pointer doubling.
        """
        count = len(self.elem_tag)
        last = np.arange(count)
        children = np.flatnonzero(self.elem_parent >= 0)
        np.maximum.at(last, self.elem_parent[children], children)  # its last child, or itself where it has none
        while True:
            further = last[last]
            if np.array_equal(further, last):
                return last + 1
            last = further

    def subtree_sums(self, per_leaf: np.ndarray) -> np.ndarray:
        """Sum of ``per_leaf`` (a value per block) over the leaves at or below each element (float64 per element).

        A difference of prefix sums over each subtree's range: exact for whole numbers (counts, lengths), as
        every caller's are; other values may differ from a sum in another order in the last bits.
        """
        per_elem = np.bincount(self.block_elem, weights=per_leaf, minlength=len(self.elem_tag))
        prefix = np.concatenate(([0.0], np.cumsum(per_elem)))
        return prefix[self.subtree_ends] - prefix[:-1]

    def within(self, marked: np.ndarray) -> np.ndarray:
        """Whether each element has an ancestor-or-self where ``marked`` (bool per element) holds.

        ``nearest_marked(marked) >= 0`` without its passes: elements are in pre-order, so the marked
        subtrees are ranges, and an element is within one where more of them have opened than closed.
        """
        count = len(self.elem_tag)
        opened = np.flatnonzero(marked)
        if not opened.size:
            return np.zeros(count, dtype=bool)
        depth = np.bincount(opened, minlength=count + 1) - np.bincount(self.subtree_ends[opened], minlength=count + 1)
        return np.cumsum(depth[:count]) > 0

    def blocks_within(self, marked: np.ndarray) -> np.ndarray:
        """Whether each block sits in the subtree of an element where ``marked`` (bool per element) holds."""
        return self.within(marked)[self.block_elem]

    def ancestors_at(self, elems: np.ndarray, levels: int) -> np.ndarray:
        """The element ``levels`` steps above each of ``elems`` (the root where there are fewer)."""
        out = np.asarray(elems)
        for _ in range(levels):
            up = self.elem_parent[out]
            out = np.where(up >= 0, up, out)
        return out

    @cached_property
    def paths(self) -> list[tuple[str, ...]]:
        """Every distinct tag path, indexed by path id (parents precede children)."""
        out: list[tuple[str, ...]] = []
        for parent, tag in zip(self.path_parent, self.path_tag, strict=True):
            out.append((*out[parent], tag) if parent >= 0 else (tag,))
        return out

    def selector(self, elem: int) -> str:
        """A CSS selector a browser can resolve to this element."""
        tags, nth = self.elem_tag, self.elem_nth
        return " > ".join(tags[e] if e == 0 else f"{tags[e]}:nth-child({int(nth[e])})" for e in self.ancestors(elem))

    # -- derived per-block facts -------------------------------------------
    @cached_property
    def block_path(self) -> np.ndarray:
        """Tag-path id of every block (int32)."""
        return self.elem_path[self.block_elem]

    @cached_property
    def tag_paths(self) -> list[tuple[str, ...]]:
        """Root-to-leaf tag path of every block."""
        paths = self.paths
        return [paths[p] for p in self.block_path.tolist()]

    @cached_property
    def token_paths(self) -> list[tuple[str, ...]]:
        """The id/class tokens along every block's path, root first.

        One pass over the elements in document order (a parent precedes its children), each extending its
        parent's tuple, where a walk up from every leaf's element repeated the shared ancestors' work.
        """
        parents = self.elem_parent.tolist()
        along: list[tuple[str, ...]] = []
        for elem, own in enumerate(self.elem_tokens):
            inherited = along[parents[elem]] if parents[elem] >= 0 else ()
            along.append(inherited + own if own else inherited)
        return [along[e] for e in self.block_elem.tolist()]

    def locator(self, index: int) -> Locator:
        child = int(self.block_child[index])
        return Locator(self.selector(int(self.block_elem[index])), child if child >= 0 else None)

    def block(self, index: int) -> Block:
        return Block(
            index=index,
            text=self.texts[index],
            tag_path=self.tag_paths[index],
            tokens=self.token_paths[index],
            in_link=bool(self.block_in_link[index]),
            paragraph=int(self.block_paragraph[index]),
            locator=self.locator(index),
        )

    @property
    def blocks(self) -> list[Block]:
        return [self.block(i) for i in range(len(self))]
