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
bytes) plus :data:`ATTRIBUTE_BYTES` per attribute (the mean over the
training pages), and it is charged to the leaf that follows it: the
elements opened after the previous leaf and up to this one (the markup a
reader crosses to get from the previous text to this one). Closing tags are
charged with their opening tags; elements after the last leaf are charged to
no one. The document's markup proportion (6b) is exact: one minus the UTF-8
bytes of all leaves over the page's bytes (scripts and styles included).
"""

from __future__ import annotations

import numpy as np

from service.features.shallow import count_units
from service.features.text_stats import PUNCTUATION, JoinedText
from service.parsing.document import BLOCK_LEVEL_TAGS, Document

SCHEMA_NAME = "texrex-features"
# Bump when a definition here or in text_stats changes.
SCHEMA_VERSION = 1

# Mean bytes of one attribute (name, value, quotes, space): 45.9 over the 1.96 million
# attributes of the train pages.
ATTRIBUTE_BYTES = 46
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

_MARKUP = ("markup_share", "markup_share_1", "markup_share_2")  # the unit, ±1 unit, ±2 units
_CONTAINER_NAMES = tuple(f"container_{name}" for name, _ in CONTAINERS)
_PER_CHAR = ("anchors_per_char", "emails_per_char", "urls_per_char", "hashtags_per_char")
_SHARES = ("punctuation_share", "letter_share", "digit_share")
_DOCTYPE_NAMES = tuple(f"doctype_{name}" for name in DOCTYPES)
FEATURE_NAMES: tuple[str, ...] = (
    *_MARKUP,
    *_CONTAINER_NAMES,
    "outside_containers",
    "empty_blocks_before",
    *_PER_CHAR,
    "text_length",
    "text_share",
    "text_mass_position",
    "block_position",
    *_SHARES,
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


def _rows(names: tuple[str, ...]) -> slice:
    """The rows of a group of features (each group is contiguous in FEATURE_NAMES)."""
    return slice(_ROW[names[0]], _ROW[names[-1]] + 1)


# What is counted per leaf and summed per unit, in this order.
_COUNTS = (
    "markup_bytes", "text_bytes", "anchors", "emails", "urls", "hashtags", "chars", "units",
    "punctuation", "letters", "digits", "uppercase", "copyright_signs", "empties",
)  # fmt: skip
_PER_CHAR_COUNTS = slice(_COUNTS.index("anchors"), _COUNTS.index("hashtags") + 1)  # in _PER_CHAR's order
_SHARE_COUNTS = slice(_COUNTS.index("punctuation"), _COUNTS.index("digits") + 1)  # in _SHARES' order
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
    holds = bytearray(len(document.elem_tag))
    for elem in document.block_elem.tolist():
        holds[elem] = 1
    parent = document.elem_parent.tolist()
    for elem in range(len(holds) - 1, 0, -1):  # children follow their parents in document order
        if holds[elem]:
            holds[parent[elem]] = 1
    return np.frombuffer(bytes(holds), dtype=np.uint8).astype(bool)


def _charged_to_leaves(document: Document, per_element: np.ndarray) -> np.ndarray:
    """Sum of ``per_element`` over the elements opened after the previous leaf and up to each leaf."""
    opened = np.maximum.accumulate(document.block_elem)  # elements are numbered in document order
    totals = np.concatenate(([0], np.cumsum(per_element)))
    before = np.concatenate(([0], totals[opened[:-1] + 1]))
    return totals[opened + 1] - before


def texrex_features(document: Document, unit_of_leaf: np.ndarray) -> np.ndarray:
    """The :data:`FEATURE_NAMES` of every unit, a float32 matrix (units × 37), each in [0, 1].

    ``unit_of_leaf`` numbers units 0, 1, ... in document order, each unit's
    leaves consecutive (:func:`~service.features.shallow.paragraph_units`,
    :func:`~service.features.shallow.leaf_units`).
    """
    n_leaves = len(document)
    n_units = count_units(unit_of_leaf)
    if not n_units:
        return np.zeros((0, N_FEATURES), dtype=np.float32)

    # -- per element, then charged to the leaf that follows -----------------
    info = np.array([_TAG_INFO[tag] for tag in document.path_tag], dtype=np.int32)[document.elem_path]
    attributes = np.fromiter(map(len, document.elem_attributes), dtype=np.int32, count=len(info))
    markup = 2 * (info >> _TAG_LENGTH_SHIFT) + TAG_OVERHEAD_BYTES + ATTRIBUTE_BYTES * attributes
    empty = ((info & _BLOCK_LEVEL) != 0) & ~_holds_text(document)
    text = JoinedText.of(document.texts)
    per_leaf = np.stack(
        [
            _charged_to_leaves(document, markup),
            text.utf8_bytes,
            _charged_to_leaves(document, (info & _ANCHOR) != 0),
            text.emails,
            text.urls,
            text.hashtags,
            text.chars,
            text.lengths,
            text.punctuation,
            text.letters,
            text.digits,
            text.uppercase,
            text.copyright_signs,
            _charged_to_leaves(document, empty),
        ]
    ).astype(np.float64)  # rows in _COUNTS order

    # -- per unit ------------------------------------------------------------
    first_leaf = np.flatnonzero(np.diff(unit_of_leaf, prepend=-1) != 0)
    last_leaf = np.append(first_leaf[1:], n_leaves) - 1
    counts = per_leaf if n_units == n_leaves else np.add.reduceat(per_leaf, first_leaf, axis=1)
    markup_bytes, text_bytes, _, _, _, _, chars, units, _, letters, _, upper, copyrights, empties = counts
    sentences = text.sentences(unit_of_leaf)
    container = info[document.block_paragraph[first_leaf]] & _CONTAINER_MASK
    position = np.arange(n_units)
    all_chars = chars.sum()
    markup_before = np.concatenate(([0.0], np.cumsum(markup_bytes)))
    bytes_before = np.concatenate(([0.0], np.cumsum(markup_bytes + text_bytes)))

    rows = np.empty((N_FEATURES, n_units), dtype=np.float32)
    for reach, name in enumerate(_MARKUP):  # (1a-c): over the unit and `reach` units either side
        low, high = np.maximum(position - reach, 0), np.minimum(position + reach + 1, n_units)
        rows[_ROW[name]] = (markup_before[high] - markup_before[low]) / (bytes_before[high] - bytes_before[low])
    rows[_rows(_CONTAINER_NAMES)] = container == _CONTAINER_GROUPS  # (1d)
    rows[_ROW["outside_containers"]] = container == 0  # (1e)
    rows[_ROW["empty_blocks_before"]] = np.minimum(empties / EMPTY_BLOCKS_SCALE, 1)  # (1f)
    rows[_rows(_PER_CHAR)] = np.minimum(counts[_PER_CHAR_COUNTS] / chars, 1)  # (1g, 2a-c)
    rows[_ROW["text_length"]] = np.minimum(chars / TEXT_LENGTH_SCALE, 1)  # (3a)
    rows[_ROW["text_share"]] = chars / all_chars  # (3b)
    # (3c): the percentile of the unit's middle in the text mass, 0 at the 50th, 1 at the 0th and 100th
    rows[_ROW["text_mass_position"]] = np.abs(2 * (np.cumsum(chars) - chars / 2) / all_chars - 1)
    rows[_ROW["block_position"]] = (position + 0.5) / n_units  # (3d)
    rows[_rows(_SHARES)] = counts[_SHARE_COUNTS] / units  # (4a-c)
    rows[_ROW["uppercase_share"]] = upper / np.maximum(letters, 1)  # (4d): of the letters
    rows[_ROW["has_copyright"]] = copyrights > 0  # (4e)
    per_sentence = np.where(sentences > 0, chars / np.maximum(sentences, 1), 0)
    rows[_ROW["sentence_length"]] = np.minimum(per_sentence / SENTENCE_LENGTH_SCALE, 1)  # (5a)
    rows[_ROW["sentence_count"]] = np.minimum(sentences / SENTENCE_COUNT_SCALE, 1)  # (5b)
    rows[_ROW["ends_with_punctuation"]] = (text.last_classes[last_leaf] & PUNCTUATION) != 0  # (5c)
    rows[_rows(_DOCTYPE_NAMES)] = np.array([name == doctype_of(document.doctype) for name in DOCTYPES])[:, None]  # (6a)
    text_total = text_bytes.sum()
    rows[_ROW["document_markup_share"]] = 1 - text_total / max(document.source_bytes, text_total)  # (6b)
    return np.ascontiguousarray(rows.T)
