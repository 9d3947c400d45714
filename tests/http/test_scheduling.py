"""The event loop stays first in line: extraction threads run at a lower priority, the interpreter changes hands often.

Checked on a real server in this process: a backend notes the nice value of the
thread it runs on, and the test compares it with the event loop thread's.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

import httpx
import numpy as np
import pytest

from service.backends.base import Backend, BlockLabels
from service.backends.registry import BackendRegistry
from service.parsing.document import Document
from service.settings import Settings

from support.live_server import RULES_DEFAULT, LiveServer
from support.pages import ARTICLE

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's"),
]


def _nice(thread_id: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, thread_id)


class NiceProbe(Backend):
    """Labels every block as content and notes the nice value of the thread it ran on."""

    name = "probe"
    kind = "rules"
    version = "test-1"

    def __init__(self) -> None:
        self.seen: list[int] = []

    def classify(self, document: Document) -> BlockLabels:
        self.seen.append(_nice(threading.get_native_id()))
        return BlockLabels.from_scores(np.ones(len(document), dtype=np.float32))


def test_extraction_threads_run_below_the_event_loop_and_the_switch_interval_is_set(
    registry_with: Callable[..., BackendRegistry],
) -> None:
    probe = NiceProbe()
    settings = Settings(cpu_thread_niceness=7, switch_interval_ms=0.25, default_backend=RULES_DEFAULT)
    before = sys.getswitchinterval()
    try:
        with LiveServer(settings, registry=registry_with(probe)) as server:
            loop_thread = server.thread.native_id
            assert loop_thread is not None
            for _ in range(3):
                response = httpx.post(server.url + "/extract", json={"html": ARTICLE, "backend": "probe"}, timeout=30)
                assert response.status_code == 200
            assert probe.seen == [min(_nice(loop_thread) + 7, 19)] * 3
            assert sys.getswitchinterval() == pytest.approx(0.25e-3)
    finally:
        sys.setswitchinterval(before)  # process-wide: leave the other tests the interpreter's default


def test_no_niceness_leaves_the_threads_alone(registry_with: Callable[..., BackendRegistry]) -> None:
    probe = NiceProbe()
    settings = Settings(cpu_thread_niceness=0, default_backend=RULES_DEFAULT)
    before = sys.getswitchinterval()
    try:
        with LiveServer(settings, registry=registry_with(probe)) as server:
            loop_thread = server.thread.native_id
            assert loop_thread is not None
            httpx.post(server.url + "/extract", json={"html": ARTICLE, "backend": "probe"}, timeout=30)
            assert probe.seen == [_nice(loop_thread)]
    finally:
        sys.setswitchinterval(before)
