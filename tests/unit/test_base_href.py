"""A page's ``<base href>``: its relative links, images and canonical URL resolve against it, as a browser's do."""

from __future__ import annotations

import pytest

from service.backends.registry import BackendRegistry
from service.options import Options
from service.parsing.lexbor import parse_html
from service.parsing.urls import document_base_url
from service.pipeline import Extraction, Extractor

from support.backends import KeepAllBackend

PAGE_URL = "https://example.org/news/2026/story.html"
BODY = (
    "<body><article><h1>A day out</h1><p>Read <a href='guide.html'>the guide</a> first, then the rest.</p>"
    "<figure><img src='img/map.png' alt='The map'><figcaption>The map of the day</figcaption></figure>"
    "</article></body>"
)


def page(head: str) -> str:
    return f"<html><head>{head}</head>{BODY}</html>"


@pytest.mark.parametrize(
    ("page_url", "base_href", "expected"),
    [
        (PAGE_URL, "", PAGE_URL),  # no base, or an empty one: the page's own URL
        (PAGE_URL, "/docs/", "https://example.org/docs/"),  # relative: read against the page's URL
        (PAGE_URL, "https://cdn.example/v2/", "https://cdn.example/v2/"),
        (None, "https://cdn.example/v2/", "https://cdn.example/v2/"),  # a page given without its URL
        (None, "/docs/", None),  # relative, and nothing to read it against
        (PAGE_URL, "javascript:alert(1)", PAGE_URL),  # no http(s) URL: passed over
        (PAGE_URL, "data:text/html,x", PAGE_URL),
        (PAGE_URL, "http://[", PAGE_URL),  # a typo urllib cannot read
        (None, "http://[", None),
        ("http://[", "/docs/", None),  # the caller's URL unreadable: as if none were given
    ],
)
def test_the_document_base_url(page_url: str | None, base_href: str, expected: str | None) -> None:
    assert document_base_url(page_url, base_href) == expected


def test_the_first_base_with_an_href_is_read_and_its_white_space_dropped() -> None:
    head = "<base target='_top'><base href='  https://cdn.example/v2/ '><base href='https://other.example/'>"
    assert parse_html(page(head)).markup.base_href == "https://cdn.example/v2/"
    assert parse_html(page("<base href><base href='https://other.example/'>")).markup.base_href == ""
    assert parse_html(page("<title>t</title>")).markup.base_href == ""


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    registry = BackendRegistry()
    registry.register("keep_all", KeepAllBackend)
    return Extractor(registry, default_backend="keep_all")


def extract(extractor: Extractor, html: str, url: str | None = PAGE_URL, **choices: object) -> Extraction:
    return extractor.extract(html, url=url, options=Options(**choices))  # type: ignore[arg-type]


@pytest.mark.parametrize("output", ["markdown", "html"])
def test_links_and_images_resolve_against_the_base(extractor: Extractor, output: str) -> None:
    html = page("<base href='/docs/v2/'><link rel=canonical href='story.html'>")
    result = extract(extractor, html, format=output, include_images=True)
    assert "https://example.org/docs/v2/guide.html" in result.content
    assert "https://example.org/docs/v2/img/map.png" in result.content
    assert "news/2026/guide.html" not in result.content
    assert result.metadata.canonical_url == "https://example.org/docs/v2/story.html"


def test_without_a_base_they_resolve_against_the_page_url(extractor: Extractor) -> None:
    result = extract(extractor, page("<title>t</title>"), format="markdown", include_images=True)
    assert "(https://example.org/news/2026/guide.html)" in result.content
    assert "https://example.org/news/2026/img/map.png" in result.content


def test_an_absolute_base_serves_a_page_given_without_its_url(extractor: Extractor) -> None:
    html = page("<base href='https://cdn.example/v2/'><meta property='og:image' content='lead.jpg'>")
    result = extract(extractor, html, url=None, format="markdown")
    assert "(https://cdn.example/v2/guide.html)" in result.content
    assert result.metadata.image == "https://cdn.example/v2/lead.jpg"


def test_a_script_base_is_passed_over(extractor: Extractor) -> None:
    result = extract(extractor, page("<base href='javascript:alert(1)//'>"), format="html")
    assert "https://example.org/news/2026/guide.html" in result.content
    assert "javascript" not in result.content
