"""Dates as pages of other languages write them, and dates no page can have been published on (a probe's finds)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from service.metadata.dates import iso_day, url_day
from service.metadata.reader import MetadataReader, load_metadata_reader
from service.models.store import ModelStore
from service.parsing.lexbor import parse_html
from service.settings import Settings

from support.metadata_pages import BODY, metadata_of_page, page


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("6. Mai 2024", "2024-05-06"),
        ("3. März 2021", "2021-03-03"),
        ("12 juillet 2023", "2023-07-12"),
        ("1er août 2022", "2022-08-01"),
        ("6 de mayo de 2024", "2024-05-06"),
        ("15 settembre 2020", "2020-09-15"),
        ("2 de outubro de 2019", "2019-10-02"),
        ("7 maart 2018", "2018-03-07"),
        ("2024年5月6日", "2024-05-06"),
        ("2024년 5월 6일", "2024-05-06"),
        ("September 4, 2025", "2025-09-04"),
        ("4 Sept. 2025", "2025-09-04"),
    ],
)
def test_a_date_in_another_language_is_read_as_its_day(text: str, day: str) -> None:
    assert iso_day(text) == day  # "6. Mai 2024" was 2024-06-01, "2024年5月6日" 1990-05-06


def test_the_free_text_parser_never_fills_in_a_year_the_text_does_not_hold() -> None:
    assert iso_day("12.2024 (6)") is None  # dateutil reads 1990-12-06: its default year, the 2024 taken for a time


@pytest.mark.parametrize("typed", [False, True])
def test_no_date_after_tomorrow_is_returned(typed: bool) -> None:
    reader = load_metadata_reader(ModelStore(Settings().model_store_dir)) if typed else MetadataReader()
    tomorrow, later = date.today() + timedelta(days=1), date.today() + timedelta(days=2)

    def published(head: str = "", body: str = BODY) -> str | None:
        return reader.read(parse_html(page(head, body))).date_published

    meta = '<meta property="article:published_time" content="{}T10:00:00Z">'
    assert published(meta.format(tomorrow.isoformat())) == tomorrow.isoformat()  # a time zone ahead
    assert published(meta.format(later.isoformat())) is None
    assert published(meta.format("2099-01-01")) is None
    assert published(body=f"<p>The contract runs until June 30, 2099.</p>{BODY}") is None
    # read as the page writes it, for the page-type model's inputs, which were fitted so
    assert iso_day("2099-01-01") == "2099-01-01" and url_day("https://example.com/2099/01/01/a") == "2099-01-01"


def test_a_lede_date_gives_way_to_the_declared_day_the_url_confirms() -> None:
    head = '<script type="application/ld+json">{"@type": "NewsArticle", "datePublished": "2024-05-06T09:00:00-04:00"}'
    head += "</script>"
    body = (
        "<h1>New rules for the city's parks</h1><p>By Jane Doe | 2 hours ago</p>"
        "<p>Starting Jan. 1, 2025, residents will need a permit for gatherings.</p>" + BODY
    )
    url = "https://example.com/news/2024/05/06/parks"
    assert metadata_of_page(head, body, url).date_published == "2024-05-06"
    # without the URL's word on it, the date under the headline is still taken for the byline's
    assert metadata_of_page(head, body, "https://example.com/news/parks").date_published == "2025-01-01"


@pytest.mark.parametrize("typed", [False, True])
def test_a_modification_before_the_publication_is_left_out(typed: bool) -> None:
    reader = load_metadata_reader(ModelStore(Settings().model_store_dir)) if typed else MetadataReader()
    head = '<meta property="article:published_time" content="2024-05-06T10:00:00Z">'
    stale = reader.read(parse_html(page(head + '<meta property="article:modified_time" content="2019-01-01">')))
    assert (stale.date_published, stale.date_modified) == ("2024-05-06", None)
    later = reader.read(parse_html(page(head + '<meta property="article:modified_time" content="2024-06-01">')))
    assert later.date_modified == "2024-06-01"
    # the page-type model reads the declared value, as it was fitted on it
    assert metadata_of_page(head + '<meta property="article:modified_time" content="2019-01-01">').date_modified
