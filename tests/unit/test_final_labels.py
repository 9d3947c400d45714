"""The pipeline's last stage: a raised threshold never empties a page the backend kept text on."""

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


def test_nothing_kept_by_the_backend_stays_nothing() -> None:
    assert decided([0.1, 0.2], 0.2) == [False, False]
