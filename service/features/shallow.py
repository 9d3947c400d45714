r"""Shallow text features of text units (Kohlschütter, Fankhauser, Nejdl 2010).

Boilerpipe classifies *text blocks* by a few counts that need no language
model: the number of words, the share of those words inside links (link
density), and how many words a line of 80-character wrapped text holds
(text density), each also for the previous and the next block. This module
computes them for a :class:`~service.parsing.document.Document`, for any
grouping of its leaves into consecutive *units*, so that the Boilerpipe rules
and the learned backends (SVM, MLP) read the same definitions.

Definitions (one place, used everywhere):

word
    A white-space separated token holding at least one letter or digit
    (``[^\W_]``, i.e. Unicode ``\w`` without the underscore). This is what
    Boilerpipe's tokenizer and ``isWord`` amount to (``"don't"``, ``"3.5"``
    and ``"e-mail"`` are one word each, ``"|"`` and ``"»"`` are none), and the
    published thresholds were learned on such counts. It is *not* the
    evaluation tokenization (``\w+``), which would count ``"3.5"`` as two.
    One difference from Boilerpipe remains: its tokenizer also splits at
    symbols other than ``"'.,!@-:;$?()/``, so it counts ``"a|b"`` as two.
script word
    Chinese and Japanese put no space between words, so there a white-space
    token is a whole sentence or paragraph. A *script word* is a word, with
    tokens also cut before and after every Han, Hiragana and Katakana
    character, which is a word alone when it is a letter
    (:data:`~service.features.text_stats.UNSPACED_RANGES`):
    ``"日本語のtext"`` is five script words and one word. A word of those
    scripts is one or two characters long, so this counts somewhat more
    than a translation would have (about 1.5 characters a word in
    Chinese); and a line of 80 columns wraps 40 such one-character words
    with their spaces, which is how many full-width characters it holds.
    Boilerpipe's rules are thresholds on word counts of spaced languages and
    count script words (``text_features(..., script_words=True)``): with
    words, a Chinese paragraph is one "word" and no rule ever takes it. The
    learned backends read words, the definition their models were trained
    on, and learn from the other features on such pages.
unit
    A run of consecutive leaves. :func:`~service.features.units.paragraph_units` gives Boilerpipe's
    text blocks: inline leaves of one block-level element form one unit;
    units break where the nearest block-level ancestor changes and at every
    ``<br>`` (Boilerpipe's HTML handler flushes its block at every tag it does
    not know as inline, ``<br>`` included). Headings are block-level, so a
    heading is always a unit of its own. :func:`~service.features.units.leaf_units` makes every leaf
    its own unit.
link density
    Words of the unit's leaves inside an ``<a>``, divided by the unit's words
    (0 for a unit without words).
text density
    Greedily wrap the unit's words into lines of at most
    :data:`LINE_WIDTH` characters (words joined by one space; a word that does
    not fit starts the next line; a longer word fills a line alone). With one
    line, the density is the number of words; with more, it is the words of
    all lines but the last (incomplete) one, divided by the number of those
    lines. Boilerpipe counts the same, except for a quirk when the very first
    word is longer than 80 characters (it then counts an empty first line).
previous / next
    The value of the unit before / after; the page's edges read as an empty
    unit (0 words, density 0), as Boilerpipe's ``EMPTY_START``/``EMPTY_END``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from itertools import chain

import numpy as np

from service.features.per_document import per_document
from service.features.text_stats import UNSPACED_RANGES, joined_text
from service.features.units import count_units, paragraph_units
from service.parsing.document import Document

# Bump when a definition above changes: stored feature matrices and models
# trained on them record it and refuse to mix versions.
SCHEMA_VERSION = 1

# Kohlschütter et al. 2010 wrap text at 80 characters for the text density.
LINE_WIDTH = 80

# A word: a white-space token with at least one letter or digit. The
# look-behind anchors each attempt at a token start, so a long run of
# punctuation costs linear, not quadratic, time.
_WORD = re.compile(r"(?<!\S)\S*?[^\W_]\S*")
# A script word: the same, tokens cut around every character of a script written without spaces,
# which is a word alone when it is a letter.
_UNSPACED = "".join(f"{chr(low)}-{chr(high)}" for low, high in UNSPACED_RANGES)
_SCRIPT_WORD = re.compile(
    rf"(?=[^\W_])[{_UNSPACED}]|(?<![^\s{_UNSPACED}])[^\s{_UNSPACED}]*?[^\W_{_UNSPACED}][^\s{_UNSPACED}]*"
)


def words_of(text: str, *, script_words: bool = False) -> list[str]:
    """Return the words (or script words) of ``text`` (see the module docstring for what counts)."""
    return (_SCRIPT_WORD if script_words else _WORD).findall(text)


def count_words(text: str, *, script_words: bool = False) -> int:
    """Count the words (or script words) of ``text``."""
    return len(words_of(text, script_words=script_words))


def wrapped_lines(word_lengths: list[int] | np.ndarray, width: int = LINE_WIDTH) -> tuple[int, int]:
    """``(words in counted lines, counted lines)`` of greedily wrapped words.

    The last, incomplete line is not counted when there is more than one
    line; a text of one line counts as that line. No words: ``(0, 1)``.
    """
    return _wrap(_line_ends(word_lengths), 0, len(word_lengths), width)


def _line_ends(word_lengths: list[int] | np.ndarray) -> list[int]:
    """Running sums of (word length + 1): where each word's trailing space ends, counted from the first word."""
    return np.cumsum(np.asarray(word_lengths, dtype=np.int64) + 1).tolist()


def _wrap(ends: list[int], start: int, stop: int, width: int = LINE_WIDTH) -> tuple[int, int]:
    """:func:`wrapped_lines` of words ``start:stop``, given :func:`_line_ends` of all words.

    One binary search per line, not a step per word: words ``s:e`` fit on a
    line when their lengths plus the spaces between them are at most
    ``width``, that is ``ends[e - 1] - ends[s - 1] - 1 <= width``; a word
    longer than a line fills one alone.
    """
    completed = 0
    line_start = start
    while True:
        base = ends[line_start - 1] if line_start else 0
        line_stop = max(bisect_right(ends, base + width + 1, line_start, stop), line_start + 1)
        if line_stop >= stop:
            break
        completed += 1
        line_start = line_stop
    if completed == 0:
        return stop - start, 1
    return line_start - start, completed


def text_density(text: str, width: int = LINE_WIDTH, *, script_words: bool = False) -> float:
    """Kohlschütter's text density of one string: words (or script words) per wrapped line."""
    words, lines = wrapped_lines([len(w) for w in words_of(text, script_words=script_words)], width)
    return words / lines


def previous(values: np.ndarray, fill: float = 0) -> np.ndarray:
    """``values`` shifted by one: each unit sees the one before; the first sees ``fill``."""
    out = np.empty_like(values)
    if len(values):
        out[0] = fill
        out[1:] = values[:-1]
    return out


def following(values: np.ndarray, fill: float = 0) -> np.ndarray:
    """``values`` shifted by one: each unit sees the one after; the last sees ``fill``."""
    out = np.empty_like(values)
    if len(values):
        out[-1] = fill
        out[:-1] = values[1:]
    return out


@dataclass(frozen=True, eq=False)
class TextFeatures:
    """Shallow features per unit, and the map between units and leaves.

    Every per-unit array has one entry per unit, in document order.
    """

    unit_of_leaf: np.ndarray  # int32, per leaf: its unit
    words: np.ndarray  # int32, per unit
    link_words: np.ndarray  # int32, per unit: words of leaves inside <a>
    chars: np.ndarray  # int32, per unit: characters of its leaves' (normalised) text
    text_density: np.ndarray  # float32, per unit

    def __len__(self) -> int:
        return len(self.words)

    @cached_property
    def link_density(self) -> np.ndarray:
        """Words inside links / words (float32, 0 where a unit has no words)."""
        words = self.words
        return np.divide(
            self.link_words, words, out=np.zeros(len(words), dtype=np.float32), where=words > 0, dtype=np.float32
        )

    def to_leaves(self, unit_values: np.ndarray) -> np.ndarray:
        """Broadcast a per-unit array to the unit's leaves."""
        return np.asarray(unit_values)[self.unit_of_leaf]

    def matrix(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """Every feature with its previous and next value, as a float32 matrix and column names."""
        base = {
            "words": self.words.astype(np.float32),
            "link_density": self.link_density,
            "text_density": self.text_density,
        }
        columns: dict[str, np.ndarray] = {}
        for name, values in base.items():
            columns[f"prev_{name}"] = previous(values)
            columns[name] = values
            columns[f"next_{name}"] = following(values)
        return np.stack(list(columns.values()), axis=1).astype(np.float32, copy=False), tuple(columns)


@dataclass(frozen=True, eq=False)
class LeafWords:
    """The words of every leaf of a page: how many per leaf, and every word's length in document order."""

    counts: np.ndarray  # int32, words per leaf
    word_lengths: np.ndarray  # int64, characters of every word, leaf by leaf

    @classmethod
    def of(cls, document: Document, *, script_words: bool) -> LeafWords:
        """From the shared character table; the regex for the leaves it cannot say for, merged back in order."""
        texts = document.texts
        joined = joined_text(document)
        word_leaf, word_lengths = joined.script_words if script_words else joined.words
        if len(joined.uncounted):
            tokens = [words_of(texts[leaf], script_words=script_words) for leaf in joined.uncounted.tolist()]
            word_leaf = np.concatenate([word_leaf, np.repeat(joined.uncounted, [len(t) for t in tokens])])
            word_lengths = np.concatenate([word_lengths, np.fromiter(map(len, chain.from_iterable(tokens)), np.int64)])
            order = np.argsort(word_leaf, kind="stable")
            word_leaf, word_lengths = word_leaf[order], word_lengths[order]
        counts = np.bincount(word_leaf, minlength=len(texts)).astype(np.int32)
        counts.flags.writeable = word_lengths.flags.writeable = False  # shared by every caller on the page
        return cls(counts=counts, word_lengths=word_lengths)

    @cached_property
    def line_ends(self) -> list[int]:
        """:func:`_line_ends` of all the page's words, for the text density's wrap."""
        return _line_ends(self.word_lengths)


@per_document
def leaf_words(document: Document) -> LeafWords:
    """Every leaf's words, once per page: ``svm``'s and ``grf``'s shallow features and ``grf``'s seeds read them."""
    return LeafWords.of(document, script_words=False)


@per_document
def leaf_script_words(document: Document) -> LeafWords:
    """Every leaf's script words (see the module docstring), once per page."""
    return LeafWords.of(document, script_words=True)


def text_features(
    document: Document, unit_of_leaf: np.ndarray | None = None, *, script_words: bool = False
) -> TextFeatures:
    """Shallow features of ``document`` per unit (default: :func:`~service.features.units.paragraph_units`).

    Words are counted as script words with ``script_words`` (see the module docstring).

    ``unit_of_leaf`` must number units 0, 1, ... in document order with each
    unit's leaves consecutive, as :func:`~service.features.units.paragraph_units` and
    :func:`~service.features.units.leaf_units` do.
    """
    if unit_of_leaf is None:
        unit_of_leaf = paragraph_units(document)
    unit_of_leaf = np.asarray(unit_of_leaf, dtype=np.int32)
    n_units = count_units(unit_of_leaf)
    leaf = leaf_script_words(document) if script_words else leaf_words(document)
    word_lengths, leaf_chars = leaf.word_lengths, joined_text(document).chars

    words = np.bincount(unit_of_leaf, weights=leaf.counts, minlength=n_units).astype(np.int32)
    link_words = np.bincount(
        unit_of_leaf, weights=np.where(document.block_in_link, leaf.counts, 0), minlength=n_units
    ).astype(np.int32)
    chars = np.bincount(unit_of_leaf, weights=leaf_chars, minlength=n_units).astype(np.int32)

    # Text density. A unit whose words fit on one line has density = words;
    # only the longer units need the sequential wrap.
    density = words.astype(np.float32)
    word_chars = np.bincount(
        np.repeat(unit_of_leaf, leaf.counts), weights=word_lengths, minlength=n_units
    )  # letters of the unit's words, without spaces
    long_units = np.flatnonzero(word_chars + words - 1 > LINE_WIDTH)
    if len(long_units):
        word_end = np.cumsum(words)
        word_start = word_end - words
        ends = leaf.line_ends
        for u in long_units.tolist():
            in_lines, lines = _wrap(ends, int(word_start[u]), int(word_end[u]))
            density[u] = in_lines / lines

    return TextFeatures(
        unit_of_leaf=unit_of_leaf,
        words=words,
        link_words=link_words,
        chars=chars,
        text_density=density,
    )
