"""Types of the compiled candidate scores (``_candidates.pyx``), for mypy."""

import numpy as np

def spread_scores(
    parent: np.ndarray,
    subtree_ends: np.ndarray,
    block_elem: np.ndarray,
    leaf_commas: np.ndarray,
    chars: np.ndarray,
    linked: np.ndarray,
    scored: np.ndarray,
    start: np.ndarray,
    levels: int,
    final: np.ndarray,
) -> None: ...
def best_above(
    final: np.ndarray, block_paragraph: np.ndarray, parent: np.ndarray, levels: int, out: np.ndarray
) -> None: ...
