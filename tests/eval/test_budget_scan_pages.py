"""The compiled byte scans against the Python ones on every WCXB dev page (WCXB, Murrough Foley 2026) and every
Dragnet 2012 page: the same attribute-name count and block nesting depth, page for page.

tests/unit/test_budget_compiled.py checks the same over generated tag soup and malformed pages.
"""

from __future__ import annotations

import pytest

from service.parsing.decode import to_utf8

from support.scans import assert_depths_agree, assert_scans_agree, compiled


@compiled
@pytest.mark.data
@pytest.mark.slow
def test_every_page_is_counted_alike(corpus_pages: list[bytes]) -> None:
    for page in corpus_pages:
        utf8 = to_utf8(page)[0]  # the bytes the budget and the nesting guard see
        assert_scans_agree(utf8)
        assert_depths_agree(utf8)
