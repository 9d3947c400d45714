"""``target_selector`` and ``remove_selector``: the caller's CSS, applied to the parsed tree before the walk.

Removing first, then restricting: what ``remove_selector`` matches is gone
wherever it is; of the rest only what ``target_selector`` matches is walked (its
ancestors stay as the frame, so tag paths and locators keep their meaning, and
``<head>`` stays for the title). A selector that does not parse and a target that
matches nothing are the caller's errors, reported as such.

``:has()`` is refused: Lexbor matches it by searching below every element, with the
descendant combinators inside it tried at every depth, so its cost grows as a power
of the page's depth ("<div>" * 200 took 20 s for ``:has(div div div span)``, in C,
holding the interpreter: the whole server stopped answering).
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode, SelectolaxError

from service.errors import InvalidSelector, NothingSelected

_KEPT_FRAME_TAGS = frozenset({"head"})
# A CSS escape ("\\61" or "\\a" for "a"): read before looking for :has(, which one can spell.
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|(.))", re.S)
# An escape, a comment or a string (an attribute's value), read from left to right as the tokenizer reads them
# (an escaped quote starts no string).
_CSS_TOKENS = re.compile(r"""(\\.)|(/\*.*?(?:\*/|$))|"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?""", re.S)
_HAS = re.compile(r":has\(", re.I)


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
    if _HAS.search(_unescaped(selector)):
        raise InvalidSelector(f"{name} {selector!r}: :has() is not supported (its cost grows with the page's depth)")
    try:
        return list(root.css(selector))
    except (SelectolaxError, UnicodeError) as error:  # UnicodeError: a lone surrogate, which no page can hold
        raise InvalidSelector(f"{name} {selector!r} is not a CSS selector this service can read: {error}") from error


def _unescaped(selector: str) -> str:
    """``selector``'s names as the parser reads them: its escapes read; its strings and comments left out."""

    def read(escape: re.Match[str]) -> str:
        if escape.group(2) is not None:
            return escape.group(2)
        point = int(escape.group(1), 16)
        return chr(point) if 0 < point <= 0x10FFFF and not 0xD800 <= point <= 0xDFFF else "\ufffd"

    names = _CSS_TOKENS.sub(lambda found: found.group(1) or ("" if found.group(2) else '""'), selector)
    return _CSS_ESCAPE.sub(read, names)


def _outermost(nodes: list[LexborNode]) -> list[LexborNode]:
    """The nodes not inside another of them: removing a node removes what is inside it, never twice.

    Each ancestor is looked at once, whatever the number of nodes below it: 20,000 matches 2,000
    elements deep took 8 s walking up from each.
    """
    chosen = {node.mem_id for node in nodes}
    inside: set[int] = set()  # elements with a chosen node above them
    clear: set[int] = set()  # elements with none
    outermost = []
    for node in nodes:
        path, parent = [], node.parent
        while parent is not None and (at := parent.mem_id) not in chosen and at not in inside and at not in clear:
            path.append(at)
            parent = parent.parent
        covered = parent is not None and parent.mem_id not in clear
        (inside if covered else clear).update(path)
        if not covered:
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
