"""The page's own title: the headline a reader sees, without the site's name glued to it.

``<title>`` and ``og:title`` often read "Headline | Site"; the ``<h1>`` is
often the bare headline but on many sites is the logo or a section name. An
``<h1>`` that agrees with the head's title is taken as it is; otherwise the
head's title is cut at its separators and the site's segment dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# " | ", " - ", " – ", " — ", " · ", " :: ", " » ", " • ": what sites put between a headline and their name.
_SEPARATOR = re.compile(r"\s+(?:\||-|–|—|·|::|»|•|/)\s+")
_WORD = re.compile(r"\w+")
# An <h1> whose words cover this share of the head title's (and the other way round) is the same title.
AGREEMENT = 0.5
# A trailing segment this short (in words) is a site name even where the page does not name its site.
MAX_SITE_WORDS = 4


def _words(text: str) -> set[str]:
    """The words of ``text`` that can tell two titles apart (no "a", "of", "to")."""
    return {word for word in _WORD.findall(text.lower()) if len(word) > 2 or word.isdigit()}


def strip_site(title: str, site_name: str | None) -> str:
    """``title`` without the site name segment ("Headline | Site" → "Headline")."""
    parts = [p for p in _SEPARATOR.split(title) if p.strip()]
    if len(parts) < 2:
        return title.strip()
    site = _words(site_name or "")
    if site:
        kept = [p for p in parts if not (_words(p) and _words(p) <= site | {"com", "www"})]
        if kept and len(kept) < len(parts):
            return " - ".join(kept).strip() if len(kept) > 1 else kept[0].strip()
    head, last = parts[:-1], parts[-1]
    if len(last.split()) <= MAX_SITE_WORDS and len(" ".join(head).split()) >= len(last.split()):
        return " - ".join(head).strip() if len(head) > 1 else head[0].strip()
    return title.strip()


def _agrees(heading: str, title: str) -> bool:
    heading_words, title_words = _words(heading), _words(title)
    if not heading_words or not title_words:
        return False
    shared = len(heading_words & title_words)
    return shared / len(heading_words) >= AGREEMENT and shared / len(title_words) >= AGREEMENT


def best_title(
    *, headline: str, meta_titles: Sequence[str], page_title: str, headings: Sequence[str], site_name: str | None
) -> str | None:
    """The headline, chosen among the JSON-LD headline, the meta titles, ``<title>`` and the ``<h1>``s."""
    head_titles = [strip_site(t, site_name) for t in (*meta_titles, page_title) if t]
    reference = head_titles[0] if head_titles else headline
    for heading in headings[:2]:
        if reference and _agrees(heading, reference):
            return heading
    for candidate in (headline, *head_titles, *headings[:1]):
        if candidate:
            return candidate
    return None
