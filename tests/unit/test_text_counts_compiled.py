"""The compiled per-leaf counts (``service/features/_text_counts.pyx``) against the NumPy reference: the same.

Over leaves generated from what the definitions turn on (terminators before and after white space,
``@`` between letters, ``://``, ``www.`` after a slash or a word, ``#`` before and after letters,
the copyright sign, upper case, digits, characters of two and three UTF-8 bytes and beyond the Basic
Multilingual Plane), and over every WCXB dev and Dragnet page in
tests/eval/test_text_counts_dev_pages.py. The compiled pass is optional (``make build-ext``):
without it these tests skip, and the fallback test checks that the reference then serves.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from service.features import text_stats
from service.features.text_stats import JoinedText

from support.token_texts import token_texts

compiled = pytest.mark.skipif(text_stats.count_leaves is None, reason="compiled text counts not built (make build-ext)")

_TOKENS = [
    "a", "Z", "é", "É", "7", "٣", " ", "\n", ".", "!", "?", "…", "。", "!!!", "@", "://", ":/", "www.", "ww.",
    "/", "#", "©", "-", ",", "»", "|", "w", "新", "ア", "\U0001f600", "\U00020000", "\u00a0", "\u2028",
]  # fmt: skip
leaves = token_texts(_TOKENS, per_text=10, texts=8)


@compiled
@settings(max_examples=3000, deadline=None)
@given(leaves)
def test_generated_leaves_get_the_same_counts_and_events(texts: list[str]) -> None:
    joined = JoinedText.of(texts)
    assert joined.counts.tolist() == joined.python_counts().tolist()
    assert joined.events.tolist() == joined.python_events().tolist()


@compiled
@pytest.mark.parametrize(
    ("texts", "events"),
    [
        (["Hi. Bye!", "me@x.org #tag C#"], [[2, 0, 0, 0], [0, 1, 0, 1]]),
        (["see https://a.b and www.c.d", "x/www.e.f"], [[0, 0, 2, 0], [0, 0, 0, 0]]),
        (["end.", ".start", "…"], [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]),  # a terminator needs text before it
    ],
)
def test_the_compiled_pass_counts_by_the_definitions(texts: list[str], events: list[list[int]]) -> None:
    assert JoinedText.of(texts).events.tolist() == events


def test_without_the_compiled_pass_the_reference_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_stats, "count_leaves", None)
    joined = JoinedText.of(["Hello, World. ©2026", "mail me@x.org"])
    assert joined.counts.tolist() == [[10, 4, 2, 2, 20, 1], [10, 0, 2, 0, 13, 0]]
    assert joined.events.tolist() == [[1, 0, 0, 0], [0, 1, 0, 0]]
    assert np.array_equal(joined.counts, joined.python_counts())
