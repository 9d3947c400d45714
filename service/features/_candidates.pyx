# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Readability's content scores of :mod:`service.features.candidates` in C: the spread up the tree and the best above.

The reference (``python_spread`` and ``python_best_above`` there) does each level of the spread
as a few NumPy calls over the scored elements; on a page of a few thousand elements the cost is
the calls. Here the same sums are made in the same order (level by level, the scored elements in
document order within a level, as ``np.add.at`` adds them), so every score is the same double.
"""

from libc.math cimport floor
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc


def spread_scores(
    const int32_t[::1] parent,
    const int64_t[::1] subtree_ends,
    const int32_t[::1] block_elem,
    const double[::1] leaf_commas,
    const double[::1] chars,
    const double[::1] linked,
    const uint8_t[::1] scored,
    const double[::1] start,
    int levels,
    double[::1] final,
) -> None:
    """Fill ``final`` (per element): what each scored element gives, spread ``levels`` up, as Readability scores.

    A scored element gives 1, one per comma at or below it (``leaf_commas`` per leaf) and one per 100
    of its ``chars`` up to 3: all to its parent, half to the grandparent, ``1 / (3 level)`` further up.
    An element with a score ends at ``(score + start) * (1 - linked / chars)``.
    """
    cdef Py_ssize_t n = parent.shape[0], n_scored = 0, at, leaf, element, level
    if (
        subtree_ends.shape[0] != n or chars.shape[0] != n or linked.shape[0] != n or scored.shape[0] != n
        or start.shape[0] != n or final.shape[0] != n or leaf_commas.shape[0] != block_elem.shape[0]
    ):
        raise ValueError("the per-element and per-leaf arrays do not fit together")
    cdef double* prefix = <double*>calloc(n + 1, sizeof(double))
    cdef double* score = <double*>calloc(n, sizeof(double))
    cdef double* given = <double*>malloc(n * sizeof(double))
    cdef Py_ssize_t* above = <Py_ssize_t*>malloc(n * sizeof(Py_ssize_t))
    cdef double divisor, running = 0, steps, commas
    if prefix == NULL or score == NULL or given == NULL or above == NULL:
        free(prefix)
        free(score)
        free(given)
        free(above)
        raise MemoryError()
    try:
        for leaf in range(block_elem.shape[0]):  # each element's own commas, then their prefix sums
            prefix[block_elem[leaf] + 1] += leaf_commas[leaf]
        for element in range(n):
            running += prefix[element + 1]
            prefix[element + 1] = running
        for element in range(n):
            if scored[element]:
                commas = prefix[subtree_ends[element]] - prefix[element]
                steps = floor(chars[element] / 100)
                given[n_scored] = 1 + commas + (steps if steps < 3 else 3)
                above[n_scored] = element
                n_scored += 1
        for level in range(levels):
            divisor = 1 if level == 0 else 2 if level == 1 else level * 3
            for at in range(n_scored):
                if above[at] < 0:
                    continue
                element = parent[above[at]]
                above[at] = element
                if element >= 0:
                    score[element] += given[at] / divisor
        for element in range(n):
            if score[element] > 0:
                final[element] = (score[element] + start[element]) * (
                    1 - linked[element] / (chars[element] if chars[element] > 1 else 1)
                )
            else:
                final[element] = 0
    finally:
        free(prefix)
        free(score)
        free(given)
        free(above)


def best_above(
    const double[::1] final,
    const int32_t[::1] block_paragraph,
    const int32_t[::1] parent,
    int levels,
    double[::1] out,
) -> None:
    """Fill ``out`` (per leaf): the best ``final`` from the leaf's paragraph element up ``levels`` (the root at most)."""
    cdef Py_ssize_t leaf, element, up
    cdef int level
    cdef double best
    if out.shape[0] != block_paragraph.shape[0] or final.shape[0] != parent.shape[0]:
        raise ValueError("final, block_paragraph, parent and out do not fit together")
    for leaf in range(block_paragraph.shape[0]):
        element = block_paragraph[leaf]
        best = final[element]
        for level in range(levels):
            up = parent[element]
            if up >= 0:
                element = up
            if not (best > final[element] or best != best):  # np.maximum's: the second of equals, a NaN kept
                best = final[element]
        out[leaf] = best
