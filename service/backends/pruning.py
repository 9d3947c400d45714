"""Page-guarded pruning: comment threads and link lists a backend kept on a page that is not made of them.

Every learned backend was fitted to one benchmark, and on pages unlike it (news and blogs from
other years) most of the extra text it keeps is reader comments and link lists (related stories,
teasers, tag clouds, "most read"). Those are content on some pages — the thread *is* a forum
page, the links *are* a listing — so each rule is guarded by the page: it drops what it names only
where that is a minority of the text the backend kept.

comments
    leaves in a container whose id, class or ARIA role names a comment thread
    (:data:`~service.features.structure.REGIONS` ``comment``), dropped unless they are more
    than :data:`COMMENT_SHARE_MAX` of the kept characters, or the caller asks for comments;
link lists
    leaves whose paragraph's parent element is more than :data:`LINK_DENSITY_MIN` link text,
    dropped unless such leaves are more than :data:`LINK_LIST_SHARE_MAX` of the kept characters.

The thresholds were chosen on the WCXB validation part with ``mlp`` and ``bilstm`` (the ensemble
is fitted on that part, so its figures there are in-sample); the rules work on whole paragraphs
(both read the paragraph's containers), so they cannot cut one.
"""

from __future__ import annotations

import numpy as np

from service.backends.base import BlockLabels
from service.backends.coherence import leaf_weights
from service.features.structure import container_link_shares, in_region
from service.parsing.document import Document

COMMENT_SHARE_MAX = 0.5  # comment text above this share of the kept text: the comments are the page
LINK_DENSITY_MIN = 0.5  # a paragraph's parent with more link text than this is a link list
LINK_LIST_SHARE_MAX = 0.35  # link lists above this share of the kept text: the links are the page
LINK_LEVEL = 1  # which ancestor of the paragraph element is read for link density


def _minority(candidates: np.ndarray, keep: np.ndarray, weights: np.ndarray, share_max: float) -> np.ndarray:
    """``candidates`` among the kept leaves where they weigh at most ``share_max`` of the kept weight, else none."""
    kept_weight = float(weights[keep].sum())
    chosen = candidates & keep
    if kept_weight == 0 or float(weights[chosen].sum()) > share_max * kept_weight:
        return np.zeros_like(keep)
    return chosen


def prune_boilerplate(document: Document, labels: BlockLabels, *, include_comments: bool = False) -> BlockLabels:
    """``labels`` without the comment threads and link lists that are a minority of what was kept."""
    if len(document) == 0 or not labels.labels.any():
        return labels
    keep = np.asarray(labels.labels, dtype=bool)
    weights = leaf_weights(document)
    (link_share,) = container_link_shares(document, (LINK_LEVEL,))
    dropped = _minority(link_share > LINK_DENSITY_MIN, keep, weights, LINK_LIST_SHARE_MAX)
    if not include_comments:
        dropped |= _minority(in_region(document, "comment"), keep, weights, COMMENT_SHARE_MAX)
    return BlockLabels(scores=labels.scores, labels=keep & ~dropped)
