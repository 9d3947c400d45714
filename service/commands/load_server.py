"""The server a load or soak test drives: ``python -m service serve`` in its own session, pinned, measured.

It starts in a child process (its own process group, so its workers stop
with it), pinned to the given cores, and is ready when ``/readyz`` answers;
it is always stopped, on errors and Ctrl-C too. Its CPU time and memory are
read from ``/proc`` for the whole group.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from service.commands.pages import HOST, free_port

READY_TIMEOUT_S = 180.0  # a model backend loads at start; the machine may be busy
STOP_TIMEOUT_S = 30.0  # SIGTERM, then SIGKILL after this
LOG_TAIL_BYTES = 4000


def _group_stats(pgid: int) -> list[list[str]]:
    """The fields of ``/proc/<pid>/stat`` after the name, for each live process in group ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[2]) == pgid:  # after the name: state, ppid, pgrp, ..., utime (11), stime (12), ... rss (21)
            found.append(fields)
    return found


def process_group_cpu_s(pgid: int) -> float:
    """User + system CPU seconds of the live processes in group ``pgid``, from ``/proc/*/stat``."""
    ticks = sum(int(fields[11]) + int(fields[12]) for fields in _group_stats(pgid))
    return ticks / os.sysconf("SC_CLK_TCK")


def process_group_rss_bytes(pgid: int) -> int:
    """Resident memory of the live processes in group ``pgid`` together (the server and its workers)."""
    pages = sum(int(fields[21]) for fields in _group_stats(pgid))
    return pages * os.sysconf("SC_PAGE_SIZE")


def usable_cores(wanted: set[int]) -> set[int]:
    """``wanted`` where this machine has those cores, else every core it lets us use (a 1-core CI runner)."""
    available = os.sched_getaffinity(0) | set(range(os.cpu_count() or 1))
    return (wanted & available) or available


class Server:
    """``python -m service serve`` in its own session, pinned to ``cores``; stopped by its process group."""

    def __init__(self, backend: str, workers: int, cores: set[int], env: dict[str, str] | None = None) -> None:
        self.backend = backend
        self.workers = workers
        self.cores = cores
        self.port = free_port()
        self.env = {
            **os.environ,
            "EXTRACT_ENABLED_BACKENDS": json.dumps([backend]),
            "EXTRACT_DEFAULT_BACKEND": backend,
            **(env or {}),
        }
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-m", "service", "serve", "--host", HOST, "--port", str(self.port)]
        command += ["--workers", str(self.workers)]
        own = os.sched_getaffinity(0)
        os.sched_setaffinity(0, usable_cores(self.cores))  # inherited at fork, by the server and by its workers
        try:
            self.process = subprocess.Popen(
                command,
                env=self.env,
                stdout=self.log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: the workers are stopped with it
            )
        finally:
            os.sched_setaffinity(0, own)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(self.url + "/readyz", timeout=2.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server was not ready in {READY_TIMEOUT_S:.0f} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def stop(self) -> None:
        process = self.process
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.log.close()

    def cpu_s(self) -> float:
        """CPU seconds the server's processes (its group: the workers too) have used so far."""
        if self.process is None:
            return 0.0
        return process_group_cpu_s(self.process.pid)

    def rss_bytes(self) -> int:
        """Resident memory of the server's processes (its group: the workers too) now."""
        if self.process is None:
            return 0
        return process_group_rss_bytes(self.process.pid)

    def log_tail(self) -> str:
        self.log.flush()
        self.log.seek(max(0, self.log.seek(0, os.SEEK_END) - LOG_TAIL_BYTES))
        return self.log.read().decode("utf-8", "replace")

    def __enter__(self) -> Server:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
