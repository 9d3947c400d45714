"""Stack features: what the ``ensemble`` combiner reads about every block, shared by training and serving.

Every backend labels the same block sequence, so their opinions line up
block by block. For each block the combiner sees, per member (another
backend, or a peer projected onto the blocks):

score, label
    The member's score and its final label (they differ where a backend
    post-processes, as Boilerpipe's tree filter does).
neighbour scores
    The member's scores of the :attr:`StackLayout.neighbours` blocks before
    and after, in order ``-k … -1, +1 … +k``; outside the page they read
    :data:`EDGE` (a value no score takes, so the trees can tell the edge).
window mean
    The mean score over the ``±context`` blocks around it (itself included,
    clipped at the page edges): the member's opinion of the region.
page mean
    The member's mean score over the page: how much of it the member keeps.

and then a few cheap signals of the block and the page (:data:`BLOCK_SIGNALS`):
relative position, ``log1p`` of its characters, whether it is inside a link,
the link density of its paragraph (characters inside links over all
characters of the leaves sharing its nearest block-level ancestor), its
depth (tag-path length), the page's share of text inside links and
``log1p`` of the page's block count.

Everything is vectorised over blocks; a model records :data:`SCHEMA_NAME`,
:data:`SCHEMA_VERSION` and its layout, and the service refuses a mismatch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from service.parsing.document import Document

SCHEMA_NAME = "stack"
# Bump when a definition above changes: models trained on the old features are refused.
SCHEMA_VERSION = 1

EDGE = -1.0  # a neighbour outside the page
PER_MEMBER = ("score", "label", "window_mean", "page_mean")  # then the neighbours
BLOCK_SIGNALS = (
    "position",
    "log_chars",
    "in_link",
    "paragraph_link_density",
    "depth",
    "page_link_share",
    "log_blocks",
)


@dataclass(frozen=True)
class StackLayout:
    """Which members, in which order, and how far the neighbour and context windows reach."""

    members: tuple[str, ...]
    neighbours: int = 3
    context: int = 10

    def __post_init__(self) -> None:
        if not self.members:
            raise ValueError("a stack needs at least one member")
        if len(set(self.members)) != len(self.members):
            raise ValueError(f"members repeat: {self.members}")
        if self.neighbours < 0 or self.context < 0:
            raise ValueError("neighbours and context are block counts (>= 0)")

    @property
    def offsets(self) -> tuple[int, ...]:
        """Neighbour offsets in column order: -k … -1, +1 … +k."""
        k = self.neighbours
        return (*range(-k, 0), *range(1, k + 1))

    @property
    def width(self) -> int:
        return len(self.members) * (len(PER_MEMBER) + 2 * self.neighbours) + len(BLOCK_SIGNALS)

    def names(self) -> list[str]:
        """One name per column, in column order (recorded in the manifest)."""
        per_member = [*PER_MEMBER, *(f"neighbour{o:+d}" for o in self.offsets)]
        return [f"{m}.{what}" for m in self.members for what in per_member] + list(BLOCK_SIGNALS)

    def as_config(self) -> dict[str, object]:
        return {"members": list(self.members), "neighbours": self.neighbours, "context": self.context}

    @classmethod
    def from_config(cls, config: dict[str, object]) -> StackLayout:
        members = config["members"]
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise ValueError(f"members must be a list of names, got {members!r}")
        return cls(tuple(members), int(str(config["neighbours"])), int(str(config["context"])))


def neighbour_scores(scores: np.ndarray, offsets: Sequence[int]) -> np.ndarray:
    """``out[i, j] = scores[i + offsets[j]]``, :data:`EDGE` outside the page (blocks × offsets)."""
    n = len(scores)
    reach = max((abs(o) for o in offsets), default=0)
    padded = np.full(n + 2 * reach, EDGE, dtype=np.float32)
    padded[reach : reach + n] = scores
    columns = [padded[reach + o : reach + o + n] for o in offsets]
    return np.stack(columns, axis=1) if columns else np.zeros((n, 0), dtype=np.float32)


def window_means(scores: np.ndarray, context: int) -> np.ndarray:
    """Mean of ``scores[i - context : i + context + 1]`` clipped to the page, per block (and per column, if 2-D)."""
    n = len(scores)
    sums = np.concatenate((np.zeros((1, *scores.shape[1:])), np.cumsum(scores, axis=0, dtype=np.float64)))
    index = np.arange(n)
    low = np.maximum(index - context, 0)
    high = np.minimum(index + context + 1, n)
    counts = np.maximum(high - low, 1).reshape(n, *([1] * (scores.ndim - 1)))
    return ((sums[high] - sums[low]) / counts).astype(np.float32)


def _path_depths(document: Document) -> np.ndarray:
    """Tags on every tag path (float64), by pointer jumping over the path parents: no tuple per path.

    Invariant: ``depth[p]`` counts the paths from p up to, not including, ``up[p]``.
    """
    up = np.asarray(document.path_parent, dtype=np.intp)
    depth = np.ones(len(up))
    live = up >= 0
    while live.any():
        depth[live] += depth[up[live]]
        up = np.where(live, up[np.maximum(up, 0)], -1)
        live = up >= 0
    return depth


def block_signals(document: Document) -> np.ndarray:
    """The :data:`BLOCK_SIGNALS` columns of every block (blocks × 7, float32)."""
    n = len(document)
    chars = document.block_chars
    in_link = np.asarray(document.block_in_link, dtype=bool)
    link_chars = chars * in_link
    paragraph = document.block_paragraph + 1  # sums by element (-1: none), each in the leaves' order
    paragraph_chars = np.bincount(paragraph, weights=chars)
    paragraph_link = np.bincount(paragraph, weights=link_chars)
    density = paragraph_link[paragraph] / np.maximum(paragraph_chars[paragraph], 1.0)
    depth_of_path = _path_depths(document)
    total = chars.sum()
    columns = (
        np.arange(n) / max(n - 1, 1),
        np.log1p(chars),
        in_link,
        density,
        depth_of_path[document.block_path],
        np.full(n, link_chars.sum() / total if total else 0.0),
        np.full(n, np.log1p(n)),
    )
    return np.stack(columns, axis=1).astype(np.float32) if n else np.zeros((0, len(BLOCK_SIGNALS)), np.float32)


def stack_features(
    document: Document, scores: Sequence[np.ndarray], labels: Sequence[np.ndarray], layout: StackLayout
) -> np.ndarray:
    """The combiner's input for ``document``: blocks × ``layout.width`` float32, columns as ``layout.names()``.

    ``scores[m]`` and ``labels[m]`` are member ``layout.members[m]``'s, one per block.
    """
    n = len(document)
    if len(scores) != len(layout.members) or len(labels) != len(layout.members):
        raise ValueError(f"expected {len(layout.members)} members' scores and labels, got {len(scores)}")
    parts: list[np.ndarray] = []
    for member_scores, member_labels in zip(scores, labels, strict=True):
        s = np.asarray(member_scores, dtype=np.float32)
        if s.shape != (n,) or np.shape(member_labels) != (n,):
            raise ValueError(f"member output has {s.shape} scores, the page has {n} blocks")
        page_mean = float(s.mean()) if n else 0.0
        own = np.stack(
            (s, np.asarray(member_labels, dtype=np.float32), window_means(s, layout.context), np.full(n, page_mean)),
            axis=1,
        )
        parts += [own, neighbour_scores(s, layout.offsets)]
    parts.append(block_signals(document))
    return np.ascontiguousarray(np.concatenate(parts, axis=1), dtype=np.float32)
