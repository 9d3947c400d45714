"""The compiled candidate scores (``service/features/_candidates.pyx``) against the NumPy reference: the same doubles.

Over a corpus of malformed pages from tests/support/fuzz_pages.py and pages built for what the
spread turns on (paragraphs deeper and shallower than its five levels, commas of every script,
tags that start an element below zero, link text, signed zeros where a score cancels its tag's),
and over every WCXB dev and Dragnet page in tests/eval/test_feature_twins_dev_pages.py. The compiled
spread is optional (``make build-ext``): without it these tests skip, and the fallback test checks
that the reference then serves.
"""

from __future__ import annotations

import numpy as np
import pytest

from service.features import candidates
from service.features.candidates import FEATURES, candidate_features
from service.parsing.lexbor import parse_html

from support.candidate_twins import assert_candidate_twins_agree, compiled
from support.fuzz_pages import fuzz_corpus

FUZZ_PAGES = 300
FUZZ_SEED = 20261128
PROSE = "Words of a paragraph, long enough to be scored, with commas\u060c \uff0c as articles have them."

PAGES = [
    f"<div class=content><p>{PROSE}</p><p>{PROSE}</p></div><div class=sidebar><p>{PROSE}</p></div>",
    "<div>" * 9 + f"<p>{PROSE}</p>" + "</div>" * 9 + f"<section><p>{PROSE}</p></section>",
    f"<ul><li><h2>{PROSE}</h2></li></ul><table><tr><td>{PROSE}<a href=x>{PROSE}</a></td></table>",
    f"<h1><div>{PROSE}</div></h1><form><div>{'x' * 120}</div></form><pre>{PROSE}</pre>",
    "<p>short</p>",
    "",
]


@compiled
def test_the_fuzz_corpus_gets_the_same_scores() -> None:
    for page in fuzz_corpus(FUZZ_PAGES, FUZZ_SEED):
        assert_candidate_twins_agree(parse_html(page))


@compiled
@pytest.mark.parametrize("html", PAGES)
def test_built_pages_get_the_same_scores(html: str) -> None:
    assert_candidate_twins_agree(parse_html(html))


@pytest.mark.parametrize("spread", ["served", "reference"])
def test_the_features_read_the_scores(spread: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if spread == "reference":  # what serves where the spread is not built
        monkeypatch.setattr(candidates, "_compiled", None)
    document = parse_html(PAGES[0])
    features = candidate_features(document)
    assert features.shape == (3, len(FEATURES))
    assert features[:, FEATURES.index("in_best")].tolist() == [1.0, 1.0, 0.0]
    assert features[:, FEATURES.index("best_above")].tolist() == [1.0, 1.0, pytest.approx(2 / 3)]
    assert np.all(features[:, FEATURES.index("in_best_parent")] == 1.0)
