"""The corpus progress: a bar with pages/s and the ETA on a terminal, a plain line otherwise."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("tqdm", reason="the corpus extra: pip install -e '.[corpus]'")

from service.corpus.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_without_a_terminal_a_line_says_pages_rate_and_share() -> None:
    out = io.StringIO()
    with Progress(1000, stream=out) as progress:
        progress.update(7, 500)
        progress.update(3, 500)
    (line,) = out.getvalue().splitlines()
    assert line.startswith("corpus: 10 pages, ") and "pages/s, 100% of input" in line
    assert "\r" not in out.getvalue()


def test_nothing_to_do_prints_nothing() -> None:
    out = io.StringIO()
    with Progress(0, stream=out):
        pass
    assert out.getvalue() == ""


def test_on_a_terminal_a_bar_shows_bytes_pages_and_the_rate() -> None:
    out = Terminal()
    with Progress(2048, stream=out) as progress:
        progress.update(4, 1024)
        progress.update(4, 1024)
    drawn = out.getvalue()
    assert "\r" in drawn and "100%" in drawn and "8 pages" in drawn and "pages/s" in drawn
