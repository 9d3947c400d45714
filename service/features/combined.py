"""The cheap feature groups in one row per leaf, with neighbour context: the input of the ``gbt`` backend.

The ensemble learns what its members' scores of a block and of its
neighbours mean; ``gbt`` asks whether one model can learn the same from
the members' inputs. Per leaf, in column order (:func:`feature_names`):

own groups
    texrex's 37 (:mod:`service.features.texrex`) of the leaf and of its
    paragraph unit; BoilerNet's 6 numeric ones
    (:mod:`service.features.boilernet`, words counted as the shallow
    features count them); the stack's 7 block signals
    (:mod:`service.features.stack`); the structure features: the 5 region
    bits (:mod:`service.features.structure`, which pruning reads too), the
    link share of the paragraph's container at :data:`LINK_LEVELS`, and
    whether the leaf is hidden (:mod:`service.features.hidden`); where
    Readability would take the article from (:mod:`service.features.candidates`);
    how often the page repeats the leaf's text (:func:`repeated_text`).
neighbour context
    the :data:`CONTEXT_COLUMNS` of the leaves at :data:`OFFSETS` (:data:`EDGE`
    outside the page), their mean over the ``±WINDOW`` leaves around (clipped
    at the page edges) and their page mean.

Yao & Zuo's features (:mod:`service.features.svm`) were in the union at
first and were left out: no better on validation without them, and about
9 ms a page dearer (figures in ``service/training/gbt.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from service.features.boilernet import NUMERIC_FEATURES, numeric_features
from service.features.candidates import FEATURES as CANDIDATE_FEATURES
from service.features.candidates import candidate_features
from service.features.hidden import hidden_blocks
from service.features.shallow import leaf_words
from service.features.stack import BLOCK_SIGNALS, EDGE, block_signals, window_means
from service.features.structure import FEATURE_REGIONS, LINK_LEVELS, container_link_shares, leaf_regions
from service.features.texrex import FEATURE_NAMES as TEXREX_NAMES
from service.features.texrex import texrex_features
from service.features.units import paragraph_units
from service.parsing.document import Document

SCHEMA_NAME = "combined"
# Bump when a definition here, or in a group it reads, changes.
SCHEMA_VERSION = 3

OFFSETS = (-2, -1, 1, 2)  # neighbours whose context columns are read
WINDOW = 10  # leaves on each side for the window means

OWN_NAMES: tuple[str, ...] = (
    *(f"texrex.{n}" for n in TEXREX_NAMES),
    *(f"texrex_paragraph.{n}" for n in TEXREX_NAMES),
    *(f"boilernet.{n}" for n in NUMERIC_FEATURES),
    *(f"stack.{n}" for n in BLOCK_SIGNALS),
    *(f"region.{r}" for r in FEATURE_REGIONS),
    *(f"container_link_share.{level}" for level in LINK_LEVELS),
    "hidden",
    *(f"candidate.{n}" for n in CANDIDATE_FEATURES),
    "repeated_text",
)
# Own columns whose neighbours and means are read (chosen on the validation part, see service/training/gbt.py).
CONTEXT_COLUMNS = (
    "stack.log_chars",
    "stack.in_link",
    "stack.paragraph_link_density",
    "texrex.markup_share",
    "texrex.anchors_per_char",
    "texrex.punctuation_share",
    "texrex.letter_share",
    "texrex.sentence_length",
    "texrex.text_length",
    "boilernet.sentence_end",
    "texrex.container_p",
    "texrex.container_list_item",
    "texrex.container_heading",
    "region.nav",
    "region.aside",
    "region.footer",
    "region.comment",
    "container_link_share.1",
    "container_link_share.2",
    "hidden",
    "stack.depth",
)
_CONTEXT_INDEX = np.array([OWN_NAMES.index(name) for name in CONTEXT_COLUMNS], dtype=np.intp)
_CONTEXT_KINDS = (*(f"neighbour{o:+d}" for o in OFFSETS), f"window{WINDOW}_mean", "page_mean")
FEATURE_NAMES: tuple[str, ...] = (
    *OWN_NAMES,
    *(f"{kind}.{name}" for kind in _CONTEXT_KINDS for name in CONTEXT_COLUMNS),
)
N_FEATURES = len(FEATURE_NAMES)


_OWN_WIDTH = len(OWN_NAMES)


def own_features(document: Document, out: np.ndarray) -> None:
    """Write the own groups of every leaf into ``out`` (leaves × ``len(OWN_NAMES)``, float32)."""
    n = len(document)
    if not n:
        return
    paragraph = paragraph_units(document)
    regions = leaf_regions(document)
    parts = (
        texrex_features(document, np.arange(n, dtype=np.int32)),
        texrex_features(document, paragraph)[paragraph],
        numeric_features(document, leaf_words(document).counts),
        block_signals(document),
        (regions[:, None] >> np.arange(len(FEATURE_REGIONS))) & 1,
        container_link_shares(document),
        hidden_blocks(document)[:, None],
        candidate_features(document),
        repeated_text(document)[:, None],
    )
    column = 0
    for part in parts:  # each cast to float32 as it is copied in, as astype would
        out[:, column : column + part.shape[1]] = part
        column += part.shape[1]


def repeated_text(document: Document) -> np.ndarray:
    """log2 of how many leaves of the page hold the leaf's text (0 for a text seen once), letter case aside.

    A page's furniture repeats itself word for word ("Add to cart", "Reply", "Mouseover photo to load
    notes or add comment" under every photo of a 2012 blog); its content seldom does.
    """
    keys = [text.strip().lower() for text in document.texts]
    counts = Counter(keys)  # about 0.15 ms over an article page's 336 leaves (2026-11-28)
    return np.log2(np.fromiter(map(counts.__getitem__, keys), dtype=np.float64, count=len(keys)))


def neighbours(values: np.ndarray, out: np.ndarray, offsets: Sequence[int] = OFFSETS) -> None:
    """Write ``out[i, j·width + c] = values[i + offsets[j], c]``, :data:`EDGE` outside the page."""
    n, width = values.shape
    for j, offset in enumerate(offsets):
        block = out[:, j * width : (j + 1) * width]
        low, high = max(-offset, 0), min(n - offset, n)  # the rows whose neighbour is on the page
        block[: min(low, n)] = block[max(high, 0) :] = EDGE
        if low < high:
            block[low:high] = values[low + offset : high + offset]


def context_features(values: np.ndarray, out: np.ndarray) -> None:
    """Write the neighbours at :data:`OFFSETS`, the ``±WINDOW`` mean and the page mean of each column of ``values``."""
    n, width = values.shape
    neighbours(values, out[:, : width * len(OFFSETS)])
    out[:, -2 * width : -width] = window_means(values, WINDOW)
    out[:, -width:] = values.mean(axis=0) if n else 0


def combined_features(document: Document, unit_of_leaf: np.ndarray) -> np.ndarray:
    """The model's input: a row per leaf (``unit_of_leaf`` must be the leaves), :data:`N_FEATURES` columns.

    Every group is written straight into one float32 matrix: no intermediate copy of it.
    """
    if len(unit_of_leaf) != len(document) or (len(unit_of_leaf) and unit_of_leaf[-1] != len(document) - 1):
        raise ValueError("the combined features are defined per leaf")
    out = np.empty((len(document), N_FEATURES), dtype=np.float32)
    own_features(document, out[:, :_OWN_WIDTH])
    context_features(out[:, _CONTEXT_INDEX], out[:, _OWN_WIDTH:])
    return out
