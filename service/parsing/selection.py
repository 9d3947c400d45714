"""``target_selector`` and ``remove_selector``: the caller's CSS, applied to the parsed tree before the walk.

Removing first, then restricting: what ``remove_selector`` matches is gone
wherever it is; of the rest only what ``target_selector`` matches is walked (its
ancestors stay as the frame, so tag paths and locators keep their meaning, and
``<head>`` stays for the title). A selector that does not parse and a target that
matches nothing are the caller's errors, reported as such.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode, SelectolaxError

from service.errors import InvalidSelector, NothingSelected

_KEPT_FRAME_TAGS = frozenset({"head"})


def apply_selectors(tree: LexborHTMLParser, target: str | None, remove: str | None) -> None:
    """Prune ``tree`` in place: drop what ``remove`` matches, then keep only what ``target`` matches."""
    root = tree.root
    if root is None:
        return
    if remove:
        for node in _outermost(_select(root, remove, "remove_selector")):
            for doomed in list(node.iter(include_text=True)) if node.mem_id == root.mem_id else [node]:
                doomed.decompose()  # the root itself stays, empty: the tree keeps its <html>
    if target:
        matched = _select(root, target, "target_selector")
        if not matched:
            raise NothingSelected(f"target_selector {target!r} matches nothing on the page")
        if all(node.mem_id != root.mem_id for node in matched):
            _keep_only(root, matched)


def _select(root: LexborNode, selector: str, name: str) -> list[LexborNode]:
    try:
        return list(root.css(selector))
    except (SelectolaxError, UnicodeError) as error:  # UnicodeError: a lone surrogate, which no page can hold
        raise InvalidSelector(f"{name} {selector!r} is not a CSS selector this service can read: {error}") from error


def _outermost(nodes: list[LexborNode]) -> list[LexborNode]:
    """The nodes not inside another of them: removing a node removes what is inside it, never twice."""
    chosen = {node.mem_id for node in nodes}
    outermost = []
    for node in nodes:
        parent = node.parent
        while parent is not None and parent.mem_id not in chosen:
            parent = parent.parent
        if parent is None:
            outermost.append(node)
    return outermost


def _keep_only(root: LexborNode, matched: list[LexborNode]) -> None:
    """Remove every node that is neither inside a matched node nor an ancestor of one."""
    keep = {node.mem_id for node in matched}
    frame: set[int] = set()
    for node in matched:
        parent = node.parent
        while parent is not None and parent.mem_id not in frame:
            frame.add(parent.mem_id)
            parent = parent.parent
    doomed: list[LexborNode] = []
    pending = [root]
    while pending:
        for child in pending.pop().iter(include_text=True):
            if child.mem_id in keep or child.tag in _KEPT_FRAME_TAGS:
                continue
            if child.mem_id in frame:
                pending.append(child)
            else:
                doomed.append(child)
    for node in doomed:
        node.decompose()
