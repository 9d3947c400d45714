# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The byte scans before the parse in C: the attribute-name count of :mod:`service.parsing.budget` and the
block nesting depth of :mod:`service.parsing.nesting`; each gives what its Python twin gives.

The Python scan is a regex that lists the tags, a second one that rescans their attribute lists, and
a walk of the tags for raw text inside ``<svg>``/``<math>``/``<frameset>``; here one state machine
follows the same rules byte by byte (each step moves forward, so it stays linear on any input) and
keeps the distinct names, ASCII-lowercased, in an open-addressing hash of spans of the page. The
nesting depth follows the nesting pattern's matches with ``memchr``, where the pattern listed every
block tag for numpy. Neither needs Lexbor's headers: they read bytes only. (The count of ``<`` stays
numpy's: it runs at memory speed, and a C loop measured no faster.)
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memchr, strlen

cdef inline bint _separator(unsigned char c) noexcept nogil:
    """White space or "/": what may come before an attribute name."""
    return c == 9 or c == 10 or c == 12 or c == 13 or c == 32 or c == 47


cdef inline bint _space(unsigned char c) noexcept nogil:
    return c == 9 or c == 10 or c == 12 or c == 13 or c == 32


cdef inline bint _name_end(unsigned char c) noexcept nogil:
    """What ends a tag name, and what an attribute name may not start with."""
    return _separator(c) or c == 62


cdef inline bint _letter(unsigned char c) noexcept nogil:
    return (c | 0x20) >= 97 and (c | 0x20) <= 122


cdef inline unsigned char _lower(unsigned char c) noexcept nogil:
    return c | 0x20 if 65 <= c <= 90 else c


cdef inline bint _same_lower(
    const unsigned char *text, const unsigned char *lower, Py_ssize_t n
) noexcept nogil:
    """Whether ``text`` is ``lower`` (lower case) but for the case of its ASCII letters."""
    cdef Py_ssize_t i
    for i in range(n):
        if _lower(text[i]) != lower[i]:
            return False
    return True


cdef struct Span:
    Py_ssize_t start
    Py_ssize_t length
    uint64_t hash


cdef struct Names:
    Span *slots  # start -1: empty
    Py_ssize_t capacity  # a power of two, at least twice the count
    Py_ssize_t count


cdef int _names_init(Names *names, Py_ssize_t capacity) except -1:
    cdef Py_ssize_t i
    names.slots = <Span *>calloc(capacity, sizeof(Span))
    if names.slots == NULL:
        raise MemoryError()
    for i in range(capacity):
        names.slots[i].start = -1
    names.capacity = capacity
    names.count = 0
    return 0


cdef int _names_grow(Names *names) except -1:
    """Twice the slots, the names moved over (where memory runs out, ``names`` is left as it was)."""
    cdef Names grown
    cdef Py_ssize_t i, slot
    _names_init(&grown, names.capacity * 2)
    for i in range(names.capacity):
        if names.slots[i].start >= 0:
            slot = <Py_ssize_t>(names.slots[i].hash & <uint64_t>(grown.capacity - 1))
            while grown.slots[slot].start >= 0:
                slot = (slot + 1) & (grown.capacity - 1)
            grown.slots[slot] = names.slots[i]
            grown.count += 1
    free(names.slots)
    names[0] = grown
    return 0


cdef int _names_add(Names *names, const unsigned char *page, Py_ssize_t start, Py_ssize_t end) except -1:
    """Keep ``page[start:end]`` (lower-cased) unless a name equal to it is kept already."""
    cdef uint64_t h = 14695981039346656037ULL  # FNV-1a of the lower-cased bytes
    cdef Py_ssize_t i, slot, length = end - start
    cdef Span *span
    for i in range(start, end):
        h = (h ^ _lower(page[i])) * 1099511628211ULL
    slot = <Py_ssize_t>(h & <uint64_t>(names.capacity - 1))
    while True:
        span = &names.slots[slot]
        if span.start < 0:
            break
        if span.hash == h and span.length == length:
            for i in range(length):
                if _lower(page[span.start + i]) != _lower(page[start + i]):
                    break
            else:
                return 0
        slot = (slot + 1) & (names.capacity - 1)
    span.start, span.length, span.hash = start, length, h
    names.count += 1
    if names.count * 2 > names.capacity:
        _names_grow(names)
    return 0


cdef Py_ssize_t _find(
    const unsigned char *page, Py_ssize_t at, Py_ssize_t end, unsigned char c
) noexcept nogil:
    """The first ``c`` in ``page[at:end]``, or ``end``."""
    if at >= end:
        return end
    cdef const void *found = memchr(page + at, c, end - at)
    return end if found == NULL else <const unsigned char *>found - page


cdef Py_ssize_t _attributes(
    const unsigned char *page, Py_ssize_t at, Py_ssize_t end, Names *names
) except -2:
    """Read a tag's attributes from ``at``, keeping their names unless ``names`` is NULL; where they end.

    A name starts with anything but a separator or ">" ("=" included) and runs to a separator, ">" or
    "="; a value follows "=" (white space around it): quoted to its closing quote or the end, unquoted
    to white space or ">". The list ends at ">" or the end.
    """
    cdef Py_ssize_t start, value
    cdef unsigned char quote
    while True:
        while at < end and _separator(page[at]):
            at += 1
        if at >= end or page[at] == 62:
            return at
        start = at
        at += 1
        while at < end and not _name_end(page[at]) and page[at] != 61:
            at += 1
        if names != NULL:
            _names_add(names, page, start, at)
        value = at
        while value < end and _space(page[value]):
            value += 1
        if value >= end or page[value] != 61:
            continue
        value += 1
        while value < end and _space(page[value]):
            value += 1
        if value < end and (page[value] == 34 or page[value] == 39):
            quote = page[value]
            at = _find(page, value + 1, end, quote)
            at = at + 1 if at < end else end
        else:
            while value < end and not _space(page[value]) and page[value] != 62:
                value += 1
            at = value


cdef Py_ssize_t _not_markup(const unsigned char *page, Py_ssize_t at, Py_ssize_t end) noexcept nogil:
    """Where what starts at ``page[at] == "<"`` ends if it is a comment, ``<!...>`` or ``<?...>``; else -1."""
    cdef Py_ssize_t i
    if at + 1 >= end or (page[at + 1] != 33 and page[at + 1] != 63):
        return -1
    if at + 3 < end and page[at + 1] == 33 and page[at + 2] == 45 and page[at + 3] == 45:  # <!--
        i = at + 4
        if i < end and page[i] == 62:  # <!-->
            return i + 1
        if i + 1 < end and page[i] == 45 and page[i + 1] == 62:  # <!--->
            return i + 2
        while True:  # to the first --> or --!>
            i = _find(page, i, end, 45)
            if i + 2 < end and page[i + 1] == 45 and page[i + 2] == 62:
                return i + 3
            if i + 3 < end and page[i + 1] == 45 and page[i + 2] == 33 and page[i + 3] == 62:
                return i + 4
            if i >= end:
                return end
            i += 1
    i = _find(page, at + 2, end, 62)  # a doctype, <?xml ...>: to the next ">"
    return i + 1 if i < end else end


cdef Py_ssize_t _tag(
    const unsigned char *page, Py_ssize_t at, Py_ssize_t end, const char *lower
) noexcept nogil:
    """The length of ``lower`` if ``page[at:]`` is that tag name (any case) and a separator or ">", else 0."""
    cdef Py_ssize_t n = strlen(lower)
    if at + n < end and _name_end(page[at + n]) and _same_lower(page + at, <const unsigned char *>lower, n):
        return n
    return 0


cdef Py_ssize_t _raw_text_tag(const unsigned char *page, Py_ssize_t at, Py_ssize_t end) noexcept nogil:
    """The length of the raw-text element's name at ``page[at]``, else 0 (``_RAW_TEXT_TAGS`` in budget.py)."""
    cdef unsigned char first = _lower(page[at])
    if first == 115:  # s
        return _tag(page, at, end, b"script") or _tag(page, at, end, b"style")
    if first == 116:  # t
        return _tag(page, at, end, b"textarea") or _tag(page, at, end, b"title")
    if first == 120:  # x
        return _tag(page, at, end, b"xmp")
    if first == 105:  # i
        return _tag(page, at, end, b"iframe")
    if first == 110:  # n
        return _tag(page, at, end, b"noembed") or _tag(page, at, end, b"noframes")
    return 0


cdef Py_ssize_t _raw_text_end(
    const unsigned char *page, Py_ssize_t at, Py_ssize_t end, Py_ssize_t tag, Py_ssize_t tag_length
) noexcept nogil:
    """Where the raw text from ``at`` ends: at ``</``, the element's name (any case), a separator or ">"."""
    cdef Py_ssize_t i = at, k
    cdef bint same
    while True:
        i = _find(page, i, end, 60)
        if i >= end:
            return end
        if i + 2 + tag_length < end and page[i + 1] == 47 and _name_end(page[i + 2 + tag_length]):
            same = True
            for k in range(tag_length):
                if _lower(page[i + 2 + k]) != _lower(page[tag + k]):
                    same = False
                    break
            if same:
                return i
        i += 1


cdef inline bint _is_name(
    const unsigned char *page, Py_ssize_t start, Py_ssize_t end, const char *lower
) noexcept nogil:
    """Whether ``page[start:end]`` is ``lower`` but for the case of its ASCII letters."""
    cdef Py_ssize_t n = end - start
    return n == <Py_ssize_t>strlen(lower) and _same_lower(page + start, <const unsigned char *>lower, n)


cdef inline bint _svg_or_math(const unsigned char *page, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    return _is_name(page, start, end, b"svg") or _is_name(page, start, end, b"math")


cdef int _scan(
    const unsigned char *page, Py_ssize_t at, Py_ssize_t end, Names *names, bint raw_text
) except -1:
    """Keep the attribute names of the start tags in ``page[at:end]``.

    ``raw_text``: the page itself, where the raw-text elements' text is no markup (except inside
    <svg> or <math>, or after <frameset>: scanned as markup with ``raw_text`` off, which also leaves
    the nesting alone: it counts the start and end tags seen here only).
    """
    cdef Py_ssize_t name, name_end, tag_length, text, text_end, after
    cdef int depth = 0  # open <svg> and <math>; a <frameset> never closes (but an </svg> after it counts)
    while True:
        at = _find(page, at, end, 60)
        if at + 1 >= end:
            return 0
        after = _not_markup(page, at, end)
        if after >= 0:
            at = after
            continue
        if raw_text and _letter(page[at + 1]):
            tag_length = _raw_text_tag(page, at + 1, end)
            if tag_length:
                text = _attributes(page, at + 1 + tag_length, end, names)
                if text < end:  # at ">"
                    text += 1
                text_end = _raw_text_end(page, text, end, at + 1, tag_length)
                if depth and text_end > text:
                    _scan(page, text, text_end, names, False)
                at = text_end
                continue
        if page[at + 1] == 47:  # </
            if at + 2 < end and _letter(page[at + 2]):
                name = at + 2
                name_end = name + 1
                while name_end < end and not _name_end(page[name_end]):
                    name_end += 1
                at = _attributes(page, name_end, end, NULL)  # an end tag's attributes cost Lexbor nothing
                if raw_text and depth and _svg_or_math(page, name, name_end):
                    depth -= 1
            else:  # </> and </ followed by no letter: to the next ">"
                at = _find(page, at + 2, end, 62)
                at = at + 1 if at < end else end
        elif _letter(page[at + 1]):
            name = at + 1
            name_end = name + 1
            while name_end < end and not _name_end(page[name_end]):
                name_end += 1
            at = _attributes(page, name_end, end, names)
            if raw_text and (_svg_or_math(page, name, name_end) or _is_name(page, name, name_end, b"frameset")):
                depth += 1
        else:
            at += 1


def count_attribute_names(bytes html) -> int:
    """Distinct attribute names of the start tags of ``html`` (lower case), as budget.py's Python scan counts."""
    cdef Names names
    _names_init(&names, 64)
    try:
        _scan(<const unsigned char *>PyBytes_AS_STRING(html), 0, PyBytes_GET_SIZE(html), &names, True)
        return names.count
    finally:
        free(names.slots)


cdef enum:
    MAX_BLOCK_NAMES = 32  # at most this many block-level names (nesting.py's BLOCK_NAMES has 23)


cdef inline bint _regex_space(unsigned char c) noexcept nogil:
    """``\\s`` of a bytes pattern: what may follow the tag name, with "/" and ">"."""
    return c == 32 or 9 <= c <= 13


cdef Py_ssize_t _block_name_end(
    const unsigned char *page, Py_ssize_t at, Py_ssize_t end,
    const unsigned char **names, const Py_ssize_t *lengths, Py_ssize_t count,
) noexcept nogil:
    """The end of one of ``names`` at ``page[at]``, any case, followed by white space, "/" or ">"; -1 where none is."""
    cdef Py_ssize_t i, length
    cdef unsigned char follow
    for i in range(count):
        length = lengths[i]
        if at + length < end and _same_lower(page + at, names[i], length):
            follow = page[at + length]
            if _regex_space(follow) or follow == 47 or follow == 62:
                return at + length
    return -1


def deepest_block_nesting(bytes html, tuple names) -> int:
    """nesting.py's ``python_deepest_block_nesting``: the tags its pattern finds, left to right, in one pass.

    A match is "<", an optional "/", one of ``names`` (nesting.py's lower-case ``BLOCK_NAMES``) in any case,
    white space, "/" or ">" after it, and the page up to the next ">" (none left: no more matches). End
    tags never take the depth below 0.
    """
    cdef const unsigned char *spelled[MAX_BLOCK_NAMES]
    cdef Py_ssize_t lengths[MAX_BLOCK_NAMES]
    cdef Py_ssize_t count = len(names), k
    if count > MAX_BLOCK_NAMES:
        raise ValueError(f"at most {MAX_BLOCK_NAMES} block-level names")
    for k in range(count):
        spelled[k] = <const unsigned char *>PyBytes_AS_STRING(names[k])
        lengths[k] = PyBytes_GET_SIZE(names[k])
    cdef const unsigned char *page = <const unsigned char *>PyBytes_AS_STRING(html)
    cdef Py_ssize_t end = PyBytes_GET_SIZE(html), at = 0, name, name_end, close
    cdef long depth = 0, lowest = 0, deepest = 0
    cdef bint end_tag
    with nogil:
        while True:
            at = _find(page, at, end, 60)
            if at >= end:
                break
            end_tag = at + 1 < end and page[at + 1] == 47
            name = at + 1 + end_tag
            name_end = _block_name_end(page, name, end, spelled, lengths, count) if name < end else -1
            if name_end < 0:
                at += 1
                continue
            close = _find(page, name_end, end, 62)
            if close >= end:  # no ">" after it: neither this tag nor any later one is complete
                break
            depth += -1 if end_tag else 1
            lowest = depth if depth < lowest else lowest
            deepest = depth - lowest if depth - lowest > deepest else deepest
            at = close + 1
    return deepest
