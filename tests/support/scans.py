"""The page budget's attribute-name scans: the Python reference and its compiled twin, where built."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.parsing import budget
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
