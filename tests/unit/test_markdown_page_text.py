"""What a page holds (text, attribute values, metadata) never becomes Markdown structure, raw HTML or a script link."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from service.output.formats import RenderOptions, front_matter, render_html, render_markdown
from service.parsing.lexbor import parse_html

GFM = MarkdownIt("commonmark").enable("table")
UNCHECKED = MarkdownIt("commonmark", {"html": True})  # as renderers with no scheme filter (cmark --unsafe) read links
UNCHECKED.validateLink = lambda url: True  # type: ignore[method-assign]


def markdown(html: str, base_url: str | None = None) -> str:
    document = parse_html(html)
    return render_markdown(document, np.ones(len(document), dtype=bool), RenderOptions(base_url))


def inline_tokens(text: str, parser: MarkdownIt = GFM) -> list[Token]:
    return [child for token in parser.parse(text) if token.children for child in token.children]


@pytest.mark.parametrize(
    "href",
    [
        "javascript&amp;#58;alert(1)",  # the attribute's value is "javascript&#58;...": a relative URL to a browser
        "jav&amp;#x61;script:alert(1)",
        "javascript\\:alert(1)",
        "vbscript\\:msgbox(1)",
        "data\\:text/html,x",
    ],
)
def test_a_link_target_is_read_back_as_written_never_as_a_script(href: str) -> None:
    text = markdown(f'<p>See <a href="{href}">this</a> now.</p>')  # no base URL: the target stays relative
    targets = [token.attrs["href"] for token in inline_tokens(text, UNCHECKED) if token.type == "link_open"]
    assert len(targets) == 1
    assert not str(targets[0]).lower().startswith(("javascript:", "vbscript:", "data:"))


def test_a_backslash_in_a_link_target_is_kept() -> None:
    text = markdown('<p><a href="https://ok.example/a\\">x</a></p>')
    assert [token.attrs["href"] for token in inline_tokens(text) if token.type == "link_open"] == [
        "https://ok.example/a%5C"  # markdown-it's normalisation of the same backslash
    ]


@pytest.mark.parametrize("heading", ["We are #", "C# ##", "#", "Issue #1"])
def test_a_heading_ending_in_a_hash_keeps_it(heading: str) -> None:
    tokens = GFM.parse(markdown(f"<h2>{heading}</h2><p>Body.</p>"))
    assert tokens[0].type == "heading_open" and tokens[1].content.replace("\\#", "#") == heading
    assert GFM.renderInline(tokens[1].content) == heading


def test_page_text_of_pipes_and_dashes_is_no_table() -> None:
    # the hard break's backslash makes a third cell of the first line, as many as the second line has
    text = markdown("<p>| a | b |<br>| - | - | - |</p><p>x | y<br>--- | ---</p>")
    assert "<table>" not in GFM.render(text)
    assert "| a | b |" in GFM.render(text)


def test_a_pipe_in_a_paragraph_of_one_line_needs_no_escape() -> None:
    assert markdown("<p>Home | News | Sport</p>") == "Home | News | Sport"


def test_a_pipe_in_a_grid_cell_stays_in_its_cell_as_text_and_as_code() -> None:
    text = markdown("<table><tr><th>a|b</th><th>h</th></tr><tr><td><code>c|d</code></td><td>e</td></tr></table>")
    rendered = GFM.render(text)
    assert "<th>a|b</th>" in rendered and "<td><code>c|d</code></td>" in rendered


def test_a_table_in_a_cell_leaves_no_grid_rule_and_code_keeps_its_pipe() -> None:
    inner = "<table><tr><td>in one</td><td>in two</td></tr></table>"
    text = markdown(f"<table><tr><th>A</th><th>B</th></tr><tr><td>{inner}</td><td><code>c|d</code></td></tr></table>")
    assert "---" not in text
    assert "<code>c|d</code>" in GFM.render(text)


def test_a_break_inside_inline_code_is_a_space_not_a_backslash() -> None:
    assert "<code>a b</code>" in GFM.render(markdown("<p>Run <code>a<br>b</code> now.</p>"))


@pytest.mark.parametrize(("start", "first"), [("-3", "0"), ("1_0", "1"), ("3rd", "3"), (" +7", "7"), ("1e3", "1")])
def test_an_ordered_list_of_any_start_stays_a_list(start: str, first: str) -> None:
    tokens = GFM.parse(markdown(f'<ol start="{start}"><li>one</li><li>two</li></ol>'))
    lists = [token for token in tokens if token.type == "ordered_list_open"]
    assert len(lists) == 1 and str(lists[0].attrs.get("start", "1")) == first
    assert [token.content for token in tokens if token.type == "inline"] == ["one", "two"]


@pytest.mark.parametrize(
    ("start", "written"), [("-3", ' start="-3"'), ("1_0", ""), ("3rd", ' start="3"'), ("9" * 12, "")]
)
def test_html_reads_start_as_browsers_do(start: str, written: str) -> None:
    document = parse_html(f'<ol start="{start}"><li>one</li></ol>')
    assert f"<ol{written}>" in render_html(document, np.ones(len(document), dtype=bool), RenderOptions())


def test_a_list_numbered_past_nine_digits_stays_a_list() -> None:
    tokens = GFM.parse(markdown('<ol start="999999999"><li>one</li><li>two</li></ol>'))
    assert [token.type for token in tokens].count("list_item_open") == 2


@pytest.mark.parametrize(
    "value",
    [
        "price\x7f or \u0086 here",
        "end \ufffe and \uffff",
        "<img src=x onerror=alert(1)>",
        "a & b --- c\nd: e",
        "line\u2028separator",
    ],
)
def test_front_matter_is_yaml_that_reads_back_the_value_and_no_renderer_reads_html_in_it(value: str) -> None:
    block = front_matter({"title": value, "tags": [value, "x"]})
    assert block.startswith("---\n") and block.endswith("---\n\n")
    assert yaml.safe_load(block[4:-5]) == {"title": value, "tags": [value, "x"]}
    assert not [token for token in UNCHECKED.parse(block) if token.type.startswith("html")]
    assert not [token for token in inline_tokens(block, UNCHECKED) if token.type.startswith("html")]


@pytest.mark.parametrize(
    ("html", "rendered"),
    [
        ('<p>a<em>"quoted"</em>b</p>', "<p>a&quot;<em>quoted</em>&quot;b</p>"),
        ("<p>x<strong>(p)</strong>y</p>", "<p>x(<strong>p</strong>)y</p>"),
        ("<p><strong>Note:</strong>text</p>", "<p><strong>Note</strong>:text</p>"),
        ("<p>x<em>!!!</em>y</p>", "<p>x!!!y</p>"),  # nothing but punctuation: no emphasis to show
        ("<p><b>plain bold</b> and <i>it</i>.</p>", "<p><strong>plain bold</strong> and <em>it</em>.</p>"),
    ],
)
def test_emphasis_beside_punctuation_renders_with_no_stray_asterisks(html: str, rendered: str) -> None:
    assert GFM.render(markdown(html)).strip() == rendered
