"""Per-leaf character counts over one joined string, without a Python loop per leaf.

The SVM and texrex features count letters, digits, punctuation, sentence
ends, e-mail addresses, URLs and hashtags in every text leaf. A handful of
regexes per leaf, over ~300 leaves a page, would cost more than the parse,
so the leaves are joined into one string (a NUL between leaves, which HTML
parsing never leaves in text), read as UTF-16 code units into a numpy array
and classified through one lookup table. Per-leaf counts are then segment
sums, and the rare patterns (an ``@``, a ``://``, a ``#``) are checked only
at their candidate positions.

Definitions (one place, used by every schema that reads them):

letter, uppercase, digit
    ``str.isalpha``, ``str.isupper``, ``str.isdigit`` of the code unit.
    Characters outside the Basic Multilingual Plane (emoji, rare CJK) are
    two surrogate code units and count as none of these.
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
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from service.features.shallow import count_units

# Class bits of one code unit.
LETTER = 1
UPPER = 2
DIGIT = 4
PUNCTUATION = 8
SPACE = 16  # white space, and the NUL between leaves
TERMINATOR = 32
CANDIDATE = 64  # a first character of a rare pattern: checked where it occurs
ALNUM = LETTER | DIGIT

SENTENCE_TERMINATORS = ".!?…‼⁇⁈⁉。！？"
_AT, _COLON, _SLASH, _HASH, _DOT, _W = (ord(c) for c in "@:/#.w")
_COPYRIGHT = "©"

SEPARATOR = "\0"
# Padding after the last leaf, so that a pattern check may look up to
# three code units ahead of any position without a bounds test.
_LOOKAHEAD = 3

# Per-leaf counts are summed as fields of one int64 (three fields of
# FIELD_BITS each): two segment sums instead of six. A leaf longer than
# MAX_COUNTED_CHARS characters is counted over its first MAX_COUNTED_CHARS
# only, so no field (UTF-8 bytes being at most 4 per character) can overflow.
FIELD_BITS = 21
MAX_COUNTED_CHARS = (1 << FIELD_BITS) // 4 - 1
_FIELD_MASK = (1 << FIELD_BITS) - 1


@cache
def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class bits and the two packed count weights of every UTF-16 code unit (built once, on first use)."""
    size = 0x10000
    classes = np.zeros(size, dtype=np.uint8)
    letters_digits_punctuation = np.zeros(size, dtype=np.int64)
    upper_bytes_copyright = np.zeros(size, dtype=np.int64)
    for unit in range(size):
        utf8_bytes = 1 if unit < 0x80 else 2 if unit < 0x800 or 0xD800 <= unit < 0xE000 else 3
        upper_bytes_copyright[unit] = utf8_bytes << FIELD_BITS
        if 0xD800 <= unit < 0xE000:  # half of a surrogate pair: two halves make one 4-byte character
            continue
        char = chr(unit)
        bits = (
            LETTER * char.isalpha()
            | UPPER * char.isupper()
            | DIGIT * char.isdigit()
            | PUNCTUATION * unicodedata.category(char).startswith("P")
            | SPACE * char.isspace()
            | TERMINATOR * (char in SENTENCE_TERMINATORS)
        )
        classes[unit] = bits
        letters_digits_punctuation[unit] = (
            bool(bits & LETTER) | bool(bits & DIGIT) << FIELD_BITS | bool(bits & PUNCTUATION) << (2 * FIELD_BITS)
        )
        upper_bytes_copyright[unit] |= bool(bits & UPPER) | (char == _COPYRIGHT) << (2 * FIELD_BITS)
    classes[[_AT, _COLON, _HASH, _W]] |= CANDIDATE
    classes[ord(SEPARATOR)] = SPACE
    upper_bytes_copyright[ord(SEPARATOR)] = 0
    return classes, letters_digits_punctuation, upper_bytes_copyright


def _utf16(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-16-le", "surrogatepass"), dtype=np.uint16)


def _field(packed: np.ndarray, index: int) -> np.ndarray:
    return ((packed >> (index * FIELD_BITS)) & _FIELD_MASK).astype(np.int32)


@dataclass(frozen=True, eq=False)
class JoinedText:
    """The leaves of a page as one array of UTF-16 code units, with every leaf's start."""

    units: np.ndarray  # uint16: SEPARATOR, leaf 0, SEPARATOR, leaf 1, ..., SEPARATOR, padding
    classes: np.ndarray  # uint8 class bits of every code unit
    starts: np.ndarray  # int64, index of every leaf's first code unit
    lengths: np.ndarray  # int64, code units of every (counted) leaf; a character beyond U+FFFF is two
    chars: np.ndarray  # int64, characters of every leaf (``len``), all of them counted or not

    @classmethod
    def of(cls, texts: list[str]) -> JoinedText:
        chars = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        if len(texts) and chars.max() > MAX_COUNTED_CHARS:
            texts = [text[:MAX_COUNTED_CHARS] for text in texts]
        units = _utf16(SEPARATOR + SEPARATOR.join(texts) + SEPARATOR * _LOOKAHEAD)
        separators = np.flatnonzero(units == 0)
        if len(separators) != len(texts) + _LOOKAHEAD:  # a NUL inside a text (the parser drops them)
            texts = [text.replace(SEPARATOR, " ") for text in texts]
            units = _utf16(SEPARATOR + SEPARATOR.join(texts) + SEPARATOR * _LOOKAHEAD)
            separators = np.flatnonzero(units == 0)
        starts = separators[: len(texts)] + 1
        lengths = separators[1 : len(texts) + 1] - starts
        return cls(units=units, classes=_tables()[0].take(units), starts=starts, lengths=lengths, chars=chars)

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def ends(self) -> np.ndarray:
        """Index just past every leaf's last code unit (its separator)."""
        return self.starts + self.lengths

    def leaf_of(self, positions: np.ndarray) -> np.ndarray:
        """The leaf each code-unit position belongs to."""
        return np.searchsorted(self.starts, positions, side="right") - 1

    def count_at(self, positions: np.ndarray) -> np.ndarray:
        """How many of ``positions`` fall in each leaf (int32 per leaf)."""
        return np.bincount(self.leaf_of(positions), minlength=len(self)).astype(np.int32)

    def _segment_sums(self, weights: np.ndarray) -> np.ndarray:
        if not len(self):
            return np.zeros(0, dtype=np.int64)
        return np.add.reduceat(weights.take(self.units), self.starts)

    @cached_property
    def _letters_digits_punctuation(self) -> np.ndarray:
        return self._segment_sums(_tables()[1])

    @cached_property
    def _upper_bytes_copyright(self) -> np.ndarray:
        return self._segment_sums(_tables()[2])

    @property
    def letters(self) -> np.ndarray:
        return _field(self._letters_digits_punctuation, 0)

    @property
    def digits(self) -> np.ndarray:
        return _field(self._letters_digits_punctuation, 1)

    @property
    def punctuation(self) -> np.ndarray:
        return _field(self._letters_digits_punctuation, 2)

    @property
    def uppercase(self) -> np.ndarray:
        return _field(self._upper_bytes_copyright, 0)

    @property
    def utf8_bytes(self) -> np.ndarray:
        return _field(self._upper_bytes_copyright, 1)

    @property
    def copyright_signs(self) -> np.ndarray:
        return _field(self._upper_bytes_copyright, 2)

    @property
    def last_classes(self) -> np.ndarray:
        """Class bits of every leaf's last code unit."""
        return self.classes[self.ends - 1]

    @cached_property
    def sentence_ends(self) -> np.ndarray:
        """Sentence ends per leaf (int32), as defined in the module docstring."""
        classes = self.classes
        ends = np.flatnonzero((classes & TERMINATOR) != 0)  # nonzero of a bool array is ~10x faster
        ends = ends[((classes[ends + 1] & SPACE) != 0) & ((classes[ends - 1] & SPACE) == 0)]
        return self.count_at(ends)

    def sentences(self, unit_of_leaf: np.ndarray) -> np.ndarray:
        """Sentences per unit of consecutive leaves (int32): its ends, and one unfinished sentence if it has one."""
        n_units = count_units(unit_of_leaf)
        ends = np.bincount(unit_of_leaf, weights=self.sentence_ends, minlength=n_units)
        worded = np.bincount(unit_of_leaf, weights=self.letters + self.digits, minlength=n_units) > 0
        last_leaf = np.flatnonzero(np.diff(unit_of_leaf, append=n_units) != 0)
        unfinished = worded & ((self.last_classes[last_leaf] & TERMINATOR) == 0)
        return (ends + unfinished).astype(np.int32)

    @cached_property
    def _candidates(self) -> np.ndarray:
        return np.flatnonzero((self.classes & CANDIDATE) != 0)

    def _occurrences(self, first: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions of code unit ``first`` (one of the candidates), and the class bits just before each."""
        at = self._candidates[self.units[self._candidates] == first]
        return at, self.classes[at - 1]

    @cached_property
    def emails(self) -> np.ndarray:
        at, before = self._occurrences(_AT)
        found = at[((before & ALNUM) != 0) & ((self.classes[at + 1] & ALNUM) != 0)]
        return self.count_at(found)

    @cached_property
    def urls(self) -> np.ndarray:
        units = self.units
        colon, _ = self._occurrences(_COLON)
        schemes = colon[(units[colon + 1] == _SLASH) & (units[colon + 2] == _SLASH)]
        w, before = self._occurrences(_W)
        www = w[
            (units[w + 1] == _W)
            & (units[w + 2] == _W)
            & (units[w + 3] == _DOT)
            & ((before & ALNUM) == 0)
            & (units[w - 1] != _SLASH)
        ]
        return self.count_at(schemes) + self.count_at(www)

    @cached_property
    def hashtags(self) -> np.ndarray:
        at, before = self._occurrences(_HASH)
        found = at[((before & ALNUM) == 0) & ((self.classes[at + 1] & ALNUM) != 0)]
        return self.count_at(found)
