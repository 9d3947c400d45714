"""The compiled markup reader against the Python reader over every WCXB dev page (WCXB, Murrough Foley 2026)
and every Dragnet 2012 page (Peters & Lecocq 2013, Moz): the same fields, so the same metadata.

tests/unit/test_markup_compiled.py checks the same over generated and malformed pages.
"""

from __future__ import annotations

import pytest

from service.parsing.decode import to_utf8

from support.markup_readers import assert_markup_read_alike, compiled_markup


@compiled_markup
@pytest.mark.data
@pytest.mark.slow
def test_every_page_is_read_alike(corpus_pages: list[bytes]) -> None:
    for page in corpus_pages:
        assert_markup_read_alike(to_utf8(page)[0])
