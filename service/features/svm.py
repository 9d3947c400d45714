"""The 18 block features of Yao & Zuo's SVM ("A Machine Learning Approach to Webpage Content Extraction").

Three groups, as in the paper's section III-B:

text features (7)
    The unit's words, average sentence length (words per sentence) and text
    density, each with its quotient to the previous unit, and its link
    density. Words, link density and text density (80-character lines) are
    :mod:`service.features.shallow`'s; sentences are
    :mod:`service.features.text_stats`'. A quotient is ``(value + 1) /
    (previous + 1)``, so that a unit after an empty one (or the first unit,
    whose previous is the page's edge, 0) gets a finite value.
relative position (1)
    ``floor(n / N × M)`` for the n-th of N units (n from 0), with M =
    :data:`POSITION_BUCKETS` (the paper leaves M open).
id/class tokens (10)
    Whether a token chosen on the train part (the paper's Naive Bayes score
    for non-content, see :mod:`service.training.svm`) appears among the id
    and class tokens along the path of any of the unit's leaves. Tokens are
    the lower-cased runs of letters and digits of the attribute values
    (``"main-nav__item"`` gives ``main``, ``nav``, ``item``), so the paper's
    ``nav`` or ``cat`` also match in today's BEM and utility class names.

Each row is one unit (see :mod:`service.features.shallow`): the trainer
chooses leaves or paragraph units and the model records which. Values are
raw; the model scales them (a scaler inside the exported pipeline).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from service.features.shallow import previous, text_features
from service.features.text_stats import joined_text
from service.features.units import count_units, first_leaves
from service.parsing.document import Document

SCHEMA_NAME = "svm-features"
# Bump when a definition here changes.
SCHEMA_VERSION = 1

POSITION_BUCKETS = 10  # M: relative positions 0..9 (deciles of the page's units)
TOKEN_FEATURES = 10  # the paper's top-N id/class tokens, N = 10

TEXT_FEATURES = (
    "words",
    "words_quotient",
    "sentence_length",
    "sentence_length_quotient",
    "text_density",
    "text_density_quotient",
    "link_density",
)
N_FEATURES = len(TEXT_FEATURES) + 1 + TOKEN_FEATURES

_TOKEN = re.compile(r"[a-z0-9]+")


def feature_names(tokens: Sequence[str]) -> tuple[str, ...]:
    """Column names for a model whose token features are ``tokens``."""
    return (*TEXT_FEATURES, "relative_position", *(f"token_{token}" for token in tokens))


def element_tokens(document: Document) -> list[tuple[str, ...]]:
    """Every element's own id/class tokens (see the module docstring), possibly repeated."""
    return [tuple(_TOKEN.findall(" ".join(tokens))) if tokens else () for tokens in document.elem_tokens]


def unit_token_sets(document: Document, unit_of_leaf: np.ndarray) -> list[set[str]]:
    """The distinct id/class tokens along the paths of every unit's leaves (for choosing tokens)."""
    own = element_tokens(document)
    parent = document.elem_parent.tolist()
    along: list[frozenset[str]] = []
    for elem, tokens in enumerate(own):
        inherited = along[parent[elem]] if elem else frozenset()
        along.append(inherited | frozenset(tokens) if tokens else inherited)
    n_units = count_units(unit_of_leaf)
    units: list[set[str]] = [set() for _ in range(n_units)]
    for unit, elem in zip(unit_of_leaf.tolist(), document.block_elem.tolist(), strict=True):
        units[unit] |= along[elem]
    return units


def token_flags(document: Document, unit_of_leaf: np.ndarray, tokens: Sequence[str]) -> np.ndarray:
    """Whether each of ``tokens`` is on the path of any of each unit's leaves (bool, units × tokens)."""
    bit_of = {token: 1 << i for i, token in enumerate(tokens)}
    # An id/class name's bits, decided once per distinct name on the page (class names repeat on every
    # item); its tokens are those :func:`element_tokens` finds, as the names hold no white space.
    bits_of_name: dict[str, int] = {}
    parent = document.elem_parent.tolist()
    bits = [0] * len(parent)
    for elem, names in enumerate(document.elem_tokens):
        mine = 0
        for name in names:
            found = bits_of_name.get(name)
            if found is None:
                found = 0
                for token in _TOKEN.findall(name):
                    found |= bit_of.get(token, 0)
                bits_of_name[name] = found
            mine |= found
        bits[elem] = mine | bits[parent[elem]] if elem else mine
    leaf_bits = np.array(bits, dtype=np.int64)[document.block_elem]
    first_leaf = first_leaves(unit_of_leaf)
    unit_bits = np.bitwise_or.reduceat(leaf_bits, first_leaf) if len(first_leaf) else leaf_bits
    return (unit_bits[:, None] >> np.arange(len(tokens))) & 1 != 0


def _quotient(values: np.ndarray) -> np.ndarray:
    return (values + 1) / (previous(values) + 1)


def svm_features(document: Document, unit_of_leaf: np.ndarray, tokens: Sequence[str]) -> np.ndarray:
    """The 18 features of every unit (float32, units × 18), token columns in the order of ``tokens``."""
    if len(tokens) != TOKEN_FEATURES:
        raise ValueError(f"the SVM features take {TOKEN_FEATURES} tokens, got {len(tokens)}")
    n_units = count_units(unit_of_leaf)
    out = np.zeros((n_units, N_FEATURES), dtype=np.float32)
    if not n_units:
        return out
    shallow = text_features(document, unit_of_leaf)
    words = shallow.words.astype(np.float64)
    sentences = joined_text(document).sentences(unit_of_leaf)
    sentence_length = np.divide(words, sentences, out=np.zeros(n_units), where=sentences > 0)
    density = shallow.text_density.astype(np.float64)
    columns = (
        words,
        _quotient(words),
        sentence_length,
        _quotient(sentence_length),
        density,
        _quotient(density),
        shallow.link_density,
        np.arange(n_units) * POSITION_BUCKETS // n_units,
    )
    for index, values in enumerate(columns):
        out[:, index] = values
    out[:, len(columns) :] = token_flags(document, unit_of_leaf, tokens)
    return out
