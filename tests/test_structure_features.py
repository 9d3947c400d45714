"""Structure features: regions by tag, role and id/class words; containers' link share; repeated siblings; hidden."""

from __future__ import annotations

import numpy as np
import pytest

from service.features.block_features import N_FEATURES, texrex_structure_features
from service.features.hidden import hidden_blocks
from service.features.structure import FEATURE_NAMES, structure_features
from service.features.units import leaf_units, paragraph_units
from service.parsing.document import Document
from service.parsing.lexbor import parse_html

PAGE = """<body><nav><a href=/>Home</a></nav>
<div class="post-body"><p>By <a href=/a>Ann</a> today</p><p>Real text that matters.</p></div>
<aside class="sidebar"><ul class="related-posts"><li class=card><a href=/1>One</a></li>
<li class=card><a href=/2>Two</a></li><li class=card><a href=/3>Three</a></li></ul></aside>
<div id="comments"><p>nice post</p></div><div role="complementary"><p>a widget</p></div>
<div style="color: red; display:none !important">2019-11-13T23:06:00+01:00</div>
<p hidden>tab</p><p aria-hidden="true">icon</p><p aria-hidden="false">shown</p><p style="x-display:none">also shown</p>
<footer>(c) 2026</footer></body>"""


def features_of(document: Document) -> dict[str, dict[str, float]]:
    rows = structure_features(document, leaf_units(document))
    named = [dict(zip(FEATURE_NAMES, map(float, row), strict=True)) for row in rows]
    return {text: row for text, row in zip(document.texts, named, strict=True)}


@pytest.fixture(scope="module")
def page() -> dict[str, dict[str, float]]:
    return features_of(parse_html(PAGE))


def test_every_feature_is_in_the_unit_interval(page: dict[str, dict[str, float]]) -> None:
    assert all(0.0 <= value <= 1.0 for row in page.values() for value in row.values())


@pytest.mark.parametrize(
    ("text", "regions"),
    [
        ("Home", {"nav"}),
        ("Ann", {"main"}),  # "post-body": post and body are words of main content
        ("One", {"aside", "related", "main"}),  # "related-posts" names both
        ("nice post", {"comment"}),
        ("a widget", {"aside"}),  # by its ARIA role alone
        ("(c) 2026", {"footer"}),
    ],
)
def test_regions_come_from_tags_roles_and_id_class_words(
    page: dict[str, dict[str, float]], text: str, regions: set[str]
) -> None:
    assert {
        name.removeprefix("in_") for name, value in page[text].items() if name.startswith("in_") and value
    } == regions


def test_words_match_whole_or_by_their_start_not_inside_other_words() -> None:
    document = parse_html(
        "<div class='subnav'><p>a</p></div><div class='head-line'><p>b</p></div><div class='navbar'><p>c</p></div>"
    )
    rows = features_of(document)
    assert rows["a"]["in_nav"] == 0.0 and rows["b"]["in_promo"] == 0.0 and rows["c"]["in_nav"] == 1.0


def test_hidden_subtrees(page: dict[str, dict[str, float]]) -> None:
    hidden = {text for text, row in page.items() if row["hidden"]}
    assert hidden == {"2019-11-13T23:06:00+01:00", "tab", "icon"}


def test_link_share_of_the_containers(page: dict[str, dict[str, float]]) -> None:
    assert page["One"]["link_share_up_1"] == 1.0  # the list holds links only
    assert 0.0 < page["Ann"]["link_share_up_1"] < 0.5  # the article div: one short link among words


def test_repeated_siblings(page: dict[str, dict[str, float]]) -> None:
    assert page["One"]["repeats_up_0"] == pytest.approx(np.log1p(2) / np.log1p(32))  # three li.card
    assert page["Real text that matters."]["repeats_up_0"] == pytest.approx(np.log1p(1) / np.log1p(32))  # two p
    assert page["nice post"]["repeats_up_0"] == 0.0  # alone in its div


def test_units_read_their_first_leaf_and_the_mlp_matrix_stacks_both_groups() -> None:
    document = parse_html(PAGE)
    units = paragraph_units(document)
    rows = structure_features(document, units)
    assert rows.shape == (int(units[-1]) + 1, len(FEATURE_NAMES))
    assert texrex_structure_features(document, units).shape == (len(rows), N_FEATURES)
    assert hidden_blocks(parse_html("")).shape == (0,)
    assert structure_features(parse_html(""), np.zeros(0, dtype=np.int32)).shape == (0, len(FEATURE_NAMES))
