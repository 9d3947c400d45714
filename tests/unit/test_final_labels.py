"""The pipeline's last stage: a raised threshold never empties a page the backend kept text on, nor does the backend."""

from __future__ import annotations

import numpy as np

from service.backends.base import BlockLabels
from service.parsing.lexbor import parse_html
from service.pipeline import final_labels

POST = "<article><h1>A short post</h1><p>Two lines about the photos below, and who took them.</p></article>"


def decided(scores: list[float], shift: float) -> list[bool]:
    document = parse_html(POST)
    assert len(document) == len(scores)
    labels = BlockLabels.from_scores(np.array(scores))
    return final_labels(document, labels, shift, include_comments=None, page_type="article").labels.tolist()


def test_a_shift_that_would_keep_nothing_leaves_the_backends_own_decision() -> None:
    assert decided([0.55, 0.6], 0.2) == [True, True]  # both above 0.5, neither above 0.7


def test_a_shift_that_keeps_something_applies() -> None:
    assert decided([0.55, 0.8], 0.2) == [False, True]


def test_a_page_the_backend_kept_nothing_of_gets_the_post_readability_finds() -> None:
    assert decided([0.1, 0.2], 0.2) == [True, True]  # the short post whole, its heading with it


BLOG = (
    '<nav><a href="/">Home</a> <a href="/archive">Archive</a></nav>'
    '<div class="entry"><p>A photo from the show, and a few words about it, as short posts have them.</p>'
    "<p hidden>Share this, and that, and the other, on every network there is.</p></div>"
    '<div id="comments"><p>Reader 1: yes, lovely, so true, thanks, more of these please.</p></div>'
)


def kept_of_nothing(html: str, include_comments: bool | None) -> str:
    document = parse_html(html)
    labels = BlockLabels.from_scores(np.zeros(len(document)))
    kept = final_labels(document, labels, 0.0, include_comments=include_comments, page_type=None).labels
    return " ".join(text for text, keep in zip(document.texts, kept.tolist(), strict=True) if keep)


def test_the_fallback_keeps_no_menu_hidden_text_or_thread_the_caller_does_not_keep() -> None:
    post = "A photo from the show, and a few words about it, as short posts have them."
    assert kept_of_nothing(BLOG, include_comments=None) == post
    assert kept_of_nothing(BLOG, include_comments=False) == post
    # a thread Readability's names do not rule out ("comments" they do), where the post it finds lies
    thread = f'<section class="discussion">{BLOG}</section>'
    assert kept_of_nothing(thread, include_comments=None) == ""
    assert post in kept_of_nothing(thread, include_comments=True)


def test_a_page_without_a_paragraph_readability_would_score_stays_empty() -> None:
    assert kept_of_nothing('<ul><li><a href="/">Home</a></li><li>Contact</li></ul>', include_comments=None) == ""
