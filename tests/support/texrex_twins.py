"""The compiled texrex passes held to their NumPy reference on one page: the same counts and the same float32s."""

from __future__ import annotations

import numpy as np
import pytest

from service.features import texrex
from service.features.units import leaf_units, paragraph_units
from service.parsing.document import Document

compiled = pytest.mark.skipif(texrex._compiled is None, reason="compiled texrex passes not built (make build-ext)")


def assert_texrex_twins_agree(document: Document) -> None:
    """Charged markup per leaf, then every feature of leaves and paragraphs (with and without breaks), bit for bit."""
    info, per_leaf = texrex._per_leaf(document)  # the compiled charge's counts, where it is built
    attributes = document.elem_attribute_counts(texrex.COUNTED_ATTRIBUTES)
    assert per_leaf[:, :3].tolist() == texrex.python_charged(document, info, attributes).tolist()
    if not len(document):
        return
    for units in (leaf_units(document), paragraph_units(document), paragraph_units(document, split_at_breaks=False)):
        served, reference = texrex.texrex_features(document, units), texrex.python_rows(document, units)
        assert served.dtype == reference.dtype == np.float32
        assert served.shape == reference.shape
        assert served.tobytes() == reference.tobytes()  # NaN for NaN too
