"""HTML to :class:`Document`, in one parse and one walk.

The only module that imports selectolax (Lexbor backend, an HTML5
conformant parser, so the tree matches what a browser builds). The walk is
iterative, so no page is too deep for Python's stack, and it records
exactly the columns the rest of the pipeline reads. Its compiled twin
(``_walk.pyx``, ``make build-ext``) records the same columns at several
times the speed; where it is not built, or was built against another
selectolax, the Python walk serves.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import selectolax
from selectolax.lexbor import LexborHTMLParser, LexborNode

from service.parsing.attributes import RECORDED_ATTRIBUTES, TreeAttributes
from service.parsing.budget import PageBudget, count_lt
from service.parsing.decode import to_utf8
from service.parsing.document import BLOCK_LEVEL_TAGS, Document
from service.parsing.markup import MARKUP_TAGS
from service.parsing.nesting import flatten_deep_nesting
from service.parsing.selection import apply_selectors

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

_DOCTYPE = re.compile(rb"\s*<!doctype\s+([^>]*)>", re.IGNORECASE)

# A block's flags, one byte: what the walk knows of it and of the elements it is in.
_SPACE_BEFORE, _BREAK_BEFORE, _IN_PRE, _IN_LINK, _FLATTENED = 1, 2, 4, 8, 16
_INHERITED = _IN_PRE | _IN_LINK  # set by an element for everything inside it
_BLOCK_LEVEL = 32  # an element's own effect only: it starts a paragraph
_KEPT = 64  # an element's own effect only: its node is kept for :func:`collect_markup`


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
_TEXT_ID, _BR_ID = _IDS["-text"], _IDS["br"]
# Skipped subtrees whose node is kept for :func:`collect_markup` (<head>, <script>).
_KEPT_SKIPPED_IDS = frozenset(_IDS[tag] for tag in MARKUP_TAGS & SKIPPED_TAGS)
# Nodes that are no elements, so no :nth-child: comments, doctypes (and Lexbor's undefined and end-of-file ids).
_NOT_ELEMENT_IDS = frozenset({0, 1, _IDS["-document"], _IDS["-comment"], _IDS["-doctype"]})
# What the walk passes over without descending.
_SKIPPED_IDS = _NOT_ELEMENT_IDS | {_IDS[tag] for tag in SKIPPED_TAGS}
# What each tag does to the walk's context, decided by one lookup per element.
_TAG_EFFECTS: dict[int, int] = {
    **{_IDS[tag]: _BLOCK_LEVEL for tag in BLOCK_LEVEL_TAGS},
    **{_IDS[tag]: _KEPT | _BLOCK_LEVEL * (tag in BLOCK_LEVEL_TAGS) for tag in MARKUP_TAGS - SKIPPED_TAGS},
    **{_IDS[tag]: _IN_PRE | _BLOCK_LEVEL * (tag in BLOCK_LEVEL_TAGS) for tag in PREFORMATTED_TAGS},
    _IDS["a"]: _IN_LINK,
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
    block_flags: np.ndarray  # uint8, _SPACE_BEFORE | _BREAK_BEFORE | _IN_PRE | _IN_LINK | _FLATTENED
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
    builder = _Builder()
    builder.walk(root)
    return builder.columns()


def _load_compiled_walk() -> Walk | None:
    """The compiled walk, configured with this module's tables; None where it is not built for this selectolax."""
    try:
        from service.parsing import _walk  # noqa: PLC0415 - optional: built by `make build-ext`
    except (ImportError, ValueError):  # not built; or Cython's check that selectolax's types still fit failed
        return None
    if selectolax.__version__ != _walk.SELECTOLAX_VERSION:
        logging.getLogger(__name__).warning(
            "compiled walk built against selectolax %s, not %s: using the Python walk (run `make build-ext`)",
            _walk.SELECTOLAX_VERSION,
            selectolax.__version__,
        )
        return None
    _walk.configure(
        text_id=_TEXT_ID,
        br_id=_BR_ID,
        skipped=_SKIPPED_IDS,
        not_elements=_NOT_ELEMENT_IDS,
        effects=_TAG_EFFECTS,
        max_depth=MAX_DEPTH,
        block_level=_BLOCK_LEVEL,
        inherited=_INHERITED,
        in_pre=_IN_PRE,
        flattened=_FLATTENED,
        kept=_KEPT,
        kept_skipped=_KEPT_SKIPPED_IDS,
    )
    walk = _walk.walk

    def compiled_walk(root: LexborNode) -> Columns:
        return Columns(*walk(root))

    return compiled_walk


compiled_walk = _load_compiled_walk()
DEFAULT_WALK: Walk = compiled_walk or python_walk


def _title(tree: LexborHTMLParser) -> str:
    for selector, attribute in (('meta[property="og:title"]', "content"), ("title", None), ("h1", None)):
        node = tree.css_first(selector)
        if node is None:
            continue
        value = node.attrs.get(attribute) if attribute else node.text(deep=True)
        title = " ".join((value or "").split())
        if title:
            return title
    return ""


def parse_html(
    html: str | bytes,
    *,
    charset: str | None = None,
    target_selector: str | None = None,
    remove_selector: str | None = None,
    budget: PageBudget | None = None,
    walk: Walk | None = None,
) -> Document:
    """Parse a page into its :class:`Document`, pruned by the caller's selectors (:mod:`.selection`).

    Never raises on bad input, but for a page over ``budget`` (:class:`~service.errors.PageTooComplex`,
    before Lexbor sees it); a bad selector is the caller's error.
    ``walk``: :data:`DEFAULT_WALK` (compiled where built) unless given; both give the same document.
    """
    utf8, encoding = to_utf8(html, charset)
    lt_count = None  # the "<" of the page, counted once for the budget and the nesting guard (0.03 ms a dev page)
    if budget is not None:
        lt_count = count_lt(utf8)
        budget.check(utf8, lt_count)
    doctype_match = _DOCTYPE.match(utf8, 0, 1024)
    tree = LexborHTMLParser(flatten_deep_nesting(utf8, lt_count))
    root = tree.root
    title = _title(tree) if root is not None else ""  # the page's, whatever the selectors leave
    apply_selectors(tree, target_selector, remove_selector)
    columns = (walk or DEFAULT_WALK)(root) if root is not None else _Builder().columns()
    return _document(
        tree,
        columns,
        title=title,
        lang=(root.attrs.get("lang") or "") if root is not None else "",
        doctype=doctype_match.group(1).decode("ascii", "replace").strip().lower() if doctype_match else "",
        encoding=encoding,
        source_bytes=len(utf8),
    )


class _Builder:
    """Accumulates the element and block tables during one walk, a list per column.

    A list append is the cheapest record Python has (an ``array`` append parses
    its argument; a tuple per row must be transposed afterwards); numpy
    converts each column once at the end.
    A block's booleans travel packed in one byte (:data:`_SPACE_BEFORE` ...).
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
        skipped, not_elements, effects = _SKIPPED_IDS, _NOT_ELEMENT_IDS, _TAG_EFFECTS
        kept_skipped, keep = _KEPT_SKIPPED_IDS, self.kept.append

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
        context = 0  # _IN_LINK | _IN_PRE | _FLATTENED of the open elements
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
                if tag_id == _TEXT_ID:
                    raw = node.text_content
                    if not raw or raw.isspace():
                        pending_space = True
                        if context & _IN_PRE and raw:  # white space between highlighted spans: an indent
                            before, newline, after = raw.rpartition("\n")
                            pending_break = pending_break or bool(newline)
                            pending_indent = after if newline else pending_indent + before + after
                        continue
                    add_block_elem(elem)
                    add_child(child_index - 1)
                    add_paragraph(paragraph)
                    if context & _IN_PRE:
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
                if tag_id == _BR_ID:
                    pending_break = True
                    continue
                stack.append((children, elem, path, paragraph, context, child_index, elem_index))
                effect = effects.get(tag_id, 0)
                if effect & _KEPT:
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
                    if effect & _BLOCK_LEVEL:
                        paragraph = elem
                else:
                    context |= _FLATTENED
                if effect & _INHERITED:
                    context |= effect & _INHERITED
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
            block_child=np.where(flags & _FLATTENED, -1, _int32(self.block_child)).astype(np.int32),
            block_paragraph=_int32(self.block_paragraph),
            block_flags=flags,
            kept=self.kept,
            elem_attributes=self.elem_attributes,
            pre_indents=self.pre_indents,
        )


def _document(
    tree: LexborHTMLParser, columns: Columns, *, title: str, lang: str, doctype: str, encoding: str, source_bytes: int
) -> Document:
    flags = columns.block_flags
    columns.block_chars.flags.writeable = False  # every stage weighs by it: none may change it
    return Document(
        elem_tag=columns.elem_tag,
        elem_parent=columns.elem_parent,
        elem_nth=columns.elem_nth,
        elem_path=columns.elem_path,
        attributes=TreeAttributes(tree, columns.elem_address, columns.kept, recorded=columns.elem_attributes),
        path_parent=columns.path_parent,
        path_tag=columns.path_tag,
        texts=columns.texts,
        block_chars=columns.block_chars,
        block_elem=columns.block_elem,
        block_child=columns.block_child,
        block_paragraph=columns.block_paragraph,
        block_in_link=(flags & _IN_LINK) != 0,
        block_in_pre=(flags & _IN_PRE) != 0,
        block_space_before=(flags & _SPACE_BEFORE) != 0,
        block_break_before=(flags & _BREAK_BEFORE) != 0,
        title=title,
        lang=lang,
        doctype=doctype,
        encoding=encoding,
        source_bytes=source_bytes,
        pre_indents=columns.pre_indents,
    )


def _int32(column: list[int]) -> np.ndarray:
    return np.fromiter(column, dtype=np.int32, count=len(column))
