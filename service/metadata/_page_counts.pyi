"""Types of the compiled page-type counts (``_page_counts.pyx``), for mypy."""

import numpy as np

def page_counts(
    path_code: np.ndarray,
    elem_path: np.ndarray,
    elem_parent: np.ndarray,
    block_paragraph: np.ndarray,
    chars: np.ndarray,
    in_link: np.ndarray,
    count_shift: int,
    long_chars: float,
    shares: np.ndarray,
    tag_counts: np.ndarray,
) -> tuple[float, float, int, float, int, int]: ...
