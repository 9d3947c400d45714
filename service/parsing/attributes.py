"""Element attributes, read from the parsed tree only when asked for (most requests never need them).

Part of the Lexbor backend (:mod:`service.parsing.lexbor` builds it); it calls
the tree's own methods and imports nothing from selectolax at run time.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from service.parsing.markup import AUTHOR_ATTRIBUTES, AuthorMarks, PageMarkup, collect_author_marks, collect_markup

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser, LexborNode

# Attribute and tag names :meth:`TreeAttributes.named` can put in a CSS selector as they are.
_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# Attributes every extraction reads (regions and readability: id, class, role; hidden subtrees: hidden,
# aria-hidden, style; the metadata's author marks: itemprop, rel): the walk records them as it passes,
# cheaper than a pass of the matcher (0.13 ms a page).
RECORDED_ATTRIBUTES = ("id", "class", "role", "hidden", "aria-hidden", "style", "itemprop", "rel")


class TreeAttributes:
    """Attributes looked up in the tree the document keeps alive, mapped to element ids by node address.

    Elements the walk did not record (skipped subtrees, beyond the depth cap) are passed over.
    """

    def __init__(
        self,
        tree: LexborHTMLParser,
        addresses: np.ndarray,
        kept: list[LexborNode],
        recorded: dict[str, dict[int, str]] | None = None,
    ) -> None:
        self._tree = tree
        self._addresses = addresses  # int64 by element id
        self._kept = kept  # the walk's <head>, <script>, <time>, <h1> and <meta> nodes, for :func:`collect_markup`
        # values read already, by name: by the walk (:data:`RECORDED_ATTRIBUTES`)
        self._read: dict[str, dict[int, str]] = recorded or {}

    @cached_property
    def _sorted_addresses(self) -> tuple[np.ndarray, np.ndarray]:
        """The recorded elements' addresses, sorted, and the element id of each."""
        order = np.argsort(self._addresses, kind="stable")
        return self._addresses[order], order

    def _recorded(self, nodes: list[LexborNode]) -> tuple[np.ndarray, np.ndarray]:
        """Element ids of the recorded ones among ``nodes``, and which of ``nodes`` those are."""
        addresses = np.fromiter((node.mem_id for node in nodes), dtype=np.int64, count=len(nodes))
        known, elems = self._sorted_addresses
        if not known.size:
            return elems[:0], np.zeros(len(nodes), dtype=bool)
        at = np.minimum(np.searchsorted(known, addresses), known.size - 1)
        recorded = known[at] == addresses
        return elems[at[recorded]], recorded

    def _select(self, name: str, tag: str) -> list[LexborNode]:
        """The elements with attribute ``name`` (``tag`` elements only, if given), matched in C."""
        root = self._tree.root
        if root is None or not _ATTRIBUTE_NAME.fullmatch(name) or (tag and not _ATTRIBUTE_NAME.fullmatch(tag)):
            return []
        return list(root.css(f"{tag}[{name}]"))

    def all(self) -> list[dict[str, str | None]]:
        out: list[dict[str, str | None]] = [{} for _ in self._addresses]
        root = self._tree.root
        if root is not None:
            nodes = list(root.traverse())
            elems, recorded = self._recorded(nodes)
            for elem, at in zip(elems.tolist(), np.flatnonzero(recorded).tolist(), strict=True):
                out[elem] = nodes[at].attributes
        return out

    def named(self, name: str, tag: str = "") -> dict[int, str]:
        if not tag and name in self._read:
            return self._read[name]
        nodes = self._select(name, tag)
        elems, recorded = self._recorded(nodes)
        values = [nodes[i].attrs.get(name) or "" for i in np.flatnonzero(recorded).tolist()]
        return dict(zip(elems.tolist(), values, strict=True))

    def markup(self) -> PageMarkup:
        return collect_markup(self._kept)

    def author_marks(self) -> AuthorMarks:
        classes = self._read.get("class", {}).values()
        return collect_author_marks(self._tree.root, classes, attributed=self._may_name_an_author())

    def _may_name_an_author(self) -> bool:
        """Whether an element's itemprop or rel may say "author" (True where the walk did not record them)."""
        recorded = [self._read.get(name) for name in AUTHOR_ATTRIBUTES]
        return any(values is None or any("author" in value.lower() for value in values.values()) for values in recorded)
