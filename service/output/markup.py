"""Inline markup shared by HTML and Markdown: escaped text, styles, links and breaks from a paragraph's runs."""

from __future__ import annotations

import html
import re
from itertools import groupby
from operator import itemgetter

import numpy as np

from service.output.tree import CODE, EMPHASIS, PRE_TAGS, STRONG, Image, Paragraph
from service.parsing.document import Document
from service.parsing.urls import joined_url

# Link targets that must never reach a reader's browser.
UNSAFE_SCHEMES = ("javascript:", "vbscript:", "data:")
_URL_INVISIBLES = re.compile(r"[\x00-\x20]")  # browsers drop these before reading a scheme
MARKDOWN_HARD_BREAK = "\\\n"  # CommonMark: a backslash at the end of a line


def safe_url(url: str) -> str:
    """``url`` where a reader's browser may load it, else "" (a script, a ``data:`` URL)."""
    return "" if _URL_INVISIBLES.sub("", url).lower().startswith(UNSAFE_SCHEMES) else url


def code_language(document: Document, pre: int) -> str:
    """The language a ``<pre>`` (or the ``<code>`` right in it) names in its class (``language-x``, ``lang-x``)."""
    if pre < 0 or document.elem_tag[pre] not in PRE_TAGS:
        return ""
    classes = document.elem_attribute("class")
    inside = np.flatnonzero(document.elem_parent == pre).tolist()
    for elem in [pre, *inside]:
        match = _LANGUAGE.search(classes.get(elem, ""))
        if match:
            return match.group(1)
    return ""


_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)")
_LINK_OF = itemgetter(2)  # of a (separator, text, link, style) run
_STYLE_OF = itemgetter(3)


class Markup:
    """How one markup language writes escaped text, styles, links and breaks (HTML here)."""

    # Markdown only: a "!" right before a link would turn it into an image.
    guards_images = False

    def __init__(self, document: Document, base_url: str | None, *, links: bool = True) -> None:
        self.document = document
        self.base_url = base_url
        self.links = links  # False: link text is written as plain text
        self.hrefs: dict[int, str | None] = {}

    def href(self, elem: int) -> str | None:
        """Resolve a link target as a reader's browser should get it: absolute, never a script."""
        if elem in self.hrefs:
            return self.hrefs[elem]
        href = safe_url(self.document.elem_href(elem) or "") if self.links else ""
        if href:
            href = joined_url(self.base_url, href)  # "" where it does not read as a URL: the text stays, unlinked
        self.hrefs[elem] = href or None
        return href or None

    def image(self, image: Image) -> str:
        return f'<img src="{html.escape(image.src)}" alt="{html.escape(image.alt)}">'

    def escape(self, text: str, style: int) -> str:
        return html.escape(text, quote=False)

    def separator(self, separator: str, *, verbatim: bool) -> str:
        return "<br>" if separator == "\n" and not verbatim else separator

    def style(self, text: str, style: int) -> str:
        if style & CODE:
            text = f"<code>{text}</code>"
        if style & EMPHASIS:
            text = f"<em>{text}</em>"
        if style & STRONG:
            text = f"<strong>{text}</strong>"
        return text

    def link(self, text: str, href: str) -> str:
        return f'<a href="{html.escape(href)}">{text}</a>'


class MarkdownMarkup(Markup):
    """Markdown inline syntax; with ``pipes``, "|" is escaped too (see ``MarkdownDialect``)."""

    guards_images = True

    def __init__(self, document: Document, base_url: str | None, *, links: bool = True, pipes: bool = False) -> None:
        super().__init__(document, base_url, links=links)
        self._special = _MD_SPECIAL_AND_PIPES if pipes else _MD_SPECIAL

    def escape(self, text: str, style: int) -> str:
        return text if style & CODE else self._special.sub(r"\\\1", text)

    def separator(self, separator: str, *, verbatim: bool) -> str:
        return MARKDOWN_HARD_BREAK if separator == "\n" else separator

    def style(self, text: str, style: int) -> str:
        lead = trail = ""
        if style & CODE:
            text = text.replace(MARKDOWN_HARD_BREAK, " ")  # a code span holds no break: its backslash would show
            longest = max((len(run) for run in BACKTICK_RUNS.findall(text)), default=0)
            fence = "`" * (longest + 1)
            pad = " " if text.startswith("`") or text.endswith("`") else ""
            text = f"{fence}{pad}{text}{pad}{fence}"
        elif style & (EMPHASIS | STRONG):
            # CommonMark opens "*" before punctuation only after white space or punctuation (and closes after it
            # likewise): 'a*"quoted"*b' shows its asterisks. The punctuation at the edges goes outside instead.
            edges = _EDGE_PUNCTUATION.fullmatch(text)
            if edges is not None:
                lead, text, trail = edges.groups()
            if not text:
                return lead + trail
        if style & EMPHASIS:
            text = f"*{text}*"
        if style & STRONG:
            text = f"**{text}**"
        return lead + text + trail

    def link(self, text: str, href: str) -> str:
        return f"[{text}]({markdown_destination(href)})"

    def image(self, image: Image) -> str:
        alt = _MD_SPECIAL.sub(r"\\\1", image.alt)
        return f"![{alt}]({markdown_destination(image.src)})"


def markdown_destination(url: str) -> str:
    r"""``url`` as a Markdown link destination that a reader's renderer reads back as the same URL.

    White space, parentheses and angle brackets are percent-encoded (they would end the destination);
    a backslash and an entity's ampersand are escaped, since a renderer reads ``\:`` and ``&#58;`` as ``:``:
    unescaped, ``javascript&#58;...``, which :func:`safe_url` rightly lets pass as a relative URL, became
    a script link.
    """
    return _MD_URL_ESCAPED.sub(r"\\\1", _MD_URL_UNSAFE.sub(_percent_encode, url))


def write_inline(paragraph: Paragraph, markup: Markup) -> str:
    """Write runs as inline markup: a link per enclosing <a>, a style wrapper per equal-style stretch.

    Separators go outside the wrappers, so no markup opens or closes on white space.
    An image paragraph is its image.
    """
    if paragraph.image is not None:
        return markup.image(paragraph.image)
    verbatim = paragraph.kind == "pre"
    if paragraph.stop - paragraph.start == 1:  # most paragraphs: one run, no grouping to do
        return _write_run(paragraph, markup, verbatim=verbatim)
    out: list[str] = []
    for link, link_group in groupby(paragraph.items(), key=_LINK_OF):
        link_runs = list(link_group)
        separator = markup.separator(link_runs[0][0], verbatim=verbatim)
        spans: list[str] = []
        for style, style_group in groupby(link_runs, key=_STYLE_OF):
            style_runs = list(style_group)
            if spans:
                spans.append(markup.separator(style_runs[0][0], verbatim=verbatim))
            text = markup.escape(style_runs[0][1], style) + "".join(
                [
                    markup.separator(sep, verbatim=verbatim) + markup.escape(txt, style)
                    for sep, txt, _, _ in style_runs[1:]
                ]
            )
            spans.append(markup.style(text, style) if style else text)
        inner = "".join(spans)
        href = markup.href(link) if link >= 0 else None
        if href is None:
            out.append(separator + inner)
            continue
        if markup.guards_images and not separator and out and out[-1].endswith("!"):
            out[-1] = out[-1][:-1] + "\\!"  # only escaped plain text can end in "!"
        out.append(separator + markup.link(inner, href))
    return "".join(out)


def _write_run(paragraph: Paragraph, markup: Markup, *, verbatim: bool) -> str:
    """:func:`write_inline` of a one-run paragraph: its separator, then its text escaped, styled and linked."""
    runs, at = paragraph.runs, paragraph.start
    text, style, link = runs.texts[at], runs.styles[at], runs.links[at]
    inner = markup.escape(text, style)
    if style:
        inner = markup.style(inner, style)
    href = markup.href(link) if link >= 0 else None
    separator = markup.separator(runs.separators[at], verbatim=verbatim)
    return separator + (inner if href is None else markup.link(inner, href))


# Markdown escaping: characters that open markup anywhere in a line, and
# line starts that would read as a heading, list item, quote or rule.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<]|&(?=#?\w+;))")  # "&" only where it would start an entity
_MD_SPECIAL_AND_PIPES = re.compile(r"([\\`*_\[\]<|]|&(?=#?\w+;))")
MD_LINE_START = re.compile(r"^([-+=#>~])|^(\d{1,9})([.)])(?=\s|$)", re.MULTILINE)
_MD_URL_UNSAFE = re.compile(r"[\s()<>]")
_MD_URL_ESCAPED = re.compile(r"(\\|&(?=#?\w+;))")  # as in text, "&" only where it would start an entity
BACKTICK_RUNS = re.compile(r"`+")
# A styled text's punctuation (an escape is one piece: "\\[") at its start and end, and what is between.
_EDGE_PUNCTUATION = re.compile(r"((?:\\.|[^\w\s\\])*)(.*?)((?:\\.|[^\w\s\\])*)", re.DOTALL)


def escape_line_start(match: re.Match[str]) -> str:
    if match.group(1):
        return "\\" + match.group(1)
    return f"{match.group(2)}\\{match.group(3)}"


def _percent_encode(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group(0).encode())
