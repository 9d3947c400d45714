"""Progress of a corpus run: a bar with pages/s and ETA on a terminal, a quiet line now and then otherwise.

Measured in input bytes (known before the run, so the ETA means something
however unevenly pages are sized), with the page count and rate beside it.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm import tqdm

LINE_EVERY_S = 30.0  # without a terminal, one line this often


class Progress:
    """``with Progress(total_bytes) as progress: progress.update(pages, bytes)``."""

    def __init__(self, total_bytes: int, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total_bytes = max(total_bytes, 1)
        self.pages = 0
        self.bytes = 0
        self.started = time.perf_counter()
        self._last_line = self.started
        self._bar = (
            tqdm(total=total_bytes, unit="B", unit_scale=True, file=self.stream, desc="corpus", smoothing=0.1)
            if self.stream.isatty()
            else None
        )

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.pages:
            self._line()

    def update(self, pages: int, read_bytes: int) -> None:
        self.pages += pages
        self.bytes += read_bytes
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.pages} pages, {self.rate():.1f} pages/s", refresh=False)
            self._bar.update(read_bytes)
        elif time.perf_counter() - self._last_line >= LINE_EVERY_S:
            self._line()

    def rate(self) -> float:
        return self.pages / max(time.perf_counter() - self.started, 1e-9)

    def _line(self) -> None:
        self._last_line = now = time.perf_counter()
        share = min(self.bytes / self.total_bytes, 1.0)
        elapsed = now - self.started
        left = elapsed / share - elapsed if share else float("nan")
        print(
            f"corpus: {self.pages} pages, {self.rate():.1f} pages/s, {share:.0%} of input, ~{left:.0f}s left",
            file=self.stream,
            flush=True,
        )
