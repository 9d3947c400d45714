"""The alignment's budget: above it a served request's alignment is linear in time, not quadratic in repeated words."""

from __future__ import annotations

import numpy as np
import pytest

from service.features.alignment import align_blocks, aligned_tokens, equal_pairs

PAGE = ["home", "news", "sport", "the", "night", "train", "is", "back", "the", "end", "contact", "the"]
TEXT = ["the", "night", "train", "is", "back", "the", "end"]


def test_equal_pairs_counts_every_pair_of_the_same_word() -> None:
    assert equal_pairs(PAGE, TEXT) == 3 * 2 + 5  # "the" three times by twice, five words once by once
    assert equal_pairs(["a"] * 100, ["a"] * 50) == 5_000
    assert equal_pairs(["a"], ["b"]) == 0


@pytest.mark.parametrize("max_pairs", [None, 10**6, 11])
def test_within_the_budget_the_alignment_is_the_exact_one(max_pairs: int | None) -> None:
    exact = [False, False, False, True, True, True, True, True, True, True, False, False]
    assert aligned_tokens(PAGE, TEXT, max_pairs).tolist() == exact


def test_above_it_the_common_start_and_end_align_in_order_and_the_middle_by_copies() -> None:
    page = ["menu", "a", "b", "c", "b", "x", "end"]
    text = ["menu", "b", "a", "q", "end"]
    # start "menu" and end "end" in order; between them the text's one "a" and one "b" take the first of each
    assert aligned_tokens(page, text, max_pairs=1).tolist() == [True, True, True, False, False, False, True]
    tail = ["b", "a", "end"]  # the common end runs as far as the two agree from the back
    assert aligned_tokens(["menu", "a", "b", "c", *tail], ["menu", *tail], max_pairs=1).tolist() == [
        True, False, False, False, True, True, True,
    ]  # fmt: skip
    assert aligned_tokens(page, page, max_pairs=1).all()  # the same tokens: all of them, in order


def test_a_page_of_one_repeated_word_is_aligned_whole_within_the_budget_of_a_request() -> None:
    words = ["word"] * 50_000  # 2.5 billion pairs: minutes for the exact alignment
    assert aligned_tokens(words, words, max_pairs=2_000_000).all()
    blocks = align_blocks(["Home", "word " * 20_000, "Share"], "word " * 20_000, max_pairs=2_000_000)
    assert blocks.tolist() == [False, True, False]


def test_an_empty_side_aligns_nothing() -> None:
    assert aligned_tokens([], TEXT, max_pairs=1).tolist() == []
    assert not np.any(aligned_tokens(PAGE, [], max_pairs=1))
