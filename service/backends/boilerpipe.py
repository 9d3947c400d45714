"""Boilerpipe-style rules plus the HTML-tree filter.

Two stages, as in the tree-filter paper (``boilerpipe-tree-filter.txt``):

1. **Classifier** (high recall). Boilerpipe's ``NumWordsRulesClassifier``
   (Kohlschütter, Fankhauser, Nejdl, "Boilerplate Detection using Shallow
   Text Features", WSDM 2010; boilerpipe 1.2), a decision tree over the
   shallow features of the text block and its two neighbours, with the
   published thresholds. Text blocks are
   :func:`~service.features.units.paragraph_units`: inline leaves of one
   block-level element, split at ``<br>``. The tree is written out as an
   ordered cascade of named rules: the first rule whose condition holds
   decides.
2. **Tree filter** (precision). Every selected leaf belongs to a
   *paragraph*: its nearest ancestor among :data:`PARAGRAPH_TAGS`. The
   paragraphs are grouped by their n-th ancestor (``tree_filter_depth``,
   default 2, the grandparent, best in the paper's Table 2) and only the
   group with the most selected text (characters) is kept; ``n = 0``
   disables the filter.

Labels are the verdict after the filter, so a positive score with a false
label marks text the classifier took and the filter dropped as outside
the main subtree.

Measured on the WCXB dev pages (1,358, word-F1, 2026-11-21): the classifier
alone (depth 0) 0.768; depth 1 0.570, 2 0.603, 3 0.641, 4 0.662, 5 0.686;
keeping every block 0.705. The paper's news pages of 2016 kept an article in
one container; today's page builders (Elementor, Squarespace, CSS-module
React) split it into many sibling widget containers, so one grandparent
rarely holds all of it, and the filter trades much recall for a little
precision (0.77 -> 0.87). Choose the depth on the train part.

The classifier takes a unit as content when either of boilerpipe's two
published trees does: ``NumWordsRulesClassifier`` (word counts) or
``DensityRulesClassifier`` (the same shape over text density), so all three
shallow features of the unit and its neighbours take part. The union scored
0.772 against 0.768 and 0.759 for the two trees alone (depth 0, dev pages).
The score of a leaf is the share of the two trees that took its unit
(0, 0.5 or 1), before the tree filter.

Words are *script words* (:mod:`service.features.shallow`): every Han,
Hiragana and Katakana letter is a word, since Chinese and Japanese put no
space between words. Boilerpipe's own tokenizer splits at white space only,
so on those pages a paragraph is one word and it keeps nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from service.backends.base import Backend, BlockLabels
from service.backends.spec import BackendSpec, BuildContext
from service.features.shallow import TextFeatures, following, previous, text_features
from service.features.text_stats import joined_text
from service.parsing.document import Document

# Bump whenever a rule, a threshold, the unit definition or the filter changes.
VERSION = "1.2"  # 1.2: script words, so Chinese and Japanese paragraphs have words
# Earlier versions whose labels differ from this one's on Han and Kana text only: an ensemble fitted
# on their scores is served with this one. 1.1 -> 1.2 changed labels on 1 of the 1,358 WCXB dev pages
# (0130, a name written in Han), every feature of every other page alike.
COMPATIBLE_VERSIONS = ("1.1",)

# -- NumWordsRulesClassifier thresholds (boilerpipe 1.2, unchanged) ---------
# A block with a third or more of its words in links is navigation (0.333333 < 1/3).
MAX_LINK_DENSITY = 0.333333
# A previous block with more than 5/9 of its words in links is a link list (0.555556 > 5/9);
# a block right after one must bring more text of its own to count.
MAX_PREV_LINK_DENSITY = 0.555556
# After a link list: a block of more than 40 words is content anyway ...
MIN_WORDS_AFTER_LINKS = 40
# ... and so is one followed by a block of more than 17 words.
MIN_NEXT_WORDS_AFTER_LINKS = 17
# Otherwise: a block of more than 16 words is content on its own ...
MIN_WORDS = 16
# ... a shorter one is content when the next block has more than 15 words ...
MIN_NEXT_WORDS = 15
# ... or when the previous block has more than 4 (a short block inside running text).
MIN_PREV_WORDS = 4

# -- DensityRulesClassifier thresholds (boilerpipe 1.2, unchanged) -----------
MAX_TEXT_DENSITY = 9  # curr.text_density above: content unless the next block has no words
MAX_NEXT_TEXT_DENSITY = 10  # a sparse block is content when the next block is denser ...
MIN_PREV_TEXT_DENSITY = 4  # ... or the previous one is denser than this
MIN_NEXT_TEXT_DENSITY_AFTER_LINKS = 11  # after a link list: content only before a dense block

# -- Tree filter -------------------------------------------------------------
# The paper's paragraph tags: a selected text's paragraph is its nearest
# ancestor with one of these tags (so list items and table cells belong to
# their list or table).
PARAGRAPH_TAGS = frozenset(
    {"div", "table", "ul", "ol", "p", "section", "article", "h1", "h2", "h3", "h4", "h5", "h6", "header", "body"}
)
# Group paragraphs by their grandparent (the paper's best depth).
DEFAULT_TREE_FILTER_DEPTH = 2


@dataclass(frozen=True, slots=True)
class Context:
    """The shallow features of every unit, of the unit before and of the unit after."""

    words: np.ndarray
    link_density: np.ndarray
    text_density: np.ndarray
    prev_words: np.ndarray
    prev_link_density: np.ndarray
    prev_text_density: np.ndarray
    next_words: np.ndarray
    next_link_density: np.ndarray
    next_text_density: np.ndarray

    @classmethod
    def of(cls, features: TextFeatures) -> Context:
        return cls(
            words=features.words,
            link_density=features.link_density,
            text_density=features.text_density,
            prev_words=previous(features.words),
            prev_link_density=previous(features.link_density),
            prev_text_density=previous(features.text_density),
            next_words=following(features.words),
            next_link_density=following(features.link_density),
            next_text_density=following(features.text_density),
        )


# -- the predicates the cascade is made of (vectorised over units) -----------
def is_link_dense(c: Context) -> np.ndarray:
    """Tell whether too many of the block's words are link text."""
    return c.link_density > MAX_LINK_DENSITY


def follows_link_list(c: Context) -> np.ndarray:
    """Tell whether the previous block is mostly link text."""
    return c.prev_link_density > MAX_PREV_LINK_DENSITY


def is_long_after_links(c: Context) -> np.ndarray:
    """Tell whether the block is long enough to be content even right after a link list."""
    return c.words > MIN_WORDS_AFTER_LINKS


def precedes_long_after_links(c: Context) -> np.ndarray:
    """Tell whether the next block is long enough to vouch for a block after a link list."""
    return c.next_words > MIN_NEXT_WORDS_AFTER_LINKS


def is_long(c: Context) -> np.ndarray:
    """Tell whether the block is long enough to be content on its own."""
    return c.words > MIN_WORDS


def precedes_long(c: Context) -> np.ndarray:
    """Tell whether the next block is long (a short block leading into text: a heading, a lead-in)."""
    return c.next_words > MIN_NEXT_WORDS


def follows_text(c: Context) -> np.ndarray:
    """Tell whether the previous block has some words (a short block inside running text)."""
    return c.prev_words > MIN_PREV_WORDS


Rule = tuple[str, Callable[[Context], np.ndarray], bool]

# NumWordsRulesClassifier as an ordered cascade: (name, condition, verdict);
# the first rule whose condition holds decides, and a block no rule claims is
# boilerplate. Equivalent to boilerpipe's nested tree.
NUM_WORDS_RULES: tuple[Rule, ...] = (
    ("link_dense", is_link_dense, False),
    ("long_after_links", lambda c: follows_link_list(c) & is_long_after_links(c), True),
    ("before_long_after_links", lambda c: follows_link_list(c) & precedes_long_after_links(c), True),
    ("after_links", follows_link_list, False),
    ("long", is_long, True),
    ("before_long", precedes_long, True),
    ("after_text", follows_text, True),
)
RULE_NAMES: tuple[str, ...] = (*(name for name, _, _ in NUM_WORDS_RULES), "isolated_short")


def apply_cascade(context: Context, rules: tuple[Rule, ...] = NUM_WORDS_RULES) -> tuple[np.ndarray, np.ndarray]:
    """``(verdict, rule index)`` per unit: the first matching rule decides.

    The rule index is ``len(rules)`` where no rule matched (verdict False).
    """
    n = len(context.words)
    fired = np.full(n, len(rules), dtype=np.int16)
    undecided = np.ones(n, dtype=bool)
    for index, (_, condition, _) in enumerate(rules):
        if not undecided.any():
            break
        hit = undecided & condition(context)
        fired[hit] = index
        undecided &= ~hit
    verdicts = np.array([verdict for _, _, verdict in rules] + [False], dtype=bool)
    return verdicts[fired], fired


def num_words_rules(context: Context) -> np.ndarray:
    """Boilerpipe's NumWordsRulesClassifier: content per unit."""
    return apply_cascade(context)[0]


def density_rules(context: Context) -> np.ndarray:
    """Boilerpipe's DensityRulesClassifier: content per unit."""
    c = context
    sparse = np.where(
        c.next_text_density > MAX_NEXT_TEXT_DENSITY,
        True,
        c.prev_text_density > MIN_PREV_TEXT_DENSITY,
    )
    dense = c.next_text_density > 0  # a dense block before the page's end (or an empty block) is not content
    own = np.where(c.text_density <= MAX_TEXT_DENSITY, sparse, dense)
    after_links = c.next_text_density > MIN_NEXT_TEXT_DENSITY_AFTER_LINKS
    return ~is_link_dense(c) & np.where(follows_link_list(c), after_links, own)


# -- tree filter ---------------------------------------------------------------
def paragraph_elements(document: Document, elems: np.ndarray) -> np.ndarray:
    """Return the nearest ancestor-or-self of each element with a :data:`PARAGRAPH_TAGS` tag (the root if none)."""
    nearest = document.nearest_marked(document.elem_tagged(PARAGRAPH_TAGS))
    return np.maximum(nearest, 0)[elems].astype(np.int32)  # element 0 is the root


def tree_filter(document: Document, selected: np.ndarray, depth: int = DEFAULT_TREE_FILTER_DEPTH) -> np.ndarray:
    """Keep the selected leaves of the one subtree with the most selected text.

    Each selected leaf's paragraph element is climbed ``depth`` levels; the
    leaves are grouped by the element reached and the group with the most
    characters wins (the earliest on a tie). ``depth <= 0`` returns
    ``selected`` unchanged.
    """
    chosen = np.flatnonzero(selected)
    if depth <= 0 or len(chosen) == 0:
        return selected.copy()
    groups = document.ancestors_at(paragraph_elements(document, document.block_elem[chosen]), depth)
    chars = joined_text(document).chars[chosen]  # the leaves' lengths, counted once for the page
    totals = np.bincount(groups, weights=chars)  # by element id
    tied = np.flatnonzero(totals == totals.max())
    # on a tie, the group whose first leaf comes first in the page
    winner = tied[0] if len(tied) == 1 else groups[np.isin(groups, tied)][0]
    out = np.zeros_like(selected)
    out[chosen[groups == winner]] = True
    return out


def unit_scores(context: Context) -> np.ndarray:
    """Share of the two published trees that take each unit as content (0, 0.5 or 1)."""
    return (num_words_rules(context).astype(np.float32) + density_rules(context).astype(np.float32)) / 2


class BoilerpipeBackend(Backend):
    """Both boilerpipe trees on paragraph units (content if either says so), then the tree filter."""

    name = "boilerpipe"
    kind = "rules"
    version = VERSION
    compatible_versions = COMPATIBLE_VERSIONS

    def __init__(self, tree_filter_depth: int = DEFAULT_TREE_FILTER_DEPTH) -> None:
        self.tree_filter_depth = tree_filter_depth

    def unit_verdicts(self, document: Document) -> tuple[TextFeatures, np.ndarray, np.ndarray]:
        """Features, verdict and fired rule index per unit (for inspection and tests)."""
        features = text_features(document, script_words=True)
        verdict, fired = apply_cascade(Context.of(features))
        return features, verdict, fired

    def classify(self, document: Document) -> BlockLabels:
        features = text_features(document, script_words=True)
        scores = features.to_leaves(unit_scores(Context.of(features)))
        labels = tree_filter(document, scores > 0, self.tree_filter_depth)
        return BlockLabels(scores=scores, labels=labels)


def _build(name: str, context: BuildContext) -> BoilerpipeBackend:
    return BoilerpipeBackend(context.settings.boilerpipe_tree_filter_depth)


SPEC = BackendSpec(_build, names=(BoilerpipeBackend.name,))
