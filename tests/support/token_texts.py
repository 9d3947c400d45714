"""Texts made of chosen tokens, for the property tests of the compiled scans against their references."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st


def token_texts(tokens: Sequence[str], *, per_text: int, texts: int) -> st.SearchStrategy[list[str]]:
    """Lists of up to ``texts`` texts, each up to ``per_text`` of ``tokens`` run together."""
    return st.lists(st.lists(st.sampled_from(tokens), max_size=per_text).map("".join), max_size=texts)
