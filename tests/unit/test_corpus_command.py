"""``python -m service corpus`` end to end: every input page is one output row, the runs resume, bad input is exit 2."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from support.corpus_inputs import Expected, article, crawl, jsonl, output_rows, parquet, run_corpus

pytest.importorskip("pyarrow", reason="the corpus extra: pip install -e '.[corpus]'")
pytest.importorskip("fastwarc", reason="the corpus extra: pip install -e '.[corpus]'")

from service.pipeline import extract

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

MIB = 1024 * 1024
BACKEND = "boilerpipe"  # no model to load: the engine is what is tested here; the Ray test uses a model


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[Expected]]]:
    """A directory of three inputs, one per format, with a 50 MB page among the WARC's broken records."""
    folder = tmp_path_factory.mktemp("crawl")
    expected = {
        "crawl.warc.gz": crawl(folder / "crawl.warc.gz", pages=8, big_page_bytes=50 * MIB),
        "pages.jsonl": jsonl(folder / "pages.jsonl", range(6)),
        "pages.parquet": parquet(folder / "pages.parquet", range(5)),
    }
    return folder, expected


@pytest.fixture(scope="module")
def first_run(inputs: tuple[Path, dict[str, list[Expected]]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out")
    done = run_corpus(inputs[0], "--out", out, "--backend", BACKEND, "--workers", "2", "--format", "markdown",
                      "--metadata", "--batch-size", "4")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "3 shards, 0 already complete, 3 to do" in done.stderr
    return out


def test_every_record_is_one_row_with_its_outcome(
    inputs: tuple[Path, dict[str, list[Expected]]], first_run: Path
) -> None:
    folder, expected = inputs
    rows = output_rows(first_run)
    for name, wanted in expected.items():
        got = [Expected(row["url"], row["error"]) for row in rows if row["source"] == str(folder / name)]  # type: ignore[arg-type]
        assert got == wanted, name
    assert len(rows) == sum(len(wanted) for wanted in expected.values())
    assert len({(row["source"], row["position"]) for row in rows}) == len(rows)


def test_the_rows_are_what_the_pipeline_extracts(first_run: Path) -> None:
    rows = {row["url"]: row for row in output_rows(first_run)}
    for url, page in [("http://example.org/0", article(0)), ("http://example.net/4", article(4))]:
        alone = extract(page, backend=BACKEND, url=url, output="markdown")
        row = rows[url]
        assert (row["title"], row["text"], row["markdown"]) == (alone.title, alone.text, alone.content)
        assert json.loads(row["metadata"]) == alone.metadata.to_json()
        assert row["text"] and row["backend"] == BACKEND and row["backend_version"] == alone.backend_version
    warc_row = rows["http://example.org/0"]
    assert (warc_row["http_status"], warc_row["content_type"], warc_row["charset"]) == (200, "text/html", "utf-8")
    assert str(warc_row["record_id"]).startswith("<urn:uuid:") and warc_row["fetched_at"]
    refused = rows["http://example.org/noise"]
    assert (
        refused["error"] == "not_html" and refused["text"] is None and "control characters" in refused["error_message"]
    )


def test_the_summary_counts_every_outcome(inputs: tuple[Path, dict[str, list[Expected]]], first_run: Path) -> None:
    summary = json.loads((first_run / "summary.json").read_text())
    wanted = Counter(e.error or "ok" for expected in inputs[1].values() for e in expected)
    assert summary["outcomes"] == dict(wanted)
    assert summary["pages"] == sum(wanted.values()) and summary["shards"] == {"total": 3, "complete": 3, "failed": 0}
    assert {"too_large", "truncated_record", "decode_error", "not_html", "empty_body"} <= set(wanted)


def test_the_summary_says_where_the_workers_time_went(first_run: Path) -> None:
    run = json.loads((first_run / "summary.json").read_text())["this_run"]
    seconds, shares = run["stage_s"], run["stage_share"]
    assert list(seconds) == list(shares) == ["read", "extract", "write"]
    assert seconds["read"] > 0 and seconds["extract"] > 0 and seconds["write"] > 0
    # each worker's stages lie inside the run, so together they fill at most the workers' time
    assert sum(seconds.values()) <= 2 * run["seconds"]
    assert all(0 <= share <= 1 for share in shares.values()) and shares["extract"] > 0 and sum(shares.values()) <= 1.0
    for stage, share in shares.items():
        assert share == pytest.approx(seconds[stage] / (2 * run["seconds"]), abs=1e-3)


def test_a_rerun_skips_complete_shards_and_redoes_a_lost_one(
    inputs: tuple[Path, dict[str, list[Expected]]], first_run: Path
) -> None:
    shards = sorted(first_run.glob("*.parquet"))
    before = {shard: shard.stat().st_mtime_ns for shard in shards}
    lost = next(shard for shard in shards if shard.name.startswith("pages.jsonl"))
    lost.rename(lost.with_name(lost.name + ".partial"))  # as a crash mid-shard leaves it
    done = run_corpus(inputs[0], "--out", first_run, "--backend", BACKEND, "--workers", "2", "--format", "markdown",
                      "--metadata")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "3 shards, 2 already complete, 1 to do" in done.stderr
    assert "the workers' time: read " in done.stderr and "extract " in done.stderr
    assert {shard: shard.stat().st_mtime_ns for shard in shards if shard != lost} == {
        shard: mtime for shard, mtime in before.items() if shard != lost
    }
    assert lost.exists() and not list(first_run.glob("*.partial"))
    assert json.loads((first_run / "summary.json").read_text())["shards"]["complete"] == 3


def test_other_options_redo_every_shard(inputs: tuple[Path, dict[str, list[Expected]]], tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    jsonl(folder / "a.jsonl", range(2))
    out = tmp_path / "out"
    assert run_corpus(folder, "--out", out, "--backend", BACKEND, "--workers", "1").returncode == 0
    again = run_corpus(folder, "--out", out, "--backend", BACKEND, "--workers", "1", "--format", "html")
    assert again.returncode == 0 and "1 shards, 0 already complete, 1 to do" in again.stderr
    assert all(row["html"] is not None for row in output_rows(out) if not row["error"])


def test_what_cannot_be_read_at_all_is_exit_2_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    done = run_corpus(tmp_path / "image.png", "--out", tmp_path / "out", "--backend", BACKEND)
    assert done.returncode == 2 and "not a recognised input" in done.stderr
    done = run_corpus(tmp_path / "nothing-*.warc.gz", "--out", tmp_path / "out")
    assert done.returncode == 2 and "no such file" in done.stderr
    done = run_corpus("", "--out", tmp_path / "out")  # not the current folder
    assert done.returncode == 2 and "an empty name is no input" in done.stderr
    jsonl(tmp_path / "a.jsonl", range(1))
    done = run_corpus(tmp_path / "a.jsonl", "--out", tmp_path / "out", "--backend", "nonesuch")
    assert done.returncode == 2 and "unknown_backend" in done.stderr and BACKEND in done.stderr
    assert not (tmp_path / "out").exists()


def test_the_default_backend_is_the_configured_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jsonl(tmp_path / "a.jsonl", range(1))
    monkeypatch.setenv("EXTRACT_DEFAULT_BACKEND", BACKEND)  # the child inherits it, as in a deployment
    assert run_corpus(tmp_path / "a.jsonl", "--out", tmp_path / "out", "--workers", "1").returncode == 0
    assert {row["backend"] for row in output_rows(tmp_path / "out")} == {BACKEND}


@pytest.mark.parametrize("where", ["a file", "under a file", "/proc", "nothing"])
def test_an_out_that_cannot_be_a_folder_is_exit_2_with_a_reason(tmp_path: Path, where: str) -> None:
    """Refused as the options are read (a file in the way, an empty name), or when made (/proc takes no folder)."""
    jsonl(tmp_path / "a.jsonl", range(1))
    out = {"a file": tmp_path / "a.jsonl", "under a file": tmp_path / "a.jsonl" / "out", "/proc": "/proc/out"}
    done = run_corpus(tmp_path / "a.jsonl", "--out", out.get(where, ""), "--backend", BACKEND)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = "error: cannot create --out /proc/out" if where == "/proc" else "error: argument --out: "
    assert said in done.stderr


def test_a_shard_that_cannot_be_written_fails_alone_and_loudly(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    jsonl(folder / "good.jsonl", range(2))
    jsonl(folder / "blocked.jsonl", range(2, 4))
    out = tmp_path / "out"
    assert run_corpus(folder, "--out", out, "--backend", BACKEND).returncode == 0
    blocked = next(out.glob("blocked.jsonl.*.parquet"))
    blocked.unlink()
    blocked.with_name(blocked.name + ".partial").mkdir()  # where its writer writes: a folder, so it cannot
    done = run_corpus(folder, "--out", out, "--backend", BACKEND, "--workers", "2")
    assert done.returncode == 1
    assert f"error: shard {folder / 'blocked.jsonl'} failed" in done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["shards"] == {"total": 2, "complete": 1, "failed": 1}
    (failed,) = [item for item in summary["inputs"] if item["failed"]]
    assert failed["input"].endswith("blocked.jsonl") and failed["pages"] is None
    assert [p.name for p in out.glob("*.parquet")] == [next(out.glob("good.jsonl.*.parquet")).name]


SIGINT_AS_AT_A_TERMINAL = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'service'; runpy.run_module('service', run_name='__main__')"
)


def test_ctrl_c_stops_the_run_at_once_and_keeps_the_finished_shards(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group: the workers ignore it, the command ends them and says so."""
    folder = tmp_path / "in"
    folder.mkdir()
    for n in range(4):
        jsonl(folder / f"part{n}.jsonl", range(n * 2500, (n + 1) * 2500))
    out = tmp_path / "out"
    arguments = ["corpus", str(folder), "--out", str(out), "--backend", BACKEND, "--workers", "2"]
    # Ctrl-C as a terminal's, whatever this test inherited: a shell's background job (CI's, say) starts with
    # SIGINT ignored, and a Python started so never turns it into KeyboardInterrupt
    command = [sys.executable, "-c", SIGINT_AS_AT_A_TERMINAL, *arguments]
    child = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("*.parquet")) and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert child.poll() is None, "the run ended before it could be interrupted: give it more pages"
        os.killpg(child.pid, signal.SIGINT)  # a terminal's Ctrl-C
        signalled = time.monotonic()
        _, stderr = child.communicate(timeout=60)
        stopped_after_s = time.monotonic() - signalled
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == 130 and "Traceback" not in stderr, stderr
    assert stopped_after_s < 10, f"ran on for {stopped_after_s:.1f} s after Ctrl-C"  # a shard takes longer
    assert "corpus: interrupted;" in stderr
    summary = json.loads((out / "summary.json").read_text())
    finished = len(list(out.glob("*.parquet")))
    assert 1 <= summary["shards"]["complete"] == finished < 4
    assert all(item["failed"].startswith("interrupted") for item in summary["inputs"] if item["failed"])
    again = run_corpus(folder, "--out", out, "--backend", BACKEND, "--workers", "2", timeout_s=240)
    assert again.returncode == 0, again.stderr
    assert f"{finished} already complete" in again.stderr
    assert len(output_rows(out)) == 4 * (2500 + 2)  # every line once: the finished shards were not redone


def test_an_input_whose_name_is_no_utf_8_gets_its_rows_named_with_the_bytes_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    jsonl(folder / "good.jsonl", range(2))
    odd = folder / os.fsdecode(b"bad\xffname.jsonl")  # a name a Latin-1 system wrote
    jsonl(odd, range(2, 4))
    out = tmp_path / "out"
    done = run_corpus(folder, "--out", out, "--backend", BACKEND)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    sources = Counter(str(row["source"]) for row in output_rows(out))
    assert sources == {str(folder / "bad\\xffname.jsonl"): 4, str(folder / "good.jsonl"): 4}
    summary = json.loads((out / "summary.json").read_text())
    assert sorted(item["input"] for item in summary["inputs"]) == sorted(sources)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_ray_address_nothing_answers_at_is_refused() -> None:
    from service.corpus.ray_engine import UnreachableCluster, check_reachable  # noqa: PLC0415

    with pytest.raises(UnreachableCluster, match="no Ray cluster answers at"):
        check_reachable(f"127.0.0.1:{_closed_port()}")
    with pytest.raises(UnreachableCluster):
        check_reachable(f"ray://127.0.0.1:{_closed_port()}")
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        check_reachable(f"127.0.0.1:{listening.getsockname()[1]}")  # something answers: Ray's to talk to
    check_reachable("auto")  # Ray's own forms are Ray's to resolve


def test_corpus_on_a_ray_address_nothing_answers_at_is_exit_2(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="the ray extra: pip install -e '.[ray]'")
    jsonl(tmp_path / "a.jsonl", range(1))
    address = f"127.0.0.1:{_closed_port()}"
    done = run_corpus(tmp_path / "a.jsonl", "--out", tmp_path / "out", "--backend", BACKEND, "--engine", "ray",
                      "--ray-address", address, timeout_s=60)  # fmt: skip
    assert done.returncode == 2 and f"error: no Ray cluster answers at {address}" in done.stderr, done.stderr
