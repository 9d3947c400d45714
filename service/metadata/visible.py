"""What the reader sees: bylines ("By Jane Doe") and dates ("Updated August 14, 2025") in the page's text.

Structured data often says something else than the page (a CMS user name as
author, the first publication where the page shows its last update); the
WCXB annotators, like readers, take what the page shows. One pass over the
short blocks, with a cheap test before any parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cached_property

from service.metadata.dates import day_readings

# How many bylines and dates are kept, in page order.
MAX_FOUND = 8
# "By Jane Doe" on one line, or "By" alone and the name on the next (a link).
# Case spelled out, and the line break first: a pattern with a literal start is searched for in C, 4 times faster;
# the look-ahead at the words' first letters turns most lines away before the alternatives are tried (a quarter
# of the search's time over the dev pages: 60 -> 45 us a page).
_BY_LINE = re.compile(
    r"\n(?=[BbWwPpAaCc])(?:[Bb]y|BY|[Ww]ritten [Bb]y|[Pp]osted [Bb]y|[Aa]uthored [Bb]y|[Aa]uthors?|[Cc]ontributors?)"
    r"[ \t]*:?(?:[ \t]*\n|[ \t]+)([^\n]+)"
)
# A year: where a date may be; the full date pattern is tried only around one.
_YEAR = re.compile(r"(?:19|20)\d\d")  # no look-around: four times faster; the date pattern checks the edges
# How far before a year a date can start ("September 30th, " is 16 characters).
DATE_REACH = 20
DATE_REACH_AFTER = 12
# Years looked at around dates, at most (a listing of 200 dated cards needs only its first few).
MAX_YEARS = 16
MAX_SCAN_CHARS = 40_000
# How far after the headline its byline's date can be ("By Jane Doe and John Roe, Senior Editors | Updated ...").
HEADLINE_REACH = 250
# A name: up to six words, the first capitalised; what follows a separator (" · ", " | ", " on ") is dropped.
_NAME_END = re.compile(r"\s+(?:[|·•—–]|-\s|on\s+\w+\s+\d|on\s+\d|published|updated|posted)|,\s*(?:\d|updated)", re.I)
_NAME = re.compile(r"^[A-ZÀ-Þ][\w.'’-]*(?:\s+(?:[A-ZÀ-Þ][\w.'’-]*|and|&|de|van|von|der|da|di|la|le|,))*$")
MAX_NAME_WORDS = 6
# Not a person: a URL or path, a handle, a number, or the label or button an author element also holds.
NOT_A_NAME = re.compile(
    r"https?://|^/|www\.|@|\d{3,}"
    r"|^(?:admin|administrator|authors?|staff|unknown|log ?in|sign ?in|sign ?up|register|search"
    r"|advertise|contributors?|editors?|guest|anonymous|menu|home|share|subscribe|about the author|written by|member"
    r"|role|category|name|community|topic author|company (?:type|size)|use case|modality)$|[:*]$",
    re.IGNORECASE,
)
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_SPAN = re.compile(
    rf"\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:19|20)\d\d\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\.?\s+{_MONTHS},?\s+(?:19|20)\d\d\b"
    r"|\b(?:19|20)\d\d([-/.])\d{2}\1\d{2}(?:\b|(?=T\d))|\b\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)\d\d\b",
    re.IGNORECASE,
)
# "Published: Apr 26, 2023", "Published on\n26 Sep 2019": a date the page labels its publication (matched at "u").
_PUBLISHED_LABEL = re.compile(r"ublished(?: on| date)?[ \t]*:?[ \t]*\n?", re.IGNORECASE)
# The words before "published" that make a label of it anywhere, or none.
_ORIGINALLY = re.compile(r"originally[ \t]+p$", re.IGNORECASE)
_NOT_PUBLICATION = re.compile(r"(?:last|re)[ \t]*p$", re.IGNORECASE)  # "Last published": a feed's latest post
# How far a labelled date may start after its label ("Published&ensp;Apr 26, 2023" leaves a space or two).
LABEL_GAP = 3


def _date_span(text: str, start: int, end: int) -> re.Match[str] | None:
    """The first date in ``text[start:end]`` that is no part of a URL's path ("example.com/2012/07/23/story").

    Told by the "/" before it, not by a look-behind in the pattern: that made every search half as slow again.
    """
    span = _DATE_SPAN.search(text, start, end)
    while span is not None and text[span.start() - 1 : span.start()] == "/":
        span = _DATE_SPAN.search(text, span.end(), end)
    return span


def _years(text: str) -> Iterator[re.Match[str]]:
    """``_YEAR.finditer(text)``, the pattern tried only where ``str.find`` (in C) sees "19" or "20".

    The pattern has no literal to start from, so its own scan tries every character: two to three times slower.
    """
    find, match = text.find, _YEAR.match
    at_19, at_20 = find("19"), find("20")
    while at_19 >= 0 or at_20 >= 0:
        at = at_19 if at_20 < 0 or 0 <= at_19 < at_20 else at_20
        year = match(text, at)
        if year is not None:
            yield year
        after = year.end() if year is not None else at + 1  # where finditer goes on
        if 0 <= at_19 < after:
            at_19 = find("19", after)
        if 0 <= at_20 < after:
            at_20 = find("20", after)


def _found_all(text: str, needles: tuple[str, ...]) -> list[int]:
    """Where each of ``needles`` starts in ``text``, in text order."""
    found = []
    for needle in needles:
        at = text.find(needle)
        while at >= 0:
            found.append(at)
            at = text.find(needle, at + 1)
    return sorted(found)


def person_name(text: str) -> str | None:
    """``text`` up to a separator where it reads as a person's name ("Jane Doe · 2 May"), else None."""
    text = _NAME_END.split(text, maxsplit=1)[0].strip(" ,.:;|·")
    if not text or len(text.split()) > MAX_NAME_WORDS or not _NAME.match(text) or NOT_A_NAME.search(text):
        return None
    return text


class Visible:
    """Bylines' names and dates as the page shows them, in page order; each found on first use.

    Only the first :data:`MAX_SCAN_CHARS` characters of ``lines`` (the page's blocks, one a line)
    are read: a page shows its byline and date near its title. Dates are found only as far as a
    caller reads them (:meth:`iter_days`): most pages' question is settled by the first one or two.
    """

    def __init__(self, lines: str) -> None:
        self._lines = "\n" + lines[:MAX_SCAN_CHARS]
        self._found_days: list[str] = []
        self._scan: Iterator[str] | None = self._scan_days()

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Names after "By", "Written by", "Author:" ..., without repeats."""
        names: list[str] = []
        for match in _BY_LINE.finditer(self._lines):
            name = person_name(match.group(1))
            if name and name not in names:
                names.append(name)
                if len(names) >= MAX_FOUND:
                    break
        return tuple(names)

    @property
    def days(self) -> tuple[str, ...]:
        """Every date with a year (up to :data:`MAX_FOUND`), as ISO days."""
        return tuple(self.iter_days())

    def iter_days(self) -> Iterator[str]:
        """The dates as ISO days, in page order: those found already, then the scan goes on where it stopped."""
        index = 0
        while True:
            if index < len(self._found_days):
                yield self._found_days[index]
                index += 1
                continue
            day = next(self._scan, None) if self._scan is not None else None
            if day is None:
                self._scan = None
                return
            self._found_days.append(day)

    def shows(self, day: str) -> bool:
        """Whether the page shows ``day`` among its dates."""
        return any(found == day for found in self.iter_days())

    def day_after(self, headline: str) -> tuple[str, ...]:
        """The readings of the first date shown within :data:`HEADLINE_REACH` characters after ``headline``."""
        at = self._lines.find(headline) if headline else -1
        if at < 0:
            return ()
        start, end = at + len(headline), at + len(headline) + HEADLINE_REACH
        year = _YEAR.search(self._lines, start, end)  # every date holds a year: the date pattern is tried from it
        if year is None:
            return ()
        span = _date_span(self._lines, max(start, year.start() - DATE_REACH), end)
        return day_readings(span.group(0)) if span is not None else ()

    def labelled_published(self, headline: str) -> str | None:
        """The day the text labels its publication: "Published ..." under ``headline``, "originally published" anywhere.

        A "Published on:" further down a page labels something else (a ranking table's edition). The labels
        are found by ``str.find`` (in C): a case-blind pattern searched over the text cost a millisecond a page.
        """
        lines = self._lines
        at = lines.find(headline) if headline else -1
        under = range(at + len(headline), at + len(headline) + HEADLINE_REACH) if at >= 0 else range(0)
        for found in _found_all(lines, ("ublished", "UBLISHED")):
            label, before = _PUBLISHED_LABEL.match(lines, found), max(0, found - 12)
            if label is None or _NOT_PUBLICATION.search(lines, before, found):
                continue
            if found - 1 not in under and not _ORIGINALLY.search(lines, before, found):
                continue
            span = _date_span(lines, label.end(), label.end() + LABEL_GAP + DATE_REACH + 10)
            if span is not None and span.start() <= label.end() + LABEL_GAP:
                readings = day_readings(span.group(0))
                return readings[0] if readings else None
        return None

    def _scan_days(self) -> Iterator[str]:
        """Dates with a year, as ISO days: the full date pattern is tried only around a year."""
        lines = self._lines
        found = 0
        searched = 0  # where the date pattern has looked up to: a date is found once
        for count, year in enumerate(_years(lines)):
            if count >= MAX_YEARS or found >= MAX_FOUND:
                break
            start = max(year.start() - DATE_REACH, searched)
            # "2025-09-04", "04.09.2025": the year may come first, so the window reaches past it too
            span = _date_span(lines, start, year.end() + DATE_REACH_AFTER)
            if span is not None:
                searched = span.end()
                readings = day_readings(span.group(0))
                if readings:
                    found += 1
                    yield from readings
