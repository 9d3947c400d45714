"""``python -m service eval`` end to end on the fixture corpora."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from service.backends.peers import get_peer
from service.backends.registry import default_registry
from service.cli import main
from service.evaluation.gate import Floors

from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "eval"
WCXB = str(FIXTURES / "wcxb")
DRAGNET = str(FIXTURES / "dragnet")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRACT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("EXTRACT_CHECK_DATA_DIR", str(tmp_path / "no-check-corpus"))


def test_eval_reports_a_check_corpus_beside_the_main_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXTRACT_CHECK_DATA_DIR", DRAGNET)
    out = tmp_path / "scores.json"
    assert main(["eval", "--data", WCXB, "--part", "all", "--backends", "boilerpipe,mlp", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "3 pages of wcxb (all part)" in printed
    assert "2 pages of dragnet (all part); Dragnet data, Peters & Lecocq 2013, Moz" in printed
    assert printed.count("cut paragraphs") == 2
    check = json.loads(out.read_text())["check"]
    summary = check["systems"]["mlp"]["summary"]
    assert summary["cut_paragraphs"] == 0
    assert 0.0 <= summary["kept_link_share"] <= 1.0
    assert main(["eval", "--data", WCXB, "--part", "all", "--backends", "mlp", "--check-data", "none"]) == 0
    assert "dragnet" not in capsys.readouterr().out


def test_trafilatura_leaves_comments_out_where_the_gold_does(tmp_path: Path) -> None:
    pytest.importorskip("trafilatura")
    out = tmp_path / "scores.json"
    for corpus in (WCXB, DRAGNET):
        argv = ["eval", "--data", corpus, "--part", "all", "--backends", "none", "--peers", "trafilatura"]
        assert main([*argv, "--check-data", "none", "--json", str(out)]) == 0
    dragnet = json.loads(out.read_text())["systems"]["trafilatura"]["summary"]
    assert dragnet["word_precision"] == 1.0  # the fixture's comments would cost precision if kept
    html = (FIXTURES / "dragnet" / "html" / "1.html.gz").read_bytes()
    assert "reader42" in get_peer("trafilatura")(gzip.decompress(html))
    assert "reader42" not in get_peer("trafilatura", comments=False)(gzip.decompress(html))


def test_eval_prints_the_table_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "scores.json"
    assert main(["eval", "--data", WCXB, "--part", "all", "--backends", "all", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "3 pages of wcxb (all part)" in printed
    assert "Murrough Foley" in printed
    assert "\nboilerpipe" in printed
    assert "Negative class" in printed
    record = json.loads(out.read_text())
    assert record["part"] == "all"
    assert record["systems"]["boilerpipe"]["kind"] == "backend"
    assert 0.0 <= record["systems"]["boilerpipe"]["summary"]["word_f1"] <= 1.0


def test_eval_with_a_peer(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("resiliparse")
    assert main(["eval", "--data", WCXB, "--part", "all", "--backends", "none", "--peers", "resiliparse"]) == 0
    assert "\nresiliparse   peer" in capsys.readouterr().out


def test_eval_refuses_what_it_cannot_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["eval", "--data", WCXB, "--part", "all", "--peers", "goose"]) == 2
    assert "unknown peer 'goose'" in capsys.readouterr().err
    assert main(["eval", "--data", WCXB, "--part", "test"]) == 2
    assert "no split" in capsys.readouterr().err
    monkeypatch.setenv("EXTRACT_DATA_DIR", str(tmp_path / "absent"))  # a --data that is no folder: argparse's
    assert main(["eval", "--part", "all"]) == 2
    assert "no corpus at" in capsys.readouterr().err
    assert main(["eval", "--data", WCXB, "--part", "all", "--backends", "none"]) == 2
    assert "nothing to evaluate" in capsys.readouterr().err


def test_oracle_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--data", WCXB, "--part", "all", "--oracle", "--worst", "2"]) == 0
    printed = capsys.readouterr().out
    assert "oracle (exactly the aligned blocks)" in printed
    assert "F1 1.0000" in printed


def test_make_split_then_evaluate_its_test_part(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    split = tmp_path / "split.json"
    assert main(["eval", "--data", WCXB, "--make-split", "--split", str(split)]) == 0
    parts = json.loads(split.read_text())["parts"]
    assert sorted(i for ids in parts.values() for i in ids) == ["0001", "0002", "0003"]
    capsys.readouterr()
    assert main(["eval", "--data", WCXB, "--split", str(split), "--part", "train", "--oracle"]) == 0
    assert f"{len(parts['train'])} pages of wcxb (train part)" in capsys.readouterr().out


def test_update_floors_raises_and_refuses_to_lower(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "wcxb"
    shutil.copytree(FIXTURES / "wcxb", root)
    split, floors_path = tmp_path / "split.json", tmp_path / "floors.json"
    split.write_text(json.dumps({"corpus": "wcxb", "seed": 1, "corpus_digest": "", "parts": {
        "train": [], "validation": [], "test": ["0001", "0002", "0003"]}}))  # fmt: skip
    common = ["eval", "--data", str(root), "--split", str(split), "--floors", str(floors_path), "--update-floors"]
    assert main(common) == 0
    pinned = Floors.read(floors_path)
    assert set(pinned.floors) == set(default_registry().names())  # every shipped backend gets a floor
    assert "floor none ->" in capsys.readouterr().out
    Floors(pinned.corpus, pinned.corpus_digest, floors={"boilerpipe": 1.5}).write(floors_path)
    assert main(common) == 2
    assert "lowering it takes --allow-lower" in capsys.readouterr().err
    assert main([*common, "--allow-lower"]) == 0
    assert Floors.read(floors_path).floors["boilerpipe"] == pinned.floors["boilerpipe"]


@pytest.mark.parametrize(
    ("flag", "chosen"), [("--favor-sweep", "gbt: precision"), ("--article-sweep", "gbt: +"), ("--other-sweep", "gbt: ")]
)
def test_the_sweeps_print_every_shift_and_their_choice(flag: str, chosen: str, capsys: pytest.CaptureFixture[str]):
    assert main(["eval", "--data", WCXB, "--part", "all", "--backends", "gbt", "--check-data", "none", flag]) == 0
    printed = capsys.readouterr().out
    assert "3 pages of wcxb (all part)" in printed and chosen in printed
    assert printed.count("| `gbt` | ") >= 7  # a row per shift tried
