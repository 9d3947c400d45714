"""The local engine: a pool of worker processes over the shards, each loading the models once.

Workers are spawned (not forked), so each one builds its own ONNX sessions
after start-up, pinned to one BLAS thread like the server's workers. They send
(pages, bytes) after every batch over a queue for the progress bar. A shard
that fails (an unreadable file, a crashed worker) is reported and the others
go on; its output stays unwritten, so the next run does it again. A worker
whose command is gone (killed) ends too. Ctrl-C is the command's to answer:
the workers ignore it, and the command cancels the shards not begun and ends
the workers at once (:class:`Interrupted`), the finished shards kept.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from queue import Empty
from typing import Any

from threadpoolctl import threadpool_limits

from service.corpus.batch import BatchExtractor, Options
from service.corpus.shards import Done, Report, Shard, pool_size, process_shard

POLL_S = 0.2
PARENT_POLL_S = 1.0  # how often a worker looks whether the command that started it is still there

INTERRUPTED = "interrupted: the run was stopped before this shard was finished; the next run does it"
STOP_WAIT_S = 5.0  # how long a worker told to end may take before the command goes on without it

# Per worker process: built once by the pool's initializer.
_worker: dict[str, Any] = {}


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a local run: the shards finished before it, and those left (each :data:`INTERRUPTED`)."""

    def __init__(self, done: dict[Path, Done], failed: dict[Path, str]) -> None:
        super().__init__("interrupted")
        self.done, self.failed = done, failed


def _start_worker(options: Options, queue: Any, parent: int) -> None:
    # Ctrl-C reaches the whole process group: a worker that took it would fail its shard and go on to the next
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(parent,), name="parent-watch", daemon=True).start()
    threadpool_limits(1, user_api="blas")
    _worker["extractor"] = BatchExtractor(options)
    _worker["queue"] = queue


def _exit_with_parent(parent: int) -> None:
    """End this worker once the command that started it, ``parent``, is gone (killed, or ended by a signal).

    Without it, a stopped run's workers went on as orphans (some 200 MB each) and finished shards for no one.
    ``parent`` comes from the command itself: a worker that started while it was being killed would read
    its new parent from ``os.getppid()``.
    """
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(1)


def _run_shard(shard: Shard) -> Done:
    queue = _worker["queue"]
    return process_shard(shard, _worker["extractor"], lambda pages, size: queue.put((pages, size)))


def run_local(
    shards: list[Shard], options: Options, workers: int, report: Report
) -> tuple[dict[Path, Done], dict[Path, str]]:
    """Each finished shard's result, and the shards that failed with why; :class:`Interrupted` on Ctrl-C."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    done: dict[Path, Done] = {}
    failed: dict[Path, str] = {}
    largest_first = sorted(shards, key=lambda shard: shard.size_bytes, reverse=True)
    processes = pool_size(workers, len(shards))
    start = (options, queue, os.getpid())
    pool = ProcessPoolExecutor(processes, context, initializer=_start_worker, initargs=start)
    running: dict[Future[Done], Shard] = {}
    try:
        running.update({pool.submit(_run_shard, s): s for s in largest_first})
        while running:
            finished, _ = wait(running, timeout=POLL_S, return_when=FIRST_COMPLETED)
            _drain(queue, report)
            for future in finished:
                shard = running.pop(future)
                _collect(future, shard, done, failed)
    except KeyboardInterrupt:
        _stop(pool)
        failed.update({shard.input: INTERRUPTED for shard in running.values()})
        raise Interrupted(done, failed) from None
    pool.shutdown()
    _drain(queue, report)
    return done, failed


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel the shards not begun and end the workers now; a shard cut short leaves only its ``.partial`` file.

    The pool's own shutdown waits for every running shard; Python 3.14's ``terminate_workers`` is what this
    does, through the pool's process table (3.11 has no public one).
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(STOP_WAIT_S)


def _collect(future: Future[Done], shard: Shard, done: dict[Path, Done], failed: dict[Path, str]) -> None:
    try:
        done[shard.input] = future.result()
    except Exception as error:  # the shard is redone by the next run; the others go on
        failed[shard.input] = f"{type(error).__name__}: {error}"


def _drain(queue: Any, report: Callable[[int, int], None]) -> None:
    while True:
        try:
            pages, size = queue.get_nowait()
        except Empty:
            return
        report(pages, size)
