"""The compiled feature passes against their NumPy references over every WCXB dev page (WCXB, Murrough Foley 2026)
and every Dragnet 2012 page (Peters & Lecocq 2013, Moz): texrex's charged markup and features, and Readability's
candidate scores and best scores above each leaf, and the page-type model's counts, the same bit for bit.

tests/unit/test_texrex_compiled.py, tests/unit/test_candidates_compiled.py and tests/unit/test_page_counts_compiled.py
check the same over malformed and built pages.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.parsing.document import Document
from service.parsing.lexbor import parse_html

from support import candidate_twins, page_count_twins, texrex_twins

TWINS = [
    pytest.param(texrex_twins.assert_texrex_twins_agree, marks=texrex_twins.compiled, id="texrex"),
    pytest.param(candidate_twins.assert_candidate_twins_agree, marks=candidate_twins.compiled, id="candidates"),
    pytest.param(page_count_twins.assert_page_count_twins_agree, marks=page_count_twins.compiled, id="page-counts"),
]


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("assert_twins_agree", TWINS)
def test_every_page_gets_the_same_features(
    corpus_pages: list[bytes], assert_twins_agree: Callable[[Document], None]
) -> None:
    for page in corpus_pages:
        assert_twins_agree(parse_html(page))
