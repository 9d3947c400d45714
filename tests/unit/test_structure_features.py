"""Regions by tag, ARIA role and id/class words; the link share of a leaf's containers."""

from __future__ import annotations

import pytest

from service.features.structure import (
    FEATURE_REGIONS,
    LINK_LEVELS,
    REGION_BITS,
    REGIONS,
    container_link_shares,
    leaf_regions,
    sidebar_blocks,
)
from service.parsing.document import Document
from service.parsing.lexbor import parse_html

PAGE = """<body><nav><a href=/>Home</a></nav>
<div class="post-body"><p>By <a href=/a>Ann</a> today</p><p>Real text that matters.</p></div>
<aside class="sidebar"><ul class="related-posts"><li class=card><a href=/1>One</a></li>
<li class=card><a href=/2>Two</a></li><li class=card><a href=/3>Three</a></li></ul></aside>
<div id="comments"><p>nice post</p></div><div role="complementary"><p>a widget</p></div>
<footer>(c) 2026</footer></body>"""


def regions_by_text(document: Document) -> dict[str, set[str]]:
    bits = leaf_regions(document).tolist()
    return {
        text: {region for region, bit in REGION_BITS.items() if leaf & bit}
        for text, leaf in zip(document.texts, bits, strict=True)
    }


@pytest.mark.parametrize(
    ("text", "regions"),
    [
        ("Home", {"nav"}),
        ("Ann", set()),
        ("One", {"aside"}),
        ("nice post", {"comment"}),
        ("a widget", {"aside"}),  # by its ARIA role alone
        ("(c) 2026", {"footer"}),
    ],
)
def test_regions_come_from_tags_roles_and_id_class_words(text: str, regions: set[str]) -> None:
    assert regions_by_text(parse_html(PAGE))[text] == regions


def test_words_match_whole_or_by_their_start_not_inside_other_words() -> None:
    document = parse_html(
        "<div class='subnav'><p>a</p></div><div class='a-feet'><p>b</p></div><div class='navbar'><p>c</p></div>"
    )
    rows = regions_by_text(document)
    assert "nav" not in rows["a"] and "footer" not in rows["b"] and "nav" in rows["c"]


def test_a_highlighters_classes_inside_code_name_no_region() -> None:
    document = parse_html(
        "<div id=comments><pre><code><span class='hljs-comment'># in a thread</span></code></pre></div>"
        "<pre><code class=language-sh><span class='hljs-comment'># set up</span>\ngit init</code></pre>"
        "<p><code><span class='token comment'>// inline</span></code></p>"
    )
    rows = regions_by_text(document)
    assert rows["# set up"] == set() and rows["// inline"] == set()
    assert rows["# in a thread"] == {"comment"}  # code inside a real comment thread is still in it


def test_link_share_of_the_containers() -> None:
    document = parse_html(PAGE)
    shares = container_link_shares(document)
    one, two = shares[:, LINK_LEVELS.index(1)], shares[:, LINK_LEVELS.index(2)]
    share = dict(zip(document.texts, one.tolist(), strict=True))
    assert share["One"] == 1.0  # the list holds links only
    assert 0.0 < share["Ann"] < 0.5  # the article div: one short link among words
    assert len(two) == len(document)


def test_sidebars_are_named_by_landmarks_and_the_sidebar_word_only() -> None:
    document = parse_html(
        PAGE + "<div id='sidebar-right'><p>Archives</p></div><div class='mysidebar'><p>inside a word</p></div>"
        "<div class='c-product-widget'><p>Dishwasher, $999</p></div><div class='rail'><p>Trending</p></div>"
    )
    inside = dict(zip(document.texts, sidebar_blocks(document).tolist(), strict=True))
    assert inside["One"] and inside["a widget"] and inside["Archives"]  # <aside>, its role, the word's start
    assert not inside["inside a word"] and not inside["Real text that matters."]
    assert not inside["Dishwasher, $999"] and not inside["Trending"]  # the aside region's widget and rail words


def test_a_sidebar_word_on_the_page_frame_or_on_code_marks_no_sidebar() -> None:
    document = parse_html(
        "<body class='has-sidebar'><main class='sidebar-layout'><p>The story.</p>"
        "<pre class='[html.sidebar-filled_&]:bg-tint'><code>npm i</code></pre></main></body>"
    )
    assert not sidebar_blocks(document).any()
    layouts = "<div class='main main-with-sidebar'><div class='gdi-post-with-sidebar'><p>The story.</p></div></div>"
    assert not sidebar_blocks(parse_html(f"<body>{layouts}<div class='no-sidebar'><p>More.</p></div></body>")).any()


def test_what_holds_the_main_landmark_is_the_layout_not_a_sidebar() -> None:
    genesis = (  # WordPress's Genesis themes: the content and its sidebar in one "content-sidebar-wrap"
        "<body><div class='content-sidebar-wrap'><main class='content'><p>The recipes.</p></main>"
        "<aside class='sidebar sidebar-primary'><p>About me</p></aside></div>"
        "<div class='sidebar-wrap'><div role='main'><p>The thread.</p></div></div></body>"
    )
    document = parse_html(genesis)
    inside = dict(zip(document.texts, sidebar_blocks(document).tolist(), strict=True))
    assert inside["About me"] and not inside["The recipes."] and not inside["The thread."]


def test_an_empty_page_has_no_rows() -> None:
    document = parse_html("")
    assert sidebar_blocks(document).shape == (0,)
    assert leaf_regions(document).shape == (0,)
    assert container_link_shares(document).shape == (0, len(LINK_LEVELS))


def test_the_regions_the_models_read_keep_their_bits() -> None:
    # gbt's region columns are the low bits: a region pruning adds goes after them, never between
    assert tuple(REGIONS)[: len(FEATURE_REGIONS)] == FEATURE_REGIONS
    assert [REGION_BITS[region] for region in FEATURE_REGIONS] == [1, 2, 4, 8, 16]
