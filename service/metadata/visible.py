"""What the reader sees: bylines ("By Jane Doe") and dates ("Updated August 14, 2025") in the page's text.

Structured data often says something else than the page (a CMS user name as
author, the first publication where the page shows its last update); the
WCXB annotators, like readers, take what the page shows. One pass over the
short blocks, with a cheap test before any parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.metadata.dates import iso_day
from service.parsing.document import Document

# Blocks longer than this are prose, not a byline or a date line.
MAX_LINE_CHARS = 120
# How many bylines and dates are kept, in page order.
MAX_FOUND = 8
_BY_LINE = re.compile(r"^(?:written\s+by|posted\s+by|authored\s+by|by|author)\s*:?\s+(.+)$", re.IGNORECASE)
_BY_ALONE = re.compile(r"^(?:written\s+by|posted\s+by|by|author:?|authors?:)$", re.IGNORECASE)
# A name: up to six words, the first capitalised; what follows a separator (" · ", " | ", " on ") is dropped.
_NAME_END = re.compile(r"\s+(?:[|·•—–]|-\s|on\s+\w+\s+\d|on\s+\d|published|updated|posted)|,\s*(?:\d|updated)", re.I)
_NAME = re.compile(r"^[A-ZÀ-Þ][\w.'’-]*(?:\s+(?:[A-ZÀ-Þ][\w.'’-]*|and|&|de|van|von|der|da|di|la|le|,))*$")
MAX_NAME_WORDS = 6
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_MONTH = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}\.?\s+(?:jan|feb|mar|apr|"
    r"may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{4}\b",
    re.IGNORECASE,
)
_DATE_SPAN = re.compile(
    r"(?:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\.?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+\d{4}"
    r"|\b\d{4}-\d{2}-\d{2}|\b\d{1,2}[/.]\d{1,2}[/.]\d{4})",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Visible:
    """Bylines' names and dates as the page shows them, in page order."""

    names: tuple[str, ...]
    days: tuple[str, ...]


def _name(text: str) -> str | None:
    text = _NAME_END.split(text, maxsplit=1)[0].strip(" ,.:;|·")
    if not text or len(text.split()) > MAX_NAME_WORDS or not _NAME.match(text):
        return None
    return text


def visible(document: Document) -> Visible:
    """Names after "By" and dates in short blocks, in page order."""
    names: list[str] = []
    days: list[str] = []
    texts = document.texts
    for index, text in enumerate(texts):
        if len(text) > MAX_LINE_CHARS:
            continue
        if len(names) < MAX_FOUND:
            match = _BY_LINE.match(text)
            candidate = match.group(1) if match else None
            if candidate is None and _BY_ALONE.match(text) and index + 1 < len(texts):
                candidate = texts[index + 1]
            name = _name(candidate) if candidate else None
            if name:
                names.append(name)
        if len(days) < MAX_FOUND and _YEAR.search(text) and _MONTH.search(text):
            span = _DATE_SPAN.search(text)
            day = iso_day(span.group(0)) if span else None
            if day:
                days.append(day)
    return Visible(tuple(names), tuple(days))
