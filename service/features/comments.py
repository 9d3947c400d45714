"""Comment threads: the blocks a caller who asked for ``include_comments=false`` does not get.

Whether a reader's comments are content depends on who asks (a forum archive wants
them, a reader view does not), so the caller decides and the backends are not asked.
An element opens a comment thread when a word of its id or class (split at ``-`` and
``_``) names one, when it has ``role="comment"``, or it is Disqus' own container;
everything under it is in the thread. The page's frame (html, body, main) never
counts: a ``body class="has-comments"`` says nothing about where they are.
"""

from __future__ import annotations

import re

import numpy as np

from service.parsing.document import Document

COMMENT_WORDS = frozenset({"comment", "comments", "commentlist", "disqus", "respond", "replies"})
_WORD_SPLIT = re.compile(r"[-_]+")
# Elements that hold the whole page: a comment word on them marks the page, not a thread.
FRAME_TAGS = frozenset({"html", "body", "main"})


def comment_elements(document: Document) -> np.ndarray:
    """Whether each element opens a comment thread (bool per element), its descendants not included."""
    opens = np.zeros(len(document.elem_tag), dtype=bool)
    tags, tokens = document.elem_tag, document.elem_tokens
    for elem, own in enumerate(tokens):
        if own and tags[elem] not in FRAME_TAGS:
            opens[elem] = any(word in COMMENT_WORDS for token in own for word in _WORD_SPLIT.split(token))
    for elem, role in document.elem_attribute("role").items():
        opens[elem] |= role.strip().lower() == "comment" and tags[elem] not in FRAME_TAGS
    return opens


def comment_blocks(document: Document) -> np.ndarray:
    """Whether each block sits in a comment thread (bool per block)."""
    return document.blocks_within(comment_elements(document))
