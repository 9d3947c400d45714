"""The heap of a long-running extraction process: the garbage collector, and what malloc keeps."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

# glibc's mallopt parameter for the size from which a block gets its own mapping (malloc.h).
_M_MMAP_THRESHOLD = -3
# Blocks this large or larger are mapped on their own and unmapped when freed.
MMAP_THRESHOLD_BYTES = 128 * 1024


def settle_heap() -> None:
    """Collect what starting up left behind and exempt the survivors from later collections.

    Models, tables and modules loaded at start live as long as the process,
    yet every full collection would walk them again: in ``python -m service
    bench`` that showed in mlp's time per page. Call it once the
    process is ready, after warming up.
    """
    gc.collect()
    gc.freeze()


def return_large_blocks() -> bool:
    """Have glibc give every large block back to the system when it is freed; False where there is no glibc.

    glibc maps a block of 128 KiB or more on its own, but after such a block is
    freed it raises that threshold to the block's size (up to 32 MiB), and later
    blocks of that size come from the heap, which it keeps. One page of 5 MB of
    text, or a body of 8 MB, then leaves the process 100 MB larger for good
    (``tests/http/test_bad_input_matrix.py``: 129 MB after warm-up, 235 MB after the
    matrix). Setting the threshold turns the raising off.
    """
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    mallopt = getattr(libc, "mallopt", None)
    return bool(mallopt is not None and mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))


def trim_heap() -> bool:
    """Give the free pages inside malloc's heaps back to the system (glibc's ``malloc_trim``); False without glibc.

    A large page leaves many small blocks free but scattered between live ones (its
    body read in 64 KB pieces, its parse and features), where
    :func:`return_large_blocks` does not reach: trimming after it returns them
    (``tests/http/test_bad_input_matrix.py``: 139 MB after the matrix instead of 170 MB,
    against 129 MB after warm-up). It costs about a millisecond, so only large
    pages call it.
    """
    name = ctypes.util.find_library("c")
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    return bool(trim is not None and trim(0))
