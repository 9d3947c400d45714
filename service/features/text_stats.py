r"""Per-leaf character counts over one joined string, without a Python loop per leaf.

The SVM and texrex features count letters, digits, punctuation, sentence
ends, e-mail addresses, URLs and hashtags in every text leaf. A handful of
regexes per leaf, over ~300 leaves a page, would cost more than the parse,
so the leaves are joined into one string (a NUL between leaves, which HTML
parsing never leaves in text), read as UTF-16 code units into a numpy array
and classified through one lookup table. Per-leaf counts are then segment
sums; the rare patterns (an ``@``, a ``://``, a ``#``) are looked for in the
array only when the joined string has them, and checked at their positions.
Where ``make build-ext`` built it, one compiled pass over the code units
(``_text_counts.pyx``) makes the same counts and events; this is its reference.

Definitions (one place, used by every schema that reads them):

letter, uppercase, digit
    ``str.isalpha``, ``str.isupper``, ``str.isdigit`` of the code unit.
word
    As :mod:`service.features.shallow` defines it: a white-space token with
    a ``str.isalnum`` character (what the regex ``[^\W_]`` matches). The
    table answers exactly for a leaf counted whole and within the Basic
    Multilingual Plane; the few others (:attr:`JoinedText.uncounted`) are
    left out of :attr:`JoinedText.words`, for the caller to tokenize with
    the regex.
    Characters outside the Basic Multilingual Plane (emoji, rare CJK) are
    two surrogate code units and count as none of these.
script word
    A word, except that tokens are also cut before and after every Han,
    Hiragana and Katakana character (:data:`UNSPACED_RANGES`), which is a
    word alone when it is a letter (:attr:`JoinedText.script_words`).
punctuation
    Unicode category ``P*`` (``.``, ``»``, ``•``, ``–``; not ``|`` or ``©``,
    which are symbols).
sentence
    A sentence ends at a terminator (``.!?…`` and their full-width forms)
    that follows a character other than white space and is followed by
    white space or the end of the leaf (so ``"Wow!!! Next"`` has one end, a
    lone ``"…"`` none). A unit of consecutive leaves (a paragraph with a
    link inside a sentence, say) holding a letter or digit whose last
    character is not a terminator has one more, unfinished sentence.
e-mail address
    An ``@`` between two letters or digits (``me@example.org``, not
    ``@handle``).
URL
    A ``://`` (``https://…``, ``ftp://…``), or a ``www.`` that starts a
    word and does not follow ``//``.
hashtag
    A ``#`` not after a letter or digit and followed by one (``#python``,
    not ``C#`` or a lone ``#``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, cached_property

import numpy as np

from service.features.per_document import per_document
from service.features.units import count_units
from service.parsing.document import Document

# Class bits of one code unit.
LETTER = 1
UPPER = 2
DIGIT = 4
PUNCTUATION = 8
SPACE = 16  # white space, and the NUL between leaves
TERMINATOR = 32
WORD = 64  # str.isalnum: a character that makes a white-space token a word
UNSPACED = 128  # a Han, Hiragana or Katakana character: a token of its own
ALNUM = LETTER | DIGIT

SENTENCE_TERMINATORS = ".!?…‼⁇⁈⁉。！？"
# The blocks of scripts written without spaces between words (Korean has spaces; Thai, whose
# characters are letters of an alphabet, is not here). Characters beyond U+FFFF (rare Han) are two
# code units: the table leaves them to the regex of :mod:`service.features.shallow`.
UNSPACED_RANGES = (
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK unified ideographs extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3134F),  # CJK unified ideographs extensions B-G
)
_SLASH, _DOT, _W = (ord(c) for c in "/.w")
_COPYRIGHT = "©"

SEPARATOR = "\0"
# Padding after the last leaf, so that a pattern check may look up to
# three code units ahead of any position without a bounds test.
_LOOKAHEAD = 3

# Per-leaf counts are summed as fields of int64s (three fields of FIELD_BITS
# each, in two columns): one segment sum for all six COUNTS. A leaf longer
# than MAX_COUNTED_CHARS characters is counted over its first
# MAX_COUNTED_CHARS only, so no field (UTF-8 bytes being at most 4 per
# character) can overflow.
FIELD_BITS = 21
MAX_COUNTED_CHARS = (1 << FIELD_BITS) // 4 - 1
_FIELD_MASK = (1 << FIELD_BITS) - 1
_FIELD_SHIFTS = np.arange(3) * FIELD_BITS
COUNTS = ("letters", "digits", "punctuation", "uppercase", "utf8_bytes", "copyright_signs")
# What JoinedText.events counts per leaf, in this order.
EVENTS = ("sentence_ends", "emails", "urls", "hashtags")
_EVENT_COLUMNS = (0, 1, 2, 3, 2)  # sentence ends, e-mail addresses, "://", hashtags, "www."
_NOWHERE = np.zeros(0, dtype=np.int64)


@cache
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """Class bits and packed COUNTS weights (two int64 columns) of every UTF-16 code unit, built on first use.

    Built with numpy's string ufuncs over all 65,536 units at once: a Python
    loop took 0.15 s, paid by every worker process at start-up.
    """
    size = 0x10000
    units = np.arange(size)
    # half of a surrogate pair is none of these (two halves make one 4-byte character)
    surrogate = (units >= 0xD800) & (units < 0xE000)
    characters = [chr(unit) for unit in range(size)]
    chars = np.array(characters)
    letter, upper, digit = np.char.isalpha(chars), np.char.isupper(chars), np.char.isdigit(chars)
    punctuation = np.fromiter((unicodedata.category(c).startswith("P") for c in characters), bool, size)
    unspaced = np.zeros(size, dtype=bool)
    for low, high in UNSPACED_RANGES:
        unspaced[low : high + 1] = True
    bits = (
        LETTER * letter
        | UPPER * upper
        | DIGIT * digit
        | PUNCTUATION * punctuation
        | SPACE * np.char.isspace(chars)
        | TERMINATOR * np.isin(units, [ord(c) for c in SENTENCE_TERMINATORS])
        | WORD * np.char.isalnum(chars)
        | UNSPACED * unspaced
    )
    classes = np.where(surrogate, 0, bits).astype(np.uint8)
    weights = np.zeros((size, len(COUNTS)), dtype=np.int64)
    weights[:, :4] = np.stack([letter, digit, punctuation, upper], axis=1) & ~surrogate[:, None]
    weights[:, COUNTS.index("utf8_bytes")] = np.where(units < 0x80, 1, np.where((units < 0x800) | surrogate, 2, 3))
    weights[:, COUNTS.index("copyright_signs")] = units == ord(_COPYRIGHT)
    classes[ord(SEPARATOR)] = SPACE
    weights[ord(SEPARATOR)] = 0
    packed = (weights.reshape(size, 2, 3) << _FIELD_SHIFTS).sum(axis=2)
    return classes, packed


def _utf16(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-16-le", "surrogatepass"), dtype=np.uint16)


def _column(matrix: str, name: str, names: tuple[str, ...]) -> property:
    index = names.index(name)
    return property(lambda self: getattr(self, matrix)[:, index], doc=f"{name} per leaf (int32)")


@dataclass(frozen=True, eq=False)
class JoinedText:
    """The leaves of a page as one array of UTF-16 code units, with every leaf's start."""

    text: str  # SEPARATOR, leaf 0, SEPARATOR, leaf 1, ..., SEPARATOR, padding
    units: np.ndarray  # uint16: ``text`` as UTF-16 code units
    classes: np.ndarray  # uint8 class bits of every code unit
    starts: np.ndarray  # int64, index of every leaf's first code unit
    lengths: np.ndarray  # int64, code units of every (counted) leaf; a character beyond U+FFFF is two
    chars: np.ndarray  # int64, characters of every leaf (``len``), all of them counted or not
    nul_replaced: bool = False  # a leaf held a NUL, read here as a space

    @classmethod
    def of(cls, texts: list[str]) -> JoinedText:
        chars = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        counted = np.minimum(chars, MAX_COUNTED_CHARS)
        if len(texts) and chars.max() > MAX_COUNTED_CHARS:
            texts = [text[:MAX_COUNTED_CHARS] for text in texts]
        joined = SEPARATOR + SEPARATOR.join(texts) + SEPARATOR * _LOOKAHEAD
        if joined.count(SEPARATOR) != max(len(texts), 1) + _LOOKAHEAD:  # a NUL in a text (the parser drops them)
            return replace(cls.of([text.replace(SEPARATOR, " ") for text in texts]), nul_replaced=True)
        units = _utf16(joined)
        if len(units) == len(joined):  # one code unit per character: the leaves start where their lengths say
            starts = np.cumsum(counted + 1) - counted
            lengths = counted
        else:  # characters beyond U+FFFF take two code units: find the separators
            separators = np.flatnonzero(units == 0)
            starts = separators[: len(texts)] + 1
            lengths = separators[1 : len(texts) + 1] - starts
        classes = _tables()[0].take(units)
        return cls(text=joined, units=units, classes=classes, starts=starts, lengths=lengths, chars=chars)

    def __len__(self) -> int:
        return len(self.starts)

    @cached_property
    def uncounted(self) -> np.ndarray:
        """The leaves whose code units are not their characters: cut at MAX_COUNTED_CHARS, or beyond U+FFFF."""
        return np.flatnonzero(self.lengths != self.chars)

    @cached_property
    def words(self) -> tuple[np.ndarray, np.ndarray]:
        """(leaf, length) of every word of every leaf but the :attr:`uncounted`, in document order (int64 each).

        Tokens are the runs of non-space code units (the separators are
        space, so no token spans two leaves); a token is a word if any of
        its code units is.
        """
        in_token = (self.classes & SPACE) == 0
        edges = np.flatnonzero(in_token[1:] != in_token[:-1]) + 1  # the text starts and ends with space
        return self._worded(edges[0::2], edges[1::2])

    @cached_property
    def script_words(self) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`words`, with tokens also cut before and after every :data:`UNSPACED` code unit."""
        unspaced = (self.classes & UNSPACED) != 0
        if not unspaced.any():
            return self.words
        in_token = (self.classes & SPACE) == 0
        cut = unspaced[1:] | unspaced[:-1]  # the text starts and ends with space, so every neighbour exists
        starts = np.flatnonzero(in_token[1:] & (~in_token[:-1] | cut)) + 1
        ends = np.flatnonzero(in_token[:-1] & (~in_token[1:] | cut)) + 1
        return self._worded(starts, ends)

    def leaf_of(self, positions: np.ndarray) -> np.ndarray:
        """The leaf each code unit position (sorted or not) lies in."""
        return np.searchsorted(self.starts, positions, side="right") - 1

    def per_leaf(self, positions: np.ndarray) -> np.ndarray:
        """How many of ``positions`` lie in each leaf (int64 per leaf)."""
        return np.bincount(self.leaf_of(positions), minlength=len(self))

    def _worded(self, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(leaf, length) of the tokens ``starts[i]:ends[i]`` that hold a word character, in counted leaves."""
        if not len(starts):
            return _NOWHERE, _NOWHERE
        worded = np.logical_or.reduceat((self.classes & WORD) != 0, starts)  # a token and the space after it
        starts = starts[worded]
        leaves, lengths = self.leaf_of(starts), ends[worded] - starts
        if len(self.uncounted):
            counted = self.lengths[leaves] == self.chars[leaves]
            return leaves[counted], lengths[counted]
        return leaves, lengths

    @property
    def ends(self) -> np.ndarray:
        """Index just past every leaf's last code unit (its separator)."""
        return self.starts + self.lengths

    @property
    def last_classes(self) -> np.ndarray:
        """Class bits of every leaf's last code unit."""
        return self.classes[self.ends - 1]

    @cached_property
    def counts(self) -> np.ndarray:
        """:data:`COUNTS` per leaf (int32, leaves × 6)."""
        return self._counted[0] if count_leaves is not None else self.python_counts()

    @cached_property
    def events(self) -> np.ndarray:
        """:data:`EVENTS` per leaf (int32, leaves × 4), as the module docstring defines them."""
        return self._counted[1] if count_leaves is not None else self.python_events()

    @cached_property
    def _counted(self) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`counts` and :attr:`events` in one compiled pass over the code units (``_text_counts.pyx``)."""
        assert count_leaves is not None
        counts = np.empty((len(self), len(COUNTS)), dtype=np.int32)
        events = np.empty((len(self), len(EVENTS)), dtype=np.int32)
        count_leaves(self.units, self.classes, self.starts, self.lengths, counts, events)
        return counts, events

    def python_counts(self) -> np.ndarray:
        """:attr:`counts` by table look-ups and segment sums: the reference, and what serves where not compiled."""
        if not len(self):
            return np.zeros((0, len(COUNTS)), dtype=np.int32)
        packed = np.add.reduceat(_tables()[1].take(self.units, axis=0), self.starts, axis=0)
        return ((packed[:, :, None] >> _FIELD_SHIFTS) & _FIELD_MASK).reshape(len(self), len(COUNTS)).astype(np.int32)

    letters = _column("counts", "letters", COUNTS)
    digits = _column("counts", "digits", COUNTS)
    punctuation = _column("counts", "punctuation", COUNTS)
    uppercase = _column("counts", "uppercase", COUNTS)
    utf8_bytes = _column("counts", "utf8_bytes", COUNTS)
    copyright_signs = _column("counts", "copyright_signs", COUNTS)

    def _occurrences(self, pattern: str, keep: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Positions of ``pattern``'s first character where ``keep`` holds; no array scan if the text lacks it."""
        if pattern not in self.text:
            return _NOWHERE
        at = np.flatnonzero(self.units == ord(pattern[0]))
        return at[keep(at)]

    def python_events(self) -> np.ndarray:
        """:attr:`events` from each pattern's positions: the reference, and what serves where not compiled."""
        units, classes = self.units, self.classes
        ends = np.flatnonzero((classes & TERMINATOR) != 0)  # nonzero of a bool array is ~10x faster
        found = (
            ends[((classes[ends + 1] & SPACE) != 0) & ((classes[ends - 1] & SPACE) == 0)],
            self._occurrences("@", lambda at: ((classes[at - 1] & ALNUM) != 0) & ((classes[at + 1] & ALNUM) != 0)),
            self._occurrences("://", lambda at: (units[at + 1] == _SLASH) & (units[at + 2] == _SLASH)),
            self._occurrences("#", lambda at: ((classes[at - 1] & ALNUM) == 0) & ((classes[at + 1] & ALNUM) != 0)),
            self._occurrences(
                "www.",
                lambda at: (
                    (units[at + 1] == _W)
                    & (units[at + 2] == _W)
                    & (units[at + 3] == _DOT)
                    & ((classes[at - 1] & ALNUM) == 0)
                    & (units[at - 1] != _SLASH)
                ),
            ),
        )
        out = np.zeros((len(self), len(EVENTS)), dtype=np.int32)
        for column, positions in zip(_EVENT_COLUMNS, found, strict=True):
            if len(positions):
                out[:, column] += self.per_leaf(positions)
        return out

    sentence_ends = _column("events", "sentence_ends", EVENTS)
    emails = _column("events", "emails", EVENTS)
    urls = _column("events", "urls", EVENTS)
    hashtags = _column("events", "hashtags", EVENTS)

    def sentences(self, unit_of_leaf: np.ndarray) -> np.ndarray:
        """Sentences per unit of consecutive leaves (int32): its ends, and one unfinished sentence if it has one."""
        n_units = count_units(unit_of_leaf)
        worded = self.letters + self.digits
        last_classes = self.last_classes
        if n_units == len(self):  # every leaf its own unit
            ends = self.sentence_ends
        else:
            ends = np.bincount(unit_of_leaf, weights=self.sentence_ends, minlength=n_units)
            worded = np.bincount(unit_of_leaf, weights=worded, minlength=n_units)
            last_classes = last_classes[np.flatnonzero(np.diff(unit_of_leaf, append=n_units) != 0)]
        unfinished = (worded > 0) & ((last_classes & TERMINATOR) == 0)
        return (ends + unfinished).astype(np.int32)


def _load_count_leaves() -> Callable[..., None] | None:
    """The compiled pass (``_text_counts.pyx``, ``make build-ext``), given the class bits; None where not built."""
    try:
        from service.features import _text_counts  # noqa: PLC0415 - optional: built by `make build-ext`
    except ImportError:
        return None
    _text_counts.configure(LETTER, UPPER, DIGIT, PUNCTUATION, SPACE, TERMINATOR)
    return _text_counts.count_leaves


count_leaves = _load_count_leaves()


@per_document
def joined_text(document: Document) -> JoinedText:
    """The document's leaves as one :class:`JoinedText`, built once per document.

    The shallow, SVM and texrex features all read it; the entry goes with the document.
    """
    return JoinedText.of(document.texts)
