"""``eval --metadata``: the per-field scoring rules, and the command on the fixture corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from service.evaluation.datasets import load_corpus
from service.evaluation.metadata_eval import Guess, evaluate_metadata, format_misses, is_right, token_f1

from support.paths import FIXTURES_DIR

WCXB = FIXTURES_DIR / "eval" / "wcxb"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRACT_CACHE_DIR", str(tmp_path / "cache"))


def test_token_f1_and_what_counts_as_right() -> None:
    assert token_f1("Jane Roe", "jane roe") == 1.0
    assert token_f1(None, "Jane Roe") == 0.0
    assert is_right("author", "Dylan Bailey, MS, RD", "Dylan Bailey, MS, RD, FAND")  # 6/7 tokens: F1 0.86
    assert not is_right("author", "Dylan Bailey", "Dylan Bailey, MS, RD, FAND")  # F1 0.67
    assert is_right("title", "Tide pools at dawn", "Tide Pools at Dawn")
    assert is_right("date_published", "2025-09-04", "2025-09-04")
    assert not is_right("date_published", "2025-09-05", "2025-09-04")
    assert not is_right("date_published", None, "2025-09-04")


def test_scores_count_right_answers_and_spurious_ones() -> None:
    pages = list(load_corpus(WCXB).pages)
    guesses = {
        "perfect": lambda html, url: Guess(
            "Tide pools at dawn" if "tide" in url else "Chain noise after rain", None, None
        ),
        "talkative": lambda html, url: Guess("Something else", "Some One", "2020-01-01", "article"),
    }
    scores = evaluate_metadata(pages, guesses)
    assert scores["perfect"].fields["title"].accuracy == 1.0
    assert scores["perfect"].fields["title"].with_gold == 2  # the third page's gold has no title
    assert scores["talkative"].fields["title"].accuracy == 0.0
    assert scores["talkative"].fields["author"].spurious_share == 1.0  # no page's gold names an author
    assert scores["talkative"].type_accuracy() == pytest.approx(1 / 3)


def test_eval_metadata_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "metadata.json"
    assert main(["eval", "--data", str(WCXB), "--part", "all", "--metadata", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "3 pages of wcxb (all part)" in printed
    assert "| ours |" in printed
    record = json.loads(out.read_text())["metadata"]
    assert (record["ours"]["title"]["accuracy"], record["ours"]["title"]["pages"]) == (1.0, 2)
    assert 0.0 <= record["ours"]["page_type"]["accuracy"] <= 1.0
    if "trafilatura" in record:  # the eval extra
        assert "page_type" not in record["trafilatura"]


def test_pages_without_gold_metadata_still_count_for_the_page_type() -> None:
    pages = list(load_corpus(FIXTURES_DIR / "eval" / "dragnet").pages)
    assert pages and all(page.gold_metadata is None for page in pages)
    scores = evaluate_metadata(pages, {"says article": lambda html, url: Guess(None, page_type="article")})
    assert scores["says article"].type_accuracy() == 1.0  # Dragnet's pages are articles and blog posts
    assert scores["says article"].fields["title"].with_gold == 0


def test_misses_are_listed_per_field(capsys: pytest.CaptureFixture[str]) -> None:
    pages = list(load_corpus(WCXB).pages)
    scores = evaluate_metadata(pages, {"wrong": lambda html, url: Guess("Something else")})
    listed = format_misses(scores["wrong"], 1)
    assert "## title: 2 missed, the first 1" in listed
    first = next(line for line in listed.splitlines() if "\tsaid " in line)
    assert first.split("\t")[1:] == ["said 'Something else'", f"gold {scores['wrong'].misses['title'][0][2]!r}"]
    assert main(["eval", "--data", str(WCXB), "--part", "all", "--metadata", "--misses", "3"]) == 0
    assert "# the service's misses (page, said, gold)" in capsys.readouterr().out
