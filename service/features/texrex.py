"""The 37 block features of texrex (Schäfer, "Efficient High-precision Boilerplate Detection Using MLPs").

Every feature is cheap and internal to the block or the document, and every
one is scaled into [0, 1] here, as the paper's MLP expects: proportions and
percentiles as they are, counts that cannot exceed the block's characters
divided by them (anchors, e-mail addresses, URLs, hashtags), other counts
divided by a named constant and clamped at 1, nominal features one-hot. The
text statistics come from :class:`~service.features.text_stats.JoinedText`.

A *unit* is a run of consecutive leaves (see :mod:`service.features.shallow`);
the trainer chooses leaves or paragraph units and the model records which.

Markup is approximated, because the parser keeps no source offsets. An
element's markup is its opening and closing tag (``2 × len(tag) + 5``
bytes) plus :data:`ATTRIBUTE_BYTES` for its ``id`` and for its ``class``
attribute, and it is charged to the leaf that follows it: the
elements opened after the previous leaf and up to this one (the markup a
reader crosses to get from the previous text to this one). Closing tags are
charged with their opening tags; elements after the last leaf are charged to
no one. The document's markup proportion (6b) is exact: one minus the UTF-8
bytes of all leaves over the page's bytes (scripts and styles included).

Both passes, charging the markup to the leaves and making each unit's row, run
in C (``_texrex.pyx``) where ``make build-ext`` built it: on a page of a few
hundred leaves NumPy's cost was its calls. :func:`python_charged` and
:func:`python_rows` are their reference, and serve where it is not built.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from service.features.per_document import per_document
from service.features.text_stats import COUNTS, EVENTS, PUNCTUATION, TERMINATOR, joined_text
from service.features.units import count_units, first_leaves
from service.parsing.document import BLOCK_LEVEL_TAGS, Document

SCHEMA_NAME = "texrex-features"
# Bump when a definition here or in text_stats changes.
SCHEMA_VERSION = 2

# Mean bytes of one attribute (name, value, quotes, space): 45.9 over the 1.96 million
# attributes of the train pages. Only id and class are counted (schema 2): Lexbor's CSS
# matcher finds them without a Python call per element, where reading every element's
# attributes cost about a tenth of the mlp pipeline; validation word-F1 0.8319 against
# 0.8315 with every attribute counted (schema 1).
ATTRIBUTE_BYTES = 46
COUNTED_ATTRIBUTES = ("id", "class")
TAG_OVERHEAD_BYTES = 5  # "<", ">", "</", ">" around the tag name twice

# Counts that a block's characters do not bound: divided by these and clamped at 1.
TEXT_LENGTH_SCALE = 1000  # characters; longer blocks are all simply "long"
EMPTY_BLOCKS_SCALE = 10  # empty block-level elements since the previous text
SENTENCE_COUNT_SCALE = 10
SENTENCE_LENGTH_SCALE = 200  # characters per sentence

# (1d) The enclosing container: the block's nearest block-level ancestor,
# in one of these groups; none of them is (1e), "outside any expected container".
CONTAINERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("p", frozenset({"p"})),
    ("div", frozenset({"div"})),
    ("heading", frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "hgroup"})),
    ("list_item", frozenset({"li", "dd", "dt"})),
    ("table_cell", frozenset({"td", "th", "caption"})),
    ("article", frozenset({"article", "main"})),
    ("section", frozenset({"section"})),
    ("blockquote", frozenset({"blockquote", "figcaption"})),
    ("pre", frozenset({"pre"})),
    ("navigation", frozenset({"nav", "aside", "menu"})),
    ("header_footer", frozenset({"header", "footer", "address"})),
)
# (6a) The declared doctype.
DOCTYPES = ("html4", "html5", "xhtml", "undeclared")

_CONTAINER_NAMES = tuple(f"container_{name}" for name, _ in CONTAINERS)
_DOCTYPE_NAMES = tuple(f"doctype_{name}" for name in DOCTYPES)
FEATURE_NAMES: tuple[str, ...] = (
    "markup_share",
    "markup_share_1",
    "markup_share_2",
    *_CONTAINER_NAMES,
    "outside_containers",
    "empty_blocks_before",
    "anchors_per_char",
    "emails_per_char",
    "urls_per_char",
    "hashtags_per_char",
    "text_length",
    "text_share",
    "text_mass_position",
    "block_position",
    "punctuation_share",
    "letter_share",
    "digit_share",
    "uppercase_share",
    "has_copyright",
    "sentence_length",
    "sentence_count",
    "ends_with_punctuation",
    *_DOCTYPE_NAMES,
    "document_markup_share",
)
N_FEATURES = len(FEATURE_NAMES)
_ROW = {name: row for row, name in enumerate(FEATURE_NAMES)}

# The quantities of a unit, one row each: what is counted per leaf and summed per
# unit (charged from the element table, JoinedText's COUNTS and EVENTS, the
# lengths), then what is derived from those. "_1"/"_2": over a window of the
# unit and one/two units either side.
_COUNTS = ("markup_bytes", "anchors", "empties", *COUNTS, *EVENTS, "chars", "units")
_DERIVED = (
    "one", "all_bytes", "markup_bytes_1", "all_bytes_1", "markup_bytes_2", "all_bytes_2",
    "sentences", "sentences_or_one", "chars_in_sentences", "letters_or_one",
)  # fmt: skip
_Q = {name: row for row, name in enumerate((*_COUNTS, *_DERIVED))}

# Features that are a quotient of two quantities, times a scale, clamped at 1:
# (feature, numerator, denominator, scale). Counts a block's characters bound
# are divided by them, other counts by a named constant (the paper's scaling).
_QUOTIENTS = (
    ("markup_share", "markup_bytes", "all_bytes", 1.0),  # (1a)
    ("markup_share_1", "markup_bytes_1", "all_bytes_1", 1.0),  # (1b)
    ("markup_share_2", "markup_bytes_2", "all_bytes_2", 1.0),  # (1c)
    ("empty_blocks_before", "empties", "one", 1 / EMPTY_BLOCKS_SCALE),  # (1f)
    ("anchors_per_char", "anchors", "chars", 1.0),  # (1g)
    ("emails_per_char", "emails", "chars", 1.0),  # (2a)
    ("urls_per_char", "urls", "chars", 1.0),  # (2b)
    ("hashtags_per_char", "hashtags", "chars", 1.0),  # (2c)
    ("text_length", "chars", "one", 1 / TEXT_LENGTH_SCALE),  # (3a)
    ("punctuation_share", "punctuation", "units", 1.0),  # (4a)
    ("letter_share", "letters", "units", 1.0),  # (4b)
    ("digit_share", "digits", "units", 1.0),  # (4c)
    ("uppercase_share", "uppercase", "letters_or_one", 1.0),  # (4d): of the letters
    ("has_copyright", "copyright_signs", "one", 1.0),  # (4e): any count is 1 once clamped
    ("sentence_length", "chars_in_sentences", "sentences_or_one", 1 / SENTENCE_LENGTH_SCALE),  # (5a)
    ("sentence_count", "sentences", "one", 1 / SENTENCE_COUNT_SCALE),  # (5b)
)
_QUOTIENT_ROWS = [_ROW[feature] for feature, _, _, _ in _QUOTIENTS]
_NUMERATORS = [_Q[numerator] for _, numerator, _, _ in _QUOTIENTS]
_DENOMINATORS = [_Q[denominator] for _, _, denominator, _ in _QUOTIENTS]
_SCALES = np.array([scale for _, _, _, scale in _QUOTIENTS])[:, None]
_CONTAINER_GROUPS = np.arange(1, len(CONTAINERS) + 1)[:, None]

# Per element: its container group (1 + index in CONTAINERS, 0 for none) in the
# low bits, whether it is an anchor or block-level, and its tag's length.
_CONTAINER_MASK = 0xF
_ANCHOR = 0x10
_BLOCK_LEVEL = 0x20
_TAG_LENGTH_SHIFT = 8


class _TagInfo(dict[str, int]):
    """Tag -> packed facts; a tag it does not know (a custom element) is only its length."""

    def __missing__(self, tag: str) -> int:
        return len(tag) << _TAG_LENGTH_SHIFT


def _tag_info() -> _TagInfo:
    info = _TagInfo()
    for tag in BLOCK_LEVEL_TAGS | {"a"} | {t for _, tags in CONTAINERS for t in tags}:
        group = next((i + 1 for i, (_, tags) in enumerate(CONTAINERS) if tag in tags), 0)
        info[tag] = (
            group | _ANCHOR * (tag == "a") | _BLOCK_LEVEL * (tag in BLOCK_LEVEL_TAGS) | len(tag) << _TAG_LENGTH_SHIFT
        )
    return info


_TAG_INFO = _tag_info()


def doctype_of(doctype: str) -> str:
    """One of :data:`DOCTYPES` for the page's ``<!doctype ...>`` text (lower-cased, as the parser keeps it)."""
    if not doctype:
        return "undeclared"
    if "xhtml" in doctype:
        return "xhtml"
    if "html 4" in doctype or "dtd html" in doctype:
        return "html4"
    return "html5"


def _holds_text(document: Document) -> np.ndarray:
    """Whether each element has a text leaf at or below it (bool per element)."""
    return document.subtree_sums(np.ones(len(document))) > 0


def _prefix_sums(values: np.ndarray) -> np.ndarray:
    """0, v0, v0 + v1, ... along the first axis: one row more than ``values``."""
    out = np.zeros((len(values) + 1, *values.shape[1:]))
    np.cumsum(values, axis=0, out=out[1:])
    return out


def _charged_to_leaves(document: Document, per_element: np.ndarray) -> np.ndarray:
    """Column sums of ``per_element`` (elements × k) over the elements opened since the previous leaf, per leaf."""
    opened = np.empty(len(document) + 1, dtype=np.int64)  # the last element opened before each leaf's text
    opened[0] = -1
    np.maximum.accumulate(document.block_elem, out=opened[1:])  # elements are numbered in document order
    totals = _prefix_sums(per_element)[opened + 1]
    return totals[1:] - totals[:-1]


def python_charged(document: Document, info: np.ndarray, attributes: np.ndarray) -> np.ndarray:
    """The markup bytes, anchors and empty block-level elements charged to each leaf (int64, leaves × 3).

    The reference of the compiled pass (``_texrex.pyx``), and what serves where it is not built.
    """
    markup = 2 * (info >> _TAG_LENGTH_SHIFT) + TAG_OVERHEAD_BYTES + ATTRIBUTE_BYTES * attributes
    per_element = np.empty((len(info), 3), dtype=np.int64)
    per_element[:, 0] = markup
    per_element[:, 1] = (info & _ANCHOR) != 0
    per_element[:, 2] = ((info & _BLOCK_LEVEL) != 0) & ~_holds_text(document)  # empty block-level elements
    return _charged_to_leaves(document, per_element)


def _charged(document: Document, info: np.ndarray, attributes: np.ndarray) -> np.ndarray:
    """:func:`python_charged`, in the compiled pass where it is built."""
    if _compiled is None:
        return python_charged(document, info, attributes)
    charged = np.empty((len(document), 3), dtype=np.int64)
    _compiled.charge_elements(info, attributes, document.elem_parent, document.block_elem, charged)
    return charged


@per_document
def _per_leaf(document: Document) -> tuple[np.ndarray, np.ndarray]:
    """Every element's packed tag facts and every leaf's :data:`_COUNTS`, read-only.

    Once per page: ``gbt`` reads the features of the leaves and of the paragraph
    units, both sums of these per-leaf counts.
    """
    info = np.array([_TAG_INFO[tag] for tag in document.path_tag], dtype=np.int32)[document.elem_path]
    charged = _charged(document, info, document.elem_attribute_counts(COUNTED_ATTRIBUTES))
    text = joined_text(document)
    per_leaf = np.concatenate(
        [charged, text.counts, text.events, text.chars[:, None], text.lengths[:, None]], axis=1, dtype=np.float64
    )  # columns in _COUNTS order
    info.flags.writeable = per_leaf.flags.writeable = False
    return info, per_leaf


def texrex_features(document: Document, unit_of_leaf: np.ndarray) -> np.ndarray:
    """The :data:`FEATURE_NAMES` of every unit, a float32 matrix (units × 37), each in [0, 1].

    ``unit_of_leaf`` numbers units 0, 1, ... in document order, each unit's
    leaves consecutive (:func:`~service.features.units.paragraph_units`,
    :func:`~service.features.units.leaf_units`).
    """
    n_units = count_units(unit_of_leaf)
    if not n_units:
        return np.zeros((0, N_FEATURES), dtype=np.float32)
    if _compiled is None:
        return python_rows(document, unit_of_leaf)
    info, per_leaf = _per_leaf(document)
    rows = np.empty((n_units, N_FEATURES), dtype=np.float32)
    units = np.ascontiguousarray(unit_of_leaf, dtype=np.int32)
    doctype = DOCTYPES.index(doctype_of(document.doctype))
    last_classes = joined_text(document).last_classes
    _compiled.unit_rows(
        per_leaf, units, last_classes, info, document.block_paragraph, doctype, document.source_bytes, rows
    )
    return rows


def python_rows(document: Document, unit_of_leaf: np.ndarray) -> np.ndarray:
    """:func:`texrex_features` row by row in NumPy: the reference of the compiled pass, and what serves without it."""
    n_leaves = len(document)
    n_units = count_units(unit_of_leaf)

    info, per_leaf = _per_leaf(document)
    text = joined_text(document)

    # -- per unit ------------------------------------------------------------
    if n_units == n_leaves:
        first_leaf = last_leaf = np.arange(n_leaves)
        counts = per_leaf.T
    else:
        first_leaf = first_leaves(unit_of_leaf)
        last_leaf = np.append(first_leaf[1:], n_leaves) - 1
        counts = np.add.reduceat(per_leaf, first_leaf, axis=0).T
    q = np.empty((len(_Q), n_units))
    q[: len(_COUNTS)] = counts
    q[_Q["one"]] = 1
    q[_Q["all_bytes"]] = q[_Q["markup_bytes"]] + q[_Q["utf8_bytes"]]
    padded = np.zeros((2, n_units + 4))  # markup and all bytes, two empty units beyond either end
    padded[:, 2:-2] = q[[_Q["markup_bytes"], _Q["all_bytes"]]]
    window = padded[:, 1:-3] + padded[:, 2:-2] + padded[:, 3:-1]  # the unit and one unit either side
    q[[_Q["markup_bytes_1"], _Q["all_bytes_1"]]] = window
    q[[_Q["markup_bytes_2"], _Q["all_bytes_2"]]] = window + padded[:, :-4] + padded[:, 4:]
    sentences = q[_Q["sentences"]] = text.sentences(unit_of_leaf)
    q[_Q["sentences_or_one"]] = np.maximum(sentences, 1)
    chars = q[_Q["chars"]]
    q[_Q["chars_in_sentences"]] = np.where(sentences > 0, chars, 0)
    q[_Q["letters_or_one"]] = np.maximum(q[_Q["letters"]], 1)

    rows = np.empty((N_FEATURES, n_units), dtype=np.float32)
    rows[_QUOTIENT_ROWS] = np.minimum(q[_NUMERATORS] / q[_DENOMINATORS] * _SCALES, 1)
    container = info[document.block_paragraph[first_leaf]] & _CONTAINER_MASK
    rows[_ROW[_CONTAINER_NAMES[0]] : _ROW[_CONTAINER_NAMES[-1]] + 1] = container == _CONTAINER_GROUPS  # (1d)
    rows[_ROW["outside_containers"]] = container == 0  # (1e)
    all_chars = chars.sum()
    rows[_ROW["text_share"]] = chars / all_chars  # (3b)
    # (3c): the percentile of the unit's middle in the text mass, 0 at the 50th, 1 at the 0th and 100th
    rows[_ROW["text_mass_position"]] = np.abs(2 * (np.cumsum(chars) - chars / 2) / all_chars - 1)
    rows[_ROW["block_position"]] = (np.arange(n_units) + 0.5) / n_units  # (3d)
    rows[_ROW["ends_with_punctuation"]] = (text.last_classes[last_leaf] & PUNCTUATION) != 0  # (5c)
    declared = doctype_of(document.doctype)
    rows[_ROW[_DOCTYPE_NAMES[0]] : _ROW[_DOCTYPE_NAMES[-1]] + 1] = np.array([[d == declared] for d in DOCTYPES])  # (6a)
    text_total = q[_Q["utf8_bytes"]].sum()
    rows[_ROW["document_markup_share"]] = 1 - text_total / max(document.source_bytes, text_total)  # (6b)
    return np.ascontiguousarray(rows.T)


def _load_compiled() -> ModuleType | None:
    """The compiled passes (``_texrex.pyx``, ``make build-ext``), given this module's layout; None where not built."""
    try:
        from service.features import _texrex  # noqa: PLC0415 - optional: built by `make build-ext`
    except ImportError:
        return None
    _texrex.configure(
        quantities=_Q,
        n_counts=len(_COUNTS),
        rows=_ROW,
        quotients=list(zip(_QUOTIENT_ROWS, _NUMERATORS, _DENOMINATORS, _SCALES[:, 0].tolist(), strict=True)),
        containers=_CONTAINER_NAMES,
        doctypes=_DOCTYPE_NAMES,
        tag_bits={
            "container_mask": _CONTAINER_MASK,
            "anchor": _ANCHOR,
            "block_level": _BLOCK_LEVEL,
            "tag_length_shift": _TAG_LENGTH_SHIFT,
        },
        markup_bytes={"tag_overhead": TAG_OVERHEAD_BYTES, "attribute": ATTRIBUTE_BYTES},
        class_bits={"punctuation": PUNCTUATION, "terminator": TERMINATOR},
    )
    return _texrex


_compiled = _load_compiled()
