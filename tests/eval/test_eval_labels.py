"""Block labels by alignment, on small synthetic pages, and their disk cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from service.evaluation import labels as labels_module
from service.evaluation.datasets import Page
from service.evaluation.labels import LabelCache, labels_for
from service.features.alignment import align_blocks, aligned_tokens
from service.parsing.lexbor import parse_html

from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "eval"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRACT_CACHE_DIR", str(tmp_path / "cache"))


def test_content_blocks_are_the_aligned_ones() -> None:
    labels = align_blocks(["Home", "The cat sat on the mat.", "Share"], "The cat sat on the mat.")
    assert labels.tolist() == [False, True, False]


def test_repeated_words_align_to_the_run_not_to_stray_copies() -> None:
    # page tokens: the the | the cat | news; the longest common run is "the cat"
    labels = align_blocks(["the the", "the cat", "news"], "the cat")
    assert labels.tolist() == [False, True, False]


def test_a_block_half_aligned_is_content_and_less_is_not() -> None:
    assert align_blocks(["alpha beta gamma delta"], "alpha beta").tolist() == [True]
    assert align_blocks(["alpha beta gamma delta epsilon"], "alpha beta").tolist() == [False]


def test_alignment_is_monotone() -> None:
    labels = align_blocks(["bravo", "alpha"], "alpha bravo")
    assert labels.sum() == 1  # the two cannot both align in the gold's order


def test_wordless_blocks_follow_their_neighbours() -> None:
    texts = ["|", "Intro text here", "|", "More text here", "•", "Footer links"]
    labels = align_blocks(texts, "Intro text here. More text here.")
    assert labels.tolist() == [False, True, True, True, False, False]


def test_empty_gold_and_empty_page() -> None:
    assert align_blocks(["Some text"], "").tolist() == [False]
    assert align_blocks([], "gold").shape == (0,)
    assert aligned_tokens([], ["gold"]).shape == (0,)


def _page(tmp_path: Path, html: str, gold: str) -> Page:
    path = tmp_path / "page.html"
    path.write_text(html, encoding="utf-8")
    return Page(id="p", html_path=path, main_content=gold)


def test_labels_for_caches_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = _page(tmp_path, "<nav>Menu</nav><p>Real words here.</p>", "Real words here.")
    cache = LabelCache(tmp_path / "labels-cache")
    first = labels_for(page, cache=cache)
    assert first.tolist() == [False, True]
    assert list((tmp_path / "labels-cache").rglob("*.npy"))

    def fail(*_: object) -> np.ndarray:
        raise AssertionError("should have come from the cache")

    monkeypatch.setattr(labels_module, "align_blocks", fail)
    assert labels_for(page, parse_html(page.html()), cache=cache).tolist() == [False, True]


def test_the_cache_key_moves_with_the_blocks_and_the_gold() -> None:
    key = LabelCache.key(["a", "b"], "gold")
    assert key == LabelCache.key(["a", "b"], "gold")
    assert key != LabelCache.key(["a b"], "gold")
    assert key != LabelCache.key(["a", "b"], "other gold")


def test_a_damaged_cache_entry_is_recomputed(tmp_path: Path) -> None:
    page = _page(tmp_path, "<p>Kept words.</p><footer>Footer</footer>", "Kept words.")
    cache = LabelCache(tmp_path / "c")
    document = parse_html(page.html())
    key = LabelCache.key(document.texts, page.main_content)
    cache.put(key, np.array([True]))  # wrong length for this page
    assert cache.get(key, len(document)) is None
    assert labels_for(page, document, cache=cache).tolist() == [True, False]


def test_boilernet_pages_use_their_own_labels() -> None:
    path = FIXTURES / "boilernet" / "p2.html"
    page = Page(id="p2", html_path=path, main_content="ignored", labels_in_html=True)
    assert labels_for(page).tolist() == [True, False]


def test_default_cache_lives_under_extract_cache_dir(tmp_path: Path) -> None:
    assert LabelCache().root.is_relative_to(tmp_path / "cache")
