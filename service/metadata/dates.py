"""Dates as pages write them, to ISO 8601 days; dates in URLs.

ISO forms (most structured data) are read by a regular expression, which is
also the cheapest; free text ("September 4, 2025", "04.09.2025") goes to
python-dateutil's parser, which is strict enough to refuse prose.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from dateutil import parser as dateutil_parser

# Years a page's publication date can fall in (a product number is no date). A day after tomorrow is read
# here as the page writes it; the metadata it is returned in leaves it out (service.metadata.extract).
MIN_YEAR, MAX_YEAR = 1990, 2100
# 2025-09-04, 2025/09/04, 2025.09.04: the year first, one separator throughout.
_ISO = re.compile(r"\s*(\d{4})([-/.])(\d{1,2})\2(\d{1,2})")
_COMPACT = re.compile(r"\s*(\d{4})(\d{2})(\d{2})(?:T|\b)")  # 20250904 or 20250904T1250
# /2025/09/04/, /2025-09-04-, /20250904/ in a URL's path.
_URL_DATE = re.compile(r"/((?:19|20)\d{2})[/-](\d{1,2})[/-](\d{1,2})(?:[/-]|$)|/((?:19|20)\d{2})(\d{2})(\d{2})/")
# /2023/october/03/ in a URL's path.
_URL_MONTH_NAME = re.compile(r"/((?:19|20)\d{2})/([A-Za-z]{3,9})/(\d{1,2})(?:/|$)")
_MONTH_ABBREVIATIONS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_NUMBERS = {name: i for i, name in enumerate(_MONTH_ABBREVIATIONS, 1)}
# Month names in German, French, Spanish, Italian, Portuguese and Dutch, and their usual abbreviations, where
# the first three letters of an English one do not give them ("März", "6 de mayo", "12 juillet").
_OTHER_MONTHS = {
    **dict.fromkeys(["januar", "jänner", "janvier", "janv", "enero", "ene", "gennaio", "gen", "janeiro", "januari"], 1),
    **dict.fromkeys(["februar", "février", "fevrier", "févr", "fév", "febrero", "febbraio", "fevereiro", "fev"], 2),
    **dict.fromkeys(["februari"], 2),
    **dict.fromkeys(["märz", "maerz", "mär", "mrz", "mars", "marzo", "março", "marco", "maart", "mrt"], 3),
    **dict.fromkeys(["avril", "avr", "abril", "abr", "aprile"], 4),
    **dict.fromkeys(["mai", "mayo", "maggio", "mag", "maio", "mei"], 5),
    **dict.fromkeys(["juin", "junio", "giugno", "giu", "junho"], 6),
    **dict.fromkeys(["juillet", "juil", "julio", "luglio", "lug", "julho"], 7),
    **dict.fromkeys(["août", "aout", "agosto", "ago", "augustus"], 8),
    **dict.fromkeys(["septembre", "septiembre", "setiembre", "settembre", "set", "setembro"], 9),
    **dict.fromkeys(["oktober", "okt", "octobre", "octubre", "ottobre", "ott", "outubro", "out"], 10),
    **dict.fromkeys(["novembre", "noviembre", "novembro"], 11),
    **dict.fromkeys(["dezember", "dez", "décembre", "decembre", "déc", "diciembre", "dic", "dicembre", "dezembro"], 12),
}
_MONTH_NAME = r"(?P<month>[^\W\d_]{3,10})\.?"
_MONTH_FIRST = re.compile(rf"\b{_MONTH_NAME}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b")
_DAY_FIRST = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th|er|º)?\.?\s+(?:de\s+)?{_MONTH_NAME},?\s+(?:de\s+)?(?P<year>\d{{4}})\b"
)
_CJK = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})")  # 2024年5月6日, 2024년 5월 6일
# Longest free text handed to the parser: a byline line, not a paragraph.
MAX_FREE_TEXT = 60
_HAS_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_DOTTED = re.compile(r"\b\d{1,2}\.\d{1,2}\.\d{4}\b")  # 04.09.2025: day first, as Europe writes it
_NUMERIC = re.compile(r"(\d{1,2})([-/.])(\d{1,2})\2(\d{4})")
_RELATIVE = re.compile(r"\b(?:ago|yesterday|today)\b", re.IGNORECASE)
# Text around a date in a byline: dateutil is told to skip it.
_LEADING_WORDS = re.compile(r"^\s*(?:published|posted|updated|last updated|date|on|by\b.*?\bon)\s*:?\s*", re.IGNORECASE)


def _day(year: int, month: int, day: int) -> str | None:
    try:
        found = date(year, month, day)
    except ValueError:
        return None
    return found.isoformat() if MIN_YEAR <= year <= MAX_YEAR else None


def after_tomorrow(day: str | None) -> bool:
    """Whether ``day`` (``YYYY-MM-DD``) comes after tomorrow: no page was published or changed then."""
    return day is not None and day > (date.today() + timedelta(days=1)).isoformat()


def iso_day(text: str | None) -> str | None:
    """``text`` as ``YYYY-MM-DD``, or None where it is no date with a year (or no plausible one)."""
    if not text:
        return None
    match = _ISO.match(text)
    if match:
        return _day(int(match.group(1)), int(match.group(3)), int(match.group(4)))
    match = _COMPACT.match(text)
    if match:
        return _day(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    match = _MONTH_FIRST.search(text) or _DAY_FIRST.search(text)
    if match:  # "September 4, 2025", "4 Sept. 2025", "6. Mai 2024": the usual visible forms, without dateutil
        month = _month_number(match.group("month"))
        if month:
            return _day(int(match.group("year")), month, int(match.group("day")))
    match = _CJK.search(text)
    if match:
        return _day(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    free = _LEADING_WORDS.sub("", text.strip())
    if len(free) > MAX_FREE_TEXT or not _HAS_YEAR.search(free) or _RELATIVE.search(free):
        return None
    try:
        parsed = dateutil_parser.parse(
            free, default=datetime(MIN_YEAR, 1, 1), fuzzy=True, dayfirst=bool(_DOTTED.search(free))
        )
    except (ValueError, OverflowError):
        return None
    if str(parsed.year) not in free:  # the parser's default year, where it read the year as something else
        return None
    return _day(parsed.year, parsed.month, parsed.day)


def _month_number(name: str) -> int | None:
    """The month a name or abbreviation says, in English (its first three letters) or a language of _OTHER_MONTHS."""
    lowered = name.lower()
    return _OTHER_MONTHS.get(lowered) or _MONTH_NUMBERS.get(lowered[:3])


def day_readings(text: str) -> tuple[str, ...]:
    """``text``'s day (:func:`iso_day`), then, for "04.09.2025" or "04/09/2025", the other order's day.

    A page writes numbers in its own order (a US site "09.10.2024", a UK one "03/10/2023"): where
    both orders give a day, either may be the one the page means. A dashed one is read only where
    its order shows ("11-29-2024"): taking either reading of "02-12-2025" lost as much as it won.
    """
    day = iso_day(text)
    if day is None:
        return ()
    stripped = text.strip()
    numeric = _NUMERIC.fullmatch(stripped) if stripped[:1].isdigit() else None  # no month name to read
    if numeric is None:
        return (day,)
    first, separator, second, year = numeric.groups()
    readings = {_day(int(year), int(first), int(second)), _day(int(year), int(second), int(first))} - {None}
    if separator == "-" and len(readings) > 1:  # "02-12-2025": no site's custom tells its order
        return ()
    return (day, *sorted(reading for reading in readings - {day} if reading))


def url_day(url: str | None) -> str | None:
    """The date a URL's path carries (``/2025/09/04/slug``, ``/2023/october/03/``), as ``YYYY-MM-DD``."""
    match = _URL_DATE.search(url or "")
    if match is None:
        named = _URL_MONTH_NAME.search(url or "")
        number = _MONTH_NUMBERS.get(named.group(2)[:3].lower()) if named else None
        return _day(int(named.group(1)), number, int(named.group(3))) if named and number else None
    year, month, day = (match.group(1), match.group(2), match.group(3)) if match.group(1) else match.groups()[3:]
    return _day(int(year), int(month), int(day))
