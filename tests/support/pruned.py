"""A page's text after pruning alone, every block kept by the backend: what the pruning rules' tests read."""

from __future__ import annotations

import numpy as np

from service.backends.base import BlockLabels
from service.backends.pruning import prune_boilerplate
from service.parsing.lexbor import parse_html

LONG_STORY = "<p>" + " ".join(f"Sentence {i} of the story, told at some length." for i in range(80)) + "</p>"
COMMENT_ITEMS = "".join(f"<div><p>Reader {i} thinks so.</p></div>" for i in range(4))
COMMENTS = f'<section id="comments">{COMMENT_ITEMS}</section>'


def pruned_text(html: str, page_type: str | None = None) -> str:
    """The blocks pruning keeps of ``html`` where the backend kept them all, joined by " | "."""
    document = parse_html(html)
    everything = BlockLabels(scores=np.full(len(document), 0.9, np.float32), labels=np.ones(len(document), bool))
    pruned = prune_boilerplate(document, everything, page_type=page_type)
    return " | ".join(t for t, keep in zip(document.texts, pruned.labels.tolist(), strict=True) if keep)
