"""What ``serve``'s worker processes leave for each other and for the parent in the multiprocess folder.

With several workers, uvicorn's parent restarts a worker that dies and stops when one fails to start,
but it neither drops a killed worker's live gauges nor says, by its exit status, that a start failed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from prometheus_client import multiprocess as prometheus_multiprocess

from service.metrics import MULTIPROC_ENV

STARTUP_FAILED = "startup-failed"  # the mark a worker whose start failed leaves for the parent
_LIVE_GAUGES = re.compile(r"^gauge_live\w*?_(\d+)\.db$")


def forget_dead_workers() -> list[int]:
    """Drop the live gauges of workers that died without ending; their pids (multiprocess mode only).

    A worker killed (the OOM killer, SIGKILL) never runs its shutdown, so its requests in flight and
    queue depth stayed in the sum for good; uvicorn starts its replacement, which calls this.
    """
    folder = os.environ.get(MULTIPROC_ENV)
    if not folder:
        return []
    found = (_LIVE_GAUGES.match(path.name) for path in Path(folder).iterdir())
    dead = sorted({int(match.group(1)) for match in found if match} - {os.getpid()})
    dead = [pid for pid in dead if not _alive(pid)]
    for pid in dead:
        prometheus_multiprocess.mark_process_dead(pid, folder)
    return dead


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process has the pid: alive, and not ours to judge
        return True
    return True


def note_startup_failure() -> None:
    """Leave the parent the mark of a failed start (multiprocess mode only)."""
    folder = os.environ.get(MULTIPROC_ENV)
    if folder:
        (Path(folder) / STARTUP_FAILED).touch()


def startup_failed(folder: Path) -> bool:
    """Whether a worker writing to ``folder`` failed to start."""
    return (folder / STARTUP_FAILED).exists()
