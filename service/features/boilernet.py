"""BoilerNet's block inputs: bags of words and of root-to-leaf tags, plus a few numeric signals.

Per block (Leonhardt et al. 2020, and the authors' code): counts of the
top :data:`WORD_VOCABULARY_SIZE` lower-cased words of the block's text and of
the top :data:`TAG_VOCABULARY_SIZE` tags on its root-to-leaf path, each with
one out-of-vocabulary slot. Vocabularies are built from the train part only.

The optional numeric inputs (:data:`NUMERIC_FEATURES`) are cheap facts a bag
of words cannot express: length, position, links and punctuation. They are
part of the schema, so a model records whether it reads them.

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
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from service.features.per_document import per_document
from service.parsing.document import Document

SCHEMA_VERSION = 1
SCHEMA_NAME = "boilernet"

WORD_VOCABULARY_SIZE = 1000  # the paper's top-1,000 words
TAG_VOCABULARY_SIZE = 50  # the paper's top-50 tags

_WORD = re.compile(r"\w+")
_PUNCTUATION = re.compile(r"[^\w\s]")
_SENTENCE_END = re.compile(r"[.!?…:]['\")\]]?$")

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

    @property
    def size(self) -> int:
        """Columns of the bag part: words, word OOV, tags, tag OOV."""
        return len(self.words) + 1 + len(self.tags) + 1

    def to_json(self) -> str:
        return json.dumps({"schema": SCHEMA_NAME, "version": SCHEMA_VERSION, "words": self.words, "tags": self.tags})

    @classmethod
    def from_json(cls, text: str) -> Vocabulary:
        record = json.loads(text)
        return cls(words=tuple(record["words"]), tags=tuple(record["tags"]))


def lower_words(text: str) -> list[str]:
    r"""The lower-cased words (``\w+`` runs) of one block's text."""
    return _WORD.findall(text.lower())


@per_document
def lowered_words(document: Document) -> list[list[str]]:
    """Every block's :func:`lower_words`, once per page: the BiLSTM's word bags and ``grf``'s block vectors."""
    return list(map(lower_words, document.texts))


def build_vocabulary(documents: Iterable[Document]) -> Vocabulary:
    """The most frequent words and path tags over ``documents`` (ties broken alphabetically)."""
    words: Counter[str] = Counter()
    tags: Counter[str] = Counter()
    for document in documents:
        for text in document.texts:  # not lowered_words: a training set's tokens need not outlive this count
            words.update(lower_words(text))
        for path in document.tag_paths:
            tags.update(path)

    def top(counts: Counter[str], size: int) -> tuple[str, ...]:
        return tuple(w for w, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:size])

    return Vocabulary(words=top(words, WORD_VOCABULARY_SIZE), tags=top(tags, TAG_VOCABULARY_SIZE))


@dataclass(frozen=True, eq=False)
class EncodedDocument:
    """A document's model input, kept sparse: any window of rows becomes a dense matrix on demand.

    A page of 100,000 blocks would be 400 MB as one dense float32 matrix;
    sparse, it is a few MB, and only the windows being run are densified.
    """

    word_rows: np.ndarray  # intp [nnz], sorted: the block of each word count
    word_columns: np.ndarray  # intp [nnz]: its column
    block_tags: np.ndarray  # float32 [n, tag columns]: tag counts of each block's path
    numeric: np.ndarray | None  # float32 [n, len(NUMERIC_FEATURES)] when the model reads them
    tag_offset: int  # first tag column
    width: int

    def __len__(self) -> int:
        return len(self.block_tags)

    def dense(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The ``(stop - start, width)`` float32 input of blocks ``start:stop``."""
        stop = len(self) if stop is None else min(stop, len(self))
        out = np.zeros((max(stop - start, 0), self.width), dtype=np.float32)
        low, high = np.searchsorted(self.word_rows, (start, stop))
        # each (row, column) cell once with its count: cheaper than np.add.at's unbuffered adds
        cells, counts = np.unique(
            (self.word_rows[low:high] - start) * self.width + self.word_columns[low:high], return_counts=True
        )
        out.reshape(-1)[cells] = counts
        tags_end = self.tag_offset + self.block_tags.shape[1]
        out[:, self.tag_offset : tags_end] = self.block_tags[start:stop]
        if self.numeric is not None:
            out[:, tags_end:] = self.numeric[start:stop]
        return out


class BlockEncoder:
    """Turns a document into its model input (:class:`EncodedDocument`)."""

    def __init__(self, vocabulary: Vocabulary, *, numeric: bool) -> None:
        self.vocabulary = vocabulary
        self.numeric = numeric
        self._word_ids = {w: i for i, w in enumerate(vocabulary.words)}
        self._word_oov = len(vocabulary.words)
        self._tag_base = self._word_oov + 1
        self._tag_ids = {t: i for i, t in enumerate(vocabulary.tags)}
        self._tag_oov = len(vocabulary.tags)

    @property
    def width(self) -> int:
        return self.vocabulary.size + (len(NUMERIC_FEATURES) if self.numeric else 0)

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
            numeric=numeric_features(document, words) if self.numeric else None,
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


def numeric_features(document: Document, words: np.ndarray) -> np.ndarray:
    """The :data:`NUMERIC_FEATURES` columns for every block."""
    texts = document.texts
    n = len(texts)
    chars = np.fromiter(map(len, texts), dtype=np.float32, count=n)
    punctuation = np.fromiter((len(_PUNCTUATION.findall(t)) for t in texts), dtype=np.float32, count=n)
    out = np.empty((n, len(NUMERIC_FEATURES)), dtype=np.float32)
    out[:, 0] = np.log1p(words)
    out[:, 1] = np.log1p(chars)
    out[:, 2] = document.block_in_link
    out[:, 3] = np.arange(n, dtype=np.float32) / max(n, 1)
    out[:, 4] = punctuation / np.maximum(chars, 1)
    out[:, 5] = np.fromiter((_SENTENCE_END.search(t) is not None for t in texts), dtype=np.float32, count=n)
    return out
