"""``bench --batch-curve``: the BiLSTM's inference docs/s against batch size, on the shipped model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnxruntime as ort

from service.commands.batch_curve import format_curve, measure_curve
from service.commands.pages import load_pages

from support.paths import REPO

PAGES = REPO / "tests" / "fixtures" / "eval" / "wcxb"  # three raw pages


def test_each_batch_size_gets_a_row_on_each_provider_here() -> None:
    result = measure_curve(load_pages(PAGES), sizes=(1, 2, 4))
    assert result["pages"] == 3 and result["blocks"] > 0
    curves = result["curves"]
    assert isinstance(curves, dict) and "CPUExecutionProvider" in curves
    for rows in curves.values():
        assert [row["batch"] for row in rows] == [1, 2, 4]
        assert all(row["docs_per_s"] > 0 and row["ms_per_batch_p99"] >= row["ms_per_batch_p50"] > 0 for row in rows)
    gpu_here = "CUDAExecutionProvider" in ort.get_available_providers()
    assert ("parity" in result) == gpu_here  # a GPU's scores are checked against the CPU's, and only then


def test_the_article_route_is_timed_with_its_own_wider_inputs() -> None:
    """``bilstm_article`` is no backend of its own: the curve reads it as ``bilstm``'s route on article pages."""
    article = measure_curve(load_pages(PAGES), sizes=(2,), model_name="bilstm_article")
    general = measure_curve(load_pages(PAGES), sizes=(2,), model_name="bilstm")
    assert (article["model"], general["model"]) == ("bilstm_article", "bilstm")
    assert article["input_width"] > general["input_width"]  # the article model also reads the ancestors' class words


def test_the_table_names_each_provider_and_the_parity_line() -> None:
    row = {"batch": 8, "docs_per_s": 100.0, "ms_per_batch_p50": 80.0, "ms_per_batch_p99": 90.0}
    result = {
        "curves": {"CUDAExecutionProvider": [row], "CPUExecutionProvider": [row]},
        "parity": {"blocks": 10, "max_abs_diff": 1e-6, "label_flips": 0},
    }
    table = format_curve(result)
    assert "CUDA docs/s" in table and "CPU docs/s" in table
    assert "over 10 blocks" in table and "0 labels flip" in table


def test_the_bench_command_prints_and_writes_the_curve(tmp_path: Path) -> None:
    out = tmp_path / "curve.json"
    command = [sys.executable, "-m", "service", "bench", "--batch-curve", "--data", str(PAGES)]
    done = subprocess.run(
        [*command, "--batch-sizes", "1,3", "--json", str(out)], capture_output=True, text=True, check=False, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    assert "CPU docs/s" in done.stdout
    record = json.loads(out.read_text())
    assert [row["batch"] for row in record["curves"]["CPUExecutionProvider"]] == [1, 3]
