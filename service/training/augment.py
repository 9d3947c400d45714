"""Training pages seen again, changed the ways pages unlike them differ (issue 16 asked for both).

Without their class and id names, so a model cannot lean on one site's names: what a
model learns from the id/class words of today's pages ("sidebar", "related",
"comment") does not hold on pages whose markup names nothing (the Dragnet 2012 news
and blogs). A copy of a train page, its ``class`` and ``id`` attributes removed in the
parsed tree and the page parsed again, keeps the text, the tags and the gold, and
shows the model the same content with nothing named.

With link lists of other train pages spliced into their article: on the pages unlike
WCXB half of what the models keep and the gold does not is link text (teaser lists,
"Most Read", share rows), often inside the article's own container. A copy of a train
page gets a few link-dense blocks harvested from other train pages (none of whose lines
is in their own page's gold) after paragraphs of its gold text, and is labelled anew
against the same gold, so the spliced lists are boilerplate where the model met them.
"""

from __future__ import annotations

import re

import numpy as np

from service.evaluation.labels import labels_for
from service.parsing.lexbor import parse_html
from service.parsing.spliced import link_blocks, paragraph_texts, with_blocks_after
from service.parsing.stripped import without_attributes
from service.training.data import LabeledDocument

NAMES = ("class", "id")
DONATED_PER_PAGE = 3  # link blocks drawn from each train page into the pool, so no one page's menus dominate it
MIN_GOLD_LINE = 12  # characters: a shorter line ("Home", "Share") may be in the gold by chance
MIN_ANCHOR = 60  # characters of a paragraph that is surely the gold's own
_SPACE = re.compile(r"\s+")


def nameless_copies(docs: list[LabeledDocument], share: float, seed: int) -> list[LabeledDocument]:
    """A copy without class and id names of a ``share`` of ``docs`` (drawn with ``seed``), labelled anew."""
    draw = np.random.default_rng(seed).random(len(docs))
    copies = []
    for doc, chance in zip(docs, draw.tolist(), strict=True):
        if chance < share:
            document = parse_html(without_attributes(doc.page.html(), NAMES))
            copies.append(LabeledDocument(doc.page, document, labels_for(doc.page, document)))
    return copies


def spliced_copies(docs: list[LabeledDocument], share: float, seed: int, blocks: int) -> list[LabeledDocument]:
    """A copy of a ``share`` of ``docs`` with ``blocks`` link blocks of other pages in its article, labelled anew.

    Each block goes, by a coin's toss, after the gold's last paragraph (where "Related stories" follow an article)
    or after one of its paragraphs drawn at random; a page with no paragraph surely in its gold gets no copy.
    """
    rng = np.random.default_rng(seed)
    pool = [(k, fragment) for k, doc in enumerate(docs) for fragment in _boilerplate_blocks(doc, rng)]
    copies = []
    for k, doc in enumerate(docs):
        if rng.random() >= share or not pool:
            continue
        html, gold = doc.page.html(), _normalized(doc.page.main_content)
        anchors = [i for i, text in enumerate(paragraph_texts(html)) if _surely_in(_normalized(text), gold)]
        drawn = [pool[i] for i in rng.choice(len(pool), min(2 * blocks, len(pool)), replace=False)]
        fragments = [fragment for owner, fragment in drawn if owner != k][:blocks]
        if not anchors or not fragments:
            continue
        inserts = [(anchors[-1] if rng.random() < 0.5 else int(rng.choice(anchors)), f) for f in fragments]
        document = parse_html(with_blocks_after(html, inserts))  # decoded text: its <meta charset> is read no more
        copies.append(LabeledDocument(doc.page, document, labels_for(doc.page, document)))
    return copies


def _boilerplate_blocks(doc: LabeledDocument, rng: np.random.Generator) -> list[str]:
    """Up to :data:`DONATED_PER_PAGE` of the page's link blocks none of whose lines is in its gold."""
    gold = _normalized(doc.page.main_content)
    found = {
        _normalized(text): markup
        for markup, text in link_blocks(doc.page.html())
        if not any(len(line) >= MIN_GOLD_LINE and _normalized(line) in gold for line in text.split("\n"))
    }
    blocks = list(found.values())  # one of each text: a list and the <div> around it alone are one block
    if len(blocks) <= DONATED_PER_PAGE:
        return blocks
    return [blocks[i] for i in sorted(rng.choice(len(blocks), DONATED_PER_PAGE, replace=False).tolist())]


def _surely_in(paragraph: str, gold: str) -> bool:
    return len(paragraph) >= MIN_ANCHOR and paragraph in gold


def _normalized(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()
