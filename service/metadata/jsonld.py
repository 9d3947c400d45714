"""JSON-LD (schema.org) blocks: every ``@graph`` flattened, ``@id`` references resolved, the main entity found.

A plain ``json.loads`` per script: extruct would parse the page again with
lxml (several milliseconds a page) for what the service already holds as strings.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from service.parsing.markup import MAX_TEXT_CHARS

# Main-entity types, best first: what the page is about, before what it is part of.
ARTICLE_TYPES = frozenset(
    {
        "article", "newsarticle", "blogposting", "techarticle", "scholarlyarticle", "report", "reportagenewsarticle",
        "analysisnewsarticle", "opinionnewsarticle", "reviewnewsarticle", "backgroundnewsarticle", "liveblogposting",
        "socialmediaposting", "review", "recipe", "howto", "medicalwebpage", "posting",
    }
)  # fmt: skip
FORUM_TYPES = frozenset({"discussionforumposting", "qapage", "question", "answer"})
PRODUCT_TYPES = frozenset({"product", "productgroup", "offer", "softwareapplication", "book", "course", "event"})
PAGE_TYPES = frozenset({"webpage", "itempage", "aboutpage", "contactpage", "faqpage", "collectionpage", "profilepage"})
ORGANIZATION_TYPES = frozenset({"organization", "newsmediaorganization", "corporation", "localbusiness", "brand"})
_RANKED = (ARTICLE_TYPES, FORUM_TYPES, PRODUCT_TYPES, PAGE_TYPES)
# Scripts longer than this are not parsed (a site that ships its whole catalogue as JSON-LD).
MAX_SCRIPT_CHARS = 500_000
MAX_NODES = 500
# How deep a value is read for its text (a name's name's ...): schema.org nests a few levels, a hostile page 900.
MAX_TEXT_DEPTH = 8


@dataclass(frozen=True)
class JsonLd:
    """Every schema.org node of a page, by position and by ``@id``."""

    nodes: tuple[dict[str, Any], ...]
    by_id: dict[str, dict[str, Any]]
    node_types: tuple[frozenset[str], ...]  # each node's @types, lower-cased

    def types(self) -> set[str]:
        """Every ``@type`` on the page, lower-cased."""
        return set().union(*self.node_types)

    def ranked(self) -> Iterator[dict[str, Any]]:
        """Articles first, then forum posts, products and web pages, each in page order."""
        for ranked in _RANKED:
            for node, types in zip(self.nodes, self.node_types, strict=True):
                if types & ranked:
                    yield node

    def main(self) -> dict[str, Any] | None:
        """The node the page is about: the first article, else forum post, product, web page."""
        return next(self.ranked(), None)

    def first(self, types: frozenset[str]) -> dict[str, Any] | None:
        return next((node for node, kinds in zip(self.nodes, self.node_types, strict=True) if kinds & types), None)

    def resolve(self, value: Any) -> Any:
        """A ``{"@id": ...}`` reference replaced by the node it names (where the page has it)."""
        if isinstance(value, dict) and "@id" in value and len(value) <= 2:
            return self.by_id.get(str(value["@id"]), value)
        return value


def node_types(node: dict[str, Any]) -> frozenset[str]:
    kind = node.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return frozenset(k.rsplit("/", 1)[-1].lower() for k in kinds if isinstance(k, str))


def parse_json_ld(scripts: Sequence[str]) -> JsonLd:
    """Every node of every script that parses (a broken one is passed over, as a browser's reader would)."""
    nodes: list[dict[str, Any]] = []
    for script in scripts:
        if len(script) > MAX_SCRIPT_CHARS:
            continue
        try:
            data = json.loads(_unwrap(script), strict=False)  # raw line breaks in strings, as browsers take
        except (ValueError, RecursionError):  # RecursionError: arrays or objects nested some thousand deep
            continue
        nodes.extend(_walk(data))
        if len(nodes) > MAX_NODES:
            break
    by_id = {str(node["@id"]): node for node in nodes if "@id" in node and len(node) > 2}
    kept = tuple(nodes[:MAX_NODES])
    return JsonLd(kept, by_id, tuple(node_types(node) for node in kept))


def _unwrap(script: str) -> str:
    """The JSON of a script, without the HTML comment or CDATA wrappers some CMSs still add."""
    text = script.strip()
    for start, end in (("<!--", "-->"), ("//<![CDATA[", "//]]>"), ("<![CDATA[", "]]>")):
        if text.startswith(start) and text.endswith(end):
            text = text[len(start) : -len(end)].strip()
    return text


def _walk(data: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Top-level nodes, list items and ``@graph`` members, in document order (nested values stay in place)."""
    if depth > 4:
        return
    if isinstance(data, list):
        for item in data:
            yield from _walk(item, depth + 1)
    elif isinstance(data, dict):
        if "@type" in data or "@id" in data:
            yield data
        graph = data.get("@graph")
        if graph is not None:
            yield from _walk(graph, depth + 1)
        main = data.get("mainEntity")
        if isinstance(main, dict) and "@type" in main:
            yield main


def text_of(value: Any, depth: int = 0) -> str:
    """A JSON-LD value as text: the string itself, a node's name, or a list's first text ("" deeper than allowed)."""
    if isinstance(value, str):
        return " ".join(value[: MAX_TEXT_CHARS * 2].split())[:MAX_TEXT_CHARS]  # as long as a <meta> value may be
    if depth >= MAX_TEXT_DEPTH:
        return ""
    if isinstance(value, dict):
        return text_of(value.get("name") or value.get("@value") or value.get("url") or "", depth + 1)
    if isinstance(value, list):
        return next((t for t in (text_of(v, depth + 1) for v in value) if t), "")
    return ""
