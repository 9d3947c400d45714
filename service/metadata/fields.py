"""The metadata of one page, as every entry point returns it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# The page types the classifier tells apart (WCXB's seven; its `category` is `collection`).
ARTICLE = "article"  # the type pruning's article rules and the decision threshold treat apart
FORUM = "forum"  # the type whose comment threads pruning keeps
LISTING, COLLECTION = "listing", "collection"  # where pruning lets sidebars give way as on articles
PRODUCT = "product"  # the type whose customer reviews pruning treats as an article's comments
SERVICE = "service"
PAGE_TYPES = (ARTICLE, COLLECTION, "documentation", FORUM, LISTING, PRODUCT, SERVICE)


@dataclass(frozen=True, slots=True)
class Metadata:
    """Who wrote a page, when, for which site, in which language, and what kind of page it is.

    Every field is None (``author``/``tags``: empty) where the page does not say.
    Dates are ISO 8601 (``YYYY-MM-DD``); ``language`` is a BCP 47 tag; ``image``
    and ``canonical_url`` are absolute where the page's URL is known.
    """

    title: str | None = None
    author: tuple[str, ...] = ()
    date_published: str | None = None
    date_modified: str | None = None
    site_name: str | None = None
    language: str | None = None
    description: str | None = None
    image: str | None = None
    canonical_url: str | None = None
    tags: tuple[str, ...] = ()
    page_type: str | None = None
    page_type_confidence: float | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples as lists)."""
        record = asdict(self)
        record["author"], record["tags"] = list(self.author), list(self.tags)
        return record
