# cython: language_level=3, boundscheck=False, wraparound=False
"""The region words of :mod:`service.features.structure` in C: every id or class value's region bits.

The Python reference joins the distinct values, finds where a region word starts with ``str.find``
and confirms each start with a regular expression; here each value's characters are read once: a
run of ASCII letters and digits is a word, compared with each region word (equal to it, or starting
with it where the region word is long enough to be a prefix). A value with a character outside
ASCII is lower-cased by Python first, as the reference does (a few such characters lower-case to
ASCII letters), then read the same way. ``configure`` gives the region words once, from
:data:`~service.features.structure.REGIONS`.
"""

from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND, PyUnicode_READ
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcmp

import numpy as np

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object o)

cdef enum:
    MAX_WORDS = 64
    MAX_WORD_LENGTH = 31  # longer region words are refused by configure

cdef char _words[MAX_WORDS][MAX_WORD_LENGTH + 1]
cdef Py_ssize_t _lengths[MAX_WORDS]
cdef int64_t _bits[MAX_WORDS]
cdef bint _prefix[MAX_WORDS]  # the word matches any word it starts, not only itself
cdef Py_ssize_t _count = 0
cdef uint64_t _starting[128]  # by first character: the region words that start with it, one bit per word


def configure(list words):
    """The region words: ``(word, bits, prefix)`` each, ``word`` lower-case ASCII letters and digits."""
    global _count
    if len(words) > MAX_WORDS:
        raise ValueError(f"at most {MAX_WORDS} region words")
    cdef Py_ssize_t i
    cdef bytes encoded
    for i in range(128):
        _starting[i] = 0
    for i, (word, bits, prefix) in enumerate(words):
        encoded = word.encode("ascii")
        if not 0 < len(encoded) <= MAX_WORD_LENGTH or not (encoded.isalnum() and encoded == encoded.lower()):
            raise ValueError(f"a region word is 1 to {MAX_WORD_LENGTH} lower-case letters or digits: {word!r}")
        _words[i][: len(encoded)] = encoded
        _lengths[i] = len(encoded)
        _bits[i] = bits
        _prefix[i] = prefix
        _starting[encoded[0] & 127] |= (<uint64_t> 1) << i
    _count = len(words)


cdef inline int64_t _word_bits(const char *word, Py_ssize_t length) noexcept nogil:
    """The bits of the region words that ``word`` (its first characters, lower-cased; ``length`` in all) is or starts with."""
    cdef int64_t found = 0
    cdef uint64_t candidates = _starting[<unsigned char> word[0]]  # most words start as no region word does
    cdef Py_ssize_t i = 0
    while candidates:
        if candidates & 1:
            if (length == _lengths[i] or (_prefix[i] and length > _lengths[i])) and memcmp(word, _words[i], _lengths[i]) == 0:
                found |= _bits[i]
        candidates >>= 1
        i += 1
    return found


cdef int64_t _value_bits(str value):
    cdef int kind = PyUnicode_KIND(value)
    cdef void *data = PyUnicode_DATA(value)
    cdef const unsigned char *latin1 = <const unsigned char *> data  # where kind is 1: read without a switch
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(value), i, length = 0
    cdef char word[MAX_WORD_LENGTH + 1]  # the word's first characters, lower-cased: as many as any comparison reads
    cdef unsigned int c  # a code point, as a number (Cython's Py_UCS4 is a character)
    cdef int64_t found = 0
    for i in range(n + 1):
        if i == n:
            c = 0
        elif kind == 1:
            c = latin1[i]
        else:
            c = <unsigned int> PyUnicode_READ(kind, data, i)
        if 65 <= c <= 90:  # A-Z
            c += 32
        if (97 <= c <= 122) or (48 <= c <= 57):  # a-z, 0-9: the word goes on
            if length <= MAX_WORD_LENGTH:
                word[length] = <char> c
            length += 1
        elif length:
            found |= _word_bits(word, length)
            length = 0
    return found


def region_bits(list values):
    """The region bits of each of ``values`` (int64, in their order)."""
    out = np.zeros(len(values), dtype=np.int64)
    cdef int64_t[::1] bits = out
    cdef Py_ssize_t i
    cdef str value
    for i in range(len(values)):
        value = values[i]
        bits[i] = _value_bits(value if PyUnicode_IS_ASCII(value) else value.lower())
    return out
