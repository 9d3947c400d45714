"""Metadata values whole or not at all (a probe's finds)."""

from __future__ import annotations

import json

import pytest

from service.parsing.markup import MAX_TEXT_CHARS

from support.metadata_pages import metadata_of_page


def test_a_long_signed_image_url_comes_back_whole() -> None:
    image = "https://cdn.example.com/img/" + "a1B2" * 200 + ".jpg?sig=" + "f" * 64  # 900 characters
    assert metadata_of_page(f'<meta property="og:image" content="{image}">').image == image


def test_a_url_as_long_as_a_value_may_be_is_refused_not_cut() -> None:
    image = "https://cdn.example.com/" + "x" * MAX_TEXT_CHARS
    assert metadata_of_page(f'<meta property="og:image" content="{image}">').image is None
    ld = {"@type": "Article", "image": image, "headline": "A headline"}
    assert metadata_of_page(f'<script type="application/ld+json">{json.dumps(ld)}</script>').image is None


@pytest.mark.parametrize(
    ("written", "read"),
    [("http:", None), ("https:///", None), ("https:////cdn.example/a.jpg", "https://cdn.example/a.jpg")],
)
def test_an_image_url_needs_a_host_and_extra_slashes_read_as_a_browser_reads_them(
    written: str, read: str | None
) -> None:
    assert metadata_of_page(f'<meta property="og:image" content="{written}">').image == read


def test_a_keyword_list_longer_than_300_characters_keeps_its_last_tag_whole() -> None:
    tags = [f"topic number {n}" for n in range(20)]  # 289 characters and the commas
    metadata = metadata_of_page(f'<meta name="keywords" content="{", ".join(tags)}">')
    assert metadata.tags[-1] == "topic number 19"


def test_a_json_ld_value_is_no_longer_than_a_meta_value() -> None:
    ld = {"@type": "Article", "headline": "A headline", "description": "word " * 50_000}
    description = metadata_of_page(f'<script type="application/ld+json">{json.dumps(ld)}</script>').description
    assert description is not None and len(description) <= MAX_TEXT_CHARS
