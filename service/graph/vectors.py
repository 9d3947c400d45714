"""Block vectors for similarity edges: hashed bags of words, tags and id/class tokens.

The BiLSTM's inputs (BoilerNet: the block's lower-cased words and the tags
on its root-to-leaf path) plus the id/class tokens along that path, each
hashed with CRC-32 into a fixed number of columns (the same column in every
process, unlike Python's ``hash``), the count of each column damped by
``log1p``. Each of the
three groups is L2-normalised on its own and scaled by the square root of
its weight, so the dot product of two vectors is the weighted mean of the
three cosines (weights summing to one): a block without words still
compares by its markup.
"""

from __future__ import annotations

import zlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
from scipy import sparse

from service.features.boilernet import lowered_words
from service.parsing.document import Document

# Columns per group: few enough that a 20,000-block page holds
# 20,000 × 448 float32 (36 MB), enough that hash collisions between the
# words or tags of two blocks stay rare.
WORD_COLUMNS = 256
TAG_COLUMNS = 64
TOKEN_COLUMNS = 128


@dataclass(frozen=True, slots=True)
class VectorWeights:
    """Share of each group in the similarity of two blocks (normalised to sum to one).

    Chosen by propagating from a random fifth of the gold labels on 400
    train pages and scoring the rest (page word F1): id/class tokens carry
    region and template (0.914 alone), words add little (0.4/0.3/0.3:
    0.866); 0.1/0.2/0.7 scored 0.909, and 0.921 with the chosen graph.
    """

    words: float = 0.1
    tags: float = 0.2
    tokens: float = 0.7


def hashed_bags(bags: Sequence[Sequence[str]], columns: int) -> np.ndarray:
    """One L2-normalised row per bag of ``log1p`` counts per column, features hashed by CRC-32 (float32)."""
    flat = list(chain.from_iterable(bags))
    column_of = {feature: zlib.crc32(feature.encode()) % columns for feature in set(flat)}
    cols = np.fromiter(map(column_of.__getitem__, flat), dtype=np.int64, count=len(flat))
    rows = np.repeat(np.arange(len(bags)), [len(bag) for bag in bags])
    ones = np.ones(len(flat), dtype=np.float32)
    counts = sparse.csr_matrix((ones, (rows, cols)), shape=(len(bags), columns))  # duplicates are summed
    counts.data = np.log1p(counts.data)
    out = counts.toarray()
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def _distinct(keys: Sequence[Hashable]) -> tuple[list[int], np.ndarray]:
    """The first block of every distinct key, and each block's key number (blocks on one path share a row)."""
    index: dict[Hashable, int] = {}
    firsts: list[int] = []
    of_block = np.empty(len(keys), dtype=np.int64)
    for i, key in enumerate(keys):
        found = index.get(key)
        if found is None:
            found = index[key] = len(firsts)
            firsts.append(i)
        of_block[i] = found
    return firsts, of_block


def block_vectors(document: Document, weights: VectorWeights = VectorWeights()) -> np.ndarray:
    """One float32 row per block; the dot product of two rows is their weighted cosine."""
    total = weights.words + weights.tags + weights.tokens
    tag_paths, token_paths = document.tag_paths, document.token_paths
    tag_firsts, tag_of_block = _distinct(document.block_path.tolist())
    token_firsts, token_of_block = _distinct(token_paths)
    groups = (
        (hashed_bags(lowered_words(document), WORD_COLUMNS), None, weights.words),
        (hashed_bags([tag_paths[i] for i in tag_firsts], TAG_COLUMNS), tag_of_block, weights.tags),
        (hashed_bags([token_paths[i] for i in token_firsts], TOKEN_COLUMNS), token_of_block, weights.tokens),
    )
    out = np.empty((len(document), WORD_COLUMNS + TAG_COLUMNS + TOKEN_COLUMNS), dtype=np.float32)
    start = 0
    for rows, of_block, share in groups:
        stop = start + rows.shape[1]
        per_block = rows if of_block is None else rows[of_block]
        np.multiply(per_block, np.float32(np.sqrt(share / total)), out=out[:, start:stop])
        start = stop
    return out
