"""URLs as pages and callers write them: read where urllib can, never an error where it cannot.

urllib raises ValueError on what a typo makes of a URL ("http://[", "http://[x]/": an IPv6 host
that is none); a page's link or a caller's base URL written so must cost the page its link, not
its extraction.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit


def readable_url(url: str | None) -> str | None:
    """``url`` where urllib can split it, else None (as if no URL were given)."""
    if not url:
        return None
    try:
        urlsplit(url)
    except ValueError:
        return None
    return url


def joined_url(base: str | None, url: str) -> str:
    """``url`` resolved against ``base`` (``url`` itself without one); "" where either does not read as a URL."""
    if not base:
        return url
    try:
        return urljoin(base, url)
    except ValueError:
        return ""
