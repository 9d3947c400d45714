# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The page-type model's counts over the page's blocks and elements in C (:mod:`service.metadata.page_type`).

The reference (``python_page_counts`` there) is some twenty NumPy calls over a page's few hundred
blocks and few thousand elements; on such arrays the cost is the calls. Character counts are whole
numbers in doubles, so every sum here is exact and equals NumPy's whatever the order of adding.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free


def page_counts(
    const int32_t[::1] path_code,
    const int32_t[::1] elem_path,
    const int32_t[::1] elem_parent,
    const int32_t[::1] block_paragraph,
    const double[::1] chars,
    const uint8_t[::1] in_link,
    int count_shift,
    double long_chars,
    double[::1] shares,
    int64_t[::1] tag_counts,
) -> tuple:
    """Fill ``shares`` and ``tag_counts``; return (total, link chars, link blocks, longest, long, side by side).

    A path's code holds its share group below ``count_shift`` bits and its count group above. ``shares``:
    the characters of the blocks whose paragraph's share group is each index; ``tag_counts``: the
    elements of each count group. The paragraphs (a block's ``block_paragraph`` element): the most
    characters in one, how many have ``long_chars`` or more, and the most paragraphs of that much text
    outside links under one parent.
    """
    cdef Py_ssize_t n_elements = elem_path.shape[0], n_blocks = chars.shape[0], n_paths = path_code.shape[0]
    cdef Py_ssize_t block, element, paragraph, path, group
    cdef int32_t share_mask = (1 << count_shift) - 1
    if block_paragraph.shape[0] != n_blocks or in_link.shape[0] != n_blocks or elem_parent.shape[0] != n_elements:
        raise ValueError("the per-block and per-element arrays do not fit together")
    for element in range(n_elements):
        path = elem_path[element]
        if path < 0 or path >= n_paths:
            raise ValueError("an element's path is not one of the page's paths")
        group = path_code[path] >> count_shift
        if group < 0 or group >= tag_counts.shape[0]:
            raise ValueError("a path's count group is outside tag_counts")
        if elem_parent[element] >= n_elements:
            raise ValueError("an element's parent is not one of the page's elements")
    for block in range(n_blocks):
        if block_paragraph[block] < 0 or block_paragraph[block] >= n_elements:
            raise ValueError("a block's paragraph is not one of the page's elements")
        if (path_code[elem_path[block_paragraph[block]]] & share_mask) >= shares.shape[0]:
            raise ValueError("a path's share group is outside shares")
    cdef double* per_paragraph = <double*>calloc(n_elements, sizeof(double))
    cdef double* prose = <double*>calloc(n_elements, sizeof(double))
    cdef int64_t* side_by_side = <int64_t*>calloc(n_elements, sizeof(int64_t))
    cdef double total = 0, linked = 0, longest = 0
    cdef int64_t link_blocks = 0, long_paragraphs = 0, most = 0
    cdef int32_t parent
    if per_paragraph == NULL or prose == NULL or side_by_side == NULL:
        free(per_paragraph)
        free(prose)
        free(side_by_side)
        raise MemoryError()
    try:
        shares[:] = 0
        tag_counts[:] = 0
        for element in range(n_elements):
            tag_counts[path_code[elem_path[element]] >> count_shift] += 1
        for block in range(n_blocks):
            paragraph = block_paragraph[block]
            total += chars[block]
            shares[path_code[elem_path[paragraph]] & share_mask] += chars[block]
            per_paragraph[paragraph] += chars[block]
            if in_link[block]:
                linked += chars[block]
                link_blocks += 1
            else:
                prose[paragraph] += chars[block]
        for element in range(n_elements):
            if per_paragraph[element] > longest:
                longest = per_paragraph[element]
            if per_paragraph[element] >= long_chars:
                long_paragraphs += 1
            parent = elem_parent[element]
            if prose[element] >= long_chars and parent >= 0:
                side_by_side[parent] += 1
                if side_by_side[parent] > most:
                    most = side_by_side[parent]
        return total, linked, link_blocks, longest, long_paragraphs, most
    finally:
        free(per_paragraph)
        free(prose)
        free(side_by_side)
