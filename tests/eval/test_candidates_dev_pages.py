"""The compiled candidate scores against the NumPy reference over every WCXB dev page (WCXB, Murrough Foley 2026)
and every Dragnet 2012 page (Peters & Lecocq 2013, Moz): the same scores and best scores above, bit for bit.

tests/unit/test_candidates_compiled.py checks the same over malformed and built pages.
"""

from __future__ import annotations

import pytest

from service.parsing.lexbor import parse_html

from support.candidate_twins import assert_candidate_twins_agree, compiled


@compiled
@pytest.mark.data
@pytest.mark.slow
def test_every_page_gets_the_same_scores(corpus_pages: list[bytes]) -> None:
    for page in corpus_pages:
        assert_candidate_twins_agree(parse_html(page))
