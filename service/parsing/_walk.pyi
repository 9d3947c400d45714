"""Types of the compiled block walk (``_walk.pyx``), for mypy."""

from collections.abc import Mapping, Set

from selectolax.lexbor import LexborNode

SELECTOLAX_VERSION: str

def configure(
    *,
    text_id: int,
    br_id: int,
    skipped: Set[int],
    not_elements: Set[int],
    effects: Mapping[int, int],
    max_depth: int,
    block_level: int,
    inherited: int,
    in_pre: int,
    flattened: int,
    kept: int,
    kept_skipped: Set[int],
) -> None: ...
def walk(root: LexborNode) -> tuple: ...
