"""Run systems (our backends, the peers) over annotated pages and score every page.

Each system is timed from the raw HTML bytes to its text with
``time.perf_counter``, page by page in one process, so the ms/doc of
every system comes from the same run on the same machine. Block-level
gold comes from the alignment labels; a peer has no blocks of its own, so
its text is projected onto our blocks by the same alignment.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from service.backends.peers import get_peer
from service.evaluation.anatomy import PageAnatomy
from service.evaluation.datasets import Page
from service.evaluation.labels import LabelCache, labels_for
from service.evaluation.metrics import PageScore, Summary, score_page, summarize, summarize_by_type
from service.evaluation.progress import Progress
from service.features.alignment import align_blocks
from service.parsing.lexbor import parse_html
from service.pipeline import Extractor, warm_up

BACKEND = "backend"
PEER = "peer"

# html bytes -> (text, block labels or None where the system has no blocks)
RunFunction = Callable[[bytes], tuple[str, np.ndarray | None]]


@dataclass(frozen=True)
class System:
    """Something that extracts text from a page: one of our backends or a peer."""

    name: str
    kind: str  # BACKEND or PEER
    run: RunFunction


def backend_system(extractor: Extractor, name: str) -> System:
    """One of our backends through the full pipeline (parse, classify, render)."""
    warm_up(extractor, [name])  # build and run it once now, outside the timed loop

    def run(html: bytes) -> tuple[str, np.ndarray | None]:
        extraction = extractor.extract(html, backend=name)
        return extraction.text, extraction.labels.labels

    return System(name, BACKEND, run)


def peer_system(name: str, *, comments: bool = True) -> System:
    """A peer; :class:`~service.backends.peers.PeerUnavailable` if it is not installed."""
    extract = get_peer(name, comments=comments)
    return System(name, PEER, lambda html: (extract(html), None))


@dataclass
class SystemResult:
    """One system's page scores, time and failures over a run."""

    name: str
    kind: str
    scores: list[PageScore] = field(default_factory=list)
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)  # ids of pages where a peer raised

    @property
    def ms_per_doc(self) -> float:
        return 1e3 * self.seconds / len(self.scores) if self.scores else 0.0

    @cached_property
    def summary(self) -> Summary:
        return summarize(self.scores)

    @cached_property
    def by_type(self) -> dict[str, Summary]:
        return summarize_by_type(self.scores)

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: the summary, per page type, per page word scores, time and failures."""
        return {
            "kind": self.kind,
            "ms_per_doc": self.ms_per_doc,
            "failures": self.failures,
            "summary": self.summary.as_dict(),
            "by_page_type": {name: summary.as_dict() for name, summary in self.by_type.items()},
            "pages": {
                s.page_id: {"precision": s.word.precision, "recall": s.word.recall, "f1": s.word.f1}
                for s in self.scores
                if s.word is not None
            },
        }


def evaluate(
    pages: Sequence[Page],
    systems: Sequence[System],
    *,
    blocks: bool = True,
    anatomy: bool = False,
    cache: LabelCache | None = None,
    progress: bool | None = None,
) -> dict[str, SystemResult]:
    """Every system on every page; ``blocks=False`` skips the block-level scores (and their labels).

    ``anatomy`` reads what the kept text is made of (cut paragraphs, link and hidden text) even
    without block scores, for the systems that label blocks (ours): a parse a page, no alignment.

    ``progress`` draws a bar on stderr (None: when stderr is a terminal).
    """
    results = {system.name: SystemResult(system.name, system.kind) for system in systems}
    with Progress(len(pages), "eval", enabled=progress) as bar:
        for page in pages:
            html = page.html()
            document = parse_html(html) if blocks or anatomy else None
            gold_blocks = labels_for(page, document, cache=cache) if blocks and document is not None else None
            kept_of = PageAnatomy(document) if document is not None else None
            for system in systems:
                result = results[system.name]
                started = time.perf_counter()
                try:
                    text, predicted = system.run(html)
                except Exception:  # a peer's bug costs it the page, not the run; ours must raise
                    if system.kind != PEER:
                        raise
                    text, predicted = "", None
                    result.failures.append(page.id)
                result.seconds += time.perf_counter() - started
                if blocks and document is not None and predicted is None:
                    predicted = align_blocks(document.texts, text)
                result.scores.append(
                    score_page(
                        page.id,
                        page.page_type,
                        text,
                        page.main_content,
                        with_snippets=page.with_snippets,
                        without_snippets=page.without_snippets,
                        predicted_blocks=predicted if blocks else None,
                        gold_blocks=gold_blocks,
                        kept=kept_of.kept(predicted) if kept_of is not None and predicted is not None else None,
                    )
                )
            bar.advance()
    return results
