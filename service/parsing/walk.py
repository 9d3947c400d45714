"""The walk from Lexbor's tree to the :class:`Document` columns: what it records, its tag tables, the Python walk.

The walk is iterative, so no page is too deep for Python's stack, and it records exactly the columns
the rest of the pipeline reads. :func:`python_walk` is the reference; its compiled twin (``_walk.pyx``,
``make build-ext``, loaded by :mod:`.lexbor` with this module's tables) records the same columns at
several times the speed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from selectolax.lexbor import LexborHTMLParser, LexborNode

from service.parsing.attributes import RECORDED_ATTRIBUTES
from service.parsing.document import BLOCK_LEVEL_TAGS
from service.parsing.markup import MARKUP_TAGS

# Subtrees a browser never renders as text. <noscript> is kept on purpose:
# some forum software serves its posts only there.
SKIPPED_TAGS = frozenset(
    {"head", "script", "style", "template", "svg", "math", "iframe", "object",
     "select", "datalist", "noembed", "noframes", "canvas", "audio", "video"}
)  # fmt: skip

# Subtrees whose white space is rendered as it is.
PREFORMATTED_TAGS = frozenset({"pre", "textarea", "listing", "plaintext", "xmp"})

# Elements deeper than this are not recorded (Blink caps DOM depth at 512
# too); their text is attached to the deepest recorded ancestor.
MAX_DEPTH = 512

# A block's flags, one byte: what the walk knows of it and of the elements it is in.
SPACE_BEFORE, BREAK_BEFORE, IN_PRE, IN_LINK, FLATTENED = 1, 2, 4, 8, 16
INHERITED = IN_PRE | IN_LINK  # set by an element for everything inside it
BLOCK_LEVEL = 32  # an element's own effect only: it starts a paragraph
KEPT = 64  # an element's own effect only: its node is kept for :func:`collect_markup`


def _lexbor_ids() -> dict[str, int]:
    """Lexbor's tag id of every name the walk tells apart, read from Lexbor (where the standard ones are fixed).

    The walk reads a node's ``tag_id`` (an int Lexbor keeps), not its ``tag``
    (a new string per call, at twice the cost), and names a new tag path only.
    """
    sample = LexborHTMLParser("<!doctype html><!-- c -->t")
    document = sample.root.parent if sample.root is not None else None
    if document is None:
        raise RuntimeError("Lexbor parsed a sample page into no document")
    ids = {str(node.tag): int(node.tag_id) for node in document.traverse(include_text=True)}
    named = SKIPPED_TAGS | BLOCK_LEVEL_TAGS | PREFORMATTED_TAGS | MARKUP_TAGS | {"a", "br"}
    ids.update({tag: sample.create_node(tag).tag_id for tag in named})
    return ids


_IDS = _lexbor_ids()
TEXT_ID, BR_ID = _IDS["-text"], _IDS["br"]
# Skipped subtrees whose node is kept for :func:`collect_markup` (<head>, <script>).
KEPT_SKIPPED_IDS = frozenset(_IDS[tag] for tag in MARKUP_TAGS & SKIPPED_TAGS)
# Nodes that are no elements, so no :nth-child: comments, doctypes (and Lexbor's undefined and end-of-file ids).
NOT_ELEMENT_IDS = frozenset({0, 1, _IDS["-document"], _IDS["-comment"], _IDS["-doctype"]})
# What the walk passes over without descending.
SKIPPED_IDS = NOT_ELEMENT_IDS | {_IDS[tag] for tag in SKIPPED_TAGS}
# What each tag does to the walk's context, decided by one lookup per element.
TAG_EFFECTS: dict[int, int] = {
    **{_IDS[tag]: BLOCK_LEVEL for tag in BLOCK_LEVEL_TAGS},
    **{_IDS[tag]: KEPT | BLOCK_LEVEL * (tag in BLOCK_LEVEL_TAGS) for tag in MARKUP_TAGS - SKIPPED_TAGS},
    **{_IDS[tag]: IN_PRE | BLOCK_LEVEL * (tag in BLOCK_LEVEL_TAGS) for tag in PREFORMATTED_TAGS},
    _IDS["a"]: IN_LINK,
}


class Columns(NamedTuple):
    """What a walk records: the element and block tables of :class:`Document`, and each element's node address."""

    elem_tag: list[str]
    elem_parent: np.ndarray  # int32
    elem_nth: np.ndarray  # int32
    elem_path: np.ndarray  # int32
    elem_address: np.ndarray  # int64, the Lexbor node of each element
    path_parent: list[int]
    path_tag: list[str]
    texts: list[str]
    block_chars: np.ndarray  # float64, each text's length in characters
    block_elem: np.ndarray  # int32
    block_child: np.ndarray  # int32, -1 where flattened
    block_paragraph: np.ndarray  # int32
    block_flags: np.ndarray  # uint8, SPACE_BEFORE | BREAK_BEFORE | IN_PRE | IN_LINK | FLATTENED
    kept: list[LexborNode]  # the <head>, <script>, <time>, <h1> and <meta> nodes met, in document order
    # each of RECORDED_ATTRIBUTES, by element, where the element has it ("" where it has no value): every
    # extraction reads them (pruning's regions and hidden subtrees, texrex, readability)
    elem_attributes: dict[str, dict[int, str]]
    # by block, inside a <pre>: the white space that blank nodes left before it on its line (a highlighter's
    # indentation, "<span class="w">    </span>"), which its text does not hold; the renderer puts it back
    pre_indents: dict[int, str]


Walk = Callable[[LexborNode], Columns]


def python_walk(root: LexborNode) -> Columns:
    """The walk in Python: the reference, and what serves where the compiled one is not built."""
    builder = Builder()
    builder.walk(root)
    return builder.columns()


class Builder:
    """Accumulates the element and block tables during one walk, a list per column.

    A list append is the cheapest record Python has (an ``array`` append parses
    its argument; a tuple per row must be transposed afterwards); numpy
    converts each column once at the end.
    A block's booleans travel packed in one byte (:data:`SPACE_BEFORE` ...).
    An element's tag is its tag path's last, read off the trie at the end.
    """

    def __init__(self) -> None:
        self.elem_parent: list[int] = []
        self.elem_nth: list[int] = []  # 1-based position among element siblings
        self.elem_path: list[int] = []
        # The Lexbor node address of each element: keeping a Python node object per element would cost
        # more than the whole element table; attributes are looked up by address when asked for.
        self.elem_address: list[int] = []
        # The tag-path trie: each path's parent and last tag, and its children by Lexbor tag id.
        self.path_parent: list[int] = []
        self.path_tag: list[str] = []
        self.path_children: list[dict[int, int]] = []
        self.texts: list[str] = []
        self.block_elem: list[int] = []
        self.block_child: list[int] = []
        self.block_paragraph: list[int] = []
        self.block_flags: list[int] = []
        self.kept: list[LexborNode] = []  # <head>, <script>, <time>, <h1> and <meta> nodes, for the page's markup
        self.pre_indents: dict[int, str] = {}  # see Columns.pre_indents
        # Every page's RECORDED_ATTRIBUTES are read (regions, hidden subtrees, texrex, readability): cheaper
        # here than by a matcher pass.
        self.elem_attributes: dict[str, dict[int, str]] = {name: {} for name in RECORDED_ATTRIBUTES}

    def walk(self, root: LexborNode) -> None:
        """Depth-first over the tree with an explicit stack (no recursion limit).

        The hot loop of the whole service: locals only, recording inlined.
        """
        add_text, add_block_elem, add_child = self.texts.append, self.block_elem.append, self.block_child.append
        add_flags, add_paragraph = self.block_flags.append, self.block_paragraph.append
        add_parent, add_nth, add_path = self.elem_parent.append, self.elem_nth.append, self.elem_path.append
        add_address = self.elem_address.append
        path_children, path_parent, path_tag = self.path_children, self.path_parent, self.path_tag
        elem_paths = self.elem_path
        skipped, not_elements, effects = SKIPPED_IDS, NOT_ELEMENT_IDS, TAG_EFFECTS
        kept_skipped, keep = KEPT_SKIPPED_IDS, self.kept.append

        path_parent.append(-1)
        path_tag.append(root.tag or "html")  # Lexbor's root is always <html>
        path_children.append({})
        add_parent(-1)
        add_nth(1)
        add_path(0)
        add_address(root.mem_id)
        self._record_names(0, root)
        record_names = self._record_names
        elem = path = paragraph = 0
        context = 0  # IN_LINK | IN_PRE | FLATTENED of the open elements
        pending_space = pending_break = False
        pending_indent = ""  # in a <pre>: the white space of blank nodes since the last line break
        pre_indents = self.pre_indents
        child_index = elem_index = depth = 0
        stack: list[tuple] = []
        children = root.iter(True)  # include_text, passed positionally (cheaper in Cython)
        while True:
            for node in children:
                tag_id = node.tag_id
                child_index += 1
                if tag_id == TEXT_ID:
                    raw = node.text_content
                    if not raw or raw.isspace():
                        pending_space = True
                        if context & IN_PRE and raw:  # white space between highlighted spans: an indent
                            before, newline, after = raw.rpartition("\n")
                            pending_break = pending_break or bool(newline)
                            pending_indent = after if newline else pending_indent + before + after
                        continue
                    add_block_elem(elem)
                    add_child(child_index - 1)
                    add_paragraph(paragraph)
                    if context & IN_PRE:
                        if pending_indent and raw[0] not in "\r\n":
                            pre_indents[len(self.texts)] = pending_indent
                        pending_indent = ""
                        add_text(raw.strip("\r\n"))
                        add_flags(
                            context | (pending_space or raw[0].isspace()) | (pending_break or raw[0] in "\r\n") << 1
                        )
                        pending_break = raw[-1] in "\r\n"
                    else:
                        text = raw.strip()
                        # Most leaves need only the strip: other white space than one ASCII space is not printable.
                        add_text(" ".join(text.split()) if "  " in text or not text.isprintable() else text)
                        add_flags(context | (pending_space or raw[0].isspace()) | pending_break << 1)
                        pending_break = False
                        pending_indent = ""
                    pending_space = raw[-1].isspace()
                    continue
                if tag_id in skipped:
                    if tag_id in kept_skipped:
                        keep(node)
                    if tag_id not in not_elements:  # comments and doctypes are no :nth-child
                        elem_index += 1
                    continue
                elem_index += 1
                if tag_id == BR_ID:
                    pending_break = True
                    continue
                stack.append((children, elem, path, paragraph, context, child_index, elem_index))
                effect = effects.get(tag_id, 0)
                if effect & KEPT:
                    keep(node)
                depth += 1
                if depth < MAX_DEPTH:
                    add_parent(elem)
                    elem = len(elem_paths)
                    kids = path_children[path]
                    found = kids.get(tag_id)
                    if found is None:
                        found = kids[tag_id] = len(path_tag)
                        path_parent.append(path)
                        path_tag.append(node.tag or "")
                        path_children.append({})
                    path = found
                    add_nth(elem_index)
                    add_path(path)
                    add_address(node.mem_id)
                    record_names(elem, node)
                    if effect & BLOCK_LEVEL:
                        paragraph = elem
                else:
                    context |= FLATTENED
                if effect & INHERITED:
                    context |= effect & INHERITED
                child_index = elem_index = 0
                children = node.iter(True)
                break
            else:
                if not stack:
                    return
                children, elem, path, paragraph, context, child_index, elem_index = stack.pop()
                depth -= 1

    def _record_names(self, elem: int, node: LexborNode) -> None:
        """The element's :data:`RECORDED_ATTRIBUTES`, as ``node.attrs.get`` reads them."""
        attributes = node.attributes
        if attributes:
            for name, values in self.elem_attributes.items():
                if name in attributes:
                    values[elem] = attributes[name] or ""

    def columns(self) -> Columns:
        flags = np.fromiter(self.block_flags, dtype=np.uint8, count=len(self.block_flags))
        elem_path = _int32(self.elem_path)
        return Columns(
            elem_tag=np.array(self.path_tag, dtype=object)[elem_path].tolist(),
            elem_parent=_int32(self.elem_parent),
            elem_nth=_int32(self.elem_nth),
            elem_path=elem_path,
            elem_address=np.fromiter(self.elem_address, dtype=np.int64, count=len(self.elem_address)),
            path_parent=self.path_parent,
            path_tag=self.path_tag,
            texts=self.texts,
            block_chars=np.fromiter(map(len, self.texts), dtype=np.float64, count=len(self.texts)),
            block_elem=_int32(self.block_elem),
            block_child=np.where(flags & FLATTENED, -1, _int32(self.block_child)).astype(np.int32),
            block_paragraph=_int32(self.block_paragraph),
            block_flags=flags,
            kept=self.kept,
            elem_attributes=self.elem_attributes,
            pre_indents=self.pre_indents,
        )


def _int32(column: list[int]) -> np.ndarray:
    return np.fromiter(column, dtype=np.int32, count=len(column))
