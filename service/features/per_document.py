"""Values several backends derive from one page, computed once per :class:`Document` and dropped with it.

An ensemble runs every member on the same ``Document``, and members derive
the same things from it: the leaves' words (``svm``'s and ``grf``'s shallow
features, ``grf``'s subtree word counts), the lower-cased word tokens
(``bilstm``'s bags and ``grf``'s block vectors), the joined leaf text (the
``svm``, ``mlp`` and shallow features). A function wrapped in
:func:`per_document` runs once per document; every later call on the same
document gets the first result. Entries live in a weak-keyed map, so they
go with the document. The values are shared: callers must not change them
(the arrays among them are made read-only).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TypeVar
from weakref import WeakKeyDictionary

from service.parsing.document import Document

T = TypeVar("T")


def per_document(compute: Callable[[Document], T]) -> Callable[[Document], T]:
    """``compute``, run once per document (identity, not equality: a ``Document`` compares by identity)."""
    results: WeakKeyDictionary[Document, T] = WeakKeyDictionary()

    @wraps(compute)
    def once(document: Document) -> T:
        found = results.get(document)
        if found is None:
            found = results[document] = compute(document)
        return found

    return once
