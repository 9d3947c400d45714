# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The texrex features of :mod:`service.features.texrex` in C: one pass over the elements, one over the units.

The reference (``python_charged`` and ``python_rows`` there) builds every quantity as a NumPy row
over all units and divides row by row; on a page of a few hundred leaves the cost is the calls, not
the arithmetic. Here the same quantities are summed and divided unit by unit, in the same order of
operations on the same doubles, so every feature is the same float32. The layout (which quantity and
which feature row is where, the quotient table, the bits) is given by ``configure`` once, from the
reference's own tables.
"""

from libc.math cimport fabs
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc

cdef bint _configured = False
cdef int N_QUANTITIES, N_COUNTS, N_FEATURES
cdef int Q_MARKUP, Q_ANCHORS, Q_EMPTIES, Q_LETTERS, Q_DIGITS, Q_UTF8, Q_SENTENCE_ENDS, Q_CHARS
cdef int Q_ONE, Q_ALL, Q_MARKUP_1, Q_ALL_1, Q_MARKUP_2, Q_ALL_2
cdef int Q_SENTENCES, Q_SENTENCES_OR_ONE, Q_CHARS_IN_SENTENCES, Q_LETTERS_OR_ONE
cdef int R_FIRST_CONTAINER, N_CONTAINERS, R_OUTSIDE, R_TEXT_SHARE, R_MASS_POSITION, R_BLOCK_POSITION
cdef int R_ENDS_WITH_PUNCTUATION, R_FIRST_DOCTYPE, N_DOCTYPES, R_DOCUMENT_MARKUP
cdef int N_QUOTIENTS
cdef int QUOTIENT_ROW[32]
cdef int QUOTIENT_NUMERATOR[32]
cdef int QUOTIENT_DENOMINATOR[32]
cdef double QUOTIENT_SCALE[32]
cdef int32_t CONTAINER_MASK, ANCHOR, BLOCK_LEVEL, TAG_LENGTH_SHIFT
cdef int64_t TAG_OVERHEAD, ATTRIBUTE_BYTES
cdef uint8_t PUNCTUATION, TERMINATOR


def configure(
    dict quantities,
    int n_counts,
    dict rows,
    list quotients,
    tuple containers,
    tuple doctypes,
    dict tag_bits,
    dict markup_bytes,
    dict class_bits,
) -> None:
    """The reference's layout: quantity and feature indices by name, the quotients, the packed-tag and class bits."""
    global N_QUANTITIES, N_COUNTS, N_FEATURES, Q_MARKUP, Q_ANCHORS, Q_EMPTIES, Q_LETTERS, Q_DIGITS, Q_UTF8
    global Q_SENTENCE_ENDS, Q_CHARS, Q_ONE, Q_ALL, Q_MARKUP_1, Q_ALL_1, Q_MARKUP_2, Q_ALL_2
    global Q_SENTENCES, Q_SENTENCES_OR_ONE, Q_CHARS_IN_SENTENCES, Q_LETTERS_OR_ONE
    global R_FIRST_CONTAINER, N_CONTAINERS, R_OUTSIDE, R_TEXT_SHARE, R_MASS_POSITION, R_BLOCK_POSITION
    global R_ENDS_WITH_PUNCTUATION, R_FIRST_DOCTYPE, N_DOCTYPES, R_DOCUMENT_MARKUP, N_QUOTIENTS
    global CONTAINER_MASK, ANCHOR, BLOCK_LEVEL, TAG_LENGTH_SHIFT, TAG_OVERHEAD, ATTRIBUTE_BYTES
    global PUNCTUATION, TERMINATOR, _configured
    if len(quotients) > 32:
        raise ValueError("at most 32 quotients")
    N_QUANTITIES, N_COUNTS, N_FEATURES = len(quantities), n_counts, len(rows)
    Q_MARKUP, Q_ANCHORS, Q_EMPTIES = quantities["markup_bytes"], quantities["anchors"], quantities["empties"]
    Q_LETTERS, Q_DIGITS, Q_UTF8 = quantities["letters"], quantities["digits"], quantities["utf8_bytes"]
    Q_SENTENCE_ENDS, Q_CHARS, Q_ONE = quantities["sentence_ends"], quantities["chars"], quantities["one"]
    Q_ALL, Q_MARKUP_1, Q_ALL_1 = quantities["all_bytes"], quantities["markup_bytes_1"], quantities["all_bytes_1"]
    Q_MARKUP_2, Q_ALL_2 = quantities["markup_bytes_2"], quantities["all_bytes_2"]
    Q_SENTENCES, Q_SENTENCES_OR_ONE = quantities["sentences"], quantities["sentences_or_one"]
    Q_CHARS_IN_SENTENCES, Q_LETTERS_OR_ONE = quantities["chars_in_sentences"], quantities["letters_or_one"]
    R_FIRST_CONTAINER, N_CONTAINERS = rows[containers[0]], len(containers)
    R_OUTSIDE, R_TEXT_SHARE = rows["outside_containers"], rows["text_share"]
    R_MASS_POSITION, R_BLOCK_POSITION = rows["text_mass_position"], rows["block_position"]
    R_ENDS_WITH_PUNCTUATION, R_DOCUMENT_MARKUP = rows["ends_with_punctuation"], rows["document_markup_share"]
    R_FIRST_DOCTYPE, N_DOCTYPES = rows[doctypes[0]], len(doctypes)
    for at, name in enumerate(containers):
        if rows[name] != R_FIRST_CONTAINER + at:
            raise ValueError("the container rows are not consecutive")
    for at, name in enumerate(doctypes):
        if rows[name] != R_FIRST_DOCTYPE + at:
            raise ValueError("the doctype rows are not consecutive")
    N_QUOTIENTS = len(quotients)
    for at, (row, numerator, denominator, scale) in enumerate(quotients):
        QUOTIENT_ROW[at], QUOTIENT_NUMERATOR[at] = row, numerator
        QUOTIENT_DENOMINATOR[at], QUOTIENT_SCALE[at] = denominator, scale
    CONTAINER_MASK, ANCHOR = tag_bits["container_mask"], tag_bits["anchor"]
    BLOCK_LEVEL, TAG_LENGTH_SHIFT = tag_bits["block_level"], tag_bits["tag_length_shift"]
    TAG_OVERHEAD, ATTRIBUTE_BYTES = markup_bytes["tag_overhead"], markup_bytes["attribute"]
    PUNCTUATION, TERMINATOR = class_bits["punctuation"], class_bits["terminator"]
    _configured = True


def charge_elements(
    const int32_t[::1] info,
    const int32_t[::1] attributes,
    const int32_t[::1] parent,
    const int32_t[::1] block_elem,
    int64_t[:, ::1] charged,
) -> None:
    """Fill ``charged`` (leaves x 3): the markup bytes, anchors and empty block-level elements opened before each leaf.

    An element holds text when a leaf's element is it or below it: elements are in pre-order, so one
    pass from the last element up to the first passes every element's mark to its parent.
    """
    if not _configured:
        raise RuntimeError("configure() was not called")
    if charged.shape[0] != block_elem.shape[0] or charged.shape[1] != 3 or attributes.shape[0] != info.shape[0]:
        raise ValueError("info, attributes, block_elem and charged do not fit together")
    cdef Py_ssize_t n_elements = info.shape[0], leaf, element, opened = -1, last
    cdef int64_t markup, anchors, empties
    cdef int32_t tag
    cdef uint8_t* holds = <uint8_t*>calloc(n_elements + 1, 1)
    if holds == NULL:
        raise MemoryError()
    try:
        for leaf in range(block_elem.shape[0]):
            holds[block_elem[leaf]] = 1
        for element in range(n_elements - 1, 0, -1):
            if holds[element] and parent[element] >= 0:
                holds[parent[element]] = 1
        for leaf in range(block_elem.shape[0]):
            last = max(opened, <Py_ssize_t>block_elem[leaf])
            markup = anchors = empties = 0
            for element in range(opened + 1, last + 1):
                tag = info[element]
                markup += 2 * (tag >> TAG_LENGTH_SHIFT) + TAG_OVERHEAD + ATTRIBUTE_BYTES * attributes[element]
                anchors += (tag & ANCHOR) != 0
                empties += (tag & BLOCK_LEVEL) != 0 and not holds[element]
            charged[leaf, 0] = markup
            charged[leaf, 1] = anchors
            charged[leaf, 2] = empties
            opened = last
    finally:
        free(holds)


def unit_rows(
    const double[:, ::1] per_leaf,
    const int32_t[::1] unit_of_leaf,
    const uint8_t[::1] last_classes,
    const int32_t[::1] info,
    const int32_t[::1] block_paragraph,
    int doctype,
    int64_t source_bytes,
    float[:, ::1] rows,
) -> None:
    """Fill ``rows`` (units x features) from ``per_leaf`` (leaves x counted quantities), as the reference does."""
    if not _configured:
        raise RuntimeError("configure() was not called")
    cdef Py_ssize_t n_units = rows.shape[0], n_leaves = per_leaf.shape[0], leaf, unit, column, at, other
    cdef double* q = <double*>calloc(n_units * N_QUANTITIES, sizeof(double))
    cdef Py_ssize_t* first = <Py_ssize_t*>malloc(n_units * sizeof(Py_ssize_t))
    cdef Py_ssize_t* last = <Py_ssize_t*>malloc(n_units * sizeof(Py_ssize_t))
    cdef double* here
    cdef double all_chars = 0, text_total = 0, mass = 0, value, sentences, worded, markup_1, all_1
    cdef int32_t container
    if q == NULL or first == NULL or last == NULL:
        free(q)
        free(first)
        free(last)
        raise MemoryError()
    try:
        if (
            unit_of_leaf.shape[0] != n_leaves or last_classes.shape[0] != n_leaves
            or per_leaf.shape[1] < N_COUNTS or rows.shape[1] != N_FEATURES
        ):
            raise ValueError("per_leaf, unit_of_leaf, last_classes and rows do not fit together")
        for unit in range(n_units):
            first[unit] = -1
        for leaf in range(n_leaves):
            unit = unit_of_leaf[leaf]
            if unit < 0 or unit >= n_units:  # the caller's numbering: never written outside ``rows``
                raise ValueError(f"leaf {leaf} is in unit {unit}, of {n_units}")
            if first[unit] < 0:
                first[unit] = leaf
            last[unit] = leaf
            here = q + unit * N_QUANTITIES
            for column in range(N_COUNTS):
                here[column] += per_leaf[leaf, column]
        for unit in range(n_units):
            if first[unit] < 0:
                raise ValueError(f"unit {unit} has no leaf")
            here = q + unit * N_QUANTITIES
            here[Q_ONE] = 1
            here[Q_ALL] = here[Q_MARKUP] + here[Q_UTF8]
            all_chars += here[Q_CHARS]
            text_total += here[Q_UTF8]
        for unit in range(n_units):
            here = q + unit * N_QUANTITIES
            markup_1 = all_1 = 0
            for other in range(unit - 1, unit + 2):  # the unit and one either side, in the reference's order
                if 0 <= other < n_units:
                    markup_1 += q[other * N_QUANTITIES + Q_MARKUP]
                    all_1 += q[other * N_QUANTITIES + Q_ALL]
            here[Q_MARKUP_1], here[Q_ALL_1] = markup_1, all_1
            for other in (unit - 2, unit + 2):
                if 0 <= other < n_units:
                    markup_1 += q[other * N_QUANTITIES + Q_MARKUP]
                    all_1 += q[other * N_QUANTITIES + Q_ALL]
            here[Q_MARKUP_2], here[Q_ALL_2] = markup_1, all_1
            worded = here[Q_LETTERS] + here[Q_DIGITS]
            sentences = here[Q_SENTENCE_ENDS] + (worded > 0 and not (last_classes[last[unit]] & TERMINATOR))
            here[Q_SENTENCES] = sentences
            here[Q_SENTENCES_OR_ONE] = sentences if sentences > 1 else 1
            here[Q_CHARS_IN_SENTENCES] = here[Q_CHARS] if sentences > 0 else 0
            here[Q_LETTERS_OR_ONE] = here[Q_LETTERS] if here[Q_LETTERS] > 1 else 1

            for at in range(N_QUOTIENTS):
                value = here[QUOTIENT_NUMERATOR[at]] / here[QUOTIENT_DENOMINATOR[at]] * QUOTIENT_SCALE[at]
                rows[unit, QUOTIENT_ROW[at]] = 1 if value > 1 else value  # a NaN stays NaN, as np.minimum's
            container = info[block_paragraph[first[unit]]] & CONTAINER_MASK
            for at in range(N_CONTAINERS):
                rows[unit, R_FIRST_CONTAINER + at] = container == at + 1
            rows[unit, R_OUTSIDE] = container == 0
            rows[unit, R_TEXT_SHARE] = here[Q_CHARS] / all_chars
            mass += here[Q_CHARS]
            rows[unit, R_MASS_POSITION] = fabs(2 * (mass - here[Q_CHARS] / 2) / all_chars - 1)
            rows[unit, R_BLOCK_POSITION] = (unit + 0.5) / n_units
            rows[unit, R_ENDS_WITH_PUNCTUATION] = (last_classes[last[unit]] & PUNCTUATION) != 0
            for at in range(N_DOCTYPES):
                rows[unit, R_FIRST_DOCTYPE + at] = at == doctype
            rows[unit, R_DOCUMENT_MARKUP] = 1 - text_total / (source_bytes if source_bytes > text_total else text_total)
    finally:
        free(q)
        free(first)
        free(last)
