"""What the commands cannot use is one line on stderr and exit 2, checked before the work, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.cli import main

from support.corpora import tiny_corpus


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """What a command that exits 2 (by argparse or by the command) printed on stderr."""
    try:
        status = main(list(argv))
    except SystemExit as stop:  # argparse: a wrong option
        status = int(stop.code or 0)
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "argv",
    [
        ("eval", "--json", "/tmp"),
        ("eval", "--json", "/nonexistent/scores.json"),
        ("eval", "--favor-sweep", "--shifts", "abc"),
        ("bench", "--core", "99"),
        ("bench", "--limit", "-1"),
        ("bench", "--plot", "/nonexistent/plot.png"),
        ("bench", "--results", "/nonexistent/results.json"),
        ("soak", "--json", "/tmp"),
        ("eval", "--data", ""),  # not the current folder
        ("bench", "--data", "/nonexistent"),
        ("soak", "--data", ""),
        ("train", "gbt", "--data", "/nonexistent"),
        ("corpus", "/tmp", "--out", ""),
        ("corpus", "/tmp", "--out", "/tmp/out", "--workers", "0"),
        ("corpus", "/tmp", "--out", "/tmp/out", "--batch-size", "-1"),
        ("train", "gbt", "--out", "/dev/null/store"),
    ],
)
def test_an_option_that_cannot_be_used_is_refused_before_any_work(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    assert "error: argument" in refused(capsys, *argv)


@pytest.mark.parametrize(
    ("gold", "said"),
    [("{not json", "is no JSON"), ("[1, 2]", "is no wcxb corpus"), ('{"ground_truth": "x"}', "is no wcxb corpus")],
)
def test_a_corpus_of_junk_is_a_corpus_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, gold: str, said: str
) -> None:
    root = tiny_corpus(tmp_path / "junk", {"01": "article"})
    (root / "ground-truth" / "01.json").write_text(gold, encoding="utf-8")
    assert said in refused(
        capsys, "eval", "--data", str(root), "--part", "all", "--backends", "none", "--check-data", "none"
    )


def test_a_split_that_is_not_there_is_a_split_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Not the committed split taken instead, nor none: the one the caller named."""
    root = tiny_corpus(tmp_path / "tiny", {"01": "article"})
    argv = ("eval", "--data", str(root), "--split", str(tmp_path / "none.json"), "--backends", "none")
    assert "cannot read the split" in refused(capsys, *argv, "--check-data", "none")


@pytest.mark.parametrize(
    "split", ["{", "[]", "{}", '{"corpus": "tiny", "seed": "abc", "corpus_digest": "x", "parts": {}}']
)
def test_a_split_of_junk_is_a_split_error(capsys: pytest.CaptureFixture[str], tmp_path: Path, split: str) -> None:
    root = tiny_corpus(tmp_path / "tiny", {"01": "article"})
    (tmp_path / "split.json").write_text(split, encoding="utf-8")
    argv = ("eval", "--data", str(root), "--split", str(tmp_path / "split.json"), "--backends", "none")
    assert "is no split" in refused(capsys, *argv, "--check-data", "none")


def test_an_unknown_backend_is_refused_by_eval_and_bench(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = str(tiny_corpus(tmp_path / "tiny", {"01": "article"}))
    said = refused(capsys, "eval", "--data", root, "--part", "all", "--backends", "nope", "--check-data", "none")
    assert "error: unknown backend 'nope'; known backends: " in said
    assert "error: unknown backend 'nope'" in refused(capsys, "bench", "--data", root, "--backends", "nope")
    assert "error: unknown peer 'nope'" in refused(capsys, "bench", "--data", root, "--peers", "nope")


def test_a_setting_pydantic_refuses_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    said = refused(capsys, "serve", "--port", "99999")
    assert said.startswith("error: 1 validation error for Settings") and "port" in said


@pytest.mark.parametrize(
    ("name", "value", "argv"),
    [
        ("EXTRACT_PORT", "abc", ("serve", "--help")),  # serve's defaults read the settings as its parser is built
        ("EXTRACT_ENABLED_BACKENDS", "notjson", ("extract", "-")),  # pydantic-settings' own error, not pydantic's
    ],
)
def test_a_setting_from_the_environment_that_cannot_be_read_is_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str, value: str, argv: tuple[str, ...]
) -> None:
    from service.settings import get_settings  # noqa: PLC0415

    monkeypatch.setenv(name, value)
    get_settings.cache_clear()  # built once per process: this test's environment must be read
    try:
        assert name.removeprefix("EXTRACT_").lower() in refused(capsys, *argv).lower()
    finally:
        get_settings.cache_clear()


def test_ctrl_c_is_one_line_and_exit_130(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from service.commands import extract  # noqa: PLC0415

    def interrupted(_: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(extract, "run", interrupted)
    assert main(["extract", "-"]) == 130
    err = capsys.readouterr().err
    assert err == "interrupted\n"


def test_a_model_store_that_is_not_there_is_named_with_the_unknown_backend(tmp_path: Path) -> None:
    import os  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    page = tmp_path / "page.html"
    page.write_text("<article><p>" + "A sentence of the story. " * 20 + "</p></article>")
    env = {**os.environ, "EXTRACT_MODEL_STORE_DIR": str(tmp_path / "nowhere"), "EXTRACT_DEFAULT_BACKEND": "gbt"}
    done = subprocess.run([sys.executable, "-m", "service", "extract", str(page)], capture_output=True, text=True,
                          timeout=60, check=False, env=env)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = f"unknown backend 'gbt'; known backends: boilerpipe, grf (no model backend: {tmp_path / 'nowhere'}"
    assert said in done.stderr and "manifest.json is missing: EXTRACT_MODEL_STORE_DIR" in done.stderr
