"""URLs urllib cannot read ("http://[", an IPv6 host that is none) cost a page its link, never its extraction."""

from __future__ import annotations

import json

import numpy as np
import pytest

from service.backends.boilerpipe import BoilerpipeBackend
from service.backends.registry import BackendRegistry
from service.metadata.extract import extract_metadata
from service.metadata.jsonld import MAX_TEXT_DEPTH, parse_json_ld, text_of
from service.options import Options
from service.output.formats import RenderOptions, render_html, render_markdown
from service.parsing.lexbor import parse_html
from service.parsing.urls import joined_url, readable_url
from service.pipeline import Extractor

from support.metadata_pages import page

UNREADABLE = ["http://[", "http://]", "http://[x]/", "https://[::1/a", "//[oops"]
BASE = "https://example.org/news/story.html"
ARTICLE = "<article><h1>A day out</h1><p>" + "A sentence of the story that a reader came for. " * 8 + "</p></article>"


@pytest.mark.parametrize("url", UNREADABLE)
def test_an_unreadable_url_reads_as_none_and_joins_to_nothing(url: str) -> None:
    assert readable_url(url) is None
    assert joined_url(BASE, url) == ""
    assert joined_url(url, "/a") == ""


def test_readable_urls_join_as_urllib_joins_them() -> None:
    assert readable_url(BASE) == BASE and readable_url("") is None and readable_url(None) is None
    assert joined_url(BASE, "../x.html") == "https://example.org/x.html"
    assert joined_url(None, "../x.html") == "../x.html"


@pytest.mark.parametrize("href", UNREADABLE)
def test_a_link_that_is_no_url_keeps_its_text_unlinked(href: str) -> None:
    document = parse_html(f'<p>Read <a href="{href}">the notes</a> and <a href="/more">more</a>.</p>')
    keep, options = np.ones(len(document), dtype=bool), RenderOptions(BASE)
    assert render_markdown(document, keep, options) == "Read the notes and [more](https://example.org/more)."
    assert render_html(document, keep, options) == (
        '<p>Read the notes and <a href="https://example.org/more">more</a>.</p>'
    )


def test_an_image_source_that_is_no_url_gives_way_to_the_next() -> None:
    document = parse_html(
        '<p>Look</p><figure><img data-src="http://[" src="/pic.jpg" alt="A pic">'
        "<figcaption>The pic</figcaption></figure>"
    )
    keep = np.ones(len(document), dtype=bool)
    assert "![A pic](https://example.org/pic.jpg)" in render_markdown(document, keep, RenderOptions(BASE, images=True))


@pytest.mark.parametrize("url", UNREADABLE)
def test_a_page_url_that_is_no_url_is_read_as_none(url: str) -> None:
    html = page('<link rel="canonical" href="/canonical">', body=ARTICLE)
    assert extract_metadata(parse_html(html), url) == extract_metadata(parse_html(html), None)
    registry = BackendRegistry()
    registry.register("boilerpipe", BoilerpipeBackend)
    extractor = Extractor(registry, "boilerpipe")
    for output in ("markdown", "html"):
        got = extractor.extract(html, url=url, options=Options(format=output, include_images=True))
        without = extractor.extract(html, url=None, options=Options(format=output, include_images=True))
        assert (got.content, got.metadata) == (without.content, without.metadata)


def test_json_ld_nested_beyond_the_parser_is_passed_over() -> None:
    deep = "[" * 5000 + "]" * 5000
    scripts = [deep, json.dumps({"@type": "Article", "headline": "Still Here"})]
    assert [node["headline"] for node in parse_json_ld(scripts).nodes] == ["Still Here"]
    head = "".join(f'<script type="application/ld+json">{script}</script>' for script in scripts)
    assert extract_metadata(parse_html(page(head, body=ARTICLE)), BASE).title == "Still Here"


def test_a_name_nested_deeper_than_any_schema_is_no_text() -> None:
    name: object = "Jane Roe"
    for _ in range(MAX_TEXT_DEPTH):
        name = {"name": name}
    assert text_of(name) == "Jane Roe"
    assert text_of({"name": name}) == ""
    nested: object = "x"
    for _ in range(900):
        nested = [nested]
    assert text_of(nested) == ""
