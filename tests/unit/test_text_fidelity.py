"""The text a reader or an index gets is the text a browser shows: code keeps its indentation, words stay whole,
values stay under their headers (a probe's finds)."""

from __future__ import annotations

import numpy as np
import pytest

from service.output.formats import RenderOptions, render_html, render_markdown, render_text
from service.parsing import lexbor
from service.parsing.lexbor import parse_html
from service.parsing.walk import Walk, python_walk

WALKS = [pytest.param(python_walk, id="python")]
if lexbor.compiled_walk is not None:
    WALKS.append(pytest.param(lexbor.compiled_walk, id="compiled"))

# What Pygments writes for "def f(x):\n    if x:\n        return 1": white space in spans of its own.
HIGHLIGHTED = (
    '<pre><span class="k">def</span><span class="w"> </span><span class="nf">f</span>(x):\n'
    '<span class="w">    </span><span class="k">if</span> x:\n'
    '<span class="w">        </span><span class="k">return</span><span class="w">   </span>1\n</pre>'
)
CODE = "def f(x):\n    if x:\n        return   1"


def rendered(html: str, walk: Walk = lexbor.DEFAULT_WALK) -> tuple[str, str, str]:
    document = parse_html(html, walk=walk)
    keep, options = np.ones(len(document), dtype=bool), RenderOptions()
    return (
        render_text(document, keep, options),
        render_markdown(document, keep, options),
        render_html(document, keep, options),
    )


@pytest.mark.parametrize("walk", WALKS)
def test_highlighted_code_keeps_its_indentation_in_every_format(walk: Walk) -> None:
    text, markdown, html = rendered(HIGHLIGHTED, walk)
    assert text == CODE
    assert markdown == f"```\n{CODE}\n```"
    assert html == f"<pre>{CODE}</pre>"


@pytest.mark.parametrize("walk", WALKS)
def test_an_indent_is_the_white_space_after_the_last_line_break_and_never_leaves_the_pre(walk: Walk) -> None:
    html = "<pre><span>a</span>\n  \n\t<span>b</span><span> </span>\n<span>c</span>  </pre><p><span>d</span></p>"
    document = parse_html(html, walk=walk)
    assert document.pre_indents == {1: "\t"}  # "c" starts its line itself; "d" is outside the <pre>
    assert rendered(html, walk)[0] == "a\n\tb\nc\n\nd"


@pytest.mark.parametrize("tag", ["listing", "xmp"])
def test_listing_and_xmp_in_running_text_are_preformatted_blocks_of_their_own(tag: str) -> None:
    """Browsers show them as <pre>; read as the running text around them they lost their lines and indents."""
    text, markdown, html = rendered(f"<div>Intro <{tag}>x = 1\n    y = 2</{tag}> outro</div>")
    assert text == "Intro\n\nx = 1\n    y = 2\n\noutro"
    assert markdown == "Intro\n\n```\nx = 1\n    y = 2\n```\n\noutro"
    assert html == "<p>Intro</p>\n<pre>x = 1\n    y = 2</pre>\n<p>outro</p>"


def test_an_xmp_inside_a_pre_is_read_with_the_pre_and_its_language() -> None:
    html = '<pre class="language-yaml">\n<xmp>- sensor:\n    name: x</xmp></pre>'
    assert rendered(html)[1] == "```yaml\n- sensor:\n    name: x\n```"


def test_the_indent_changes_no_text_the_models_read() -> None:
    document = parse_html(HIGHLIGHTED)
    assert document.texts == ["def", "f", "(x):", "if", " x:", "return", "1"]


@pytest.mark.parametrize(
    ("html", "text"),
    [
        ('<p>位于<a href="/cn">中国</a>北部</p>', "位于中国北部"),
        ('<p>東京は<a href="/jp">日本</a>の首都</p>', "東京は日本の首都"),
        ('<p>ב<a href="/j">ירושלים</a> היום</p>', "בירושלים היום"),
        ('<p>Asun <a href="/h">Helsinki</a>ssä.</p>', "Asun Helsinkissä."),
        ('<p><a href="/a">中国</a><a href="/b">北京</a></p>', "中国 北京"),  # two links: a menu's items
        ('<nav><a href="/a">Home</a><a href="/b">News</a></nav>', "Home News"),
    ],
)
def test_a_link_in_running_text_is_no_word_break_but_two_links_are_two_items(html: str, text: str) -> None:
    assert rendered(html)[0] == text


def test_an_empty_cell_keeps_the_values_after_it_under_their_headers() -> None:
    html = (
        "<table><tr><th>Name</th><th>Gold</th><th>Silver</th></tr>"
        "<tr><td>Norway</td><td></td><td>3</td></tr><tr><td></td><td>1</td></tr>"
        "<tr><td>Hidden<ul><li>a list makes the table no grid</li></ul></td></tr></table>"
    )
    text, markdown, html_out = rendered(html)
    assert "Norway |  | 3" in text and "\n | 1" in text
    assert "Norway |  | 3" in markdown
    assert "<tr><td>Norway</td>\n<td></td>\n<td>3</td></tr>" in html_out
    assert "<tr><td></td>\n<td>1</td></tr>" in html_out


def test_soft_hyphens_stay_as_a_browser_copies_them() -> None:
    # innerText and a copy from the page keep U+00AD, and so does the WCXB gold ("Assis\xadtance"): taking them
    # out read one train page's words as others (F1 0.99 -> 0.58), so they stay; HTML shows them as break hints
    text, _, html = rendered("<p>An extra&shy;ordinary day.</p>")
    assert "extra\xadordinary" in text and "extra\xadordinary" in html


@pytest.mark.parametrize(
    ("html", "text", "opening"),
    [
        ("<ol start=5><li>five<li value=10>ten<li>eleven</ol>", "5. five\n10. ten\n11. eleven", '<ol start="5">'),
        ("<ol reversed><li>a<li>b<li>c</ol>", "3. a\n2. b\n1. c", "<ol reversed>"),
        ("<ol><li>a</li><div>loose</div><li>b</li></ol>", "1. a\nloose\n2. b", "<ol>"),  # only items count
    ],
)
def test_list_items_show_the_numbers_the_page_shows(html: str, text: str, opening: str) -> None:
    rendered_text, _, rendered_html = rendered(html)
    assert rendered_text == text
    assert rendered_html.startswith(opening)
    assert ('<li value="10">' in rendered_html) == ("value=10" in html)


def test_an_item_after_a_dropped_one_keeps_its_number_in_html_too() -> None:
    document = parse_html("<ol><li>a</li><li>b</li><li><nav>menu</nav></li><li>d</li></ol>")
    keep = np.array([text != "menu" for text in document.texts])
    assert render_html(document, keep, RenderOptions()) == '<ol><li>a</li>\n<li>b</li>\n<li value="4">d</li></ol>'
    assert render_text(document, keep, RenderOptions()) == "1. a\n2. b\n4. d"


def test_text_no_reader_sees_inside_a_paragraph_one_does_is_left_out_and_cuts_nothing() -> None:
    from service.backends.base import BlockLabels  # noqa: PLC0415 - the pipeline's last stage, on labels
    from service.backends.coherence import cut_paragraphs, whole_paragraphs  # noqa: PLC0415

    html = (
        '<p>By Jane Doe <span style="display:none">2019-11-13T23:06:00+01:00</span> in Vienna, '
        '<span aria-hidden="true">five minutes</span> of reading.</p>'
        "<div hidden><p>A closed tab, hidden whole: the backend decides it.</p></div>"
    )
    document = parse_html(html)
    kept = whole_paragraphs(document, BlockLabels(np.ones(len(document), np.float32), np.ones(len(document), bool)))
    text = render_text(document, kept.labels, RenderOptions())
    assert "2019" not in text and "five minutes" in text  # aria-hidden text is on the screen
    assert "A closed tab" in text
    assert cut_paragraphs(document, kept.labels) == 0


HIDDEN_INSIDE_A_WORD = [
    ('Hel<span style="display:none">xx</span>lo world', "Hello world"),  # anti-scraping junk inside a word
    ("Hel<span hidden>xx</span><span hidden>yy</span>lo world", "Hello world"),
    ("Hel <span hidden>xx</span>lo world", "Hel lo world"),  # the page's own space stays
    ("Hel<span hidden>xx</span> lo world", "Hel lo world"),
    ("Line one<br><span hidden>xx</span>line two", "Line one\nline two"),  # and its line break
]


@pytest.mark.parametrize(("inner", "shown"), HIDDEN_INSIDE_A_WORD)
@pytest.mark.parametrize("output", ["text", "markdown", "html"])
def test_text_no_reader_sees_leaves_its_neighbours_as_the_page_shows_them(inner: str, shown: str, output: str) -> None:
    from service.backends.registry import BackendRegistry  # noqa: PLC0415
    from service.options import Options  # noqa: PLC0415
    from service.pipeline import Extractor  # noqa: PLC0415 - the whole pipeline: whole_paragraphs, then render

    from support.backends import KeepAllBackend  # noqa: PLC0415

    registry = BackendRegistry()
    registry.register("keep_all", KeepAllBackend)
    result = Extractor(registry, default_backend="keep_all").extract(
        f"<article><p>{inner}, and more of the sentence.</p></article>", options=Options(format=output)
    )
    expected = {"text": shown, "markdown": shown.replace("\n", "\\\n"), "html": shown.replace("\n", "<br>")}[output]
    assert expected + ", and more" in result.content


def test_a_dropped_word_a_reader_sees_still_leaves_a_space() -> None:
    document = parse_html('<p>Check out the<a href="/tv">Live tv schedule</a>for MLS</p>')  # no white space
    keep = np.array([text != "Live tv schedule" for text in document.texts])
    unseen = np.zeros(len(document), dtype=bool)
    assert render_text(document, keep, RenderOptions(unseen=unseen)) == "Check out the for MLS"
    assert render_text(document, keep, RenderOptions(unseen=~keep)) == "Check out thefor MLS"  # as if hidden
