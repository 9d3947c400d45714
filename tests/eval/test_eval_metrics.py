"""Every metric on small hand-computed cases."""

from __future__ import annotations

import random

import numpy as np
import pytest

from service.evaluation.metrics import (
    PRF,
    Confusion,
    lcs_length,
    lcs_prf,
    score_page,
    shingle_counts,
    shingle_prf,
    snippet_share,
    summarize,
    summarize_by_type,
    token_set_prf,
    word_prf,
    word_tokens,
)


def test_word_tokens_are_lowercased_word_runs() -> None:
    assert word_tokens("Hello, World! It's 2026.") == ["hello", "world", "it", "s", "2026"]
    assert word_tokens("Größe — naïve") == ["größe", "naïve"]


def test_word_prf_counts_the_multiset_overlap() -> None:
    # overlap: b once (pred has 2, gold 1), c once (pred 1, gold 2) -> 2 of 4 each way
    score = word_prf(["a", "b", "b", "c"], ["b", "c", "c", "d"])
    assert score == PRF(0.5, 0.5, 0.5)


def test_word_prf_of_an_uneven_case() -> None:
    score = word_prf(["a", "b"], ["a", "b", "c", "d"])
    assert score.precision == 1.0
    assert score.recall == 0.5
    assert score.f1 == pytest.approx(2 / 3)


def test_empty_prediction_scores_zero() -> None:
    assert word_prf([], ["a"]) == PRF(0.0, 0.0, 0.0)
    assert lcs_prf([], ["a"]) == PRF(0.0, 0.0, 0.0)


def test_token_set_prf_ignores_repetition() -> None:
    score = token_set_prf(["a", "a", "b", "c"], ["b", "c", "d", "d"])
    assert score.precision == pytest.approx(2 / 3)
    assert score.recall == pytest.approx(2 / 3)
    assert score.f1 == pytest.approx(2 / 3)


def test_lcs_length_by_hand() -> None:
    assert lcs_length(list("abcbd"), list("bdcab")) == 3  # b, c, b
    assert lcs_length(list("abc"), list("abc")) == 3
    assert lcs_length(list("abc"), list("xyz")) == 0
    assert lcs_length([], list("abc")) == 0


def _dynamic_programming_lcs(a: list[str], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        previous_diagonal = 0
        for j, y in enumerate(b, start=1):
            above = row[j]
            row[j] = previous_diagonal + 1 if x == y else max(row[j], row[j - 1])
            previous_diagonal = above
    return row[-1]


def test_lcs_length_matches_dynamic_programming() -> None:
    rng = random.Random(7)
    for _ in range(200):
        a = [rng.choice("abcd") for _ in range(rng.randrange(0, 90))]
        b = [rng.choice("abcd") for _ in range(rng.randrange(0, 90))]
        assert lcs_length(a, b) == _dynamic_programming_lcs(a, b)


def test_lcs_prf_counts_every_occurrence() -> None:
    score = lcs_prf(["the", "cat", "sat"], ["the", "cat", "the", "sat", "mat"])
    assert score.precision == 1.0
    assert score.recall == pytest.approx(0.6)
    assert score.f1 == pytest.approx(0.75)


def test_shingles_by_hand() -> None:
    # shingles: {a b c d, b c d e} vs {a b c d, b c d f}: one shared, one each side
    assert shingle_counts("a b c d e", "a b c d f") == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert shingle_prf([shingle_counts("a b c d e", "a b c d f")]).f1 == pytest.approx(0.5)


def test_shingles_keep_case_and_short_texts_are_one_shingle() -> None:
    assert shingle_counts("A b c d", "a b c d") == (0.0, 0.5, 0.5)
    assert shingle_counts("a b", "a b") == (1.0, 0.0, 0.0)
    assert shingle_counts("", "a b c d") == (0.0, 0.0, 1.0)


def test_shingle_prf_sums_normalised_pages() -> None:
    pages = [(1.0, 0.0, 0.0), (0.0, 0.5, 0.5)]  # a perfect page and a disjoint one
    score = shingle_prf(pages)
    assert score.precision == pytest.approx(2 / 3)
    assert score.recall == pytest.approx(2 / 3)


def test_snippet_share_matches_whole_words_in_order() -> None:
    tokens = word_tokens("Well, hello world! Goodbye.")
    assert snippet_share(["Hello, World", "missing one"], tokens) == 0.5
    assert snippet_share(["ello"], tokens) == 0.0
    assert snippet_share(["world hello"], tokens) == 0.0
    assert snippet_share([], tokens) is None
    assert snippet_share(["—"], tokens) is None  # no words: nothing to look for


def test_confusion_gives_both_classes() -> None:
    confusion = Confusion.of(np.array([1, 1, 0, 0, 1], bool), np.array([1, 0, 1, 0, 1], bool))
    assert confusion == Confusion(tp=2, fp=1, fn=1, tn=1)
    assert confusion.positive.precision == pytest.approx(2 / 3)
    assert confusion.positive.recall == pytest.approx(2 / 3)
    assert confusion.negative == PRF(0.5, 0.5, 0.5)
    assert confusion + confusion == Confusion(4, 2, 2, 2)


def test_confusion_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="predicted labels"):
        Confusion.of(np.zeros(2, bool), np.zeros(3, bool))


def test_score_page_leaves_pages_without_gold_text_out_of_text_scores() -> None:
    score = score_page("p", "article", "Home Login", "", without_snippets=["Login"])
    assert score.word is None
    assert score.lcs is None
    assert score.without_kept == 1.0


def test_summarize_averages_per_page_and_pools_blocks() -> None:
    gold_blocks = np.array([True, False])
    perfect = score_page(
        "1", "article", "a b", "a b", predicted_blocks=np.array([True, False]), gold_blocks=gold_blocks
    )
    empty = score_page("2", "forum", "", "c d", predicted_blocks=np.array([False, False]), gold_blocks=gold_blocks)
    unscored = score_page("3", "forum", "x", "", with_snippets=["x"])
    summary = summarize([perfect, empty, unscored])
    assert summary.pages == 2
    assert summary.word == PRF(0.5, 0.5, 0.5)
    assert summary.with_found == 1.0
    assert summary.without_kept is None
    assert summary.blocks == Confusion(tp=1, fp=0, fn=1, tn=2)
    assert summary.as_dict()["word_f1"] == 0.5
    by_type = summarize_by_type([perfect, empty, unscored])
    assert list(by_type) == ["article", "forum"]
    assert by_type["article"].word.f1 == 1.0
    assert by_type["forum"].pages == 1
