"""Types of the compiled per-leaf counts (``_text_counts.pyx``), for mypy."""

import numpy as np

def configure(letter: int, upper: int, digit: int, punctuation: int, space: int, terminator: int) -> None: ...
def count_leaves(
    units: np.ndarray,
    classes: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    counts: np.ndarray,
    events: np.ndarray,
) -> None: ...
