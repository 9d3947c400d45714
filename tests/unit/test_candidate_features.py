"""Readability's candidate scores and the per-leaf features read from them (service/features/candidates.py)."""

from __future__ import annotations

import numpy as np
import pytest

from service.features.candidates import FEATURES, candidate_features, candidate_scores, readability_body
from service.parsing.document import Document
from service.parsing.lexbor import parse_html

PROSE = "Words of a real paragraph, long enough to be scored, with commas, as articles have them."

PAGE = f"""<body><div id=nav><a href=/>Home</a> <a href=/news>News</a></div>
<div id=main><div id=story><h2>Headline of the story</h2><p>{PROSE}</p><p>{PROSE}</p><p>{PROSE}</p></div>
<div id=share><p>Share this story on the networks you use</p></div></div>
<div id=rail><ul><li><a href=/1>Another headline somewhere else</a></li>
<li><a href=/2>And one more headline to read</a></li></ul></div></body>"""


def by_text(document: Document, column: str) -> dict[str, float]:
    values = candidate_features(document)[:, FEATURES.index(column)].tolist()
    return dict(zip(document.texts, values, strict=True))


def element(document: Document, elem_id: str) -> int:
    (found,) = [e for e, value in document.elem_attribute("id").items() if value == elem_id]
    return found


def test_the_best_candidate_is_the_story_and_its_parent_takes_the_sibling() -> None:
    document = parse_html(PAGE)
    scores = candidate_scores(document)
    assert int(np.argmax(scores)) == element(document, "story")
    inside = by_text(document, "in_best")
    assert inside[PROSE] == inside["Headline of the story"] == 1.0
    assert inside["Share this story on the networks you use"] == inside["Home"] == 0.0
    beside = by_text(document, "in_best_parent")
    assert beside["Share this story on the networks you use"] == 1.0
    assert beside["Another headline somewhere else"] == beside["Home"] == 0.0


def test_best_above_is_the_best_score_over_the_leafs_paragraph_against_the_pages_best() -> None:
    document = parse_html(PAGE)
    best_above = by_text(document, "best_above")
    assert best_above[PROSE] == 1.0
    share_row = best_above["Share this story on the networks you use"]
    assert 0.0 < best_above["Home"] < share_row < 1.0  # the menu has only <body> above it, the share row #main


@pytest.mark.parametrize("comma", [",", "\u060c", "\uff0c"])
def test_readabilitys_score_one_plus_commas_given_up_the_ancestors(comma: str) -> None:
    text = f"one{comma} two{comma} three{comma} and a few more words"  # 3 commas, under 100 characters
    document = parse_html(f"<body><div id=box><p>{text}</p></div></body>")
    scores = candidate_scores(document)
    box = element(document, "box")
    body = int(document.elem_parent[box])
    root = int(document.elem_parent[body])
    assert scores[box] == pytest.approx(1 + 3 + 5)  # all of it to the parent, plus a div's 5
    assert scores[body] == pytest.approx(4 / 2)  # half to the grandparent
    assert scores[root] == pytest.approx(4 / 6)  # a third of a level's share further up (level 2)


def test_link_text_scales_the_score_down() -> None:
    linked = "<a href=/x>a paragraph whose every word is a link, all of it</a>"
    document = parse_html(f"<body><div id=box><p>{linked}</p></div></body>")
    assert candidate_scores(document)[element(document, "box")] == 0.0


@pytest.mark.parametrize(
    "page",
    ["", "<body><p>short</p><p>also short</p></body>", "<body><ul><li>" + PROSE + "</li></ul></body>"],
)
def test_a_page_without_a_scored_paragraph_has_zeros(page: str) -> None:
    features = candidate_features(parse_html(page))
    assert features.shape[1] == len(FEATURES)
    assert not features.any()
    assert not features.flags.writeable


POST = "A short post, with a photo, and a few words about it."
REPLY = "says: yes, indeed, lovely, so true, thanks, more please."
THREAD = "".join(f"<div class=reply><p>Reader {i} {REPLY}</p></div>" for i in range(6))
BLOG = f"<body><div id=page><div class=entry-content><p>{POST}</p></div><div id=comments>{THREAD}</div></div></body>"


def test_with_readabilitys_names_a_short_post_outranks_the_thread_under_it() -> None:
    document = parse_html(BLOG)
    thread = element(document, "comments")
    post = int(document.elem_parent[document.block_elem[document.texts.index(POST)]])
    assert document.elem_attribute("class")[post] == "entry-content"
    assert int(np.argmax(candidate_scores(document))) != post  # by commas alone the replies win
    assert int(np.argmax(candidate_scores(document, names=True))) == post
    assert candidate_scores(document, names=True)[thread] == 0.0  # "comments": an unlikely candidate, not scored
    body = dict(zip(document.texts, readability_body(document).tolist(), strict=True))
    assert body[POST] and not body[f"Reader 0 {REPLY}"]


@pytest.mark.parametrize(
    ("attributes", "weight"),
    [
        ('class="post"', 25.0),  # positive
        ('class="share-tools"', -25.0),  # negative
        ('class="comment-content"', 0.0),  # both: "content" also spares it as an unlikely candidate
        ('class="post" id="promo"', 0.0),  # the class and the id weigh apart
        ('class="x hid"', -25.0),  # "hid" counts as a whole class only
        ('class="hidalgo"', 0.0),
        ('class="ENTRY"', 25.0),  # case aside
    ],
)
def test_a_class_or_id_moves_where_the_score_starts(attributes: str, weight: float) -> None:
    text = "one, two, three, and a few more words"  # 3 commas
    document = parse_html(f"<body><div {attributes}><p id=p>{text}</p></div></body>")
    box = int(document.elem_parent[element(document, "p")])
    assert candidate_scores(document, names=True)[box] == pytest.approx(1 + 3 + 5 + weight)
    assert candidate_scores(document)[box] == pytest.approx(1 + 3 + 5)


@pytest.mark.parametrize(
    ("page", "scored"),
    [
        (f'<div class="sidebar"><div id=box><p>{PROSE}</p></div></div>', False),
        (f'<table><tr><td><div class="sidebar"><div id=box><p>{PROSE}</p></div></div></td></tr></table>', True),
        (f'<div role="navigation"><div id=box><p>{PROSE}</p></div></div>', False),
        (f'<div class="sidebar main"><div id=box><p>{PROSE}</p></div></div>', True),  # "main": maybe a candidate
    ],
)
def test_no_paragraph_scores_inside_an_unlikely_candidate(page: str, scored: bool) -> None:
    document = parse_html(f"<body>{page}</body>")
    assert bool(candidate_scores(document, names=True)[element(document, "box")] > 0) is scored
    assert candidate_scores(document)[element(document, "box")] > 0  # without the names every one is


def test_a_page_without_a_body_has_no_readability_body() -> None:
    for page in ("", "<body><p>short</p></body>", f'<body><div class="comments"><p>{PROSE}</p></div></body>'):
        assert not readability_body(parse_html(page)).any()
