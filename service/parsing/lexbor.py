"""HTML to :class:`Document`, in one parse and one walk.

The only module that imports selectolax (Lexbor backend, an HTML5
conformant parser, so the tree matches what a browser builds). The walk is
iterative, so no page is too deep for Python's stack, and it records
exactly the columns the rest of the pipeline reads.
"""

from __future__ import annotations

import re
from functools import partial

import numpy as np
from selectolax.lexbor import LexborHTMLParser, LexborNode

from service.parsing.decode import to_utf8
from service.parsing.document import BLOCK_LEVEL_TAGS, Document
from service.parsing.nesting import flatten_deep_nesting

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

# What the walk passes over without descending: the skipped tags plus
# Lexbor's pseudo-tags for comments, doctypes and processing instructions.
_SKIPPED_NODES = SKIPPED_TAGS | {"-comment", "-doctype", "-cdata", "-pi", "-document"}

_DOCTYPE = re.compile(rb"\s*<!doctype\s+([^>]*)>", re.IGNORECASE)
_TEXT = "-text"


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


def parse_html(html: str | bytes, *, charset: str | None = None) -> Document:
    """Parse a page into its :class:`Document`. Never raises on bad input."""
    utf8, encoding = to_utf8(html, charset)
    doctype_match = _DOCTYPE.match(utf8, 0, 1024)
    tree = LexborHTMLParser(flatten_deep_nesting(utf8))
    builder = _Builder()
    root = tree.root
    if root is not None:
        builder.walk(root)
    return builder.document(
        title=_title(tree) if root is not None else "",
        lang=(root.attrs.get("lang") or "") if root is not None else "",
        doctype=doctype_match.group(1).decode("ascii", "replace").strip().lower() if doctype_match else "",
        encoding=encoding,
        source_bytes=len(utf8),
    )


class _Builder:
    """Accumulates the element and block tables during one walk, a tuple per row."""

    def __init__(self) -> None:
        # (tag, parent, nth, path id, node) per element; attributes are read from the node on demand
        self.elements: list[tuple[str, int, int, int, LexborNode]] = []
        self.path_ids: dict[tuple[int, str], int] = {}
        # (text, element, child index, paragraph, in link, in pre, space before, break before) per block
        self.blocks: list[tuple[str, int, int, int, bool, bool, bool, bool]] = []

    def walk(self, root: LexborNode) -> None:
        """Depth-first over the tree with an explicit stack (no recursion limit).

        The hot loop of the whole service: locals only, element recording
        inlined, one tuple appended per row.
        """
        add_block = self.blocks.append
        elements, path_ids = self.elements, self.path_ids
        add_element = elements.append
        skipped, block_level, preformatted = _SKIPPED_NODES, BLOCK_LEVEL_TAGS, PREFORMATTED_TAGS

        root_tag = root.tag or "html"  # Lexbor's root is always <html>
        path_ids[(-1, root_tag)] = 0
        add_element((root_tag, -1, 1, 0, root))
        tag: str | None
        elem = path = paragraph = 0
        in_link = in_pre = flattened = pending_space = pending_break = False
        child_index = elem_index = depth = 0
        stack: list[tuple] = []
        children = root.iter(include_text=True)
        while True:
            for node in children:
                tag = node.tag
                child_index += 1
                if tag == _TEXT:
                    raw = node.text_content
                    if not raw or raw.isspace():
                        pending_space = True
                        if in_pre and raw and "\n" in raw:  # a line break between highlighted spans
                            pending_break = True
                        continue
                    add_block(
                        (
                            raw.strip("\r\n") if in_pre else " ".join(raw.split()),
                            elem,
                            -1 if flattened else child_index - 1,
                            paragraph,
                            in_link,
                            in_pre,
                            pending_space or raw[0].isspace(),
                            pending_break or (in_pre and raw[0] in "\r\n"),
                        )
                    )
                    pending_space = raw[-1].isspace()
                    pending_break = in_pre and raw[-1] in "\r\n"
                    continue
                if tag is None or tag in skipped:
                    if tag and tag[0] != "-":  # comments and doctypes are no :nth-child
                        elem_index += 1
                    continue
                elem_index += 1
                if tag == "br":
                    pending_break = True
                    continue
                stack.append((children, elem, path, paragraph, in_link, in_pre, flattened, child_index, elem_index))
                depth += 1
                if depth < MAX_DEPTH:
                    parent = elem
                    elem = len(elements)
                    key = (path, tag)
                    path = path_ids.get(key)  # type: ignore[assignment]
                    if path is None:
                        path = path_ids[key] = len(path_ids)
                    add_element((tag, parent, elem_index, path, node))
                    if tag in block_level:
                        paragraph = elem
                else:
                    flattened = True
                if tag == "a":
                    in_link = True
                elif tag in preformatted:
                    in_pre = True
                child_index = elem_index = 0
                children = node.iter(include_text=True)
                break
            else:
                if not stack:
                    return
                children, elem, path, paragraph, in_link, in_pre, flattened, child_index, elem_index = stack.pop()
                depth -= 1

    def document(self, *, title: str, lang: str, doctype: str, encoding: str, source_bytes: int) -> Document:
        tags, parents, nths, paths, nodes = _columns(self.elements, 5)
        texts, elems, children, paragraphs, in_link, in_pre, space, brk = _columns(self.blocks, 8)
        path_parent = [0] * len(self.path_ids)
        path_tag = [""] * len(self.path_ids)
        for (parent_path, tag), path in self.path_ids.items():
            path_parent[path] = parent_path
            path_tag[path] = tag
        return Document(
            elem_tag=list(tags),
            elem_parent=np.asarray(parents, dtype=np.int32),
            elem_nth=np.asarray(nths, dtype=np.int32),
            elem_path=np.asarray(paths, dtype=np.int32),
            attribute_loader=partial(_attributes_of, nodes),
            path_parent=path_parent,
            path_tag=path_tag,
            texts=list(texts),
            block_elem=np.asarray(elems, dtype=np.int32),
            block_child=np.asarray(children, dtype=np.int32),
            block_paragraph=np.asarray(paragraphs, dtype=np.int32),
            block_in_link=np.asarray(in_link, dtype=bool),
            block_in_pre=np.asarray(in_pre, dtype=bool),
            block_space_before=np.asarray(space, dtype=bool),
            block_break_before=np.asarray(brk, dtype=bool),
            title=title,
            lang=lang,
            doctype=doctype,
            encoding=encoding,
            source_bytes=source_bytes,
        )


def _attributes_of(nodes: tuple[LexborNode, ...]) -> list[dict[str, str | None]]:
    """Every element's attributes: read only when a backend or renderer asks (most requests never do)."""
    return [node.attributes for node in nodes]


def _columns(rows: list[tuple], width: int) -> list[tuple]:
    """Transpose row tuples into column tuples (empty columns for no rows)."""
    return list(zip(*rows)) if rows else [()] * width  # noqa: B905 - rows are uniform by construction
