"""A one-line progress bar on stderr for long evaluation runs (no dependency).

Drawn only when stderr is a terminal, so CI logs and redirected output
stay clean, and at most a few times a second, so drawing costs nothing
next to the work it reports on.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

BAR_WIDTH = 30
REDRAW_SECONDS = 0.2


class Progress:
    """``with Progress(total, "label") as bar: ... bar.advance()``."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.done = 0
        self.started = time.perf_counter()
        self._drawn = 0.0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        if self.enabled:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        now = time.perf_counter()
        if self.enabled and now - self._drawn >= REDRAW_SECONDS:
            self._drawn = now
            self._draw()

    def _draw(self) -> None:
        share = min(self.done / self.total, 1.0)
        filled = round(share * BAR_WIDTH)
        elapsed = time.perf_counter() - self.started
        left = elapsed / share - elapsed if share else 0.0
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.0f}s elapsed, ~{left:.0f}s left")
        self.stream.flush()
