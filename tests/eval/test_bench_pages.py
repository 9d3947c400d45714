"""``bench`` on any set of pages (--data, --part, --page-type), and its picture (--plot)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.commands.bench import add_arguments
from service.commands.bench_pages import PageSelectionError, selected_pages
from service.commands.bench_plot import Point, draw, label_offset, points, read_word_f1
from service.evaluation.split import Split

from support.corpora import tiny_corpus
from support.paths import FIXTURES_DIR, REPO


def bench_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_a_page_type_and_a_part_select_those_pages(tmp_path: Path) -> None:
    root = tiny_corpus(tmp_path / "tiny", {"01": "article", "02": "forum", "03": "article", "04": "article"})
    split = tmp_path / "split.json"
    split.write_text(
        json.dumps(
            {"corpus": "tiny", "seed": 1, "corpus_digest": "x", "parts": {"train": ["01", "02"], "test": ["03", "04"]}}
        ),
        encoding="utf-8",
    )
    pages, described = selected_pages(root, bench_args("--page-type", "article"))
    assert pages == [b"<p>01 article</p>", b"<p>03 article</p>", b"<p>04 article</p>"]
    assert "article pages" in described
    pages, _ = selected_pages(root, bench_args("--part", "test", "--split", str(split), "--page-type", "article"))
    assert pages == [b"<p>03 article</p>", b"<p>04 article</p>"]
    pages, _ = selected_pages(root, bench_args("--part", "train", "--split", str(split), "--limit", "1"))
    assert pages == [b"<p>01 article</p>"]


def test_a_selection_the_corpus_cannot_give_is_a_clear_error(tmp_path: Path) -> None:
    root = tiny_corpus(tmp_path / "tiny", {"01": "article"})
    with pytest.raises(PageSelectionError, match="no 'recipe' pages in tiny; it has article"):
        selected_pages(root, bench_args("--page-type", "recipe"))
    with pytest.raises(PageSelectionError, match="no split"):
        selected_pages(root, bench_args("--part", "test"))
    with pytest.raises(PageSelectionError, match="unknown layout 'nope'"):
        selected_pages(root, bench_args("--layout", "nope"))  # without --part too: the folder is read as one
    assert selected_pages(root, bench_args("--layout", "wcxb"))[0] == [b"<p>01 article</p>"]


def test_a_bare_folder_of_pages_still_benches_whole(tmp_path: Path) -> None:
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "a.html").write_bytes(b"<p>a</p>")
    assert selected_pages(tmp_path, bench_args()) == ([b"<p>a</p>"], f"{tmp_path.name} (every page)")


@pytest.mark.data
def test_the_dev_article_pages_of_the_test_part(data_dir: Path) -> None:
    split = Split.read(REPO / "service" / "evaluation" / "splits" / "wcxb-dev.json")
    types = {
        page_id: meta["page_type"]
        for page_id, meta in json.loads((data_dir / "metadata.json").read_text())["files"].items()
    }
    wanted = [page_id for page_id in split.parts["test"] if types[page_id] == "article"]
    pages, described = selected_pages(data_dir, bench_args("--part", "test", "--page-type", "article"))
    assert len(pages) == len(wanted) > 0
    assert "test part, article pages" in described


@pytest.mark.data
def test_bench_runs_the_selection_in_every_child(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    command = [sys.executable, "-m", "service", "bench", "--data", str(data_dir), "--backends", "", "--limit", "3"]
    command += ["--part", "test", "--page-type", "forum", "--json", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, cwd=REPO)
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    assert [row["system"] for row in record["results"]] == ["parse", "parse-python"]
    assert all(row["pages"] == 3 for row in record["results"])
    assert "forum pages" in record["pages"]


def test_eval_json_gives_the_points_peers_by_their_eval_name(tmp_path: Path) -> None:
    record = {
        "part": "test",
        "systems": {"mlp": {"summary": {"word_f1": 0.7}}, "trafilatura": {"summary": {"word_f1": 0.6}}},
    }
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    scores, part = read_word_f1(path)
    rows = [
        {"system": "mlp", "docs_per_s": 300.0},
        {"system": "peer:trafilatura", "docs_per_s": 25.0},
        {"system": "svm", "docs_per_s": 160.0},  # no F1: left out
    ]
    assert part == "test"
    assert points(rows, scores) == [Point("mlp", 300.0, 0.7, False), Point("trafilatura", 25.0, 0.6, True)]


def test_the_picture_is_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="matplotlib comes with the eval extra")
    out = tmp_path / "frontier.png"
    found = [Point("mlp", 300.0, 0.7, False), Point("trafilatura", 25.0, 0.6, True)]
    draw(found, {"parse floor": 900.0}, out, title="t", subtitle="s", part="test")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_saved_run_is_drawn_without_timing_anything(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="matplotlib comes with the eval extra")
    rows = [{"system": "parse", "docs_per_s": 900.0, "pages": 2}, {"system": "mlp", "docs_per_s": 300.0, "pages": 2}]
    saved, scores, out = tmp_path / "bench.json", tmp_path / "eval.json", tmp_path / "plot.png"
    saved.write_text(json.dumps({"cpu": "c", "data": "d", "pages": "p", "results": rows}), encoding="utf-8")
    scores.write_text(json.dumps({"part": "test", "systems": {"mlp": {"summary": {"word_f1": 0.7}}}}), encoding="utf-8")
    command = [sys.executable, "-m", "service", "bench", "--data", str(tmp_path), "--plot", str(out)]
    command += ["--results", str(saved), "--eval", str(scores)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_labels_of_close_points_move_apart() -> None:
    slow, fast = Point("trafilatura", 20.7, 0.8095, True), Point("bilstm_paper", 23.3, 0.8100, False)
    higher = Point("ensemble", 27.4, 0.831, False)
    found = [slow, fast, higher]
    assert label_offset(slow, found) == (-5, -11)  # a near point just right and one higher: below left
    assert label_offset(fast, found) == (5, -11)  # a near point higher: below
    assert label_offset(higher, found) == (5, 4)


def test_a_label_that_would_run_into_a_level_point_to_its_right_goes_below() -> None:
    crowded, level = Point("ensemble_cpu", 60.8, 0.835, False), Point("bilstm_int8", 85.1, 0.835, False)
    far = Point("mlp", 214.9, 0.835, False)
    found = [crowded, level, far]
    assert label_offset(crowded, found) == (5, -11)
    assert label_offset(level, found) == (5, 4)  # mlp is more than the span away


def test_bench_says_where_each_backends_time_goes(tmp_path: Path) -> None:
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "article.html").write_bytes((FIXTURES_DIR / "article.html").read_bytes())
    out = tmp_path / "bench.json"
    command = [sys.executable, "-m", "service", "bench", "--data", str(tmp_path), "--backends", "boilerpipe"]
    command += ["--json", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, cwd=REPO)
    assert done.returncode == 0, done.stderr
    rows = {row["system"]: row for row in json.loads(out.read_text())["results"]}
    stages = rows["boilerpipe"]["stage_ms_mean"]
    assert list(stages) == ["parse", "classify", "render", "metadata"]
    assert all(ms > 0 for ms in stages.values()) and sum(stages.values()) <= rows["boilerpipe"]["ms_mean"]
    assert not any(rows["parse"]["stage_ms_mean"].values())  # the floors have no stages
    table = done.stdout.split("stage ms, mean a page", 1)[1]
    assert "boilerpipe" in table and "parse-python" not in table


def test_rounds_time_every_system_each_round_and_read_speed_ups_within_them(tmp_path: Path) -> None:
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "article.html").write_bytes((FIXTURES_DIR / "article.html").read_bytes())
    out = tmp_path / "bench.json"
    command = [sys.executable, "-m", "service", "bench", "--data", str(tmp_path), "--backends", "boilerpipe"]
    command += ["--peers", "resiliparse", "--rounds", "2", "--json", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False, cwd=REPO)
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    systems = ["parse", "parse-python", "boilerpipe", "peer:resiliparse"]
    assert [sorted(timed) for timed in record["rounds"]] == [sorted(systems)] * 2
    rows = {row["system"]: row for row in record["results"]}
    assert list(rows) == systems
    for name, row in rows.items():
        assert row["docs_per_s_rounds"] == [timed[name]["docs_per_s"] for timed in record["rounds"]]
        assert row["docs_per_s"] in row["docs_per_s_rounds"]
    assert "round 2/2" in done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("boilerpipe / resiliparse"))
    ratios = [b["boilerpipe"]["docs_per_s"] / b["peer:resiliparse"]["docs_per_s"] for b in record["rounds"]]
    assert line.split()[-2:] == [f"{r:.2f}" for r in ratios]


def test_rounds_must_be_at_least_one() -> None:
    with pytest.raises(SystemExit):
        bench_args("--rounds", "0")
