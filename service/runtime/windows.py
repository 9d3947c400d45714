"""Padding and windowing for sequence models: bounded memory whatever the page length.

A page of tens of thousands of blocks is cut into windows of at most
``size`` blocks that overlap by ``overlap``; each block's score is taken
from the window in which it sits farthest from an edge (its context reaches
``overlap / 2`` blocks either way), then the windows are stitched back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Window:
    """Blocks ``start:stop`` of one sequence; the window's verdict counts for ``keep_start:keep_stop``."""

    start: int
    stop: int
    keep_start: int
    keep_stop: int


def windows(length: int, size: int, overlap: int) -> list[Window]:
    """Overlapping windows covering ``length`` blocks; their kept ranges tile it exactly once."""
    if not 0 <= overlap < size:
        raise ValueError(f"overlap {overlap} must be in [0, {size})")
    if length <= size:
        return [Window(0, length, 0, length)]
    stride = size - overlap
    starts = [*range(0, length - size, stride), length - size]
    out = []
    for i, start in enumerate(starts):
        keep_start = 0 if i == 0 else (starts[i - 1] + size + start) // 2
        keep_stop = length if i == len(starts) - 1 else (start + size + starts[i + 1]) // 2
        out.append(Window(start, start + size, keep_start, keep_stop))
    return out


def stitch(length: int, parts: Sequence[tuple[Window, np.ndarray]]) -> np.ndarray:
    """One score per block from the windows' outputs (each output covers its window's blocks)."""
    out = np.empty(length, dtype=np.float32)
    for window, scores in parts:
        out[window.keep_start : window.keep_stop] = scores[
            window.keep_start - window.start : window.keep_stop - window.start
        ]
    return out


def zero_batch(lengths: Sequence[int], width: int) -> tuple[np.ndarray, np.ndarray]:
    """Zero inputs for sequences of these lengths, filled row by row: (inputs [b, longest, width], lengths [b])."""
    counts = np.fromiter(lengths, dtype=np.int32, count=len(lengths))
    return np.zeros((len(counts), int(counts.max(initial=0)), width), dtype=np.float32), counts


def pad_batch(matrices: Sequence[np.ndarray], width: int) -> tuple[np.ndarray, np.ndarray]:
    """Stack sequences of different lengths: (inputs [b, longest, width] zero-padded, lengths [b] int32)."""
    batch, lengths = zero_batch([len(m) for m in matrices], width)
    for i, matrix in enumerate(matrices):
        batch[i, : len(matrix)] = matrix
    return batch, lengths
