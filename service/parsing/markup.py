"""What a page says about itself in markup: meta tags, links, JSON-LD, microdata, <time>, bylines.

The block walk skips ``<head>`` and scripts, so these are read from the
parsed tree on first use (most of them by Lexbor's CSS matcher, in C) and
handed on as plain strings: the metadata package never sees the tree.
The tree is reached through :class:`MarkupNode`, the few calls of a
selectolax node this module needs, so only :mod:`service.parsing.lexbor`
imports selectolax. The page's markup is read by the compiled twin of
:func:`python_collect_markup` (``_markup.pyx``, ``make build-ext``) where it is
built for the installed selectolax: the same fields at several times the speed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

# Longest text kept of one element or value (a byline, a heading, a <meta> content): metadata is short, but a
# signed CDN image URL runs to a thousand characters and a description to a few hundred; longer is junk, and a
# value cut there is refused where it is a URL (service.metadata.extract), never returned half.
MAX_TEXT_CHARS = 2048
JSON_LD_TYPE = "application/ld+json"
# How many of each repeated thing are kept (a listing page has hundreds of <time> and itemprops).
MAX_ITEMS = 40
# The tags whose nodes the walk keeps for :func:`collect_markup`.
MARKUP_TAGS = frozenset({"head", "script", "time", "h1", "meta"})
# Microdata dates read from <meta> and <time> in the body (forum software marks each post's date so).
ITEM_DATES = frozenset({"datepublished", "datecreated", "datemodified", "uploaddate"})
# Elements whose rel or class say they hold the author's name (forum software: the poster's user name). Case
# sensitive, no id: each substring test costs a pass of the matcher, a case-insensitive one twice that, so
# only the words some element's class holds are looked for.
_BYLINE_CLASS_WORDS = ("author", "byline", "Author", "username", "postuser", "creator")
MAX_BYLINES = 5  # bylines kept, in page order: the first plausible name among them is the author
AUTHOR_ATTRIBUTES = ("itemprop", "rel")  # an element whose attribute of these is "author" names the page's author
_AUTHOR_ATTRIBUTES_SELECTOR = ", ".join(f'[{name}="author"]' for name in AUTHOR_ATTRIBUTES)
# (a script without a type is never JSON-LD: the matcher leaves it out)
_HEAD_SELECTOR = (
    'meta[content], link[rel~="canonical" i][href], link[rel~="author" i][href], title, script[type], base[href]'
)
# The attributes that name a <meta>, in the order they are read.
_META_KEYS = ("property", "name", "itemprop", "http-equiv")
# Attributes that carry a microdata value instead of the element's text.
_MICRODATA_VALUE_ATTRIBUTES = ("content", "datetime", "href", "src")


class MarkupNode(Protocol):
    """The calls of a parsed-tree node this module reads (selectolax's ``LexborNode`` has them)."""

    @property
    def tag(self) -> str | None: ...

    @property
    def attributes(self) -> dict[str, str | None]: ...

    def css(self, query: str) -> Iterable[MarkupNode]: ...

    def text(self, deep: bool = True, separator: str = "", strip: bool = False) -> str: ...

    def traverse(self, include_text: bool = False) -> Iterable[MarkupNode]: ...

    @property
    def text_content(self) -> str | None: ...

    @property
    def parent(self) -> MarkupNode | None: ...


@dataclass(frozen=True, slots=True)
class PageMarkup:
    """The page's self-description in <head>, <script>, <time>, <h1> and body <meta>, as strings; empty where absent."""

    title: str = ""  # the <title> text
    meta: tuple[tuple[str, str], ...] = ()  # (property, name, itemprop or http-equiv lower-cased, content)
    links: tuple[tuple[str, str], ...] = ()  # (rel lower-cased, href) of <link rel=canonical|author> elements
    json_ld: tuple[str, ...] = ()  # the text of every <script type="application/ld+json">
    times: tuple[tuple[str, str], ...] = ()  # (datetime attribute, text) of every <time>
    headings: tuple[str, ...] = ()  # the text of every <h1>
    item_dates: tuple[tuple[str, str], ...] = ()  # (itemprop lower-cased, value) of body <meta>/<time> dates
    # the href of the head's first <base href> (HTML reads only the first); relative links resolve against it
    base_href: str = ""


def heading_text(node: MarkupNode) -> str:
    """A heading's text as a reader sees it: a ``<br>`` a space ("2025 (US)<br>Your Guide"), a ``<style>`` nothing.

    CSS-in-JS libraries (Emotion, styled-components) put a ``<style>`` inside the element it styles. Each text
    node is decoded on its own (``node.text()`` decodes them joined: the same on a page decoded to UTF-8).
    """
    parts = (part for part in node.traverse(include_text=True) if part.tag in ("br", "-text"))
    return "".join(" " if part.tag == "br" else _text_outside_code(part) for part in parts)


def _text_outside_code(text: MarkupNode) -> str:
    parent = text.parent
    return "" if parent is not None and parent.tag in ("style", "script") else text.text_content or ""


def _clean(text: str | None) -> str:
    """``text`` with its white space collapsed, cut at :data:`MAX_TEXT_CHARS` (most need only the strip)."""
    text = (text or "").strip()
    if "  " in text or "\n" in text or "\t" in text or "\r" in text:
        text = " ".join(text.split())
    return text[:MAX_TEXT_CHARS]


def python_collect_markup(kept: Iterable[MarkupNode]) -> PageMarkup:
    """:class:`PageMarkup` from the <head>, <script>, <time>, <h1> and <meta> nodes the walk kept, in document order.

    The reference, and what serves where the compiled reader is not built.
    """
    meta: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    json_ld: list[str] = []
    times: list[tuple[str, str]] = []
    headings: list[str] = []
    item_dates: list[tuple[str, str]] = []
    title = ""
    base_href: str | None = None
    for node in kept:  # attributes read only where they are used: a dict is built per read
        tag = node.tag
        if tag == "head":  # one matcher pass over the head, its nodes told apart by tag
            for child in node.css(_HEAD_SELECTOR):
                child_tag = child.tag
                if child_tag == "meta":
                    child_attrs = child.attributes
                    key = _meta_key(child_attrs)
                    content = _clean(child_attrs.get("content"))
                    if key and content:
                        meta.append((key.strip().lower(), content))
                elif child_tag == "link":
                    child_attrs = child.attributes
                    rel, href = child_attrs.get("rel") or "", child_attrs.get("href") or ""
                    links.append((rel.strip().lower(), href.strip()))
                elif child_tag == "title":
                    title = title or _clean(child.text())
                elif child_tag == "base":
                    base_href = (child.attributes.get("href") or "").strip() if base_href is None else base_href
                elif _is_json_ld(child.attributes):
                    json_ld.append(child.text())
        elif tag == "script":
            if _is_json_ld(node.attributes):
                json_ld.append(node.text())
        elif tag == "time" and len(times) < MAX_ITEMS:
            attrs = node.attributes
            times.append((_clean(attrs.get("datetime")), _clean(node.text())))
            _add_item_date(item_dates, attrs, "datetime")
        elif tag == "meta":
            _add_item_date(item_dates, node.attributes, "content")
        elif tag == "h1" and len(headings) < MAX_ITEMS:
            text = _clean(heading_text(node))
            if text:
                headings.append(text)
    return PageMarkup(
        title=title, meta=tuple(meta), links=tuple(links), json_ld=tuple(json_ld), times=tuple(times),
        headings=tuple(headings), item_dates=tuple(item_dates), base_href=base_href or "",
    )  # fmt: skip


MarkupReader = Callable[[Sequence[MarkupNode]], PageMarkup]


def _load_compiled_markup() -> MarkupReader | None:
    """The compiled reader (``_markup.pyx``), given this module's cleaning and limits; None where not built."""
    try:
        from service.parsing import _markup  # noqa: PLC0415 - optional: built by `make build-ext`
    except (ImportError, ValueError):  # not built, built for another selectolax, or its types no longer fit
        return None
    _markup.configure(_clean, MAX_TEXT_CHARS, MAX_ITEMS, ITEM_DATES)
    read = _markup.read_markup

    def compiled_collect_markup(kept: Sequence[MarkupNode]) -> PageMarkup:
        return PageMarkup(*read(kept))

    return compiled_collect_markup


compiled_collect_markup = _load_compiled_markup()
collect_markup: MarkupReader = compiled_collect_markup or python_collect_markup


def _add_item_date(found: list[tuple[str, str]], attrs: dict[str, str | None], value_attribute: str) -> None:
    """A microdata date (``itemprop="datePublished"``) of a body element, where it has one."""
    name = (attrs.get("itemprop") or "").strip().lower()
    value = _clean(attrs.get(value_attribute))
    if name in ITEM_DATES and value and len(found) < MAX_ITEMS:
        found.append((name, value))


def _meta_key(attrs: dict[str, str | None]) -> str | None:
    """The first of :data:`_META_KEYS` a <meta> has a value for (an ``or`` chain: no generator per tag)."""
    property_, name, itemprop, http_equiv = _META_KEYS
    return attrs.get(property_) or attrs.get(name) or attrs.get(itemprop) or attrs.get(http_equiv)


def _is_json_ld(attrs: dict[str, str | None]) -> bool:
    """``type="application/ld+json"``, its case aside and parameters aside (``; charset=utf-8``)."""
    return (attrs.get("type") or "").split(";", 1)[0].strip().lower() == JSON_LD_TYPE


@dataclass(frozen=True, slots=True)
class AuthorMarks:
    """Where the markup names an author outside <head>: microdata, and elements named for it."""

    microdata: tuple[str, ...] = ()  # the values of itemprop="author" (not of a nested item)
    # The text of elements whose rel or class names an author, byline or user, a line per piece (see _pieces)
    bylines: tuple[str, ...] = ()


def collect_author_marks(root: MarkupNode | None, classes: Iterable[str], *, attributed: bool = True) -> AuthorMarks:
    """:class:`AuthorMarks` of the tree under ``root``, by one pass of Lexbor's matcher, or none where none can match.

    ``classes``: the class attributes of the page's elements (the walk's), to leave out of the pass the
    class words none of them holds: a fifth of the pass's cost where none does (the dev pages, 0.35 ms
    against 0.06 with no class word). ``attributed``: whether an element's :data:`AUTHOR_ATTRIBUTES`
    may say "author" (the walk's record); where neither they nor a class word can match, there is no
    pass (on two thirds of the dev pages that ask, 0.17 ms each).
    """
    selector = _author_selector(classes, attributed)
    if root is None or not selector:
        return AuthorMarks()
    microdata: list[str] = []
    bylines: list[str] = []
    for node in root.css(selector):
        attrs = node.attributes
        if (attrs.get("itemprop") or "").strip() == "author" and len(microdata) < MAX_ITEMS:
            value = next((attrs[a] for a in _MICRODATA_VALUE_ATTRIBUTES if attrs.get(a)), None)
            text = _clean(value if value is not None else node.text())
            if text and (value is not None or "itemscope" not in attrs):  # a nested item's text is its parts'
                microdata.append(text)
        if _is_byline(attrs) and len(bylines) < MAX_BYLINES:
            text = _pieces(node)
            if text:
                bylines.append(text)
    return AuthorMarks(tuple(microdata), tuple(bylines))


def _pieces(node: MarkupNode) -> str:
    """``node``'s text, a new line where a run of text meets the next with no white space between and a word.

    Such runs are blocks the page's style sets apart ("<span>Harry Rabinowitz</span><span>Tech
    Reporter</span>" shows two lines, and read as one text it is "Harry RabinowitzTech Reporter"):
    the metadata takes a short byline's first line for the name. White space is collapsed in each
    line; the whole is cut at :data:`MAX_TEXT_CHARS`.
    """
    lines: list[str] = []
    line: list[str] = []
    size = 0
    for child in node.traverse(include_text=True):
        text = child.text_content if child.tag == "-text" else None
        if not text:
            continue
        if line and not line[-1][-1].isspace() and text[0].isalnum():
            lines.append("".join(line))
            line = []
        line.append(text)
        size += len(text)
        if size >= MAX_TEXT_CHARS:
            break
    lines.append("".join(line))
    return "\n".join(filter(None, (" ".join(text.split()) for text in lines)))[:MAX_TEXT_CHARS]


def _author_selector(classes: Iterable[str], attributed: bool) -> str:
    """The selector of the author marks that may be on the page ("" where none may be).

    Microdata authors and rel="author" where ``attributed``; the elements whose class holds a byline
    word, for the words one of ``classes`` holds.
    """
    held = "\n".join(dict.fromkeys(classes))  # each class value once: a page repeats its classes
    words = [word for word in _BYLINE_CLASS_WORDS if word in held]
    attributes = [_AUTHOR_ATTRIBUTES_SELECTOR] if attributed else []
    return ", ".join([*attributes, *(f'[class*="{word}"]' for word in words)])


def _is_byline(attrs: dict[str, str | None]) -> bool:
    """Whether a node :func:`_author_selector` matched is a byline (else it is microdata only)."""
    classes = attrs.get("class") or ""
    return attrs.get("rel") == "author" or any(word in classes for word in _BYLINE_CLASS_WORDS)
