"""What serve's workers leave in the multiprocess folder: a killed worker's live gauges, a failed start's mark."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client import multiprocess as prometheus_multiprocess

from service.metrics import MULTIPROC_ENV
from service.runtime.workers import forget_dead_workers, note_startup_failure, startup_failed

# A worker with ``count`` requests in flight, then killed (it never runs its shutdown), or alive until stdin closes.
WORKER = """
import os, signal, sys
from prometheus_client import Gauge
Gauge("in_flight", "x", multiprocess_mode="livesum").inc({count})
print("counted", flush=True)
os.kill(os.getpid(), signal.SIGKILL) if {killed} else sys.stdin.read()
"""


def in_flight(folder: Path) -> float:
    registry = CollectorRegistry()
    prometheus_multiprocess.MultiProcessCollector(registry, path=str(folder))
    return sum(s.value for metric in registry.collect() for s in metric.samples if s.name == "in_flight")


def test_a_killed_workers_live_gauges_are_dropped_by_the_next_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {**os.environ, MULTIPROC_ENV: str(tmp_path)}
    killed = subprocess.run([sys.executable, "-c", WORKER.format(count=2, killed=True)], env=env, check=False)
    assert killed.returncode == -signal.SIGKILL
    command = [sys.executable, "-c", WORKER.format(count=1, killed=False)]
    with subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as alive:
        assert alive.stdout is not None and alive.stdout.readline() == "counted\n"
        assert in_flight(tmp_path) == 3
        monkeypatch.setenv(MULTIPROC_ENV, str(tmp_path))
        dead = killed_pid(tmp_path, alive.pid)
        assert forget_dead_workers() == [dead]
        assert in_flight(tmp_path) == 1  # the living worker's stays
        assert forget_dead_workers() == []
        alive.communicate("")


def killed_pid(folder: Path, alive: int) -> int:
    (pid,) = {int(path.stem.rsplit("_", 1)[1]) for path in folder.glob("gauge_live*.db")} - {alive}
    return pid


def test_without_a_multiprocess_folder_nothing_is_looked_at(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    assert forget_dead_workers() == []
    note_startup_failure()  # nowhere to write: nothing happens


def test_a_failed_start_leaves_its_mark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MULTIPROC_ENV, str(tmp_path))
    assert not startup_failed(tmp_path)
    note_startup_failure()
    assert startup_failed(tmp_path)
