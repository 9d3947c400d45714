"""The byte scans before the parse (the budget's attribute names, the nesting guard's depth): the Python
references and their compiled twins, where built."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.parsing import budget, nesting
from service.parsing.budget import python_count_attribute_names

compiled = pytest.mark.skipif(
    budget.compiled_count_attribute_names is None, reason="compiled attribute-name scan not built (make build-ext)"
)

# Each scan as a test parameter; the compiled one skips where it is not built.
SCANS = [
    pytest.param(python_count_attribute_names, id="python"),
    pytest.param(budget.compiled_count_attribute_names, id="compiled", marks=compiled),
]

Scan = Callable[[bytes], int]


def assert_scans_agree(page: bytes) -> None:
    assert budget.compiled_count_attribute_names is not None
    assert budget.compiled_count_attribute_names(page) == python_count_attribute_names(page), page[:200]


def assert_depths_agree(page: bytes) -> None:
    assert nesting.compiled_deepest_block_nesting is not None
    assert nesting.compiled_deepest_block_nesting(page) == nesting.python_deepest_block_nesting(page), page[:200]
