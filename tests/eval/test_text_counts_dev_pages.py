"""The compiled per-leaf text counts against the NumPy reference over every WCXB dev page (WCXB, Murrough Foley
2026) and every Dragnet 2012 page (Peters & Lecocq 2013, Moz): the same counts and events.

tests/unit/test_text_counts_compiled.py checks the same over generated leaves.
"""

from __future__ import annotations

import pytest

from service.features import text_stats
from service.features.text_stats import JoinedText
from service.parsing.lexbor import parse_html

compiled = pytest.mark.skipif(text_stats.count_leaves is None, reason="compiled text counts not built (make build-ext)")


@compiled
@pytest.mark.data
@pytest.mark.slow
def test_every_page_gets_the_same_counts_and_events(corpus_pages: list[bytes]) -> None:
    for page in corpus_pages:
        joined = JoinedText.of(parse_html(page).texts)
        assert joined.counts.tolist() == joined.python_counts().tolist()
        assert joined.events.tolist() == joined.python_events().tolist()
