"""A reply's quote of a post the page shows goes; a quotation found nowhere else on the page stays."""

from __future__ import annotations

import numpy as np
import pytest

from service.backends import pruning
from service.backends.pruning import quoted_copies
from service.parsing.lexbor import parse_html

from support.pruned import pruned_text

POST = "<p>Has anyone measured the real range of the new battery pack on a cold morning?</p>"
REPLY = "<p>I got about twenty miles out of mine at five degrees, with a few hills on the way.</p>"


def thread(quote: str) -> str:
    return f"<main><article>{POST}</article><article><blockquote>{quote}</blockquote>{REPLY}</article></main>"


def test_a_reply_quoting_a_post_the_page_keeps_loses_the_copy() -> None:
    text = pruned_text(thread(POST))
    assert text.count("Has anyone measured") == 1  # the post, not its copy in the reply
    assert "twenty miles" in text
    document = parse_html(thread(f"<div>{POST}</div>"))  # the copy nested deeper in the quote
    copies = quoted_copies(document, np.ones(len(document), bool))
    assert copies.sum() == 1 and "Has anyone" in document.texts[int(np.flatnonzero(copies)[0])]


def test_a_quotation_the_page_shows_nowhere_else_stays() -> None:
    cited = "<p>The battery is rated for 30 miles under ideal conditions, says the maker.</p>"
    assert "rated for 30 miles" in pruned_text(thread(cited))
    assert "Agreed, totally" in pruned_text(thread("<p>Agreed, totally</p>") + "<p>Agreed, totally</p>")  # too short


def test_a_quote_whose_original_is_not_kept_stays() -> None:
    document = parse_html(thread(POST))
    kept = np.ones(len(document), bool)
    assert document.texts[0].startswith("Has anyone")
    kept[0] = False  # the original post dropped by the backend
    assert not quoted_copies(document, kept).any()


def test_a_page_without_a_blockquote_has_no_copies() -> None:
    document = parse_html(f"<main>{POST}{POST}</main>")
    assert not quoted_copies(document, np.ones(len(document), bool)).any()


def test_the_searches_stop_at_their_budget_and_what_is_left_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each quoted leaf is a search of the whole kept text: a page of thousands of quotes must not take minutes."""
    document = parse_html(f"<main>{POST}{REPLY}<blockquote>{POST}</blockquote><blockquote>{REPLY}</blockquote></main>")
    everything = np.ones(len(document), bool)
    assert quoted_copies(document, everything).sum() == 2
    unquoted = " ".join(document.texts[:2])  # the post and the reply: what each search reads
    monkeypatch.setattr(pruning, "MAX_QUOTE_SEARCH_CHARS", len(unquoted))  # one search
    copies = quoted_copies(document, everything)
    assert copies.sum() == 1 and "Has anyone" in document.texts[int(np.flatnonzero(copies)[0])]
