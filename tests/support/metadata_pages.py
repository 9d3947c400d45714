"""A page made of a head and a body, and the metadata the service reads off it: the metadata tests' one builder."""

from __future__ import annotations

from service.metadata.extract import extract_metadata
from service.metadata.fields import Metadata
from service.parsing.lexbor import parse_html

BODY = "<p>Some paragraph that is long enough to be the body of the page, with words in it.</p>"


def page(head: str = "", body: str = BODY, lang: str = "") -> str:
    lang_attribute = f' lang="{lang}"' if lang else ""
    return f"<!doctype html><html{lang_attribute}><head>{head}</head><body>{body}</body></html>"


def metadata_of_page(head: str = "", body: str = BODY, url: str | None = "https://example.com/guide") -> Metadata:
    return extract_metadata(parse_html(page(head, body)), url)
