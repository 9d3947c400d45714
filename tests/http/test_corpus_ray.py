"""The Ray engine on a real two-node Ray cluster on 127.0.0.1 writes the local engine's rows, page by page.

Each node offers one CPU and the run asks for two actors, so both nodes work.
The nodes are started with ``ray start --block`` in their own sessions and
stopped by their process groups, never by name, so other Ray clusters on the
machine are left alone. Selected with ``-m ray``; skipped without the ray extra.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.commands.pages import free_port
from service.settings import DEFAULT_BACKEND

from support.corpus_inputs import crawl, jsonl, output_rows, parquet, run_corpus
from support.paths import REPO

pytest.importorskip("ray", reason="the ray extra: pip install -e '.[ray]' (make test installs it)")
pytest.importorskip("pyarrow", reason="the corpus extra: pip install -e '.[corpus]'")

pytestmark = [pytest.mark.ray, pytest.mark.slow, pytest.mark.timeout(150)]

NODE_START_TIMEOUT_S = 30.0
NODE_STOP_TIMEOUT_S = 10.0
OBJECT_STORE_BYTES = 200_000_000  # per node: the shard list and counts are all that goes through it


def _distinct_free_ports(count: int, taken: set[int]) -> list[int]:
    """``count`` free ports, none twice and none in ``taken`` (which they join).

    A port freed by one probe can be the next probe's too: two Ray components given the same one
    refuse to start ("metrics_export is trying to use a port number ... used by other components").
    """
    chosen: list[int] = []
    while len(chosen) < count:
        port = free_port()
        if port not in taken:
            taken.add(port)
            chosen.append(port)
    return chosen


def _ray_start(arguments: list[str], log: Path, env: dict[str, str], taken: set[int]) -> subprocess.Popen[bytes]:
    """One Ray node on 127.0.0.1 with one CPU, in a session of its own, its every port free and not in ``taken``."""
    ports = ["--dashboard-agent-listen-port", "--dashboard-agent-grpc-port", "--metrics-export-port",
             "--runtime-env-agent-port", "--node-manager-port", "--object-manager-port"]  # fmt: skip
    command = [str(Path(sys.executable).with_name("ray")), "start", "--block", "--node-ip-address", "127.0.0.1",
               "--num-cpus", "1", "--object-store-memory", str(OBJECT_STORE_BYTES), "--disable-usage-stats",
               *arguments]  # fmt: skip
    for flag, port in zip(ports, _distinct_free_ports(len(ports), taken), strict=True):
        command += [flag, str(port)]
    with log.open("wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def _stop(node: subprocess.Popen[bytes]) -> None:
    """End the node's process group: `ray start --block` and what it started."""
    try:
        os.killpg(node.pid, signal.SIGTERM)
        node.wait(NODE_STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(node.pid, signal.SIGKILL)
        node.wait()
    except ProcessLookupError:
        pass


def _wait_for_port(port: int, node: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + NODE_START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert node.poll() is None, log.read_text(errors="replace")[-3000:]
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    pytest.fail(f"the Ray head did not listen on {port} within {NODE_START_TIMEOUT_S} s")


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[str]:
    """The address of a two-node Ray cluster on 127.0.0.1, stopped after the module's tests."""
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: Ray's socket paths must fit 107 bytes
    env = {
        **os.environ,
        "RAY_USAGE_STATS_ENABLED": "0",
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    taken_ports: set[int] = set()  # every port the two nodes are given, each once
    (port,) = _distinct_free_ports(1, taken_ports)
    nodes = [_ray_start(["--head", "--port", str(port), "--temp-dir", str(temp), "--include-dashboard", "false"],
                        temp / "head.log", env, taken_ports)]  # fmt: skip
    try:
        _wait_for_port(port, nodes[0], temp / "head.log")
        nodes.append(_ray_start(["--address", f"127.0.0.1:{port}"], temp / "worker.log", env, taken_ports))
        yield f"127.0.0.1:{port}"
    finally:
        for node in reversed(nodes):
            _stop(node)
        shutil.rmtree(temp, ignore_errors=True)


def test_the_ray_engine_writes_the_local_engines_rows(ray_cluster: str, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    expected = len(crawl(folder / "a.warc.gz", pages=5)) + len(jsonl(folder / "b.jsonl", range(4)))
    expected += len(parquet(folder / "c.parquet", range(4)))
    common = ["--backend", DEFAULT_BACKEND, "--workers", "2", "--format", "markdown", "--metadata"]
    on_ray = run_corpus(folder, "--out", tmp_path / "ray", "--engine", "ray", "--ray-address", ray_cluster, *common)
    assert on_ray.returncode == 0, on_ray.stderr[-5000:]
    local = run_corpus(folder, "--out", tmp_path / "local", "--engine", "local", *common)
    assert local.returncode == 0, local.stderr
    ray_rows, local_rows = output_rows(tmp_path / "ray"), output_rows(tmp_path / "local")
    assert len(ray_rows) == expected
    for ray_row, local_row in zip(ray_rows, local_rows, strict=True):
        assert ray_row == local_row
    assert sum(bool(row["text"]) for row in ray_rows) >= 5 + 4 + 4
    assert {row["backend"] for row in ray_rows} == {DEFAULT_BACKEND}


def test_an_actor_asks_for_a_gpu_only_for_a_model_backend_on_a_gpu_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.corpus.ray_engine import gpus_per_worker  # noqa: PLC0415

    assert gpus_per_worker(DEFAULT_BACKEND) == 0.0
    monkeypatch.setenv("EXTRACT_EXECUTION_PROVIDERS", '["CUDAExecutionProvider","CPUExecutionProvider"]')
    assert gpus_per_worker(DEFAULT_BACKEND) == 1.0
    assert gpus_per_worker("boilerpipe") == 0.0  # rules: no model to put on a GPU
