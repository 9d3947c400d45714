# cython: language_level=3, boundscheck=False, wraparound=False
"""The per-leaf counts and events of :class:`~service.features.text_stats.JoinedText` in C, in one pass.

The reference (``JoinedText.python_counts`` and ``JoinedText.python_events``) looks the code units
up in a table, sums the looked-up rows per leaf with ``np.add.reduceat`` and finds each event's
positions over the whole array; here every leaf's code units are read once and counted in place, by
the same definitions (the module docstring of :mod:`service.features.text_stats`). The class bits
come from the same table (``classes``); the bit values are given by ``configure`` once.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t

cdef uint8_t LETTER, UPPER, DIGIT, PUNCTUATION, SPACE, TERMINATOR, ALNUM
cdef bint _configured = False

cdef enum:
    AT = 0x40
    COLON = 0x3A
    SLASH = 0x2F
    HASH = 0x23
    DOT = 0x2E
    W = 0x77
    COPYRIGHT = 0xA9


def configure(int letter, int upper, int digit, int punctuation, int space, int terminator) -> None:
    """The class bits of :mod:`service.features.text_stats`."""
    global LETTER, UPPER, DIGIT, PUNCTUATION, SPACE, TERMINATOR, ALNUM, _configured
    LETTER, UPPER, DIGIT, PUNCTUATION = letter, upper, digit, punctuation
    SPACE, TERMINATOR, ALNUM = space, terminator, letter | digit
    _configured = True


def count_leaves(
    const uint16_t[::1] units,
    const uint8_t[::1] classes,
    const int64_t[::1] starts,
    const int64_t[::1] lengths,
    int32_t[:, ::1] counts,
    int32_t[:, ::1] events,
) -> None:
    """Fill ``counts`` (leaves x 6, COUNTS) and ``events`` (leaves x 4, EVENTS) of every leaf.

    A leaf's code units are ``units[starts[i] : starts[i] + lengths[i]]``; separators lie before
    every leaf and three after the last, so a look one unit back or three ahead stays in the array.
    """
    if not _configured:
        raise RuntimeError("configure() was not called")
    cdef Py_ssize_t leaf, at, stop
    cdef uint16_t unit
    cdef uint8_t bits
    cdef int32_t letters, digits, punctuation, uppercase, utf8_bytes, copyright_signs
    cdef int32_t sentence_ends, emails, urls, hashtags
    for leaf in range(starts.shape[0]):
        letters = digits = punctuation = uppercase = utf8_bytes = copyright_signs = 0
        sentence_ends = emails = urls = hashtags = 0
        at = starts[leaf]
        stop = at + lengths[leaf]
        while at < stop:
            unit = units[at]
            bits = classes[at]
            letters += (bits & LETTER) != 0
            digits += (bits & DIGIT) != 0
            punctuation += (bits & PUNCTUATION) != 0
            uppercase += (bits & UPPER) != 0
            if unit < 0x80:
                utf8_bytes += 1
            elif unit < 0x800 or 0xD800 <= unit < 0xE000:  # half of a surrogate pair: two of the pair's four
                utf8_bytes += 2
            else:
                utf8_bytes += 3
            if unit == COPYRIGHT:
                copyright_signs += 1
            elif bits & TERMINATOR:
                if (classes[at + 1] & SPACE) and not (classes[at - 1] & SPACE):
                    sentence_ends += 1
            elif unit == AT:
                if (classes[at - 1] & ALNUM) and (classes[at + 1] & ALNUM):
                    emails += 1
            elif unit == COLON:
                if units[at + 1] == SLASH and units[at + 2] == SLASH:
                    urls += 1
            elif unit == HASH:
                if not (classes[at - 1] & ALNUM) and (classes[at + 1] & ALNUM):
                    hashtags += 1
            elif unit == W:
                if (
                    units[at + 1] == W and units[at + 2] == W and units[at + 3] == DOT
                    and not (classes[at - 1] & ALNUM) and units[at - 1] != SLASH
                ):
                    urls += 1
            at += 1
        counts[leaf, 0] = letters
        counts[leaf, 1] = digits
        counts[leaf, 2] = punctuation
        counts[leaf, 3] = uppercase
        counts[leaf, 4] = utf8_bytes
        counts[leaf, 5] = copyright_signs
        events[leaf, 0] = sentence_ends
        events[leaf, 1] = emails
        events[leaf, 2] = urls
        events[leaf, 3] = hashtags
