"""Hidden subtrees beside an article go whatever their share, but for closed panels and a page whose text is hidden."""

from __future__ import annotations

import numpy as np

from service.backends.pruning import ARTICLE_BESIDE_CHARS
from service.features.hidden import hidden_blocks, stray_hidden_blocks
from service.metadata.fields import ARTICLE, PRODUCT
from service.parsing.lexbor import parse_html

from support.pruned import pruned_text

STORY = "<p>" + " ".join(f"Sentence {i} of a short post, told plainly." for i in range(30)) + "</p>"
# A sidebar of pop-ups a script shows on a click, each hidden by an inline style, as 2012 blogs did.
POPUPS = "".join(
    f'<div style="position:absolute; visibility: hidden"><p>Buy book {i} now from these online retailers:</p>'
    f"<ul><li>First shop</li><li>Second shop</li></ul><p>Find book {i} at a retailer near you.</p></div>"
    for i in range(12)
)
# An accordion: each step's text in a closed panel that its heading's button opens; more than the share
# up to which hidden text is furniture on any page.
STEPS = "".join(
    f'<h3><button aria-controls="step{i}">Step {i}</button></h3><div id="step{i}" role="region" style="display:none">'
    f"<p>Do the thing number {i} carefully, then check it twice before going on.</p></div>"
    for i in range(30)
)


def test_an_articles_hidden_popups_go_even_where_they_are_much_of_the_pruned_text() -> None:
    page = f"<main><article>{STORY}</article><div id='books'>{POPUPS}</div></main>"
    assert len(STORY) >= ARTICLE_BESIDE_CHARS
    text = pruned_text(page, ARTICLE)
    assert "Sentence 29" in text
    assert "Buy book" not in text and "retailer near you" not in text
    # above the share up to which hidden text is furniture on any page: on a page not typed article it stays
    assert "Buy book 11" in pruned_text(page, PRODUCT)


def test_an_articles_closed_panels_stay() -> None:
    text = pruned_text(f"<main><article>{STORY}{STEPS}</article></main>", ARTICLE)
    assert "Sentence 29" in text and "Do the thing number 29" in text


def test_stray_hidden_blocks_are_the_hidden_ones_outside_panels() -> None:
    document = parse_html(f"<main>{STORY}{STEPS}{POPUPS}</main>")
    hidden, stray = hidden_blocks(document), stray_hidden_blocks(document)
    texts = [document.texts[i] for i in np.flatnonzero(stray)]
    assert stray.sum() < hidden.sum() and not (stray & ~hidden).any()
    assert any("Buy book" in t for t in texts) and not any("thing number" in t for t in texts)
    assert not stray_hidden_blocks(parse_html(f"<main>{STORY}</main>")).any()


def test_an_article_whose_own_text_is_hidden_keeps_it() -> None:
    hidden_story = f'<main><article style="display:none">{STORY}</article><p>Loading the story.</p></main>'
    assert "Sentence 29" in pruned_text(hidden_story, ARTICLE)  # too little beside it: the hidden text is the page
