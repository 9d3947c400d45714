"""The reader page in headless Chromium (Debian's package, driven by Playwright; no downloaded browser).

Skipped, saying why, where /usr/bin/chromium or the playwright package is missing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import ARTICLE, RULES_DEFAULT, KeepAllBackend, LiveServer

from service.backends.registry import BackendRegistry
from service.settings import Settings

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing: make install")

pytestmark = pytest.mark.timeout(120)

# No sandbox (root in a container), no GPU, and nothing that phones home: the page talks to 127.0.0.1 only.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def reader_url(registry_with: Callable[..., BackendRegistry]) -> Iterator[str]:
    with LiveServer(Settings(default_backend=RULES_DEFAULT), registry=registry_with(KeepAllBackend())) as server:
        yield server.url + "/"


@pytest.fixture(scope="module")
def browser() -> Iterator[sync_api.Browser]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: sync_api.Browser, reader_url: str) -> Iterator[sync_api.Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(reader_url)
    tab.wait_for_selector("#backend option[value=boilerpipe]", state="attached")
    yield tab
    context.close()
    assert errors == [], errors  # the reader's own script never threw


def test_pasted_html_is_extracted_and_its_blocks_highlighted_on_the_page(page: sync_api.Page) -> None:
    page.fill("#html", ARTICLE)
    page.select_option("#backend", "boilerpipe")
    page.click("#go")
    page.wait_for_function("document.querySelector('#text').textContent.includes('a reader came for')")
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
    page.fill("#html", ARTICLE)
    page.select_option("#backend", "all")
    page.click("#go")
    page.wait_for_selector("#backends tr[data-backend=keep_all]")
    assert page.locator("#backends tr").count() == 2
    assert "boilerpipe / keep_all" in page.text_content("#agreement")
    frame = page.frame_locator("#page")
    frame.locator("mark.xr-block").first.wait_for()
    kept_by_boilerpipe = frame.locator("mark.xr-content").count()
    page.click("#backends tr[data-backend=keep_all]")
    page.wait_for_function("document.querySelector('#meta').textContent.includes('keep_all')")
    assert frame.locator("mark.xr-boilerplate").count() == 0  # keep_all keeps every block
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
