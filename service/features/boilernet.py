"""BoilerNet's block inputs: bags of words and of root-to-leaf tags, plus a few numeric signals.

Per block (Leonhardt et al. 2020, and the authors' code): counts of the
top :data:`WORD_VOCABULARY_SIZE` lower-cased words of the block's text and of
the top :data:`TAG_VOCABULARY_SIZE` tags on its root-to-leaf path, each with
one out-of-vocabulary slot. Vocabularies are built from the train part only.

The optional numeric inputs (:data:`NUMERIC_FEATURES`) are cheap facts a bag
of words cannot express: length, position, links and punctuation. They are
part of the schema, so a model records whether it reads them.

The optional class-token inputs (schema v2) are a bag of the words in the
id/class tokens of the block's ancestors-or-self ("comment-list" -> comment,
list), top :data:`CLASS_VOCABULARY_SIZE` from the train part plus an OOV
slot: containers that say what they are ("sidebar", "related", "share")
where the words and tags look like an article's.

The optional candidate inputs (schema v3) are the three per-leaf columns of
Readability's candidate scores (:mod:`service.features.candidates`): where
Readability would take the article from, with no site's names.

Column layout: words, tags, [class words], [numeric], [candidates]; a model
without class tokens and candidates reads exactly the v1 input, and one with
class tokens only the v2 input, so v1 and v2 models are served unchanged.

The model input is a dense float32 matrix, one row per block. Measured with
``python -m service bench --input-encodings --limit 100`` (ONNX Runtime, one
thread, median dev page): projecting the dense matrix with MatMul took
0.3-1.2 ms for 64-256 units, the same projection from sparse (block, column,
count) triples with Gather + ScatterElements(add) 11-47 ms, and building the
dense matrix from its sparse form 0.3-0.4 ms. So the projection stays a
MatMul inside the model, and only the windows being run are densified.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from itertools import chain, repeat
from typing import Any

import numpy as np

from service.features.candidates import FEATURES as CANDIDATE_FEATURES
from service.features.candidates import candidate_features
from service.features.per_document import per_document
from service.features.structure import FRAME_TAGS
from service.features.text_stats import SEPARATOR, joined_text
from service.parsing.document import Document

SCHEMA_VERSION = 3  # v2: the optional class-token group; v3: the optional candidate group
SCHEMA_NAME = "boilernet"
# Versions whose models this code encodes for: v1 models read no class tokens, v2 models no candidates, and
# those inputs are unchanged.
COMPATIBLE_VERSIONS = (1, 2, 3)

WORD_VOCABULARY_SIZE = 1000  # the paper's top-1,000 words
TAG_VOCABULARY_SIZE = 50  # the paper's top-50 tags
CLASS_VOCABULARY_SIZE = 150  # `train bilstm --class-tokens N` picks another size

# An id/class token's words: runs of letters and digits; digit-only runs (post-123) are ids, not names.
_CLASS_WORD = re.compile(r"[a-z0-9]*[a-z][a-z0-9]*")

_WORD = re.compile(r"\w+")
_PUNCTUATION = re.compile(r"[^\w\s]")
_TERMINATORS = ".!?…:"
_CLOSERS = "'\")]"  # a quote or bracket that may follow the terminator
_SENTENCE_END = re.compile(f"[{re.escape(_TERMINATORS)}][{re.escape(_CLOSERS)}]?$")
# Bits of a UTF-16 code unit for the vectorised reading of the two patterns above.
_SYMBOL, _TERMINATOR, _CLOSER, _NEWLINE = 1, 2, 4, 8

# Numeric inputs per block, in column order (all roughly in [0, 1] or small logs).
NUMERIC_FEATURES = (
    "log_words",  # log1p of the word count
    "log_chars",  # log1p of the text length
    "in_link",  # 1 inside an <a>
    "position",  # index / number of blocks
    "punctuation_share",  # non-word, non-space characters / characters
    "sentence_end",  # 1 when the text ends like a sentence
)


@dataclass(frozen=True)
class Vocabulary:
    """The words and tags that get their own input column; everything else shares an OOV slot."""

    words: tuple[str, ...]
    tags: tuple[str, ...]
    classes: tuple[str, ...] | None = None  # class-token words; None: the model reads none

    @property
    def size(self) -> int:
        """Columns of the bag part: words, word OOV, tags, tag OOV[, class words, class OOV]."""
        classes = 0 if self.classes is None else len(self.classes) + 1
        return len(self.words) + 1 + len(self.tags) + 1 + classes

    def to_json(self) -> str:
        record = {"schema": SCHEMA_NAME, "version": SCHEMA_VERSION, "words": self.words, "tags": self.tags}
        return json.dumps(record if self.classes is None else {**record, "classes": self.classes})

    @classmethod
    def from_json(cls, text: str) -> Vocabulary:
        record = json.loads(text)
        classes = record.get("classes")
        return cls(
            words=tuple(record["words"]),
            tags=tuple(record["tags"]),
            classes=None if classes is None else tuple(classes),
        )


def _top(counts: Counter[str], size: int) -> tuple[str, ...]:
    """The ``size`` most frequent keys, ties broken alphabetically."""
    return tuple(w for w, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:size])


def lower_words(text: str) -> list[str]:
    r"""The lower-cased words (``\w+`` runs) of one block's text."""
    return _WORD.findall(text.lower())


@per_document
def lowered_words(document: Document) -> list[list[str]]:
    """Every block's :func:`lower_words`, once per page: the BiLSTM's word bags and ``grf``'s block vectors."""
    return list(map(lower_words, document.texts))


def build_vocabulary(documents: Iterable[Document], *, class_words: int | None = None) -> Vocabulary:
    """The most frequent words and path tags over ``documents``, and ``class_words`` class-token words if given.

    A class word counts once per block under an element that carries it, so the
    vocabulary favours the words that name much of the text.
    """
    words: Counter[str] = Counter()
    tags: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    for document in documents:
        for text in document.texts:  # not lowered_words: a training set's tokens need not outlive this count
            words.update(lower_words(text))
        for path in document.tag_paths:
            tags.update(path)
        if class_words is not None and len(document):
            blocks_under = document.subtree_sums(np.ones(len(document)))
            groups, group_of = _class_word_groups(document)
            for elem in np.flatnonzero(group_of >= 0).tolist():
                for word in groups[group_of[elem]]:
                    classes[word] += int(blocks_under[elem])
    return Vocabulary(
        words=_top(words, WORD_VOCABULARY_SIZE),
        tags=_top(tags, TAG_VOCABULARY_SIZE),
        classes=None if class_words is None else _top(classes, class_words),
    )


def _class_word_groups(document: Document) -> tuple[list[list[str]], np.ndarray]:
    """The distinct lists of id/class words on the page, and which each element carries (-1: none).

    An element's words are those of its own id and class tokens; the page frame's are left out, as its
    classes describe the page's layout. A page repeats a few hundred class values over thousands of
    elements, so each distinct value is read once.
    """
    frame = document.elem_tagged(FRAME_TAGS)
    groups: list[list[str]] = []
    index: dict[tuple[str, ...], int] = {}
    group_of = np.full(len(frame), -1, dtype=np.int64)
    for elem, tokens in enumerate(document.elem_tokens):
        if tokens and not frame[elem]:
            group = index.get(tokens)
            if group is None:
                words = _CLASS_WORD.findall(" ".join(tokens))
                group = index[tokens] = len(groups) if words else -1
                if words:
                    groups.append(words)
            group_of[elem] = group
    return groups, group_of


@dataclass(frozen=True, eq=False)
class EncodedDocument:
    """A document's model input, kept sparse: any window of rows becomes a dense matrix on demand.

    A page of 100,000 blocks would be 400 MB as one dense float32 matrix;
    sparse, it is a few MB, and only the windows being run are densified.
    """

    word_rows: np.ndarray  # intp [nnz], sorted: the block of each word count
    word_columns: np.ndarray  # intp [nnz]: its column
    block_tags: np.ndarray  # float32 [n, tag columns]: tag counts of each block's path
    block_classes: np.ndarray | None  # float32 [n, class columns] when the model reads class tokens
    numeric: np.ndarray | None  # float32 [n, len(NUMERIC_FEATURES)] when the model reads them
    candidates: np.ndarray | None  # float32 [n, len(CANDIDATE_FEATURES)] when the model reads them
    tag_offset: int  # first tag column
    width: int

    def __len__(self) -> int:
        return len(self.block_tags)

    def dense(self, start: int = 0, stop: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """The ``(stop - start, width)`` float32 input of blocks ``start:stop``.

        Written into ``out`` where given (zeros of that shape: a row of a padded batch, so the rows are
        not copied into the batch a second time; for a page of 2,600 blocks the copy cost 4 ms).
        """
        stop = len(self) if stop is None else min(stop, len(self))
        if out is None:
            out = np.zeros((max(stop - start, 0), self.width), dtype=np.float32)
        elif not out.flags.c_contiguous:  # the counts go in through a flat view, which only a contiguous array has
            raise ValueError("dense(out=...) needs a C-contiguous array")
        low, high = np.searchsorted(self.word_rows, (start, stop))
        # each (row, column) cell once with its count: cheaper than np.add.at's unbuffered adds
        cells, counts = np.unique(
            (self.word_rows[low:high] - start) * self.width + self.word_columns[low:high], return_counts=True
        )
        out.reshape(-1)[cells] = counts
        column = self.tag_offset
        for group in (self.block_tags, self.block_classes, self.numeric, self.candidates):
            if group is not None:
                out[:, column : column + group.shape[1]] = group[start:stop]
                column += group.shape[1]
        return out


class BlockEncoder:
    """Turns a document into its model input (:class:`EncodedDocument`)."""

    def __init__(self, vocabulary: Vocabulary, *, numeric: bool, candidates: bool = False) -> None:
        self.vocabulary = vocabulary
        self.numeric = numeric
        self.candidates = candidates
        self._word_ids = {w: i for i, w in enumerate(vocabulary.words)}
        self._word_oov = len(vocabulary.words)
        self._tag_base = self._word_oov + 1
        self._tag_ids = {t: i for i, t in enumerate(vocabulary.tags)}
        self._tag_oov = len(vocabulary.tags)
        classes = vocabulary.classes
        self._class_ids = None if classes is None else {w: i for i, w in enumerate(classes)}

    @classmethod
    def for_model(cls, vocabulary: Vocabulary, config: Mapping[str, Any]) -> BlockEncoder:
        """The encoder a stored model's manifest config asks for (models before schema v3 read no candidates)."""
        return cls(vocabulary, numeric=config["numeric"], candidates=bool(config.get("candidates", False)))

    @property
    def width(self) -> int:
        numeric = len(NUMERIC_FEATURES) if self.numeric else 0
        return self.vocabulary.size + numeric + (len(CANDIDATE_FEATURES) if self.candidates else 0)

    def encode(self, document: Document) -> EncodedDocument:
        n = len(document)
        tokens = lowered_words(document)
        words = np.fromiter(map(len, tokens), dtype=np.intp, count=n)
        flat = list(chain.from_iterable(tokens))
        columns = np.fromiter(map(self._word_ids.get, flat, repeat(self._word_oov)), dtype=np.intp, count=len(flat))
        return EncodedDocument(
            word_rows=np.repeat(np.arange(n, dtype=np.intp), words),
            word_columns=columns,
            block_tags=self._path_tag_counts(document)[document.block_path] if n else np.zeros((0, self._tag_oov + 1)),
            block_classes=None if self._class_ids is None else self._class_word_counts(document, self._class_ids),
            numeric=numeric_features(document, words) if self.numeric else None,
            candidates=candidate_features(document).astype(np.float32) if self.candidates else None,
            tag_offset=self._tag_base,
            width=self.width,
        )

    def _path_tag_counts(self, document: Document) -> np.ndarray:
        """Tag counts of every distinct tag path of the page (tag columns only).

        Sums each path's one-hot tag over its ancestors by pointer jumping:
        log2(depth) vectorised steps instead of a Python loop over every path.
        """
        tag_ids, tag_oov = self._tag_ids, self._tag_oov
        column = np.fromiter((tag_ids.get(t, tag_oov) for t in document.path_tag), dtype=np.intp)
        n_paths = len(column)
        counts = np.zeros((n_paths, tag_oov + 1), dtype=np.float32)
        counts[np.arange(n_paths), column] = 1.0
        ancestor = np.asarray(document.path_parent, dtype=np.intp)
        live = ancestor >= 0
        while live.any():  # invariant: counts[p] sums the 2^k nearest ancestors-or-self of p
            counts[live] += counts[ancestor[live]]
            ancestor = np.where(live, ancestor[np.maximum(ancestor, 0)], -1)
            live = ancestor >= 0
        return counts

    @staticmethod
    def _class_word_counts(document: Document, class_ids: dict[str, int]) -> np.ndarray:
        """Counts of the class words on each block's ancestors-or-self (class columns, OOV last).

        Sums run over the elements that carry words only (each gets its nearest
        such ancestor's sums plus its own), and only for those above some block.
        """
        oov = len(class_ids)
        groups, group_of = _class_word_groups(document)
        columns = np.array([class_ids.get(word, oov) for words in groups for word in words], dtype=np.int64)
        group_rows = np.repeat(np.arange(len(groups)), [len(words) for words in groups])
        own = np.zeros((len(groups), oov + 1), dtype=np.float32)  # each group's counts, one row a group
        np.add.at(own, (group_rows, columns), 1)
        carrier = document.nearest_marked(group_of >= 0)
        parent = document.elem_parent
        sums: dict[int, np.ndarray] = {-1: np.zeros(oov + 1, dtype=np.float32)}

        def total(elem: int) -> np.ndarray:
            pending = []
            while elem not in sums:  # climb to the nearest carrier already summed
                pending.append(elem)
                elem = int(carrier[parent[elem]]) if parent[elem] >= 0 else -1
            for e in reversed(pending):
                sums[e] = sums[elem] + own[group_of[e]]
                elem = e
            return sums[elem]

        nearest = carrier[document.block_elem]
        distinct, inverse = np.unique(nearest, return_inverse=True)
        rows = np.stack([total(int(e)) for e in distinct]) if len(distinct) else np.zeros((0, oov + 1))
        return rows[inverse].astype(np.float32, copy=False).reshape(len(nearest), oov + 1)


def numeric_features(document: Document, words: np.ndarray) -> np.ndarray:
    """The :data:`NUMERIC_FEATURES` columns for every block."""
    n = len(document)
    chars = joined_text(document).chars.astype(np.float32)
    punctuation, sentence_end = _punctuation_and_sentence_ends(document)
    out = np.empty((n, len(NUMERIC_FEATURES)), dtype=np.float32)
    out[:, 0] = np.log1p(words)
    out[:, 1] = np.log1p(chars)
    out[:, 2] = document.block_in_link
    out[:, 3] = np.arange(n, dtype=np.float32) / max(n, 1)
    out[:, 4] = punctuation / np.maximum(chars, 1)
    out[:, 5] = sentence_end
    return out


@cache
def _unit_bits() -> np.ndarray:
    """The bits (:data:`_SYMBOL` ...) of every UTF-16 code unit alone, the leaf separator none (uint8)."""
    every = "".join(map(chr, range(0x10000)))
    bits = np.zeros(len(every), dtype=np.uint8)
    bits[[match.start() for match in _PUNCTUATION.finditer(every)]] |= _SYMBOL
    bits[[ord(c) for c in _TERMINATORS]] |= _TERMINATOR
    bits[[ord(c) for c in _CLOSERS]] |= _CLOSER
    bits[ord("\n")] |= _NEWLINE
    bits[ord(SEPARATOR)] = 0
    return bits


def _punctuation_and_sentence_ends(document: Document) -> tuple[np.ndarray, np.ndarray]:
    """Per block, the characters :data:`_PUNCTUATION` matches and whether :data:`_SENTENCE_END` does (float32 each).

    The patterns' own answers, read from one table over the page's joined text
    instead of two regex calls a block. A block whose code units are not its
    characters (beyond U+FFFF, cut, or holding a NUL) is asked the patterns.
    """
    texts = document.texts
    text = joined_text(document)
    if text.nul_replaced or not len(texts):
        return _by_regex(texts)
    bits = _unit_bits().take(text.units)
    punctuation = np.add.reduceat(bits & _SYMBOL, text.starts, dtype=np.int64).astype(np.float32)
    ends = text.ends  # ``$`` matches at the end, or before a final line break
    last, before, second = (bits[ends - k] for k in (1, 2, 3))  # a short block's separator (0) comes first
    closed = ((before & _TERMINATOR) != 0) | (((before & _CLOSER) != 0) & ((second & _TERMINATOR) != 0))
    sentence_end = ((last & _TERMINATOR) != 0) | (((last & _CLOSER) != 0) & ((before & _TERMINATOR) != 0))
    sentence_end |= ((last & _NEWLINE) != 0) & closed
    if len(text.uncounted):
        punctuation[text.uncounted], sentence_end[text.uncounted] = _by_regex([texts[i] for i in text.uncounted])
    return punctuation, sentence_end.astype(np.float32)


def _by_regex(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_punctuation_and_sentence_ends` of ``texts``, one regex call per text and pattern."""
    n = len(texts)
    punctuation = np.fromiter((len(_PUNCTUATION.findall(t)) for t in texts), dtype=np.float32, count=n)
    sentence_end = np.fromiter((_SENTENCE_END.search(t) is not None for t in texts), dtype=np.float32, count=n)
    return punctuation, sentence_end
