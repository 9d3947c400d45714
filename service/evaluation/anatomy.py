"""What a system's kept text is made of: cut paragraphs, link text, hidden text.

Word F1 says how much extra text there is; these say which kind, so a change can be
aimed at it: tokens of link text (related-story lists, share rows, tag clouds), tokens
in hidden subtrees (schema.org blocks in ``display:none``), and paragraphs kept in part
(a sentence with a hole). Counts are pooled over pages, so long pages weigh more.
"""

from __future__ import annotations

import numpy as np

from service.backends.coherence import cut_paragraphs
from service.evaluation.metrics import Kept, word_tokens
from service.features.hidden import hidden_blocks
from service.parsing.document import Document


class PageAnatomy:
    """The per-block facts of one page that every system's labels are read against (computed once a page)."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.tokens = np.fromiter((len(word_tokens(t)) for t in document.texts), dtype=np.int64, count=len(document))
        self.in_link = document.block_in_link
        self.hidden = hidden_blocks(document)

    def kept(self, keep: np.ndarray) -> Kept:
        kept_tokens = np.where(keep, self.tokens, 0)
        cuts = cut_paragraphs(self.document, keep)
        return Kept(
            tokens=int(kept_tokens.sum()),
            link_tokens=int(kept_tokens[self.in_link].sum()),
            hidden_tokens=int(kept_tokens[self.hidden].sum()),
            cut_paragraphs=cuts,
            pages_with_cuts=int(cuts > 0),
        )
