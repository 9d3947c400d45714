"""The page check's blank-page rule: nothing but ASCII white space, as bytes or text, and nothing else counts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.errors import EmptyPage, NotHtml
from service.parsing.page_check import check_page

ASCII_WHITESPACE = " \t\n\r\f\v"
# other white space (no-break, ideographic, line separator) is text, as is a NUL or a letter
TEXTS = st.text(alphabet=ASCII_WHITESPACE + "\xa0\u3000\u2028\x00x", max_size=40)


def _is_empty(page: str | bytes) -> bool:
    try:
        check_page(page)
    except EmptyPage:
        return True
    except NotHtml:  # a page of control characters: not blank, refused as binary
        return False
    return False


@given(TEXTS)
def test_a_page_is_empty_exactly_where_only_ascii_white_space_is_left_by_a_strip(text: str) -> None:
    blank = not text.strip(ASCII_WHITESPACE)
    assert _is_empty(text) is blank
    assert _is_empty(text.encode("utf-8")) is blank


@pytest.mark.parametrize("page", ["", b"", " \t\n\r\f\v", b"\r\n" * 1000])
def test_blank_pages_are_empty(page: str | bytes) -> None:
    with pytest.raises(EmptyPage):
        check_page(page)


def test_one_character_after_a_long_run_of_white_space_is_a_page() -> None:
    check_page(b" " * 1_000_000 + b"<p>x</p>")
    check_page("\n" * 1_000_000 + "x")


@pytest.mark.parametrize("codec", ["utf-8-sig", "utf-16", "utf-16-be"])  # the marks browsers read
@pytest.mark.parametrize("blank", ["", "  \n\t", " " * 5000])
def test_a_byte_order_mark_and_white_space_is_empty(codec: str, blank: str) -> None:
    """The mark is no content, whatever codec it names (UTF-16's white space is not ASCII white space bytes)."""
    page = blank.encode(codec)
    if codec == "utf-16-be":
        page = b"\xfe\xff" + page
    with pytest.raises(EmptyPage):
        check_page(page)
    check_page((blank + "<p>x</p>").encode(codec) if codec != "utf-16-be" else b"\xfe\xff" + "<p>x".encode(codec))


def test_a_text_page_that_is_a_byte_order_mark_is_empty() -> None:
    with pytest.raises(EmptyPage):
        check_page("\ufeff \n")
    check_page("\ufeff<p>x</p>")
