"""Bytes to text as a browser reads them: WHATWG labels only, the browser's decoder, the header before <meta>."""

from __future__ import annotations

import codecs

import pytest

from service.parsing.decode import browser_codec, to_utf8

from support.pages import EXOTIC_CODECS


def text(data: bytes, charset: str | None = None) -> str:
    return to_utf8(data, charset)[0].decode("utf-8")


@pytest.mark.parametrize("name", EXOTIC_CODECS)
def test_python_codec_names_are_unknown_labels_in_meta(name: str) -> None:
    page = f'<meta charset="{name}"><p>Crème brûlée</p>'.encode()
    assert browser_codec(name) is None
    assert text(page) == page.decode("utf-8")


@pytest.mark.parametrize("name", EXOTIC_CODECS)
def test_python_codec_names_are_unknown_labels_from_the_caller(name: str) -> None:
    page = "<p>Crème brûlée</p>".encode()
    assert to_utf8(page, name) == (page, "utf-8")


@pytest.mark.parametrize(
    ("label", "page", "expected"),
    [
        # Shift_JIS is windows-31J (cp932): NEC and IBM extensions, the fullwidth tilde.
        ("shift_jis", "<p>①Ⅰ№ 日本語～</p>".encode("cp932"), "<p>①Ⅰ№ 日本語～</p>"),
        # GB2312 and GBK are gb18030: characters only GBK has, and 0x80 as the euro sign (Windows' cp936).
        ("gb2312", "<p>體鎔堃</p>".encode("gbk") + b"\x80", "<p>體鎔堃</p>€"),
        ("gbk", "<p>體鎔堃 中文</p>".encode("gbk"), "<p>體鎔堃 中文</p>"),
        # EUC-KR is windows-949: the 8,822 hangul syllables KS X 1001 lacks.
        ("euc-kr", "<p>똠방각하 쌰 햏</p>".encode("cp949"), "<p>똠방각하 쌰 햏</p>"),
        # Latin-1 labels are windows-1252: 0x80-0x9F are curly quotes, the euro, not C1 controls.
        ("iso-8859-1", b"<p>\x93quoted\x94 \x80 \x9e</p>", "<p>“quoted” € ž</p>"),
        ("l1", b"<p>\x93quoted\x94</p>", "<p>“quoted”</p>"),
        ("cp819", b"<p>\x93quoted\x94</p>", "<p>“quoted”</p>"),
        # ISO-8859-9 is windows-1254, ISO-8859-11 and TIS-620 are windows-874.
        ("iso-8859-9", b"<p>\x80 \x93\xfd\x94</p>", "<p>€ “ı”</p>"),
        ("tis-620", b"<p>\x85 \xa1</p>", "<p>… ก</p>"),
    ],
)
def test_labels_map_as_in_browsers(label: str, page: bytes, expected: str) -> None:
    assert text(page, label) == expected
    assert text(f'<meta charset="{label}">'.encode() + page).endswith(expected)


def test_labels_are_matched_as_the_encoding_standard_matches_them() -> None:
    assert browser_codec("  Shift_JIS\t") == browser_codec("windows-31j") == "cp932"
    assert browser_codec("unicode11utf8") == "utf-8"
    assert browser_codec("\u212aoi8-r") is None  # Kelvin sign: ASCII case-insensitive only
    assert browser_codec("latin-1") is None  # a Python alias, no WHATWG label
    assert browser_codec("iso-2022-kr") is None  # the "replacement" encoding: browsers show one U+FFFD


def test_the_header_wins_over_meta() -> None:
    page = '<meta charset="windows-1252"><p>café ① 日本</p>'.encode()
    assert text(page, "utf-8").endswith("<p>café ① 日本</p>")
    assert "<p>cafÃ© " in text(page, "windows-1252")  # the header is obeyed, whatever the bytes look like


def test_valid_utf8_wins_over_a_stale_meta_declaration() -> None:
    # a saved page: the HTTP header that said UTF-8 is gone, its <meta> still says ISO-8859-1
    stale = '<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"><p>your “asks” café</p>'
    assert to_utf8(stale.encode("utf-8"))[1] == "utf-8"
    assert text(stale.encode("utf-8")).endswith("<p>your “asks” café</p>")
    # the same page really in windows-1252 is not valid UTF-8: its declaration holds
    assert to_utf8(stale.encode("cp1252")) == (stale.encode("utf-8"), "cp1252")
    ascii_only = b'<meta charset="windows-1252"><p>plain</p>'
    assert to_utf8(ascii_only)[1] == "cp1252"


def test_an_unknown_header_label_leaves_meta_in_charge() -> None:
    page = '<meta charset="windows-1251"><p>Привет</p>'.encode("cp1251")
    assert to_utf8(page, "rot13")[1] == "cp1251"
    assert text(page, "rot13").endswith("<p>Привет</p>")


def test_a_bom_wins_over_the_header_and_meta() -> None:
    page = '<meta charset="windows-1251"><p>Grüße ①</p>'
    assert text(codecs.BOM_UTF8 + page.encode(), "windows-1252").endswith("<p>Grüße ①</p>")
    assert text(codecs.BOM_UTF16_LE + page.encode("utf-16-le"), "shift_jis").endswith("<p>Grüße ①</p>")
    assert text(codecs.BOM_UTF16_BE + page.encode("utf-16-be"), "utf-8").endswith("<p>Grüße ①</p>")


def test_utf16_from_the_header_is_little_endian_without_a_bom() -> None:
    assert text("<p>Grüße</p>".encode("utf-16-le"), "utf-16") == "<p>Grüße</p>"


def test_utf16_declared_in_meta_means_utf8() -> None:
    assert text('<meta charset="UTF-16"><p>café</p>'.encode()).endswith("<p>café</p>")


def test_a_meta_with_an_unknown_label_gives_way_to_the_next() -> None:
    page = '<meta charset="zlib_codec"><meta charset="koi8-r"><p>Привет</p>'.encode("koi8-r")
    assert text(page).endswith("<p>Привет</p>")


def test_utf8_passes_through_without_a_copy() -> None:
    page = '<meta charset="utf-8"><p>café</p>'.encode()
    assert to_utf8(page)[0] is page
    assert to_utf8(page, "UTF8")[0] is page
    assert to_utf8(page, "Shift_JIS")[0] is not page


def test_a_guess_never_reads_ascii_markup_as_utf16() -> None:
    # The detector says UTF-16 for this short page with one stray byte; browsers never guess UTF-16.
    assert to_utf8(b"<p>hi\xe9") == ("<p>hié".encode(), "cp1252")
