"""Types of the compiled texrex passes (``_texrex.pyx``), for mypy."""

import numpy as np

def configure(
    quantities: dict[str, int],
    n_counts: int,
    rows: dict[str, int],
    quotients: list[tuple[int, int, int, float]],
    containers: tuple[str, ...],
    doctypes: tuple[str, ...],
    tag_bits: dict[str, int],
    markup_bytes: dict[str, int],
    class_bits: dict[str, int],
) -> None: ...
def charge_elements(
    info: np.ndarray, attributes: np.ndarray, parent: np.ndarray, block_elem: np.ndarray, charged: np.ndarray
) -> None: ...
def unit_rows(
    per_leaf: np.ndarray,
    unit_of_leaf: np.ndarray,
    last_classes: np.ndarray,
    info: np.ndarray,
    block_paragraph: np.ndarray,
    doctype: int,
    source_bytes: int,
    rows: np.ndarray,
) -> None: ...
