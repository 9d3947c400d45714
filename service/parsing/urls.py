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


def is_web_url(url: str) -> bool:
    """Whether ``url`` is an http(s) URL with a host, which urllib can read."""
    try:
        parts = urlsplit(url)
        return parts.scheme in {"http", "https"} and bool(parts.hostname)
    except ValueError:  # an unclosed IPv6 bracket, a bad port
        return False


def document_base_url(page_url: str | None, base_href: str) -> str | None:
    """What the page's relative URLs resolve against: its ``<base href>`` read against ``page_url``, else ``page_url``.

    HTML's document base URL. A base that resolves to no http(s) URL with a host (a relative one on a page
    given without its URL, ``javascript:``, ``data:``, a typo) is passed over: the page's URL serves.
    """
    page_url = readable_url(page_url)
    base = joined_url(page_url, base_href) if base_href else ""
    return base if is_web_url(base) else page_url
