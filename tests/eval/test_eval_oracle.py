"""The oracle's score and the causes it gives for what it misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.evaluation.datasets import Page, load_corpus
from service.evaluation.oracle import NO_LOSS, format_report, oracle_case, run_oracle

from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "eval"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRACT_CACHE_DIR", str(tmp_path / "cache"))


def _page(tmp_path: Path, html: str, gold: str) -> Page:
    path = tmp_path / "page.html"
    path.write_text(html, encoding="utf-8")
    return Page(id="p", html_path=path, main_content=gold, page_type="article", domain="example.org")


def test_oracle_is_perfect_on_the_fixture_pages() -> None:
    cases = run_oracle(load_corpus(FIXTURES / "wcxb").pages, progress=False)
    assert [c.word.f1 for c in cases] == [1.0, 1.0, 1.0]
    assert {c.cause for c in cases} == {NO_LOSS}


def test_gold_missing_from_the_page(tmp_path: Path) -> None:
    case = oracle_case(_page(tmp_path, "<div>Loading...</div>", "Posts that were never served"))
    assert case is not None
    assert case.word.f1 == 0.0
    assert case.cause == "not in HTML"


def test_gold_only_in_a_script(tmp_path: Path) -> None:
    html = '<div>Loading</div><script>window.data = {"body": "Hydrated product description text"}</script>'
    case = oracle_case(_page(tmp_path, html, "Hydrated product description text"))
    assert case is not None
    assert case.cause == "only in scripts/attributes"


def test_gold_covering_part_of_a_long_block(tmp_path: Path) -> None:
    html = "<p>Gold words here then a long tail of words the annotators left out entirely today</p>"
    case = oracle_case(_page(tmp_path, html, "Gold words here"))
    assert case is not None
    assert case.cause == "partial blocks"


def test_pages_without_gold_are_skipped_and_the_report_lists_the_worst(tmp_path: Path) -> None:
    assert oracle_case(_page(tmp_path, "<p>Text</p>", "")) is None
    cases = run_oracle(load_corpus(FIXTURES / "wcxb").pages, progress=False)
    report = format_report(cases, worst=2, credit="WCXB")
    assert "F1 1.0000" in report
    assert "worst 2 pages" in report
    assert report.count("harbour.example") + report.count("bikes.example") == 2


def test_content_inside_noscript_is_counted(tmp_path: Path) -> None:
    html = "<div>Loading</div><noscript><p>Forum post served without scripts</p></noscript>"
    case = oracle_case(_page(tmp_path, html, "Forum post served without scripts"))
    assert case is not None
    assert case.word.f1 == 1.0
    assert case.in_noscript
    assert "inside <noscript> (kept by our parser): 1" in format_report([case], worst=1)
