"""The page budget: elements and distinct attribute names counted before parsing, as Lexbor would make them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from service.backends.boilerpipe import BoilerpipeBackend
from service.backends.registry import BackendRegistry
from service.errors import PageTooComplex
from service.parsing.budget import PageBudget, count_options, count_start_tags
from service.parsing.lexbor import parse_html
from service.pipeline import Extractor

from support.scans import SCANS, Scan

# Pages where a scan that ignores the tokenizer's rules would count other names than Lexbor makes.
TOKENIZER_CASES = [
    b"<div a b=1 c=\"x y\" d='>' e>x</div>",
    b'<div a="x"b="y"/c/d>',
    b"<DIV Class=a CLASS=b data-X=1>",
    b"<!-- <div z1 z2> --><p q>",
    b"<!--><div z1 z2>-->",
    b"<!---><div z1 z2>-->",
    b"<!-- a --!><p q><!-- <b c d>",
    b"<!doctype html x y><?xml a b?><p q>",
    b"<script src=x><div s1 s2></script><p q>",
    b"<SCRIPT><div s1 s2></Script ><p q>",
    b"<script><div s1 s2>",
    b"<style>a<b c d>e</style><title><b t1></title><textarea><b t2></textarea><p q>",
    b"<svg><style><div s1 s2></style></svg>",
    b"<svg></svg><style><div s1 s2></style><p q>",
    b'<div a=">" b c="<p z>" d>',
    b"</div e1 e2><p A Q>",
    b"<a href=/ title=x class=y><p title=z><a href=http://x.org/><p id=z>",  # unquoted values ending in "/"
    b"<p a=><p b><p c= ><p d>",  # an empty unquoted value ends its list
]


def lexbor_attribute_names(page: bytes) -> int:
    root = LexborHTMLParser(page).root
    assert root is not None
    return len({name for node in root.traverse() for name in node.attributes})


@pytest.mark.parametrize("scan", SCANS)
@pytest.mark.parametrize("page", TOKENIZER_CASES)
def test_attribute_names_are_counted_as_lexbor_makes_them(scan: Scan, page: bytes) -> None:
    assert scan(page) == lexbor_attribute_names(page)


@pytest.mark.parametrize("scan", SCANS)
def test_a_tag_cut_by_the_end_of_the_page_counts_though_lexbor_drops_it(scan: Scan) -> None:
    page = b"<p a='unclosed b c"
    assert scan(page) == 1 > lexbor_attribute_names(page)


@pytest.mark.parametrize("scan", SCANS)
def test_a_quote_left_open_in_a_raw_text_inside_svg_ends_with_that_text(scan: Scan) -> None:
    """Each raw text inside <svg> is scanned as markup to its own end; an open quote does not run into the next."""
    page = b"<svg><style><p a='x</style><style><p b c='></style></svg>"
    assert scan(page) == 3


@pytest.mark.timeout(30)  # read once, these take a fraction of a second; read once per space, hours
@pytest.mark.parametrize("scan", SCANS)
@pytest.mark.parametrize(
    "page",
    [
        b"<html><body>" + b"<div>" * 100_000,  # 200,000 empty attribute lists
        b"<div" + b" " * 1_000_000 + b">",
        b"<div a" + b"\n" * 1_000_000 + b"b>",
        b"<div a=" + b" " * 1_000_000 + b"b>",
        b"<p \n>" * 200_000,
        b"<!--" + b"-" * 1_000_000,
        b"<!--" + b"--!" * 300_000,
        b"<script>" + b"</scrip" * 100_000,
        b"<" * 1_000_000,
        b"</" * 500_000,
        b"<!" * 500_000,
        b"<p a='" + b"<p b=" * 100_000,  # one quote left open, to the end
        b'<p a="' + b" x" * 500_000,
        b"<b>" * 300_000 + b"</b>" * 300_000,  # deep nesting
        b"<svg>" * 100_000 + b"<style>" + b"<p a>" * 100_000,
        b"<svg>" + b"<style><p a='x</style>" * 100_000,  # many raw texts inside <svg>, each with an open quote
        b"<math><title>" + b"<!--" + b"<" * 500_000,
    ],
)
def test_long_runs_are_read_once(scan: Scan, page: bytes) -> None:
    assert scan(page) <= 2


def test_start_tags_are_counted_in_the_bytes() -> None:
    assert count_start_tags(b"<p>a<B>b</B> 1 < 2 <3 <") == 2
    assert count_start_tags(b"") == 0


@pytest.mark.parametrize(
    ("page", "refused"),
    [
        (b"<p>x" * 1001, "1001 elements, more than the 1000 allowed"),
        (b"<div " + b" ".join(b"a%d" % i for i in range(101)) + b">", "101 distinct attribute names"),
        (b"".join(b"<b a%d>" % i for i in range(101)), "101 distinct attribute names"),
        (b"<div " + b" ".join(b'a%d=">"' % i for i in range(101)) + b">", "101 distinct attribute names"),
    ],
)
def test_a_page_over_budget_is_too_complex_before_it_is_parsed(page: bytes, refused: str) -> None:
    budget = PageBudget(max_elements=1000, max_attribute_names=100)
    with pytest.raises(PageTooComplex, match=refused):
        parse_html(page, budget=budget)
    assert len(parse_html(page).elem_parent) > 1  # without a budget it parses


def test_a_less_than_sign_that_opens_no_tag_is_no_element() -> None:
    """Over the budget in "<" characters, within it in start tags: the exact count decides."""
    page = b"<p>" + b"1 < 2 " * 2000 + b"<p>x" * 999
    PageBudget(max_elements=1000).check(page)
    with pytest.raises(PageTooComplex, match="1001 elements"):
        PageBudget(max_elements=1000).check(page + b"<p>y")


def test_the_budget_is_checked_after_decoding() -> None:
    """A UTF-16 page has as many elements as its text, not as its bytes say."""
    page = ("<p>x" * 1001).encode("utf-16")
    with pytest.raises(PageTooComplex):
        parse_html(page, budget=PageBudget(max_elements=1000))


def test_the_extractor_checks_every_page() -> None:
    registry = BackendRegistry()
    registry.register("boilerpipe", BoilerpipeBackend)
    extractor = Extractor(registry, "boilerpipe", PageBudget(max_elements=1000))
    with pytest.raises(PageTooComplex):
        extractor.extract(b"<p>x" * 1001)
    assert len(extractor.extract(b"<p>x" * 999).document) == 999


def test_a_select_of_many_options_is_too_complex_before_it_is_parsed() -> None:
    """Lexbor spends the square of a <select>'s options building it: counted in any case, before the parse."""
    budget = PageBudget(max_elements=10_000, max_options=1000)
    options = b"<select>" + b"<option value=1>x</option>" * 500 + b"<OPTION>y" * 500
    budget.check(options + b"</select>")
    with pytest.raises(PageTooComplex, match="1001 <option>s, more than the 1000 allowed"):
        parse_html(options + b"<oPtIoN>z</select>", budget=budget)


def test_other_tags_that_start_like_an_option_are_no_option() -> None:
    """Ordered lists and option groups pass the first rough count, not the exact one."""
    page = b"<ol><li>x</ol>" * 600 + b"<select><optgroup>" + b"<option>y" * 900 + b"</select>"
    PageBudget(max_elements=10_000, max_options=1000).check(page)
    with pytest.raises(PageTooComplex, match="1001 <option>s"):
        PageBudget(max_elements=10_000, max_options=1000).check(page + b"<option>" * 101)


@given(
    st.lists(st.sampled_from([b"<option", b"<OPTION>", b"<oPtIoN ", b"<optgroup", b"<ol>", b"<O", b"<", b"o", b"x"]))
)
def test_options_are_counted_as_the_lower_cased_bytes_count_them(pieces: list[bytes]) -> None:
    """The pairs of bytes at either offset, and the exact count past them, against the plain reading."""
    page = b"".join(pieces)
    assert count_options(page) == page.lower().count(b"<option")
    assert count_options(page, enough=len(page)) == page.lower().count(b"<o")
