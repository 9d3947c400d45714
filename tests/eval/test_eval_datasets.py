"""The three corpus layouts, read from small hand-written fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from service.evaluation.datasets import CorpusError, detect_layout, domain_of, load_corpus

from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "eval"


def test_wcxb_layout() -> None:
    corpus = load_corpus(FIXTURES / "wcxb")
    assert corpus.layout == "wcxb"
    assert "Murrough Foley" in corpus.credit
    assert [p.id for p in corpus] == ["0001", "0002", "0003"]
    first = corpus.pages[0]
    assert first.page_type == "article"
    assert first.domain == "harbour.example"
    assert first.main_content.startswith("Tide pools at dawn")
    assert first.with_snippets == ("Anemones close when the water drains", "step only on bare rock")
    assert "About us" in first.without_snippets
    assert b"Tide pools" in first.html()  # gzipped on disk
    assert b"Rock boots" in corpus.pages[2].html()  # plain on disk


def test_wcxb_without_metadata_reads_type_from_the_gold(tmp_path: Path) -> None:
    root = tmp_path / "wcxb"
    shutil.copytree(FIXTURES / "wcxb", root)
    (root / "metadata.json").unlink()
    gold_path = root / "ground-truth" / "0003.json"
    record = json.loads(gold_path.read_text())
    record["_internal"]["page_type"]["primary"] = "category"
    gold_path.write_text(json.dumps(record))
    pages = {p.id: p for p in load_corpus(root)}
    assert pages["0003"].page_type == "collection"  # WCXB's other name for it
    assert pages["0001"].domain == "harbour.example"  # from the URL, www. dropped


def test_article_benchmark_layout() -> None:
    corpus = load_corpus(FIXTURES / "article-benchmark")
    assert corpus.layout == "article-benchmark"
    assert corpus.credit == ""
    assert [p.id for p in corpus] == ["a1", "b2"]
    assert corpus.pages[0].main_content.startswith("The tide pools fill")
    assert corpus.pages[0].domain == "news.example"
    assert {p.page_type for p in corpus} == {"article"}
    assert b"<article>" in corpus.pages[0].html()


def test_boilernet_layout_renders_the_labeled_blocks_as_gold() -> None:
    corpus = load_corpus(FIXTURES / "boilernet")
    assert corpus.layout == "boilernet"
    first = corpus.pages[0]
    assert first.labels_in_html
    words = first.main_content.split()
    assert "first." in words
    assert "bold" in words  # inherited from the labeled <p>
    assert "Share" not in words
    assert "footer" not in words  # no label: boilerplate


def test_layout_is_detected_or_refused(tmp_path: Path) -> None:
    assert detect_layout(FIXTURES / "wcxb") == "wcxb"
    assert detect_layout(FIXTURES / "article-benchmark") == "article-benchmark"
    assert detect_layout(FIXTURES / "boilernet") == "boilernet"
    with pytest.raises(CorpusError, match="no corpus in a known layout"):
        load_corpus(tmp_path)
    with pytest.raises(CorpusError, match="no corpus at"):
        load_corpus(tmp_path / "absent")
    with pytest.raises(CorpusError, match="unknown layout"):
        load_corpus(FIXTURES / "wcxb", "warc")


def test_wcxb_page_without_html_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "wcxb"
    shutil.copytree(FIXTURES / "wcxb", root)
    (root / "html" / "0003.html").unlink()
    with pytest.raises(CorpusError, match="has no HTML"):
        load_corpus(root)


def test_digest_is_stable_and_sees_changes(tmp_path: Path) -> None:
    root = tmp_path / "wcxb"
    shutil.copytree(FIXTURES / "wcxb", root)
    before = load_corpus(root).digest()
    assert before == load_corpus(FIXTURES / "wcxb").digest()
    (root / "html" / "0003.html").write_text("<p>changed</p>")
    assert load_corpus(root).digest() != before


def test_domain_of() -> None:
    assert domain_of("https://www.Example.com/a?b") == "example.com"
    assert domain_of("") == ""
