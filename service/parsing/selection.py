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
        for node in _select(root, remove, "remove_selector"):
            node.decompose()
    if target:
        matched = _select(root, target, "target_selector")
        if not matched:
            raise NothingSelected(f"target_selector {target!r} matches nothing on the page")
        _keep_only(root, matched)


def _select(root: LexborNode, selector: str, name: str) -> list[LexborNode]:
    try:
        return list(root.css(selector))
    except SelectolaxError as error:
        raise InvalidSelector(f"{name} {selector!r} is not a CSS selector this service can read: {error}") from error


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
