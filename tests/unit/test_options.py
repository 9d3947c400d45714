"""The caller's options through the real pipeline: favor, comments, links, images, tables, title, selectors,
front matter and the readable score. Backends are doubles so each assertion is about the option alone."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from service.backends import favor
from service.backends.base import Backend, BlockLabels
from service.backends.favor import decision_shift, favor_shift, shift_labels
from service.backends.registry import BackendRegistry
from service.errors import InvalidOption, InvalidSelector, NothingSelected
from service.metadata.fields import Metadata
from service.metadata.reader import MetadataReader
from service.options import Options
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.pipeline import Extraction, Extractor

from support.backends import KeepAllBackend
from support.front_matter import read_front_matter

LONG = "A sentence long enough to count as the body of an article, with more words after it. " * 3
PAGE = f"""<html><head><title>Night trains are back | Example News</title></head><body>
<nav><a href="/">Home</a></nav>
<article><h1>Night trains are back</h1><p>{LONG}<a href="https://example.org/more">more</a></p>
<table><tr><th>Route</th><th>Since</th></tr><tr><td>Vienna - Paris</td><td>2021</td></tr></table>
<p>Second paragraph that stays with the first one, about travel.</p></article>
<section id="comments"><h2>3 comments</h2><div class="comment-body"><p>First!</p></div></section>
<div role="comment"><p>A reader's own opinion here.</p></div>
</body></html>"""


class LengthBackend(Backend):
    """Scores each block by its length (longer means content), threshold 0.5: favor has something to move."""

    name = "by_length"
    kind = "rules"
    version = "test-1"

    def classify(self, document: Document) -> BlockLabels:
        lengths = np.array([min(len(t), 100) / 100 for t in document.texts], dtype=np.float32)
        return BlockLabels.from_scores(lengths, 0.5)


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    registry = BackendRegistry()
    registry.register("keep_all", KeepAllBackend)
    registry.register("by_length", LengthBackend)
    return Extractor(registry, default_backend="keep_all")


def run(extractor: Extractor, page: str = PAGE, backend: str = "keep_all", **choices: object) -> Extraction:
    options = Options(**choices)  # type: ignore[arg-type]
    return extractor.extract(page, backend=backend, url="https://example.org/news/a", options=options)


def test_defaults_keep_what_the_backend_keeps(extractor: Extractor) -> None:
    text = run(extractor).text
    assert "First!" in text and "A reader's own opinion" in text and "Vienna - Paris" in text
    assert text.count("Night trains are back") == 1


def test_include_comments_false_drops_comment_threads_only(extractor: Extractor) -> None:
    text = run(extractor, include_comments=False).text
    assert "First!" not in text and "3 comments" not in text and "A reader's own opinion" not in text
    assert "Second paragraph" in text


def test_favor_moves_the_threshold_each_way() -> None:
    labels = BlockLabels.from_scores(np.array([0.2, 0.45, 0.55, 0.9], dtype=np.float32), 0.5)
    assert shift_labels(labels, 0.1).labels.tolist() == [False, False, False, True]
    assert shift_labels(labels, -0.1).labels.tolist() == [False, True, True, True]
    assert shift_labels(labels, 0.0) is labels
    # labels that go further than the scores (a tree filter) stay the base: precision only removes
    filtered = BlockLabels(labels.scores, np.array([False, False, False, True]), 0.5)
    assert shift_labels(filtered, -0.1).labels.tolist() == [False, True, True, True]


def test_favor_precision_keeps_less_and_recall_more(extractor: Extractor) -> None:
    page = f"<p>{'x' * 45}</p><p>{'y' * 55}</p><p>{'z' * 95}</p>"  # scores 0.45, 0.55, 0.95 around 0.5
    kept = {
        favor: run(extractor, page, "by_length", favor=favor).text.split()
        for favor in ("precision", "balanced", "recall")
    }
    assert kept == {"precision": ["z" * 95], "balanced": ["y" * 55, "z" * 95], "recall": ["x" * 45, "y" * 55, "z" * 95]}
    assert favor_shift("by_length", "balanced") == 0.0


class TypedAs(MetadataReader):
    """The page's metadata, with the page type the test says (the page-type model is not what is tested)."""

    def __init__(self, page_type: str | None) -> None:
        super().__init__()
        self.kind = page_type

    def read_typed(self, document: Document, url: str | None = None) -> tuple[Metadata, dict[str, float]]:
        metadata, probabilities = super().read_typed(document, url)
        return replace(metadata, page_type=self.kind), probabilities


@pytest.mark.parametrize(
    ("page_type", "favor_name", "kept"),
    [
        ("article", "balanced", ["z" * 95]),  # the article shift alone
        ("listing", "balanced", ["x" * 45, "y" * 55, "z" * 95]),  # the other pages' shift alone
        ("article", "recall", ["y" * 55, "z" * 95]),  # the caller's recall (-0.1) and the article's +0.1
        ("service", "precision", ["y" * 55, "z" * 95]),  # the caller's precision (+0.1) and the others' -0.1
        (None, "balanced", ["y" * 55, "z" * 95]),  # no page type: no shift
    ],
)
def test_each_group_of_page_types_is_decided_at_its_own_threshold(
    monkeypatch: pytest.MonkeyPatch, page_type: str | None, favor_name: str, kept: list[str]
) -> None:
    monkeypatch.setattr(favor, "ARTICLE_SHIFTS", {"by_length": 0.1})
    monkeypatch.setattr(favor, "OTHER_SHIFTS", {"by_length": -0.1})
    registry = BackendRegistry()
    registry.register("by_length", LengthBackend)
    typed = Extractor(registry, default_backend="by_length", metadata=TypedAs(page_type))
    page = f"<p>{'x' * 45}</p><p>{'y' * 55}</p><p>{'z' * 95}</p>"  # scores 0.45, 0.55, 0.95 around 0.5
    assert run(typed, page, "by_length", favor=favor_name).text.split() == kept


def test_the_shipped_article_shifts_apply_to_articles_only() -> None:
    assert decision_shift("gbt", "balanced", "article") == favor.ARTICLE_SHIFTS["gbt"] > 0
    assert decision_shift("gbt", "balanced", "listing") == favor.OTHER_SHIFTS.get("gbt", 0.0)
    assert decision_shift("gbt", "balanced", None) == 0.0
    # boilerpipe's tree filter (an article's one body) is left out on the other typed pages, and only there
    assert decision_shift("boilerpipe", "balanced", "service") == favor.OTHER_SHIFTS["boilerpipe"] < 0
    assert decision_shift("boilerpipe", "balanced", "article") == decision_shift("boilerpipe", "balanced", None) == 0
    article = favor.ARTICLE_SHIFTS["gbt"]
    assert decision_shift("gbt", "precision", "article") == favor_shift("gbt", "precision") + article
    assert decision_shift("mlp", "balanced", "article") == 0.0  # not listed: the sweep chose no shift


def test_include_links_false_writes_link_text_only(extractor: Extractor) -> None:
    markdown = run(extractor, format="markdown", include_links=False).content
    assert "](" not in markdown and "more" in markdown
    assert "[more](https://example.org/more)" in run(extractor, format="markdown").content


def test_include_tables_false_leaves_data_tables_out(extractor: Extractor) -> None:
    for output in ("text", "markdown", "html"):
        assert "Vienna" not in run(extractor, format=output, include_tables=False).content
    assert "Second paragraph" in run(extractor, include_tables=False).text


def test_a_layout_table_stays_when_tables_are_left_out(extractor: Extractor) -> None:
    page = f"<table><tr><td><p>{LONG}</p><p>Another paragraph.</p><p>A third one.</p></td></tr></table><p>x</p>"
    assert "A third one" in run(extractor, page, include_tables=False).text


def test_include_title_adds_it_once_as_the_first_heading(extractor: Extractor) -> None:
    # the page's h1 says the title (less the site name): it is not repeated
    markdown = run(extractor, format="markdown", include_title=True).content
    assert markdown.count("Night trains are back") == 1
    # without a heading that says it, the title comes first
    page = f"<title>Sleeper news</title><p>{LONG}</p>"
    for output, first in (
        ("markdown", "# Sleeper news\n\n"),
        ("html", "<h1>Sleeper news</h1>"),
        ("text", "Sleeper news\n\n"),
    ):
        content = run(extractor, page, format=output, include_title=True).content
        assert content.startswith(first) and content.count("Sleeper news") == 1
    assert "Sleeper news" not in run(extractor, page).text
    # the heading is the response's title: the head's, without the site's name the head appends
    sited = (
        f"<title>Sleeper news | Example News</title><meta property='og:site_name' content='Example News'><p>{LONG}</p>"
    )
    extraction = run(extractor, sited, format="markdown", include_title=True)
    assert extraction.title == "Sleeper news" and extraction.content.startswith("# Sleeper news\n\n")


def test_target_selector_restricts_and_remove_selector_prunes(extractor: Extractor) -> None:
    only = run(extractor, target_selector="article", remove_selector="table").text
    assert "Second paragraph" in only and "Home" not in only and "First!" not in only and "Vienna" not in only
    assert run(extractor, target_selector="article").title == "Night trains are back"  # the page's, site name off
    with pytest.raises(NothingSelected):
        run(extractor, target_selector="#nowhere")
    with pytest.raises(InvalidSelector):
        run(extractor, remove_selector="div >")


# The page with what a front matter carries: its author, date, site, language, description (with a line
# separator, which YAML would read as a line break) and keywords.
DESCRIBED = PAGE.replace(
    "<html><head>",
    '<html lang="en"><head><meta property="og:site_name" content="Example News"><meta name="author" content="Ann Roe">'
    '<meta property="article:published_time" content="2025-03-01T08:00:00Z">'
    '<meta name="description" content="Sleepers return:\u2028one line.">'
    '<meta name="keywords" content="rail, night trains">',
)


def test_front_matter_carries_the_metadata(extractor: Extractor) -> None:
    extraction = run(extractor, DESCRIBED, format="markdown", front_matter=True)
    fields, body = read_front_matter(extraction.content)
    assert fields == {
        "title": "Night trains are back",  # the response's title (the head's, without the site's name)
        "author": ["Ann Roe"],
        "date_published": "2025-03-01",
        "site_name": "Example News",
        "language": "en",
        "description": "Sleepers return:\u2028one line.",
        "tags": ["rail", "night trains"],
        "url": "https://example.org/news/a",
        "backend": "keep_all",
    }
    assert fields["title"] == extraction.title and fields["author"] == list(extraction.metadata.author)
    assert list(fields)[:2] == ["title", "author"] and list(fields)[-2:] == ["url", "backend"]
    assert "\n# Night trains are back\n" in f"\n{body}" and not body.startswith("---")


def test_readable_tells_an_article_from_a_menu(extractor: Extractor) -> None:
    article = "".join(f"<p>{LONG} {i}</p>" for i in range(3))
    assert run(extractor, article).readable == 1.0
    menu = "<ul>" + "".join(f"<li><a href='/{i}'>Section {i}</a></li>" for i in range(30)) + "</ul><p>Short.</p>"
    assert run(extractor, menu).readable == 0.0
    one = f"<p>{'word ' * 60}</p>"  # one paragraph of 300 characters: part of the way
    assert 0.0 < run(extractor, one).readable < 1.0


def test_unknown_options_are_refused() -> None:
    with pytest.raises(InvalidOption, match="favor"):
        Options(favor="speed")
    with pytest.raises(TypeError):
        Options(include_everything=True)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("options", "blocks"),
    [
        ({"remove_selector": "html"}, 0),  # everything goes, the tree keeps its root
        ({"remove_selector": "*"}, 0),  # nested matches are removed once, from the outermost
        ({"target_selector": ":root"}, 2),  # the whole page is the target
        ({"target_selector": "div, p"}, 2),  # nested targets
        ({"remove_selector": "div"}, 1),
    ],
)
def test_selectors_at_the_edges(options: dict[str, str], blocks: int) -> None:
    document = parse_html("<title>T</title><p>x</p><div><p>y</p></div>", **options)
    assert (len(document), document.title) == (blocks, "T")


def test_a_selector_no_page_can_hold_is_invalid() -> None:
    with pytest.raises(InvalidSelector):
        parse_html("<p>x</p>", target_selector="\ud800")


@pytest.mark.parametrize(
    "selector",
    [
        ":has(div div span)",
        "div:not(:HAS(p))",
        ":h\\61s(p)",
        ":h\\61 s(p)",
        ":has/**/(p)",
        'div\\":has(p)',
        ":has(p) /* ' */",
    ],
)
def test_has_is_refused_however_it_is_spelled(selector: str) -> None:
    """Its matching cost grows as a power of the page's depth, in C, holding the interpreter."""
    for option in ("target_selector", "remove_selector"):
        with pytest.raises(InvalidSelector, match=r":has\(\) is not supported"):
            parse_html("<div><p>x</p></div>", **{option: selector})


@pytest.mark.parametrize("selector", ['[title=":has("]', "[title=':has(']", '/* ":has(" */ [title]'])
def test_has_in_a_string_or_a_comment_is_no_has(selector: str) -> None:
    document = parse_html('<div title=":has("><p>kept</p></div><p>not</p>', target_selector=selector)
    assert document.texts == ["kept"]


def test_removing_nested_matches_deep_in_the_page_removes_each_once() -> None:
    page = "<div class=a>" * 300 + "<p class=r>x<span class=r>y</span></p><p>z</p>" * 50 + "</div>" * 300
    document = parse_html(page, remove_selector=".r, .a .a .a p.r")
    assert document.texts == ["z"] * 50
    assert parse_html(page, remove_selector="div").texts == []  # the outermost holds them all
