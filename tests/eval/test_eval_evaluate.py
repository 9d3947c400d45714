"""The evaluation loop and its tables, with stand-in systems on the fixture corpus."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from service.evaluation import tables
from service.evaluation.datasets import load_corpus
from service.evaluation.evaluate import BACKEND, PEER, System, evaluate
from service.evaluation.progress import Progress

from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "eval"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRACT_CACHE_DIR", str(tmp_path / "cache"))


def _echo_gold(gold_by_html: dict[bytes, str]) -> System:
    return System("echo", PEER, lambda html: (gold_by_html[html], None))


def test_a_peer_that_returns_the_gold_scores_one() -> None:
    corpus = load_corpus(FIXTURES / "wcxb")
    results = evaluate(corpus.pages, [_echo_gold({p.html(): p.main_content for p in corpus})], progress=False)
    summary = results["echo"].summary
    assert summary.pages == 3
    assert summary.word.f1 == pytest.approx(1.0)
    assert summary.lcs.f1 == pytest.approx(1.0)
    assert summary.blocks is not None
    assert summary.blocks.positive.f1 == pytest.approx(1.0)  # its text projected onto the blocks
    assert summary.without_kept == 0.0
    assert results["echo"].ms_per_doc >= 0.0
    record = results["echo"].as_dict()
    assert isinstance(record["pages"], dict)
    assert isinstance(record["by_page_type"], dict)
    assert set(record["pages"]) == {"0001", "0002", "0003"}
    assert set(record["by_page_type"]) == {"article", "forum", "product"}


def test_a_failing_peer_loses_the_page_but_a_failing_backend_raises() -> None:
    corpus = load_corpus(FIXTURES / "wcxb")

    def broken(_: bytes) -> tuple[str, np.ndarray | None]:
        raise RuntimeError("peer bug")

    results = evaluate(corpus.pages, [System("broken", PEER, broken)], progress=False)
    assert results["broken"].failures == ["0001", "0002", "0003"]
    assert results["broken"].summary.word.f1 == 0.0
    with pytest.raises(RuntimeError, match="peer bug"):
        evaluate(corpus.pages, [System("ours", BACKEND, broken)], progress=False)


def test_without_blocks_no_labels_are_made(tmp_path: Path) -> None:
    corpus = load_corpus(FIXTURES / "wcxb")
    results = evaluate(corpus.pages, [_echo_gold({p.html(): p.main_content for p in corpus})], blocks=False)
    assert results["echo"].summary.blocks is None
    assert not (tmp_path / "cache").exists()


def test_tables_show_every_system() -> None:
    corpus = load_corpus(FIXTURES / "wcxb")
    echo = _echo_gold({p.html(): p.main_content for p in corpus})
    empty = System("empty", PEER, lambda _: ("", None))
    results = evaluate(corpus.pages, [echo, empty], progress=False)
    overview = tables.overview(results)
    assert "word F1" in overview
    assert "ms/doc" in overview
    assert overview.count("\necho") == 1
    assert "product (1)" in tables.by_page_type(results)
    block_rows = tables.block_table(results).splitlines()
    assert "Negative class" in block_rows[0]
    assert block_rows[-1].split() == [
        "empty",
        "0.500",
        "1.000",
        "0.667",
        "0.000",
        "0.000",
        "0.000",
    ]  # 12 of 24 blocks are boilerplate


def test_progress_draws_only_when_enabled() -> None:
    stream = io.StringIO()
    with Progress(4, "work", stream=stream, enabled=True) as bar:
        for _ in range(4):
            bar.advance()
    assert "4/4" in stream.getvalue()
    assert stream.getvalue().endswith("\n")
    quiet = io.StringIO()
    with Progress(4, "work", stream=quiet, enabled=False) as bar:
        bar.advance()
    assert quiet.getvalue() == ""
