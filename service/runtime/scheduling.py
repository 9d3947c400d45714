"""Keeping the event loop first in line for the CPU while extraction threads run in the same process.

One process serves HTTP on one thread (the event loop) and extracts pages on a
pool of threads. The kernel shares a core fairly between runnable threads, so
with four busy extraction threads the loop got about a fifth of the process's
CPU: under overload it fell behind on accepting connections, and even a 429
waited seconds. Extraction threads therefore run at a lower priority (a higher
nice value, per thread on Linux; it needs no privilege), and a shorter switch
interval makes a busy thread hand the interpreter to a waiting loop sooner.
"""

from __future__ import annotations

import os
import sys
import threading

MS_PER_S = 1e3


def share_interpreter(switch_interval_ms: float) -> None:
    """How long a thread may hold the interpreter while another waits for it (process-wide)."""
    sys.setswitchinterval(switch_interval_ms / MS_PER_S)


def lower_thread_priority(niceness: int) -> None:
    """Raise the calling thread's nice value by ``niceness`` (a pool's initializer).

    Linux only: there a thread's id names it to ``setpriority``; elsewhere the same
    call would renice whichever process has that number, so it does nothing.
    """
    if niceness and sys.platform.startswith("linux"):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + niceness)
