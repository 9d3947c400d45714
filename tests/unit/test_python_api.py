"""``service.extract``, the Python API: what it takes, and what it raises for what is no page or no argument."""

from __future__ import annotations

import gzip

import pytest

from service import extract
from service.errors import EmptyPage, InvalidOption, NotHtml
from service.options import Options

PAGE = b"<article><p>" + b"A sentence of a story that is long enough to be kept. " * 20 + b"</p></article>"


def test_any_bytes_like_page_is_read_as_its_bytes() -> None:
    text = extract(PAGE, backend="boilerpipe").text
    assert text and extract(bytearray(PAGE), backend="boilerpipe").text == text
    assert extract(memoryview(PAGE), backend="boilerpipe").text == text


@pytest.mark.parametrize(
    ("page", "raised"),
    [(b"", EmptyPage), ("  \n", EmptyPage), (b"\xef\xbb\xbf ", EmptyPage), (b"\0" * 5000, NotHtml)],
)
def test_what_is_no_page_raises_what_the_http_api_answers(page: str | bytes, raised: type[Exception]) -> None:
    with pytest.raises(raised):
        extract(page, backend="boilerpipe")


def test_gzip_bytes_are_no_page() -> None:
    """The CLI and the API read gzip as such (its magic number, Content-Encoding); extract() takes the page itself."""
    with pytest.raises(NotHtml):
        extract(gzip.compress(PAGE), backend="boilerpipe")


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"html": None}, "html must be str or bytes, not NoneType"),
        ({"html": 42}, "html must be str or bytes, not int"),
        ({"backend": ["gbt"]}, "backend must be a str or None"),
        ({"url": b"https://example.org/"}, "url must be a str or None"),
        ({"charset": 5}, "charset must be a str or None"),
        ({"output": ["text"]}, "output must be a str or None"),
        ({"include_links": "no"}, "include_links must be True or False, not 'no'"),
        ({"include_comments": 1}, "include_comments must be True or False"),
        ({"target_selector": b"p"}, "target_selector must be a CSS selector"),
        ({"favor": 1}, "favor must be one of precision, balanced, recall"),
        ({"format": "markdown"}, "extract\\(\\) takes the format as output="),
    ],
)
def test_an_argument_of_the_wrong_type_is_a_type_error_that_names_it(arguments: dict[str, object], named: str) -> None:
    call: dict[str, object] = {"html": PAGE, "backend": "boilerpipe", **arguments}
    with pytest.raises(TypeError, match=named):
        extract(**call)  # type: ignore[arg-type]


def test_include_comments_may_be_left_to_the_page_type() -> None:
    assert Options(include_comments=None).include_comments is None


@pytest.mark.parametrize(
    ("arguments", "said"), [({"favor": "max"}, "unknown favor 'max'"), ({"url": "http://["}, "not a URL")]
)
def test_a_value_no_request_could_mean_is_refused_as_the_http_api_refuses_it(
    arguments: dict[str, object], said: str
) -> None:
    with pytest.raises(InvalidOption, match=said):
        extract(PAGE, backend="boilerpipe", **arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize("charset", ["\udcff", "\xff", "utf-8\u00a0"])
def test_a_charset_label_no_browser_knows_is_ignored_whatever_its_characters(charset: str) -> None:
    assert extract(PAGE, backend="boilerpipe", charset=charset).text == extract(PAGE, backend="boilerpipe").text
