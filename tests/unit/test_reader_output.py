"""Output a reader accepts: Markdown that parses (markdown-it-py, CommonMark + tables) to the intended structure,
HTML that is safe to embed, images with their real (lazy-loaded) URLs, and <ol start> kept."""

from __future__ import annotations

import re

import numpy as np
import pytest
from markdown_it import MarkdownIt

from service.output.formats import RenderOptions, render_html, render_markdown
from service.parsing.lexbor import parse_html

BASE = "https://example.org/news/a"
COMMONMARK = MarkdownIt("commonmark").enable("table")


def markdown(html: str, **options: object) -> str:
    document = parse_html(html)
    return render_markdown(document, np.ones(len(document), dtype=bool), RenderOptions(BASE, **options))  # type: ignore[arg-type]


def as_html(html: str, **options: object) -> str:
    document = parse_html(html)
    return render_html(document, np.ones(len(document), dtype=bool), RenderOptions(BASE, **options))  # type: ignore[arg-type]


def structure(text: str) -> list[str]:
    """The block tokens markdown-it reads, opening and closing, with their nesting."""
    return [token.type for token in COMMONMARK.parse(text) if token.block and token.type != "inline"]


def test_a_paragraph_inside_a_list_item_stays_inside_it() -> None:
    tokens = structure(markdown("<ul><li><p>First para</p><p>Second para of the same item</p></li><li>Next</li></ul>"))
    first_item = tokens[tokens.index("list_item_open") : tokens.index("list_item_close") + 1]
    assert first_item.count("paragraph_open") == 2


def test_text_between_items_is_not_read_as_the_previous_item() -> None:
    text = markdown("<ol start='2'><li><p>Item two</p></li><p>Loose note</p><li>Item three</li></ol>")
    tokens = COMMONMARK.parse(text)
    items = [t for t in tokens if t.type == "list_item_open"]
    assert len(items) == 2
    loose = next(i for i, t in enumerate(tokens) if t.type == "inline" and t.content == "Loose note")
    assert tokens[loose - 1].level == 0  # a paragraph of its own, outside both items


def test_a_heading_never_becomes_a_bullet() -> None:
    text = markdown("<h2>- not a bullet</h2><p>+ nor this</p><p>1. nor a number</p>")
    tokens = structure(text)
    assert "bullet_list_open" not in tokens and "ordered_list_open" not in tokens
    assert tokens[0] == "heading_open"


def test_tables_keep_their_header_row() -> None:
    tokens = COMMONMARK.parse(
        markdown("<table><tr><th>Route</th><th>Since</th></tr><tr><td>Vienna</td><td>2021</td></tr></table>")
    )
    types = [t.type for t in tokens]
    assert "thead_open" in types and "tbody_open" in types
    header = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "th_open"]
    assert header == ["Route", "Since"]


def test_code_blocks_keep_their_language_class() -> None:
    text = markdown('<pre><code class="language-python">print("hi")\nx = 1</code></pre>')
    fences = [t for t in COMMONMARK.parse(text) if t.type == "fence"]
    assert [(f.info, f.content) for f in fences] == [("python", 'print("hi")\nx = 1\n')]
    html = as_html('<pre class="lang-js">let a = 1;</pre><pre>plain</pre>')
    assert html == '<pre><code class="language-js">let a = 1;</code></pre>\n<pre>plain</pre>'
    assert markdown("<p>Before</p><p>~~~ not a fence</p>") == "Before\n\n\\~~~ not a fence"


def test_block_quotes_and_figure_captions_stay_attached() -> None:
    text = markdown("<blockquote><p>Quoted one</p><p>Quoted two</p></blockquote><p>After</p>")
    tokens = structure(text)
    inside = tokens[tokens.index("blockquote_open") : tokens.index("blockquote_close")]
    assert inside.count("paragraph_open") == 2
    figure = markdown(
        '<figure><img src="/a.jpg" alt="A train"><figcaption>The night train</figcaption></figure>', images=True
    )
    assert figure == "![A train](https://example.org/a.jpg)\n\nThe night train"


def test_ol_start_is_kept_in_html_and_markdown() -> None:
    assert as_html('<ol start="3"><li>c</li><li>d</li></ol>') == '<ol start="3"><li>c</li>\n<li>d</li></ol>'
    assert structure(markdown('<ol start="3"><li>c</li></ol>'))[0] == "ordered_list_open"
    assert COMMONMARK.parse(markdown('<ol start="3"><li>c</li></ol>'))[0].attrs.get("start") == 3


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        ('src="data:image/gif;base64,R0lGOD" data-src="/img/real.jpg"', "https://example.org/img/real.jpg"),
        ('src="/blank.gif" data-original="big.jpg"', "https://example.org/news/big.jpg"),
        ('srcset="/s.jpg 320w, /l.jpg 1024w, /m.jpg 640w"', "https://example.org/l.jpg"),
        ('data-srcset="/a1.jpg 1x, /a2.jpg 2x"', "https://example.org/a2.jpg"),
        ('src="javascript:alert(1)"', None),
    ],
)
def test_lazy_images_are_resolved_to_absolute_urls(attributes: str, expected: str | None) -> None:
    page = f"<p>Before the image, some text.</p><img {attributes} alt='Pic'><p>After the image, more text.</p>"
    html, text = as_html(page, images=True), markdown(page, images=True)
    if expected is None:
        assert "<img" not in html and "![" not in text
    else:
        assert f'<img src="{expected}" alt="Pic">' in html
        assert f"![Pic]({expected})" in text
    assert "<img" not in as_html(page) and "![" not in markdown(page)  # only when asked for


def test_a_picture_source_and_a_noscript_copy() -> None:
    page = (
        "<p>Text before.</p><picture><source srcset='/p-800.webp 800w, /p-1600.webp 1600w'><img alt='P'></picture>"
        "<img data-src='/lazy.jpg' alt='L'><noscript><img src='/lazy.jpg' alt='L'></noscript><p>Text after.</p>"
    )
    html = as_html(page, images=True)
    assert '<img src="https://example.org/p-1600.webp" alt="P">' in html
    assert html.count("lazy.jpg") == 1


HOSTILE = """<html><body onload="steal()"><article>
<p onclick="steal()" style="background:url(javascript:steal())">Read <a href="javascript:steal()">this</a>,
<a href=" JaVaScRiPt:steal()">that</a>, <a href="java&#x09;script:steal()">tab</a>,
<a href="data:text/html,<script>steal()</script>">data</a> and <a href="/ok" onmouseover="steal()">ok</a>.</p>
<script>steal()</script><img src=x onerror="steal()"><iframe src="javascript:steal()"></iframe>
<p>&lt;script&gt;alert(1)&lt;/script&gt; written as text <svg onload="steal()"><text>svg</text></svg></p>
<img src="/pic.jpg" alt='"><script>steal()</script>' onerror="steal()">
</article></body></html>"""


def test_html_output_is_safe_to_embed() -> None:
    for options in ({}, {"images": True}):
        html = as_html(HOSTILE, **options)
        assert "<script" not in html.lower() and "<iframe" not in html.lower() and "<svg" not in html.lower()
        assert not re.search(r"\son\w+\s*=", html, re.I), html
        assert "javascript:" not in html.lower() and "data:" not in html.lower()
        assert '<a href="https://example.org/ok">ok</a>' in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    markdown_text = markdown(HOSTILE, images=True)
    assert "javascript:" not in markdown_text.lower() and "(data:" not in markdown_text.lower()
