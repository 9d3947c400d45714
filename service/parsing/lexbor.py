"""HTML to :class:`Document`, in one parse and one walk.

The only module that parses pages with selectolax (Lexbor backend, an HTML5 conformant parser, so the tree
matches what a browser builds). The walk (:mod:`.walk`) records exactly the columns the rest of the
pipeline reads; its compiled twin (``_walk.pyx``, ``make build-ext``) records the same at several
times the speed; where it is not built, or was built against another selectolax, the Python walk
serves.
"""

from __future__ import annotations

import logging
import re

import selectolax
from selectolax.lexbor import LexborHTMLParser, LexborNode

from service.parsing.attributes import TreeAttributes
from service.parsing.budget import PageBudget, count_lt
from service.parsing.decode import to_utf8
from service.parsing.document import Document
from service.parsing.nesting import flatten_deep_nesting
from service.parsing.selection import apply_selectors
from service.parsing.walk import (
    BLOCK_LEVEL,
    BR_ID,
    BREAK_BEFORE,
    FLATTENED,
    IN_LINK,
    IN_PRE,
    INHERITED,
    KEPT,
    KEPT_SKIPPED_IDS,
    MAX_DEPTH,
    NOT_ELEMENT_IDS,
    SKIPPED_IDS,
    SPACE_BEFORE,
    TAG_EFFECTS,
    TEXT_ID,
    Builder,
    Columns,
    Walk,
    python_walk,
)

_DOCTYPE = re.compile(rb"\s*<!doctype\s+([^>]*)>", re.IGNORECASE)


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
        text_id=TEXT_ID,
        br_id=BR_ID,
        skipped=SKIPPED_IDS,
        not_elements=NOT_ELEMENT_IDS,
        effects=TAG_EFFECTS,
        max_depth=MAX_DEPTH,
        block_level=BLOCK_LEVEL,
        inherited=INHERITED,
        in_pre=IN_PRE,
        flattened=FLATTENED,
        kept=KEPT,
        kept_skipped=KEPT_SKIPPED_IDS,
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
    columns = (walk or DEFAULT_WALK)(root) if root is not None else Builder().columns()
    return _document(
        tree,
        columns,
        title=title,
        lang=(root.attrs.get("lang") or "") if root is not None else "",
        doctype=doctype_match.group(1).decode("ascii", "replace").strip().lower() if doctype_match else "",
        encoding=encoding,
        source_bytes=len(utf8),
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
        block_in_link=(flags & IN_LINK) != 0,
        block_in_pre=(flags & IN_PRE) != 0,
        block_space_before=(flags & SPACE_BEFORE) != 0,
        block_break_before=(flags & BREAK_BEFORE) != 0,
        title=title,
        lang=lang,
        doctype=doctype,
        encoding=encoding,
        source_bytes=source_bytes,
        pre_indents=columns.pre_indents,
    )
