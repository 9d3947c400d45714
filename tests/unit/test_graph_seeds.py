"""One test per seed heuristic: the marker or threshold on one side, then the other."""

import numpy as np
import pytest

from service.features.shallow import text_features
from service.graph import seeds
from service.graph.harmonic import BOILERPLATE, CONTENT, UNLABELLED
from service.parsing.lexbor import parse_html

SHORT = "<p>short words</p>"  # no text rule fires on it
FILLER = "<div>" + "<p>plain text without any marker at all</p>" * 8 + "</div>"  # page words outside regions


def markup(body: str) -> list[int]:
    return seeds.markup_seeds(parse_html(f"<html><body>{body}</body></html>")).tolist()


def text(body: str) -> list[int]:
    doc = parse_html(f"<html><body>{body}</body></html>")
    return seeds.text_seeds(doc, text_features(doc)).tolist()


def combined(body: str) -> list[int]:
    return seeds.heuristic_seeds(parse_html(f"<html><body>{body}</body></html>")).tolist()


def sentence(words: int) -> str:
    return " ".join(f"w{i}" for i in range(words - 1)) + " end."


# -- markup: content -----------------------------------------------------------------
@pytest.mark.parametrize(
    "wrapper",
    ["<article>{}</article>", "<main>{}</main>", "<div itemprop='articleBody'>{}</div>",
     "<div role='main'>{}</div>", "<div role='article'>{}</div>"],
)  # fmt: skip
def test_content_markers(wrapper: str):
    assert markup(wrapper.format(SHORT)) == [CONTENT]


def test_unmarked_blocks_are_unlabelled():
    assert markup("<div class='x'><p>short words</p></div>") == [UNLABELLED]


# -- markup: boilerplate -------------------------------------------------------------
@pytest.mark.parametrize(
    "wrapper",
    ["<nav>{}</nav>", "<footer>{}</footer>", "<aside>{}</aside>", "<header>{}</header>",
     "<div role='navigation'>{}</div>", "<div role='banner'>{}</div>", "<div role='contentinfo'>{}</div>",
     "<div role='complementary'>{}</div>", "<div role='menu'>{}</div>", "<div role='search'>{}</div>"],
)  # fmt: skip
def test_boilerplate_markers(wrapper: str):
    assert markup(wrapper.format(SHORT) + FILLER)[0] == BOILERPLATE


def test_roles_are_read_case_insensitively():
    assert markup("<div role='Navigation'>" + SHORT + "</div>" + FILLER)[0] == BOILERPLATE


def test_header_inside_content_is_content():
    assert markup("<article><header><h1>Title</h1></header><p>Body</p></article>") == [CONTENT, CONTENT]
    assert markup("<article><div role='banner'>Title</div></article>") == [CONTENT]


@pytest.mark.parametrize(
    "tokens", ["site-footer", "main-nav", "menu", "cookie-banner", "share_buttons", "sidebar", "breadcrumbs"]
)
def test_boilerplate_token_parts(tokens: str):
    assert markup(f"<div class='{tokens}'>{SHORT}</div>" + FILLER)[0] == BOILERPLATE


def test_tokens_match_by_part_not_by_substring():
    # "navigator" and "menus" contain marker words but have no marker part
    assert markup(f"<div class='navigator menus'>{SHORT}</div>" + FILLER)[0] == UNLABELLED


def test_ids_count_like_classes():
    assert markup(f"<div id='footer'>{SHORT}</div>" + FILLER)[0] == BOILERPLATE


def test_a_token_region_holding_most_of_the_page_is_not_a_region():
    inner = "<p>" + " ".join(["word"] * 10) + "</p>"
    # the wrapper holds all the words: its "sidebar" token names the layout
    assert markup(f"<div class='content-sidebar-wrap'>{inner}</div>") == [UNLABELLED]
    # the same wrapper beside as much text again is within MAX_TOKEN_REGION_SHARE = 0.5
    assert markup(f"<div class='content-sidebar-wrap'>{inner}</div>{inner}") == [BOILERPLATE, UNLABELLED]


def test_a_tag_marker_has_no_size_limit():
    assert markup(f"<nav>{SHORT}</nav>") == [BOILERPLATE]


def test_page_level_tokens_are_ignored():
    doc = parse_html(f"<html class='nav-open'><body class='has-sidebar'>{SHORT}</body></html>")
    assert seeds.markup_seeds(doc).tolist() == [UNLABELLED]


def test_the_nearest_marker_decides():
    assert markup(f"<article><nav>{SHORT}</nav></article>" + FILLER)[0] == BOILERPLATE
    assert markup(f"<aside><article>{SHORT}</article></aside>")[0] == CONTENT


def test_subtree_words_sum_the_text_below_each_element():
    doc = parse_html("<html><body><div><p>one two</p><p>three</p></div></body></html>")
    words = seeds.subtree_words(doc)
    assert words[0] == 3
    div = doc.elem_tag.index("div")
    assert words[div] == 3
    assert sorted(words[[i for i, t in enumerate(doc.elem_tag) if t == "p"]].tolist()) == [1, 2]


# -- text ----------------------------------------------------------------------------
def test_sentence_like_units_need_enough_words():
    assert text(f"<p>{sentence(seeds.MIN_SENTENCE_WORDS)}</p>") == [CONTENT]
    assert text(f"<p>{sentence(seeds.MIN_SENTENCE_WORDS - 1)}</p>") == [UNLABELLED]


def test_sentence_like_units_need_a_sentence_end():
    assert text(f"<p>{sentence(20)[:-1]}</p>") == [UNLABELLED]


def test_sentence_like_units_are_judged_whole():
    # the unit's leaves share its verdict, the linked one included
    assert text(f"<p>{sentence(30)} <a href='#'>one link</a> more.</p>") == [CONTENT, CONTENT, CONTENT]


def test_sentence_like_units_have_few_links():
    # 3 of 20 words linked: above MAX_SENTENCE_LINK_DENSITY = 0.1
    words = sentence(17)
    assert text(f"<p>{words} <a href='#'>one two three</a></p>") == [UNLABELLED, UNLABELLED]
    assert text(f"<p>{words} <a href='#'>one</a> two three</p>")[0] == CONTENT


def test_link_dense_units_are_boilerplate():
    # 2 of 4 words linked: LINK_DENSE = 0.5
    assert text("<p><a href='#'>one two</a> three four</p>") == [BOILERPLATE, BOILERPLATE]
    assert text("<p><a href='#'>one</a> two three four</p>") == [UNLABELLED, UNLABELLED]


# -- combination ---------------------------------------------------------------------
def test_markup_wins_over_text():
    links = "<p><a href='#'>Home</a> <a href='#'>About</a></p>"
    assert combined(f"<article>{links}</article>") == [CONTENT, CONTENT]
    assert combined(f"<footer><p>{sentence(30)}</p></footer>" + FILLER)[0] == BOILERPLATE


def test_text_decides_where_the_markup_is_silent():
    assert combined(f"<div><p>{sentence(30)}</p></div><div><a href='#'>Home</a></div>") == [CONTENT, BOILERPLATE]


def test_an_empty_page_has_no_seeds():
    assert seeds.heuristic_seeds(parse_html("")).tolist() == []
    assert seeds.heuristic_seeds(parse_html("")).dtype == np.int8
