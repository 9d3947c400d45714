"""On an article, text set off after its body by dropped text goes; a body split by a dropped box stays whole."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from service.backends.base import BlockLabels
from service.backends.pruning import AFTER_BODY_SHARE_MAX, BODY_GAP_CHARS, after_the_body, prune_boilerplate
from service.parsing.document import Document
from service.parsing.lexbor import parse_html

from support.pruned import COMMENTS, LONG_STORY

# Text after an article's body, set off from it by dropped text, with no class that says what it is.
SET_OFF = "<div><p>" + "Promoted words. " * 40 + "</p></div>"  # 640 characters a backend dropped
TAIL = "<div><p>" + "A reply from a reader of the blog. " * 8 + "</p></div>"


def kept_beside_promoted(
    html: str, *, include_comments: bool | None = None, page_type: str | None = None
) -> tuple[Document, np.ndarray]:
    """The page's leaves a backend kept (all but the promoted words), after pruning."""
    document = parse_html(html)
    dropped = np.array(["Promoted" in text for text in document.texts])
    labels = BlockLabels(scores=np.full(len(document), 0.9, np.float32), labels=~dropped)
    return document, prune_boilerplate(document, labels, include_comments=include_comments, page_type=page_type).labels


def article_with_tail(*, include_comments: bool | None = None, page_type: str | None = None) -> str:
    html = f"<article>{LONG_STORY}</article>{SET_OFF}{TAIL}"
    document, kept = kept_beside_promoted(html, include_comments=include_comments, page_type=page_type)
    return " ".join(t for t, keep in zip(document.texts, kept.tolist(), strict=True) if keep)


def test_on_an_article_text_set_off_after_the_body_goes() -> None:
    text = article_with_tail(page_type="article")
    assert "Sentence 79" in text and "A reply" not in text
    assert "A reply" in article_with_tail(page_type="listing")  # a listing's items are spread out
    assert "A reply" in article_with_tail()  # no page-type model: no guess
    # a thread with no class that names it is not what the caller's comments option speaks of
    assert "A reply" not in article_with_tail(page_type="article", include_comments=True)


def test_a_body_split_by_a_dropped_box_keeps_both_halves() -> None:
    half = "<p>" + " ".join(f"Half sentence {i} of the story, told at length." for i in range(40)) + "</p>"
    html = f"<article>{half}{SET_OFF}{half.replace('Half', 'Second')}</article>"
    document, kept = kept_beside_promoted(html, page_type="article")
    assert kept.tolist() == ["Promoted" not in text for text in document.texts]


def test_a_thread_after_the_body_stays_when_the_caller_keeps_comments() -> None:
    html = f"<article>{LONG_STORY}</article>{SET_OFF}{COMMENTS}"
    document, kept_with = kept_beside_promoted(html, include_comments=True, page_type="article")
    _, kept_default = kept_beside_promoted(html, page_type="article")
    reader = np.array(["Reader" in text for text in document.texts])
    assert kept_with[reader].all() and not kept_default[reader].any()


def after_the_body_by_hand(keep: list[bool], weights: list[float]) -> list[bool]:
    """The rule spelled out leaf by leaf: runs of kept leaves split where more than the gap was dropped."""
    runs: list[list[int]] = []
    dropped = 0.0
    for leaf, (kept, weight) in enumerate(zip(keep, weights, strict=True)):
        if not kept:
            dropped += weight
            continue
        if not runs or dropped > BODY_GAP_CHARS:
            runs.append([])
        runs[-1].append(leaf)
        dropped = 0.0
    after = [False] * len(keep)
    if sum(keep) < 2:
        return after
    sizes = [sum(weights[leaf] for leaf in run) for run in runs]
    body = sizes.index(max(sizes))
    for run, size in zip(runs[body + 1 :], sizes[body + 1 :], strict=True):
        if size < AFTER_BODY_SHARE_MAX * sizes[body]:
            for leaf in run:
                after[leaf] = True
    return after


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 1200)), min_size=1, max_size=40))
def test_after_the_body_is_the_rule_spelled_out(leaves: list[tuple[bool, int]]) -> None:
    keep = [kept for kept, _ in leaves]
    weights = [float(chars) for _, chars in leaves]
    assert after_the_body(np.array(keep), np.array(weights)).tolist() == after_the_body_by_hand(keep, weights)
