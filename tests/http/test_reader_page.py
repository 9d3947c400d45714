"""The reader page in headless Chromium (Debian's package, driven by Playwright; no downloaded browser).

Skipped, saying why, where /usr/bin/chromium or the playwright package is missing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from service.backends.registry import BackendRegistry
from service.settings import Settings

from support.backends import KeepAllBackend
from support.browser import OfflineTab, sync_api
from support.live_server import RULES_DEFAULT, LiveServer
from support.pages import ARTICLE

pytestmark = pytest.mark.timeout(120)

# A page that asks for everything a real one does from elsewhere: stylesheets, fonts, images, scripts,
# frames, media, plugins, prefetches, a <base> that sends its relative URLs off, and a refresh away.
OUTSIDE = "http://example.invalid"
CDN = "https://cdn.example.com"
THIRD_PARTY = ARTICLE.replace(
    "<title>A page</title>",
    f"""<title>A page</title><base href="{OUTSIDE}/base/">
    <link rel="stylesheet" href="{CDN}/site.css"><link rel="preload" as="font" href="{CDN}/f.woff2" crossorigin>
    <link rel="prefetch" href="{OUTSIDE}/next.html"><link rel="icon" href="{OUTSIDE}/favicon.ico">
    <style>@import url("{OUTSIDE}/imported.css"); @font-face {{ font-family: F; src: url("{CDN}/f2.woff2") }}
    body {{ font-family: F; background: url("{OUTSIDE}/bg.png") }}</style>
    <script src="{CDN}/tracker.js"></script><meta http-equiv="refresh" content="0; url={OUTSIDE}/moved">""",
).replace(
    "<article>",
    f"""<article><img src="{OUTSIDE}/pixel.gif" srcset="{CDN}/a.png 2x"><img src="relative.png">
    <picture><source srcset="{CDN}/b.webp"><img src="{CDN}/b.jpg"></picture>
    <iframe src="{CDN}/ad.html"></iframe><video poster="{OUTSIDE}/poster.jpg" src="{CDN}/v.mp4"></video>
    <audio src="{CDN}/a.mp3" autoplay></audio><object data="{OUTSIDE}/x.swf"></object><embed src="{CDN}/y.swf">""",
)


# 30,000 blocks: one querySelector of a whole nth-child chain per block froze the tab for 27 s; walked down by
# child index, the frame's load takes about a second
WIDE_PAGE = (
    "<html><head><title>Wide</title></head><body>"
    + "".join(f"<div><p>Paragraph {i} of a long page, with a few words in it.</p></div>" for i in range(30_000))
    + "</body></html>"
)
LONGEST_TASK_MS = 5_000
# Deep, wide and irregular: implicit <tbody>s, text the parser moves out of a table, comments and inline
# markup between a block's text nodes, a 300-item list, nesting 40 deep
TANGLED_PAGE = (
    "<html><head><title>Tangled</title></head><body><!-- a comment --><header><a href='/'>Home</a></header>"
    "<article><h1>Title <small>and</small> subtitle</h1>"
    "<p>One <b>bold</b> two <!-- c --> three<br>four <a href='/x'>link</a> five.</p>"
    "<table><caption>Caption</caption><tr><th>Head</th><th>Other</th></tr>"
    + "".join(f"<tr><td>cell {i}</td><td><p>para {i}</p> tail {i}</td></tr>" for i in range(40))
    + "moved out<tr><td><table><tr><td>nested cell</td></tr></table></td></tr></table><ul>"
    + "".join(f"<li>item {i} <i>it</i> end</li>" for i in range(300))
    + f"</ul>{'<div>' * 40}deep text{'</div>' * 40}"
    + "<dl><dt>term</dt><dd>definition <span>inline</span> more</dd></dl></article>"
    "<footer><p>Footer text</p></footer></body></html>"
)
# Markup named like the document's members overrides them on the framed document (DOM clobbering)
CLOBBERING = ARTICLE.replace(
    "<article>",
    "<article>"
    + "".join(
        f'<img name="{name}" alt="">'
        for name in ("createElement", "querySelector", "head", "documentElement", "addEventListener", "URL")
    ),
)
ARABIC = "هذه فقرة طويلة من المحتوى الحقيقي الذي جاء القارئ من أجله، وفيها كلمات كافية."
KEY = "reader-test-key"


@pytest.fixture(scope="module")
def reader_url(registry_with: Callable[..., BackendRegistry]) -> Iterator[str]:
    with LiveServer(Settings(default_backend=RULES_DEFAULT), registry=registry_with(KeepAllBackend())) as server:
        yield server.url + "/"


@pytest.fixture
def reader(offline_tab: OfflineTab, reader_url: str) -> OfflineTab:
    offline_tab.page.goto(reader_url)
    offline_tab.page.wait_for_selector("#backend option[value=boilerpipe]", state="attached")
    return offline_tab


@pytest.fixture
def page(reader: OfflineTab) -> sync_api.Page:
    return reader.page


def test_pasted_html_is_extracted_and_its_blocks_highlighted_on_the_page(page: sync_api.Page) -> None:
    page.fill("#html", ARTICLE)
    page.select_option("#backend", "boilerpipe")
    page.click("#go")
    sync_api.expect(page.locator("#text")).to_contain_text("a reader came for")
    assert "Contact" not in page.text_content("#text")
    frame = page.frame_locator("#page")
    content = frame.locator("mark.xr-content")
    content.first.wait_for()
    texts = content.all_text_contents()
    assert texts[0] == "A headline"
    assert len(texts) == 5 and all("real content" in text for text in texts[1:])  # and the four paragraphs
    assert "Contact" in frame.locator("mark.xr-boilerplate").all_text_contents()
    assert "boilerpipe" in page.text_content("#meta")


def test_compare_shows_every_backend_and_switches_the_highlight(page: sync_api.Page) -> None:
    page.fill("#html", ARTICLE.replace("<h1>A headline</h1>", "<h1>A headline</h1><p>Short line.</p>"))
    page.select_option("#backend", "all")
    page.click("#go")
    page.wait_for_selector("#backends tr[data-backend=keep_all]")
    assert page.locator("#backends tr").count() == 2
    assert "boilerpipe / keep_all" in page.text_content("#agreement")
    frame = page.frame_locator("#page")
    frame.locator("mark.xr-block").first.wait_for()
    kept_by_boilerpipe = frame.locator("mark.xr-content").count()
    page.click("#backends tr[data-backend=keep_all]")
    sync_api.expect(page.locator("#meta")).to_contain_text("keep_all")
    # keep_all keeps the short line boilerpipe drops (both lose the navigation and footer to pruning)
    assert frame.locator("mark.xr-content").count() > kept_by_boilerpipe


def test_the_page_s_own_scripts_never_run(page: sync_api.Page) -> None:
    hostile = ARTICLE.replace("</body>", "<script>parent.document.title = 'pwned'</script></body>")
    page.fill("#html", hostile)
    page.click("#go")
    page.frame_locator("#page").locator("mark.xr-block").first.wait_for()
    assert page.title() != "pwned"


def test_errors_are_shown_with_their_code(page: sync_api.Page) -> None:
    page.check("input[name=source][value=url]")
    page.fill("#url", "http://127.0.0.1/admin")
    page.click("#go")
    page.wait_for_selector("#status.error")
    assert page.text_content("#status").startswith("url_not_allowed:")


def test_the_framed_page_loads_nothing_from_outside(reader: OfflineTab) -> None:
    reader.page.fill("#html", THIRD_PARTY)
    reader.page.select_option("#backend", "boilerpipe")
    reader.page.click("#go")
    frame = reader.page.frame_locator("#page")
    frame.locator("mark.xr-content").first.wait_for()  # marked on the frame's load: every load was tried by then
    reader.page.wait_for_timeout(500)  # and the refresh had its chance
    assert frame.locator("mark.xr-content").first.text_content() == "A headline"  # still the pasted page
    assert reader.outside == []


def test_an_empty_page_is_asked_for_instead_of_extracted(page: sync_api.Page) -> None:
    assert "Paste a page's HTML" in page.text_content("#text")  # before anything: a hint, not a blank panel
    page.fill("#html", "  \n ")
    page.click("#go")
    sync_api.expect(page.locator("#status.error")).to_have_text("Paste a page's HTML first.")
    page.check("input[name=source][value=url]")
    page.click("#go")
    sync_api.expect(page.locator("#status.error")).to_have_text("Type the URL of a page first.")


def _extract(page: sync_api.Page, html: str, backend: str = "boilerpipe") -> sync_api.FrameLocator:
    """Paste ``html``, extract with ``backend`` and wait for the frame's marks."""
    page.evaluate("(html) => { document.getElementById('html').value = html; }", html)  # fill types it: slow
    page.select_option("#backend", backend)
    page.click("#go")
    frame = page.frame_locator("#page")
    frame.locator(".xr-block").first.wait_for()
    return frame


def test_every_block_is_marked_where_its_locator_points(page: sync_api.Page) -> None:
    _extract(page, TANGLED_PAGE)
    marked, located, blocks = page.evaluate(
        """async (html) => {
        const request = {html, backend: "boilerpipe", include_blocks: true};
        const answer = await fetch("/extract", {
          method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(request),
        });
        const {blocks} = await answer.json();
        const framed = document.getElementById("page").contentDocument;
        const marked = [...framed.querySelectorAll(".xr-block")].map((node) => node.textContent);
        // the reference: a querySelector per locator, in a copy of the page parsed alike (no scripts)
        const copy = new DOMParser().parseFromString(html, "text/html");
        const located = blocks.map((b) => {
          const element = copy.querySelector(b.locator.selector);
          return element && b.locator.text_node !== null ? element.childNodes[b.locator.text_node] : element;
        }).filter(Boolean);
        located.sort((a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
        return [marked, located.map((node) => node.textContent), blocks.length];
    }""",
        TANGLED_PAGE,
    )
    assert marked == located
    assert len(marked) == blocks > 400  # every block found: the parsers agree on this page


def test_a_page_of_many_blocks_is_highlighted_without_freezing_the_tab(page: sync_api.Page) -> None:
    page.evaluate(
        """() => {
        window.longestTaskMs = 0;
        new PerformanceObserver((tasks) => {
          for (const task of tasks.getEntries()) window.longestTaskMs = Math.max(window.longestTaskMs, task.duration);
        }).observe({type: "longtask"});
    }"""
    )
    page.evaluate("(html) => { document.getElementById('html').value = html; }", WIDE_PAGE)
    page.select_option("#backend", "boilerpipe")
    page.click("#go")
    page.frame_locator("#page").locator(".xr-block").last.wait_for(timeout=60_000)
    assert page.evaluate("window.longestTaskMs") < LONGEST_TASK_MS


def test_a_link_clicked_in_the_frame_leaves_the_page_shown(page: sync_api.Page) -> None:
    frame = _extract(page, ARTICLE)
    frame.get_by_text("Contact").click()
    page.wait_for_timeout(500)  # a navigation would have replaced the page by then
    assert frame.locator("mark.xr-content").first.text_content() == "A headline"
    assert page.evaluate("document.getElementById('page').contentDocument?.URL") == "about:srcdoc"


def test_markup_named_like_the_document_s_methods_does_not_switch_highlighting_off(page: sync_api.Page) -> None:
    frame = _extract(page, CLOBBERING)
    assert frame.locator("mark.xr-content").first.text_content() == "A headline"
    assert "Contact" in frame.locator("mark.xr-boilerplate").all_text_contents()


def test_the_backend_chosen_while_the_frame_loads_is_the_one_painted(page: sync_api.Page) -> None:
    # choose keep_all as soon as the compare table appears: before the frame has loaded
    page.evaluate(
        """() => new MutationObserver((_, observer) => {
        const row = document.querySelector("#backends tr[data-backend=keep_all]");
        if (row) { observer.disconnect(); row.click(); }
    }).observe(document.getElementById("backends"), {childList: true})"""
    )
    frame = _extract(page, ARTICLE, backend="all")
    sync_api.expect(page.locator("#meta")).to_contain_text("keep_all")
    titles = frame.locator(".xr-block").evaluate_all("(marks) => marks.map((mark) => mark.title)")
    assert titles and all("keep_all" in title for title in titles)


def test_compare_rows_are_chosen_from_the_keyboard(page: sync_api.Page) -> None:
    _extract(page, ARTICLE, backend="all")
    for _ in range(12):  # from the Extract button on, to the keep_all row
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('tr[data-backend=keep_all]')"):
            break
    page.keyboard.press("Enter")
    sync_api.expect(page.locator("#meta")).to_contain_text("keep_all")
    assert page.evaluate("!!document.activeElement.closest('tr[data-backend=keep_all]')")  # the focus stays
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Space")
    sync_api.expect(page.locator("#meta")).to_contain_text("boilerpipe")


def test_extract_keeps_the_focus_and_announces_what_it_did(page: sync_api.Page) -> None:
    page.fill("#html", ARTICLE)
    page.select_option("#backend", "boilerpipe")
    page.focus("#go")
    page.keyboard.press("Enter")
    sync_api.expect(page.locator("#meta")).to_contain_text("boilerpipe")
    sync_api.expect(page.locator("#status")).to_have_text("Extracted with boilerpipe.")
    assert page.evaluate("document.activeElement.id") == "go"


def test_the_api_key_field_has_a_label(page: sync_api.Page) -> None:
    assert page.evaluate("document.getElementById('key').labels.length") == 1
    page.click("summary")
    sync_api.expect(page.get_by_label("Key", exact=True)).to_be_visible()


def test_an_invalid_url_in_the_hidden_field_does_not_block_pasted_html(page: sync_api.Page) -> None:
    page.check("input[name=source][value=url]")
    page.fill("#url", "not a url")
    page.check("input[name=source][value=html]")
    page.fill("#html", ARTICLE)
    page.click("#go")
    sync_api.expect(page.locator("#text")).to_contain_text("a reader came for", timeout=5_000)


def test_an_error_clears_the_previous_result(page: sync_api.Page) -> None:
    frame = _extract(page, ARTICLE)
    page.check("input[name=source][value=url]")
    page.fill("#url", "http://127.0.0.1/admin")
    page.click("#go")
    page.wait_for_selector("#status.error")
    assert "a reader came for" not in page.text_content("#text")
    assert page.text_content("#meta") == ""
    assert frame.locator(".xr-block").count() == 0


def test_right_to_left_paragraphs_read_right_to_left(page: sync_api.Page) -> None:
    _extract(page, ARTICLE.replace("<h1>A headline</h1>", f"<h1>A headline</h1><p>{ARABIC}</p>"), "keep_all")
    directions = page.evaluate(
        """(texts) => texts.map((text) => {
        const holders = [...document.querySelectorAll("#text, #text *")].reverse();  // the innermost first
        const holder = holders.find((element) => element.textContent.includes(text));
        return getComputedStyle(holder).direction;
    })""",
        [ARABIC, "a reader came for"],
    )
    assert directions == ["rtl", "ltr"]


def test_a_narrow_screen_stacks_the_text_and_the_page(page: sync_api.Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    _extract(page, ARTICLE)
    for panel in ("#text", "#page"):
        box = page.locator(panel).bounding_box()
        assert box is not None and box["width"] > 300, (panel, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.fixture(scope="module")
def keyed_reader_url(registry_with: Callable[..., BackendRegistry]) -> Iterator[str]:
    settings = Settings(default_backend=RULES_DEFAULT, api_keys=[KEY])
    with LiveServer(settings, registry=registry_with(KeepAllBackend())) as server:
        yield server.url + "/"


def test_the_backends_are_listed_once_a_key_is_typed(offline_tab: OfflineTab, keyed_reader_url: str) -> None:
    page = offline_tab.page
    page.goto(keyed_reader_url)
    page.wait_for_selector("#status.error")  # listed without a key: refused
    page.click("summary")
    page.fill("#key", KEY)
    page.press("#key", "Tab")
    page.wait_for_selector("#backend option[value=keep_all]", state="attached", timeout=5_000)
    assert page.locator("#backend option").count() == 3  # all, boilerpipe, keep_all: each once
    assert page.text_content("#status") == ""
