"""Renderer tests: spacing, structure in all three formats, links, escaping, kept blocks only."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

from service.output.formats import RenderOptions, render_html, render_markdown, render_text
from service.output.tree import MAX_NESTING
from service.parsing.document import Document
from service.parsing.lexbor import parse_html

BASE = "https://example.org/base/page.html"
VOID_TAGS = frozenset({"br"})


def doc(html: str) -> Document:
    return parse_html(f"<html><body>{html}</body></html>")


def everything(document: Document) -> np.ndarray:
    return np.ones(len(document), dtype=bool)


def text(html: str) -> str:
    document = doc(html)
    return render_text(document, everything(document))


def markdown(html: str, base_url: str | None = None) -> str:
    document = doc(html)
    return render_markdown(document, everything(document), RenderOptions(base_url))


def as_html(html: str, base_url: str | None = None) -> str:
    document = doc(html)
    return render_html(document, everything(document), RenderOptions(base_url))


class _Balance(HTMLParser):
    """Records every tag, attribute and nesting error of an HTML string."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.attributes: set[str] = set()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.update(name for name, _ in attrs)
        if tag not in VOID_TAGS:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def balance(html: str) -> _Balance:
    checker = _Balance()
    checker.feed(html)
    checker.close()
    return checker


RICH_PAGE = """
<h1>Title &amp; more</h1>
<p>Intro with <a href="/a">a link</a>, <b>bold</b> and <i>italic</i>.<br>Second line.</p>
<div>loose text<p>para</p>tail</div>
<ul><li>one</li><li>two<ol><li>a</li><li><p>b</p><p>b2</p></li></ol>after</li></ul>
<blockquote><p>quoted</p><blockquote>deeper</blockquote></blockquote>
<pre><code>if a &lt; b:
    print(a)</code></pre>
<table><caption>Cap</caption><tr><th>H1</th><th>H2</th></tr><tr><td>x</td><td><ul><li>y</li></ul></td></tr></table>
<p>1 &lt; 2 &lt;script&gt;alert(1)&lt;/script&gt;</p>
"""


# -- spacing -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p>Hello <b>world</b>!</p>", "Hello world!"),
        ("<p>A <b>B</b>C</p>", "A BC"),
        ("<p>foo<i>bar</i> baz</p>", "foobar baz"),
        ("<p>a&nbsp;<b>b</b></p>", "a b"),
        ("<p>one  \n  two</p>", "one two"),
        ("<p>see <a href='/x'>link</a>!</p>", "see link!"),
    ],
)
def test_inline_spacing_follows_the_source(html: str, expected: str) -> None:
    assert text(html) == expected


def test_br_is_a_line_break_inside_a_paragraph_in_every_format() -> None:
    html = "<p>one<br>two</p><p>three</p>"
    assert text(html) == "one\ntwo\n\nthree"
    assert markdown(html) == "one\\\ntwo\n\nthree"
    assert as_html(html) == "<p>one<br>two</p>\n<p>three</p>"


def test_adjacent_links_and_case_changes_are_separate_words() -> None:
    assert text('<nav><a href="/a">Home</a><a href="/b">News</a></nav>') == "Home News"
    assert text("<p><span>Old Town</span><span>Ocean Kayak</span></p>") == "Old Town Ocean Kayak"
    assert text("<p><span>T</span>he end</p>") == "The end"  # a drop cap stays one word


def test_dropped_leaf_inside_a_paragraph_leaves_a_space() -> None:
    document = doc("<p>alpha<b>beta</b>gamma</p>")
    assert render_text(document, np.array([True, False, True])) == "alpha gamma"


# -- structure -----------------------------------------------------------------


def test_paragraphs_are_separated_by_blank_lines() -> None:
    assert text("<p>a</p><p>b</p>") == "a\n\nb"
    assert text("<div>one<p>two</p>three</div>") == "one\n\ntwo\n\nthree"


def test_headings_in_all_formats() -> None:
    html = "<h2>Title</h2><p>Body</p><h4>Sub</h4>"
    assert text(html) == "Title\n\nBody\n\nSub"
    assert markdown(html) == "## Title\n\nBody\n\n#### Sub"
    assert as_html(html) == "<h2>Title</h2>\n<p>Body</p>\n<h4>Sub</h4>"


def test_lists_in_all_formats() -> None:
    html = "<p>Before</p><ul><li>a</li><li>b</li></ul><ol><li>x</li><li>y</li></ol>"
    assert text(html) == "Before\n\n- a\n- b\n\n1. x\n2. y"
    assert markdown(html) == "Before\n\n- a\n- b\n\n1. x\n2. y"
    assert as_html(html) == "<p>Before</p>\n<ul><li>a</li>\n<li>b</li></ul>\n<ol><li>x</li>\n<li>y</li></ol>"


def test_nested_lists_stay_nested() -> None:
    html = "<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul>"
    assert text(html) == "- a\n  - b\n  - c\n- d"
    assert markdown(html) == "- a\n  - b\n  - c\n- d"
    assert as_html(html) == "<ul><li>a\n<ul><li>b</li>\n<li>c</li></ul></li>\n<li>d</li></ul>"


def test_ordered_numbers_are_the_source_positions() -> None:
    document = doc('<ol start="3"><li>a</li><li>b</li><li>c</li></ol>')
    assert render_text(document, np.array([True, False, True])) == "3. a\n5. c"
    assert text("<ol><li>a<ol><li>b</li></ol></li></ol>") == "1. a\n   1. b"


def test_tables_in_all_formats() -> None:
    html = "<table><tr><th>H1</th><th>H|2</th></tr><tr><td>a</td><td>b</td></tr></table>"
    assert text(html) == "H1 | H|2\na | b"
    assert markdown(html) == "| H1 | H\\|2 |\n|---|---|\n| a | b |"
    assert as_html(html) == "<table><tr><th>H1</th>\n<th>H|2</th></tr>\n<tr><td>a</td>\n<td>b</td></tr></table>"


def test_markdown_table_keeps_columns_of_dropped_cells() -> None:
    document = doc("<table><tr><td>a</td><td>b</td><td>c</td></tr><tr><td>d</td><td>e</td><td>f</td></tr></table>")
    keep = np.array([True, False, True, True, True, True])
    assert render_markdown(document, keep) == "| a |  | c |\n|---|---|---|\n| d | e | f |"


def test_markdown_table_with_structure_in_cells_becomes_rows_as_lines() -> None:
    html = "<table><tr><td>x</td><td><ul><li>y</li><li>z</li></ul></td></tr><tr><td>p</td><td>q</td></tr></table>"
    assert markdown(html) == "x | - y - z\n\np | q"
    assert text(html) == "x | - y - z\np | q"


def test_preformatted_text_is_kept_verbatim() -> None:
    html = "<p>Code:</p><pre>  x = 1\n    y = 2</pre>"
    assert text(html) == "Code:\n\n  x = 1\n    y = 2"
    assert markdown(html) == "Code:\n\n```\n  x = 1\n    y = 2\n```"
    assert as_html(html) == "<p>Code:</p>\n<pre>  x = 1\n    y = 2</pre>"


def test_markdown_fence_is_longer_than_backticks_inside() -> None:
    assert markdown("<pre>a ``` b</pre>") == "````\na ``` b\n````"


def test_pre_with_inline_code_keeps_code_in_html() -> None:
    assert as_html("<pre><code>if a &lt; b:\n  go()</code></pre>") == "<pre><code>if a &lt; b:\n  go()</code></pre>"


def test_blockquotes_in_all_formats() -> None:
    html = "<blockquote><p>q1</p><p>q2</p></blockquote><p>after</p>"
    assert text(html) == "q1\n\nq2\n\nafter"
    assert markdown(html) == "> q1\n>\n> q2\n\nafter"
    assert as_html(html) == "<blockquote><p>q1</p>\n<p>q2</p></blockquote>\n<p>after</p>"


def test_inline_styles_in_markup_formats() -> None:
    html = "<p>a <strong>b</strong> <em>c</em> <code>d*e</code></p>"
    assert markdown(html) == "a **b** *c* `d*e`"
    assert as_html(html) == "<p>a <strong>b</strong> <em>c</em> <code>d*e</code></p>"


# -- links ----------------------------------------------------------------------


def test_links_resolve_against_base_url() -> None:
    html = '<p>See <a href="/docs/x?a=1&amp;b=2">docs</a> and <a href="y.html">y</a>.</p>'
    assert as_html(html, BASE) == (
        '<p>See <a href="https://example.org/docs/x?a=1&amp;b=2">docs</a> and '
        '<a href="https://example.org/base/y.html">y</a>.</p>'
    )
    assert markdown(html, BASE) == (
        "See [docs](https://example.org/docs/x?a=1&b=2) and [y](https://example.org/base/y.html)."
    )


def test_links_stay_as_written_without_base_url() -> None:
    assert as_html('<p><a href="y.html">y</a></p>') == '<p><a href="y.html">y</a></p>'


@pytest.mark.parametrize("href", ["javascript:alert(1)", " JavaScript:void(0)", "java\tscript:x()", "vbscript:x"])
def test_script_links_are_dropped_but_their_text_kept(href: str) -> None:
    html = f'<p>Click <a href="{href}">here</a></p>'
    assert as_html(html, BASE) == "<p>Click here</p>"
    assert markdown(html, BASE) == "Click here"


def test_link_around_styled_text() -> None:
    assert as_html('<p><a href="/x">go <b>now</b></a></p>') == '<p><a href="/x">go <strong>now</strong></a></p>'
    assert markdown('<p><a href="/x">go <b>now</b></a></p>') == "[go **now**](/x)"


def test_markdown_link_targets_are_encoded_and_never_images() -> None:
    assert markdown('<p><a href="/a b(c)">x</a></p>') == "[x](/a%20b%28c%29)"
    assert markdown('<p>Wow!<a href="/x">y</a></p>') == "Wow\\![y](/x)"


def test_href_quotes_are_escaped() -> None:
    rendered = as_html("<p><a href='/x\"onclick=\"evil()'>y</a></p>")
    assert rendered == '<p><a href="/x&quot;onclick=&quot;evil()">y</a></p>'
    assert balance(rendered).attributes == {"href"}


# -- escaping -------------------------------------------------------------------


def test_html_escapes_text() -> None:
    rendered = as_html("<p>1 &lt; 2 &amp;&amp; &lt;script&gt;alert(1)&lt;/script&gt;</p>")
    assert rendered == "<p>1 &lt; 2 &amp;&amp; &lt;script&gt;alert(1)&lt;/script&gt;</p>"
    assert "<script>" not in rendered


def test_markdown_escapes_special_characters() -> None:
    assert markdown("<p>*not bold* and _x_ [y] &lt;b&gt; \\ `t` &amp;amp;</p>") == (
        "\\*not bold\\* and \\_x\\_ \\[y\\] \\<b> \\\\ \\`t\\` \\&amp;"
    )


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p># not a heading</p>", "\\# not a heading"),
        ("<p>1. not a list</p>", "1\\. not a list"),
        ("<p>- not an item</p>", "\\- not an item"),
        ("<p>&gt; not a quote</p>", "\\> not a quote"),
        ("<p>2024 was a year</p>", "2024 was a year"),
    ],
)
def test_markdown_escapes_line_starts(html: str, expected: str) -> None:
    assert markdown(html) == expected


# -- kept blocks only, empty input, shape -------------------------------------------


def test_only_kept_blocks_appear() -> None:
    document = doc("<h1>Keep me</h1><p>drop this secret</p><ul><li>also kept</li><li>hidden item</li></ul>")
    keep = np.array([True, False, True, False])
    for rendered in (
        render_text(document, keep),
        render_html(document, keep, RenderOptions(BASE)),
        render_markdown(document, keep, RenderOptions(BASE)),
    ):
        assert "secret" not in rendered
        assert "hidden" not in rendered
        assert "Keep me" in rendered
        assert "also kept" in rendered
    assert render_text(document, keep) == "Keep me\n\n- also kept"


def test_empty_keep_renders_empty_strings() -> None:
    document = doc(RICH_PAGE)
    nothing = np.zeros(len(document), dtype=bool)
    assert render_text(document, nothing) == ""
    assert render_html(document, nothing, RenderOptions(BASE)) == ""
    assert render_markdown(document, nothing, RenderOptions(BASE)) == ""
    empty = parse_html("")
    assert render_text(empty, np.zeros(0, dtype=bool)) == ""


def test_keep_of_the_wrong_length_is_an_error() -> None:
    document = doc("<p>a</p><p>b</p>")
    with pytest.raises(ValueError, match="blocks"):
        render_text(document, np.ones(3, dtype=bool))


# -- whole-output properties -----------------------------------------------------------


def test_html_is_well_formed_and_only_has_href_and_list_number_attributes() -> None:
    document = doc(RICH_PAGE)
    rng = np.random.default_rng(7)
    for keep in (everything(document), *(rng.random(len(document)) < 0.5 for _ in range(20))):
        checker = balance(render_html(document, keep, RenderOptions(BASE)))
        assert checker.errors == []
        assert checker.stack == []
        assert checker.attributes <= {"href", "start", "value"}  # an item's number where items were dropped
    tags = set(balance(render_html(document, everything(document), RenderOptions(BASE))).tags)
    expected = {"h1", "p", "a", "strong", "em", "br", "ul", "ol", "li", "blockquote", "pre", "code"}
    assert expected | {"table", "caption", "tr", "th", "td"} <= tags


def test_rich_page_text_layout() -> None:
    assert text(RICH_PAGE) == (
        "Title & more\n\n"
        "Intro with a link, bold and italic.\nSecond line.\n\n"
        "loose text\n\npara\n\ntail\n\n"
        "- one\n- two\n  1. a\n  2. b\n     b2\n  after\n\n"
        "quoted\n\ndeeper\n\n"
        "if a < b:\n    print(a)\n\n"
        "Cap\n\nH1 | H2\nx | - y\n\n"
        "1 < 2 <script>alert(1)</script>"
    )


def test_text_never_has_three_newlines_or_outer_white_space() -> None:
    rendered = text("<pre>\n\n  a\n\n\n\nb  \n</pre><p>c</p><pre>d\n\n\n</pre>")
    assert "\n\n\n" not in rendered
    assert rendered == rendered.strip()
    assert rendered == "a\n\nb\n\nc\n\nd"


def test_deep_nesting_is_flattened_not_recursed() -> None:
    depth = MAX_NESTING * 4
    html = "<blockquote>" * depth + "deep" + "</blockquote>" * depth
    checker = balance(as_html(html))
    assert checker.errors == []
    assert checker.tags.count("blockquote") == MAX_NESTING
    assert text(html) == "deep"
    assert markdown(html) == "> " * MAX_NESTING + "deep"
