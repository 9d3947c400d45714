"""Inline markup shared by HTML and Markdown: escaped text, styles, links and breaks from a paragraph's runs."""

from __future__ import annotations

import html
import re
from itertools import groupby
from operator import itemgetter
from urllib.parse import urljoin

from service.output.tree import CODE, EMPHASIS, STRONG, Paragraph
from service.parsing.document import Document

# Link targets that must never reach a reader's browser.
UNSAFE_SCHEMES = ("javascript:", "vbscript:", "data:")
_URL_INVISIBLES = re.compile(r"[\x00-\x20]")  # browsers drop these before reading a scheme
MARKDOWN_HARD_BREAK = "\\\n"  # CommonMark: a backslash at the end of a line

_LINK_OF = itemgetter(2)  # of a (separator, text, link, style) run
_STYLE_OF = itemgetter(3)


class Markup:
    """How one markup language writes escaped text, styles, links and breaks (HTML here)."""

    # Markdown only: a "!" right before a link would turn it into an image.
    guards_images = False

    def __init__(self, document: Document, base_url: str | None) -> None:
        self.document = document
        self.base_url = base_url
        self.hrefs: dict[int, str | None] = {}

    def href(self, elem: int) -> str | None:
        """Resolve a link target as a reader's browser should get it: absolute, never a script."""
        if elem in self.hrefs:
            return self.hrefs[elem]
        href = self.document.elem_href(elem)
        if href and _URL_INVISIBLES.sub("", href).lower().startswith(UNSAFE_SCHEMES):
            href = None
        if href and self.base_url:
            href = urljoin(self.base_url, href)
        self.hrefs[elem] = href
        return href

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
    """Markdown inline syntax."""

    guards_images = True

    def escape(self, text: str, style: int) -> str:
        return text if style & CODE else _MD_SPECIAL.sub(r"\\\1", text)

    def separator(self, separator: str, *, verbatim: bool) -> str:
        return MARKDOWN_HARD_BREAK if separator == "\n" else separator

    def style(self, text: str, style: int) -> str:
        if style & CODE:
            longest = max((len(run) for run in BACKTICK_RUNS.findall(text)), default=0)
            fence = "`" * (longest + 1)
            pad = " " if text.startswith("`") or text.endswith("`") else ""
            text = f"{fence}{pad}{text}{pad}{fence}"
        if style & EMPHASIS:
            text = f"*{text}*"
        if style & STRONG:
            text = f"**{text}**"
        return text

    def link(self, text: str, href: str) -> str:
        return f"[{text}]({_MD_URL_UNSAFE.sub(_percent_encode, href)})"


def write_inline(paragraph: Paragraph, markup: Markup) -> str:
    """Write runs as inline markup: a link per enclosing <a>, a style wrapper per equal-style stretch.

    Separators go outside the wrappers, so no markup opens or closes on white space.
    """
    verbatim = paragraph.kind == "pre"
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


# Markdown escaping: characters that open markup anywhere in a line, and
# line starts that would read as a heading, list item, quote or rule.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<]|&(?=#?\w+;))")  # "&" only where it would start an entity
MD_LINE_START = re.compile(r"^([-+=#>])|^(\d{1,9})([.)])(?=\s|$)", re.MULTILINE)
_MD_URL_UNSAFE = re.compile(r"[\s()<>]")
BACKTICK_RUNS = re.compile(r"`+")


def escape_line_start(match: re.Match[str]) -> str:
    if match.group(1):
        return "\\" + match.group(1)
    return f"{match.group(2)}\\{match.group(3)}"


def _percent_encode(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group(0).encode())
