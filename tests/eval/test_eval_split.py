"""The split: deterministic, whole domains, each part near its share of every page type."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from service.evaluation.datasets import Corpus, Page, load_corpus
from service.evaluation.split import (
    FRACTIONS,
    PARTS,
    Split,
    SplitError,
    assign_parts,
    committed_split_path,
    make_split,
    select,
)

from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "eval"
TYPES = ("article", "article", "article", "forum", "product", "service")


def _synthetic_pages(count: int = 600) -> list[Page]:
    """Pages on domains of 1 to 6 pages, each domain mostly one type."""
    rng = random.Random(3)
    pages: list[Page] = []
    domain = 0
    while len(pages) < count:
        domain += 1
        kind = rng.choice(TYPES)
        for _ in range(rng.choice((1, 1, 1, 2, 3, 6))):
            page_type = kind if rng.random() < 0.8 else rng.choice(TYPES)
            pages.append(Page(f"{len(pages):04d}", Path("x.html"), "gold", page_type=page_type, domain=f"d{domain}"))
    return pages


def test_split_is_deterministic_and_seeded() -> None:
    pages = _synthetic_pages()
    assert assign_parts(pages, seed=1) == assign_parts(list(reversed(pages)), seed=1)
    assert assign_parts(pages, seed=1) != assign_parts(pages, seed=2)


def test_every_page_once_and_no_domain_in_two_parts() -> None:
    pages = _synthetic_pages()
    parts = assign_parts(pages)
    assert sorted(i for ids in parts.values() for i in ids) == sorted(p.id for p in pages)
    part_of = {i: part for part, ids in parts.items() for i in ids}
    domains: dict[str, set[str]] = {}
    for page in pages:
        domains.setdefault(page.domain, set()).add(part_of[page.id])
    assert all(len(found) == 1 for found in domains.values())


def test_parts_are_near_their_share_of_every_type() -> None:
    pages = _synthetic_pages()
    parts = assign_parts(pages)
    types = {p.id: p.page_type for p in pages}
    totals = Counter(types.values())
    for part, ids in parts.items():
        assert len(ids) / len(pages) == pytest.approx(FRACTIONS[part], abs=0.02)
        counts = Counter(types[i] for i in ids)
        for page_type, total in totals.items():
            assert counts[page_type] / total == pytest.approx(FRACTIONS[part], abs=0.05)


def test_split_round_trips_through_json(tmp_path: Path) -> None:
    corpus = load_corpus(FIXTURES / "wcxb")
    split = make_split(corpus, seed=5)
    path = tmp_path / "split.json"
    path.write_text(split.to_json(corpus.credit))
    assert Split.read(path) == split
    assert split.corpus_digest == corpus.digest()


def test_select_checks_the_split_covers_the_corpus() -> None:
    corpus = load_corpus(FIXTURES / "wcxb")
    assert len(select(corpus, "all", None)) == 3
    with pytest.raises(SplitError, match="no split"):
        select(corpus, "test", None)
    partial = Split("wcxb", 1, "", {"train": ("0001",), "validation": (), "test": ("0002",)})
    with pytest.raises(SplitError, match="in no part"):
        select(corpus, "test", partial)
    whole = Split("wcxb", 1, "", {"train": ("0001", "0003"), "validation": (), "test": ("0002",)})
    assert [p.id for p in select(corpus, "test", whole)] == ["0002"]
    with pytest.raises(SplitError, match="no part"):
        select(corpus, "holdout", whole)


@pytest.fixture(scope="module")
def dev_corpus(data_dir: Path) -> Corpus:
    return load_corpus(data_dir)


@pytest.mark.data
def test_committed_split_covers_every_dev_page_once(dev_corpus: Corpus) -> None:
    split = Split.read(committed_split_path(dev_corpus.name))
    ids = [i for part in PARTS for i in split.parts[part]]
    assert sorted(ids) == sorted(p.id for p in dev_corpus)
    assert len(ids) == len(set(ids))
    assert split.corpus_digest == dev_corpus.digest()


@pytest.mark.data
def test_committed_split_regenerates_and_keeps_domains_whole(dev_corpus: Corpus) -> None:
    split = Split.read(committed_split_path(dev_corpus.name))
    assert make_split(dev_corpus, split.seed) == split
    part_of = {i: part for part, ids in split.parts.items() for i in ids}
    domains: dict[str, set[str]] = {}
    for page in dev_corpus:
        domains.setdefault(page.domain or page.id, set()).add(part_of[page.id])  # a few pages name no domain
    assert all(len(parts) == 1 for parts in domains.values())
    for part in PARTS:
        assert len(split.parts[part]) / len(dev_corpus) == pytest.approx(FRACTIONS[part], abs=0.02)
