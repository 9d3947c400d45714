"""A page's metadata from its markup: each field from the most trusted source that has it.

The order of the sources per field was chosen on the validation part of the
WCXB dev pages (``python -m service eval --metadata --part validation``):
JSON-LD first, then OpenGraph/Twitter cards and named ``<meta>`` tags, then
``<time>``, what the page's text shows (bylines, dates) and the URL. The
author and the date are those the page shows its reader where the structured
data names several (see :func:`_author` and :func:`_published`). Microdata and
author elements each take a scan of the whole tree, so they are read only for
the author of a dated page whose head and text leave it open (one scan for
both); microdata dates added nothing on the validation part and are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any
from urllib.parse import urljoin, urlsplit

from service.metadata.dates import after_tomorrow, iso_day
from service.metadata.fields import Metadata
from service.metadata.jsonld import ORGANIZATION_TYPES, JsonLd, node_types, parse_json_ld, text_of
from service.metadata.mojibake import repaired_text
from service.metadata.published import HEAD_META, JSON_LD, MICRODATA, DateClues, published_day
from service.metadata.titles import best_title, path_words
from service.metadata.visible import NOT_A_NAME, Visible, person_name
from service.parsing.document import Document
from service.parsing.markup import MAX_TEXT_CHARS, PageMarkup
from service.parsing.urls import document_base_url, is_web_url, readable_url

# <meta> names per field, most trusted first (OpenGraph, Twitter, Dublin Core, Highwire citation_*, CMS ones).
TITLE_META = ("og:title", "twitter:title", "citation_title", "dc.title", "parsely-title")
AUTHOR_META = (
    "author", "article:author", "citation_author", "dc.creator", "parsely-author", "sailthru.author",
    "byl", "dcterms.creator",
)  # fmt: skip
PUBLISHED_META = (
    "article:published_time", "og:published_time", "citation_publication_date", "citation_date",
    "dc.date.issued", "dcterms.issued", "dc.date", "dcterms.date", "date", "pubdate", "publishdate",
    "publish-date", "parsely-pub-date", "sailthru.date", "datepublished", "article.published",
    "og:article:published_time", "ms.date",
)  # fmt: skip
MODIFIED_META = ("article:modified_time", "og:updated_time", "dc.date.modified", "dcterms.modified", "datemodified")
SITE_META = ("og:site_name", "application-name", "apple-mobile-web-app-title")
DESCRIPTION_META = ("og:description", "description", "twitter:description", "dc.description")
IMAGE_META = ("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src")
LANGUAGE_META = ("content-language", "dc.language", "og:locale")
TAG_META = ("article:tag", "parsely-tags", "keywords", "news_keywords")
MAX_TAGS = 20
# An author name is a few words; longer text in an author slot is a bio or a sentence.
MAX_AUTHOR_WORDS = 8
# A byline read line by line has a name and a role or a date: a longer one is some container's whole text.
MAX_BYLINE_WORDS = 12
# Author elements read, in page order, for the first that holds a name.
_BY = re.compile(r"^\s*(?:(?:written|posted|text|words|story)\s+by|by)\s*[:\-]?\s*", re.IGNORECASE)
# A description written as HTML ("<p>This week, we're scouting ...</p>": 10 Dragnet and 2 WCXB pages): one that
# starts with a tag and closes one. "The <table> element represents ..." is text, and starts with none.
_STARTS_WITH_TAG = re.compile(r"^\s*<[a-zA-Z][^<>]*>")
_BLOCK_TAG = re.compile(r"</?(?:p|div|br|li|ul|ol|h[1-6]|blockquote|tr|td|th|table)\b[^<>]*>", re.IGNORECASE)
_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")  # an inline one: "<strong>Mini-SGLang</strong>," keeps its comma close
_EXTRA_SLASHES = re.compile(r"^(https?:)/{3,}", re.IGNORECASE)
_BCP47 = re.compile(r"^[a-zA-Z]{2,3}(?:[-_][a-zA-Z0-9]{2,8})*$")


def extract_metadata(document: Document, url: str | None = None, ld: JsonLd | None = None) -> Metadata:
    """Every field but the page type (the classifier's), from ``document``'s markup (``ld``: its JSON-LD), ``url``.

    A ``url`` urllib cannot read ("http://[") is taken for none.
    """
    url = readable_url(url)
    markup = document.markup
    meta = _meta_index(markup)
    ld = ld if ld is not None else parse_json_ld(markup.json_ld)
    main = ld.main() or {}
    base = document_base_url(url, markup.base_href) or ""  # what the page's relative URLs resolve against
    site_name = _site_name(meta, ld)
    lines = "\n".join(document.texts)  # the page's text, a block a line: joined once, searched in C
    seen = Visible(lines)
    modified = _modified(document, meta, main)
    published = _published(document, meta, main, seen, url=url, modified=modified)
    author = _author(document, meta, ld, main, seen=seen, text=lines, dated=published is not None)
    canonical = _canonical(markup, meta, base)
    return Metadata(
        title=best_title(
            headline=_ld_text(main, "headline", "name"),
            meta_titles=[_first(meta, (name,)) for name in TITLE_META],
            page_title=markup.title,
            headings=markup.headings,
            site_name=site_name,
            home=urlsplit(url or "").path in {"", "/"},
            path_words=path_words(url),
        ),
        author=author,
        date_published=published,
        date_modified=modified,
        site_name=site_name,
        language=_language(document.lang, meta, main),
        description=_plain(repaired_text(_first(meta, DESCRIPTION_META) or _ld_text(main, "description"))) or None,
        image=_absolute(_first(meta, IMAGE_META) or _ld_image(ld, main), base or canonical),
        canonical_url=canonical,
        tags=_tags(meta, main),
    )


def _plain(description: str) -> str:
    """``description`` without its tags where it is HTML, else as it is."""
    if "</" not in description or not _STARTS_WITH_TAG.match(description):
        return description
    return " ".join(_TAG.sub("", _BLOCK_TAG.sub(" ", description)).split())


def _meta_index(markup: PageMarkup) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for key, content in markup.meta:
        index.setdefault(key, []).append(content)
    return index


def _first(meta: dict[str, list[str]], names: Iterable[str]) -> str:
    return next((meta[name][0] for name in names if name in meta), "")


def _named_like(meta: dict[str, list[str]], word: str) -> list[str]:
    """The <meta> names that contain ``word`` (a CMS's own "w-published-date"), in page order."""
    return [name for name in meta if word in name]


def _first_day(meta: dict[str, list[str]], names: Iterable[str]) -> str | None:
    return next((d for d in (iso_day(meta[name][0]) for name in names if name in meta) if d), None)


def _earliest_dated(meta: dict[str, list[str]], names: Iterable[str]) -> str:
    """The value of ``names`` that holds the earliest day, as written (the first of those on that day).

    Where two names disagree ("published-time" 2026, "published-date" 2021), the later is a re-publication.
    """
    dated = [(day, v) for v in (meta[name][0] for name in names if name in meta) if (day := iso_day(v))]
    return min(dated, key=lambda pair: pair[0])[1] if dated else ""


def _ld_text(node: dict[str, Any], *keys: str) -> str:
    return next((t for t in (text_of(node.get(key)) for key in keys) if t), "")


def _modified(document: Document, meta: dict[str, list[str]], main: dict[str, Any]) -> str | None:
    """The last update's day: JSON-LD's, the head's ``<meta>``, else body microdata's."""
    return (
        iso_day(_ld_text(main, "dateModified"))
        or _first_day(meta, MODIFIED_META)
        or next((d for d in (iso_day(v) for k, v in document.markup.item_dates if k == "datemodified") if d), None)
    )


def _published(
    document: Document,
    meta: dict[str, list[str]],
    main: dict[str, Any],
    seen: Visible,
    *,
    url: str | None,
    modified: str | None,
) -> str | None:
    """The publication day (see :mod:`service.metadata.published`) from the page's date clues."""
    declared, source, in_head = _declared(document, meta, main)
    headline = document.markup.headings[0] if document.markup.headings else ""
    clues = DateClues(declared, source, modified, document.markup.times, url, headline, head_declares=bool(in_head))
    return published_day(clues, seen)


def _declared(document: Document, meta: dict[str, list[str]], main: dict[str, Any]) -> tuple[str, str, str]:
    """The declared publication as written ("" where none), where it came from, and the head's own declaration."""
    in_head = _earliest_dated(meta, (*PUBLISHED_META, *_named_like(meta, "publish")))
    declared, source = _ld_text(main, "datePublished", "dateCreated", "uploadDate"), JSON_LD
    if not iso_day(declared):
        declared, source = in_head, HEAD_META
    if not declared:
        items = document.markup.item_dates
        declared, source = next((v for k, v in items if k != "datemodified" and iso_day(v)), ""), MICRODATA
    return declared, source, in_head


def declared_only(metadata: Metadata, document: Document, ld: JsonLd) -> Metadata:
    """``metadata`` with a publication day and an author only where the page's structured data declares them.

    For a page that is no published item (a product, a listing), whose dates and names are its
    reviews' and entries'. The day stays where JSON-LD, the head's ``<meta>`` or microdata declare a
    publication; the author where JSON-LD or ``<meta>`` name it, else their names replace it.
    """
    meta, main = _meta_index(document.markup), ld.main() or {}
    declared, _, _ = _declared(document, meta, main)
    structured = _head_authors(meta, ld, main)
    return replace(
        metadata,
        date_published=metadata.date_published if iso_day(declared) else None,
        author=metadata.author if set(metadata.author) <= set(structured) else structured,
    )


def _author(
    document: Document,
    meta: dict[str, list[str]],
    ld: JsonLd,
    main: dict[str, Any],
    *,
    seen: Visible,
    text: str,
    dated: bool,
) -> tuple[str, ...]:
    """The author(s) the page shows, from the most trusted source that agrees with the page's ``text``.

    JSON-LD's and <meta>'s names where the page shows them, else a "By" line,
    else, on a ``dated`` page, microdata, else an element named for the author
    (these two scan the whole tree: an undated page is rarely signed, and the
    scans cost a fifth of the metadata pass), else the structured names the
    page does not show.
    """
    structured = _head_authors(meta, ld, main)
    shown = tuple(name for name in structured if name in text)
    if shown:
        return shown
    if seen.names:
        return seen.names[:1]
    if not dated:
        return structured
    return (
        _names(document.author_marks.microdata)
        or _names(_byline_names(document.author_marks.bylines), first_only=True)
        or structured
        or _names(text_of(ld.resolve(v)) for v in _as_list(main.get("author")))  # an organization, at last
    )


def _head_authors(meta: dict[str, list[str]], ld: JsonLd, main: dict[str, Any]) -> tuple[str, ...]:
    """JSON-LD's author person(s), else <meta> author names, else the Twitter card's "Written by"."""
    found = _names(_ld_authors(ld, main))
    if found:
        return found
    for name in AUTHOR_META:
        found = _names(meta.get(name, ()))
        if found:
            return found
    if meta.get("twitter:label1", [""])[0].lower() in {"written by", "author", "by"}:
        return _names(meta.get("twitter:data1", ()))
    return ()


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value] if value else []


def _ld_authors(ld: JsonLd, main: dict[str, Any]) -> list[str]:
    """The main node's author, else its main entity's (a QAPage's Question), else the first ranked node's.

    Organizations are left out: a publisher named as author is rarely the byline the page shows.
    """
    entity = ld.resolve(main.get("mainEntity"))
    value = (
        main.get("author")
        or main.get("creator")
        or (entity.get("author") if isinstance(entity, dict) else None)
        or next((node.get("author") for node in ld.ranked() if node.get("author")), None)
    )
    values = [ld.resolve(v) for v in (value if isinstance(value, list) else [value]) if v]
    return [text_of(v) for v in values if not (isinstance(v, dict) and node_types(v) & ORGANIZATION_TYPES)]


def _names(candidates: Iterable[str], *, first_only: bool = False) -> tuple[str, ...]:
    """Plausible person or team names from ``candidates``, cleaned and without repeats."""
    out: list[str] = []
    for candidate in candidates:
        name = _BY.sub("", " ".join(repaired_text(candidate).split())).strip(" ,|·-–—")
        if len(name) > 1 and len(name.split()) <= MAX_AUTHOR_WORDS and not NOT_A_NAME.search(name) and name not in out:
            out.append(name)
            if first_only:
                break
    return tuple(out)


def _byline_names(bylines: Iterable[str]) -> Iterable[str]:
    """Each byline's name: its first line where that reads as a person's name and more lines follow, else its text.

    The lines after a name are a role or a date: "Harry Rabinowitz" over "Tech Reporter" read as one
    text "Harry RabinowitzTech Reporter". A line that is only "By" is passed over; a byline of one line, or of more than
    :data:`MAX_BYLINE_WORDS`, is read as before.
    """
    for byline in bylines:
        lines = [line for line in byline.split("\n") if _BY.sub("", line)]
        short = len(lines) > 1 and len(byline.split()) <= MAX_BYLINE_WORDS
        name = person_name(_BY.sub("", lines[0])) if short else None
        yield name or byline.replace("\n", "")


def _site_name(meta: dict[str, list[str]], ld: JsonLd) -> str | None:
    site = _first(meta, SITE_META)
    if not site:
        node = ld.first(frozenset({"website"})) or ld.first(frozenset({"organization", "newsmediaorganization"}))
        site = text_of(node.get("name")) if node else ""
    return repaired_text(site) or None


def _language(lang: str, meta: dict[str, list[str]], main: dict[str, Any]) -> str | None:
    for candidate in (lang, _first(meta, LANGUAGE_META), _ld_text(main, "inLanguage")):
        tag = candidate.strip().split(",")[0].strip()
        if _BCP47.match(tag):
            parts = tag.replace("_", "-").split("-")
            return "-".join([parts[0].lower(), *map(_subtag_case, parts[1:])])
    return None


def _subtag_case(subtag: str) -> str:
    """BCP 47's conventional case of a subtag after the language: a region upper, a script title ("zh-Hans-CN")."""
    if len(subtag) == 2 or (len(subtag) == 3 and subtag.isdigit()):
        return subtag.upper()
    if len(subtag) == 4 and subtag.isalpha():
        return subtag.title()
    return subtag.lower()


def _ld_image(ld: JsonLd, main: dict[str, Any]) -> str:
    image = ld.resolve(main.get("image") or main.get("thumbnailUrl") or "")
    if isinstance(image, list):
        image = ld.resolve(image[0]) if image else ""
    if isinstance(image, dict):
        return text_of(image.get("url") or image.get("contentUrl") or "")
    return text_of(image)


def _canonical(markup: PageMarkup, meta: dict[str, list[str]], base: str) -> str | None:
    href = next((h for rel, h in markup.links if "canonical" in rel.split()), "") or _first(meta, ("og:url",))
    return _absolute(href, base)


def without_impossible_dates(metadata: Metadata) -> Metadata:
    """``metadata`` without a date after tomorrow, nor a ``date_modified`` before its ``date_published``.

    No page was published or changed after today (a meta's 2099-01-01, an event's "until June 30, 2099"
    on an undated page); and a page is not changed before it is published: the earlier one is a
    template's stale value (11 dev pages; where their gold has a publication date, ours is it). Applied
    after the page type is read, whose model was fitted on the dates as the rules read them.
    """
    published = None if after_tomorrow(metadata.date_published) else metadata.date_published
    modified = None if after_tomorrow(metadata.date_modified) else metadata.date_modified
    if modified and published and modified < published:
        modified = None
    if (published, modified) == (metadata.date_published, metadata.date_modified):
        return metadata
    return replace(metadata, date_published=published, date_modified=modified)


def _absolute(href: str, base: str | None) -> str | None:
    """``href`` resolved against ``base``; None where it is no http(s) URL with a host.

    Also None for one urllib cannot read ("http://["), and for one as long as a value may be
    (:data:`MAX_TEXT_CHARS`): it may have been cut there, and half a URL is worse than none.
    """
    if not href or len(href) >= MAX_TEXT_CHARS:
        return None
    try:
        resolved = urljoin(base, href) if base and not href.startswith(("https://", "http://")) else href
    except ValueError:  # an unclosed IPv6 bracket, a bad port: a page's typo must not fail its extraction
        return None
    resolved = _EXTRA_SLASHES.sub(r"\1//", resolved)  # "https:////cdn.example/a.jpg", as browsers read it
    return resolved if is_web_url(resolved) else None


def _tags(meta: dict[str, list[str]], main: dict[str, Any]) -> tuple[str, ...]:
    keywords = main.get("keywords")
    values: list[str] = []
    if isinstance(keywords, list):
        values = [text_of(k) for k in keywords]
    elif isinstance(keywords, str):
        values = keywords.split(",")
    if not values:
        name = next((n for n in TAG_META if n in meta), None)
        if name is not None:
            values = meta[name] if len(meta[name]) > 1 else meta[name][0].split(",")
    out: list[str] = []
    for value in values:
        tag = " ".join(repaired_text(value).split())
        if tag and tag not in out:
            out.append(tag)
    return tuple(out[:MAX_TAGS])
