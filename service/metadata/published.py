"""Which day a page was published: its structured data, its <time> elements, its text and its URL weighed.

The rules, each measured on the train and validation parts of the WCXB dev
pages (``python -m service eval --metadata --part train``):

- the declared publication (JSON-LD, then the head's ``<meta>``, then body
  microdata) where the page shows that day;
- the same where a ``<time>`` holds the declared instant, whatever day its text
  shows (a forum renders it in UTC: "Jan 15" for ``2024-01-14T21:50-05:00``);
- else the first day the page shows among those its markup knows (the
  annotators, like readers, take what the page shows: often its last update),
  the one under the headline first where it is one of them;
- but where the page shows its update ("Updated March 9, 2026": the declared
  modification, or a ``<time>`` whose text says "Updated") and the head's
  ``<meta>`` declares a publication, alone or beside JSON-LD, the declared one
  (train and validation: where the head declares one beside JSON-LD, the
  annotators took the publication 8 times in 11; where JSON-LD alone declares
  it, the update 12 times in 14); where nothing declares one, an earlier day
  the page shows before its update;
- where the page shows no day its markup knows and JSON-LD declares one that
  no ``<time>`` holds, the date shown right under the headline (its byline's),
  where there is one (a forum's ``<time>`` may show only "March 2025");
- where nothing declares a day, the date under the headline, else the first
  the page shows (its header may show today's: "Friday, December 19, 2025");
- a day the URL carries (``/2025/12/18/``) wins over one a day away from it:
  a UTC timestamp shifted by the time zone;
- so does the page's first day (its first ``<time>``, else the first it shows) over a
  declared timestamp without a time zone a day away from it ("2026-02-15 03:05:48" where
  the thread shows "Feb 14, 2026": the server's clock, not the reader's);
- and over all of these, a day the text labels its publication ("Published Apr 26, 2023"
  within the headline's byline, "originally published on 26 Sep 2019" anywhere) where the
  rules' day is more than a day away from it: the page says which of its days is the
  publication (train 0.922 -> 0.926, two pages, validation unchanged; 2026-11-28).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from service.metadata.dates import iso_day, url_day
from service.metadata.visible import Visible

# Where the declared publication came from, most trusted first.
JSON_LD, HEAD_META, MICRODATA = "json-ld", "meta", "microdata"


@dataclass(frozen=True)
class DateClues:
    """What a page's markup says of its dates, as written (the day is read from each on use)."""

    declared: str = ""  # the structured publication, as written
    source: str = ""  # where ``declared`` came from: JSON_LD, HEAD_META or MICRODATA
    modified: str | None = None  # the structured last update, as a day
    times: Sequence[tuple[str, str]] = ()  # (datetime attribute, text) of every <time>
    url: str | None = None
    headline: str = ""  # the page's first <h1>
    head_declares: bool = False  # the head's <meta> declares a publication too (where ``declared`` is JSON-LD's)


def published_day(clues: DateClues, seen: Visible) -> str | None:
    """The day the page was published, by the rules of the module's docstring; None where nothing says."""
    day = _reckoned_day(clues, seen)
    labelled = seen.labelled_published(clues.headline)
    if labelled is not None and (day is None or _days_apart(labelled, day) > 1):
        return _shifted_to(labelled, url_day(clues.url))
    return day


def _reckoned_day(clues: DateClues, seen: Visible) -> str | None:
    """The day of every rule but the labelled one."""
    published, in_url = iso_day(clues.declared), url_day(clues.url)
    if published is not None and _without_zone(clues.declared):
        published = _shifted_to(published, next(_timed_days(clues), None) or next(seen.iter_days(), None))
    if published is not None and (seen.shows(published) or _timed_instant(clues.declared, clues.times)):
        return _shifted_to(published, in_url)
    timed = list(_timed_days(clues))
    known = {day for day in (published, clues.modified, *timed) if day}
    # the page's dates are read only as far as the question needs (a date that is not known cannot be shown)
    shown = next((day for day in seen.iter_days() if day in known), None) if known else None
    if shown is not None and len(known) > 1:  # of the known days shown, the one under the headline (a menu's first)
        shown = next((day for day in seen.day_after(clues.headline) if day in known), shown)
    if shown is not None:
        # the declared update, and a <time> that says it is one ("Last Updated: Dec 17, 2025")
        updates = {clues.modified} | {iso_day(dt) for dt, text in clues.times if "updated" in text.lower()}
        if shown in updates and (clues.source == HEAD_META or clues.head_declares):
            shown = published
        elif shown in updates and published is None:
            first = next(seen.iter_days(), None)
            if first is not None and first < shown:
                shown = first
    if shown is None and clues.source == JSON_LD and published not in timed and published != in_url:
        # the first date under the headline, where the page shows no known one; not where the URL confirms
        # the declared day: a lede's "Starting Jan. 1, 2025, ..." under a "2 hours ago" byline is no byline
        under = seen.day_after(clues.headline)
        shown = next((day for day in under if day in known), under[0] if under else None)
    day = shown or published or (timed[0] if timed else None) or in_url
    if day is None and (first := next(seen.iter_days(), None)) is not None:
        under = seen.day_after(clues.headline)  # a header may show today's date: the byline's comes first
        day = under[0] if under else first
    return _shifted_to(day, in_url)


def _timed_days(clues: DateClues) -> Iterator[str]:
    """The days of the page's ``<time datetime>`` elements, in page order, read as far as the caller goes."""
    return (day for day in (iso_day(dt) for dt, _ in clues.times) if day)


def _moment(text: str) -> datetime | None:
    """``text`` as an ISO timestamp with a time of day (with or without a time zone); None where it is none."""
    if "T" not in text and ":" not in text:
        return None
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        return None


def _instant(text: str) -> datetime | None:
    """``text`` as a time-zone-aware instant; None where it is no ISO timestamp with an offset."""
    moment = _moment(text)
    return moment if moment is not None and moment.tzinfo is not None else None


def _without_zone(text: str) -> bool:
    """Whether ``text`` is a timestamp with a time of day and no time zone ("2026-02-15 03:05:48")."""
    moment = _moment(text)
    return moment is not None and moment.tzinfo is None


def _timed_instant(declared: str, times: Sequence[tuple[str, str]]) -> bool:
    """Whether a <time> holds the ``declared`` instant (in any time zone)."""
    moment = _instant(declared)
    return moment is not None and any(_instant(dt) == moment for dt, _ in times if dt)


def _days_apart(one: str, other: str) -> int:
    return abs((date.fromisoformat(one) - date.fromisoformat(other)).days)


def _shifted_to(day: str | None, reference: str | None) -> str | None:
    """``reference`` where ``day`` is a day away from it (or is it), else ``day``: a time zone's shift undone."""
    if reference is None or day is None or _days_apart(reference, day) > 1:
        return day
    return reference
