"""The compiled region-word scan against the Python reference over the ids and classes of every WCXB dev page
(WCXB, Murrough Foley 2026) and every Dragnet 2012 page (Peters & Lecocq 2013, Moz): the same bits.

tests/unit/test_regions_compiled.py checks the same over generated values.
"""

from __future__ import annotations

import pytest

from service.features import structure
from service.parsing.lexbor import parse_html

compiled = pytest.mark.skipif(
    structure.compiled_region_bits is None, reason="compiled region-word scan not built (make build-ext)"
)


@compiled
@pytest.mark.data
@pytest.mark.slow
def test_every_page_gets_the_same_region_bits(corpus_pages: list[bytes]) -> None:
    for page in corpus_pages:
        document = parse_html(page)
        for name in ("id", "class"):
            listed = list(document.elem_attribute(name).values())
            assert structure.compiled_region_bits is not None
            assert structure.compiled_region_bits(listed).tolist() == structure.python_region_bits(listed).tolist()
