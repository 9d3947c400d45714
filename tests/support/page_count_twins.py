"""The compiled page-type counts held to their NumPy reference on one page: the same numbers, of the same types."""

from __future__ import annotations

import numpy as np
import pytest

from service.metadata import page_type
from service.parsing.document import Document

compiled = pytest.mark.skipif(
    page_type._compiled is None, reason="compiled page-type counts not built (make build-ext)"
)


def assert_page_count_twins_agree(document: Document) -> None:
    served, reference = page_type.page_counts(document), page_type.python_page_counts(document)
    for name, one, other in zip(page_type.PageCounts._fields, served, reference, strict=True):
        if isinstance(other, np.ndarray):
            assert isinstance(one, np.ndarray) and one.dtype == other.dtype, name
            assert one.tobytes() == other.tobytes(), name
        else:
            assert type(one) is type(other) and one == other, name
