"""``eval --favor-sweep``, ``--article-sweep`` and ``--other-sweep``: word P/R/F1 of each backend at each shift.

Each page is parsed and classified once per backend; every shift then only
relabels, keeps whole paragraphs and renders, as the pipeline does. The favor
shifts :mod:`service.backends.favor` ships are the widest each way whose mean word
F1 stays within :data:`F1_TOLERANCE` of the unshifted one. The article sweep moves
the threshold on the pages the page-type model takes for articles only, the other
sweep on the pages it takes for anything else, each through the pipeline's own last
stage (:func:`~service.pipeline.final_labels`: shift, whole paragraphs, pruning) with
the pages of the other group at shift 0; the shift chosen is the one nearest 0 whose
mean word F1 is within :data:`PAGE_TYPE_TOLERANCE` of the best.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from service.backends.base import BlockLabels
from service.backends.coherence import whole_paragraphs
from service.backends.favor import PRECISION, RECALL, shift_labels
from service.evaluation.datasets import Page
from service.evaluation.metrics import PRF, word_prf, word_tokens
from service.evaluation.progress import Progress
from service.metadata.fields import ARTICLE
from service.output.formats import render_text
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.pipeline import Extractor, final_labels

DEFAULT_SHIFTS = (-0.4, -0.3, -0.2, -0.15, -0.1, -0.05, 0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4)
# How much mean word F1 a favor may give up for its side.
F1_TOLERANCE = 0.02
ARTICLE_SHIFTS_TRIED = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.35, 0.45)
# Both ways on the other pages: a model fitted on every kind of page may keep too little of a listing's or a
# service page's text as readily as too much of an article's.
OTHER_SHIFTS_TRIED = (-0.4, -0.3, -0.2, -0.15, -0.1, -0.05, 0.0, 0.05, 0.1, 0.15, 0.2)
# A page type's shift within this of the best mean word F1 is as good: the one nearest 0 is taken.
PAGE_TYPE_TOLERANCE = 0.0005


@dataclass(frozen=True, slots=True)
class SweepRow:
    backend: str
    shift: float
    score: PRF  # mean over pages with gold text


# What a page keeps at a shift: (document, the backend's labels, shift, the page's type, its probability of an
# article) -> bool per block.
Keep = Callable[[Document, BlockLabels, float, str | None, float | None], np.ndarray]


def sweep(
    pages: Sequence[Page], extractor: Extractor, backends: Sequence[str], shifts: Sequence[float]
) -> list[SweepRow]:
    """Mean word P/R/F1 of every backend at every shift, over the pages that have gold text."""
    return _sweep(pages, extractor, backends, shifts, title="favor sweep", keep=_shifted, typed=False)


def article_sweep(
    pages: Sequence[Page], extractor: Extractor, backends: Sequence[str], shifts: Sequence[float]
) -> list[SweepRow]:
    """Mean word P/R/F1 of every backend with each shift applied on the pages taken for articles."""
    return _sweep(pages, extractor, backends, shifts, title="article sweep", keep=_shifted_on_articles, typed=True)


def other_sweep(
    pages: Sequence[Page], extractor: Extractor, backends: Sequence[str], shifts: Sequence[float]
) -> list[SweepRow]:
    """Mean word P/R/F1 of every backend with each shift applied on the typed pages not taken for articles."""
    return _sweep(pages, extractor, backends, shifts, title="other sweep", keep=_shifted_on_others, typed=True)


def _shifted(
    document: Document, labels: BlockLabels, shift: float, _page_type: str | None, _article: float | None
) -> np.ndarray:
    return whole_paragraphs(document, shift_labels(labels, shift)).labels


def _shifted_where(
    document: Document,
    labels: BlockLabels,
    shift: float,
    page_type: str | None,
    article: float | None,
    *,
    shifted: Callable[[str | None], bool],
) -> np.ndarray:
    """The last stage's labels, the threshold moved by ``shift`` on the pages whose type ``shifted`` names."""
    on_page = shift if shifted(page_type) else 0.0
    return final_labels(
        document, labels, on_page, include_comments=None, page_type=page_type, article_probability=article
    ).labels


_shifted_on_articles: Keep = partial(_shifted_where, shifted=lambda page_type: page_type == ARTICLE)
_shifted_on_others: Keep = partial(_shifted_where, shifted=lambda page_type: page_type not in (None, ARTICLE))


def _sweep(
    pages: Sequence[Page],
    extractor: Extractor,
    backends: Sequence[str],
    shifts: Sequence[float],
    *,
    title: str,
    keep: Keep,
    typed: bool,
) -> list[SweepRow]:
    """Each page parsed and classified once per backend; every shift then only decides and renders.

    ``typed``: ``keep`` is given the page type and its probability of an article (else None); the page's
    type always chooses a routed backend's model.
    """
    scores: dict[tuple[str, float], list[PRF]] = {(b, s): [] for b in backends for s in shifts}
    with Progress(len(pages), title) as bar:
        for page in pages:
            if page.main_content.strip():
                gold = word_tokens(page.main_content)
                document = parse_html(page.html())
                metadata, type_probabilities = extractor.metadata.read_typed(document, page.url or None)
                page_type, article = (metadata.page_type, type_probabilities.get(ARTICLE)) if typed else (None, None)
                for name in backends:
                    labels = extractor.backend(name).for_page(type_probabilities).classify(document)  # its model
                    for shift in shifts:
                        kept = keep(document, labels, shift, page_type, article)
                        scores[(name, shift)].append(word_prf(word_tokens(render_text(document, kept)), gold))
            bar.advance()
    return [SweepRow(b, s, PRF.mean(scores[(b, s)])) for b in backends for s in shifts]


def chosen_page_type_shifts(rows: Sequence[SweepRow]) -> dict[str, float]:
    """Per backend, the shift nearest 0 whose mean word F1 is within :data:`PAGE_TYPE_TOLERANCE` of the best."""
    chosen: dict[str, float] = {}
    for backend in dict.fromkeys(row.backend for row in rows):
        own = [row for row in rows if row.backend == backend]
        best = max(row.score.f1 for row in own)
        chosen[backend] = min((row.shift for row in own if row.score.f1 >= best - PAGE_TYPE_TOLERANCE), key=abs)
    return chosen


def chosen_shifts(rows: Sequence[SweepRow]) -> dict[str, dict[str, float]]:
    """Per backend, the widest shift each way whose F1 stays within :data:`F1_TOLERANCE` of shift 0."""
    chosen: dict[str, dict[str, float]] = {}
    for backend in dict.fromkeys(row.backend for row in rows):
        own = [row for row in rows if row.backend == backend]
        base = next((row.score.f1 for row in own if row.shift == 0), None)
        if base is None:
            continue
        fine = [row.shift for row in own if row.score.f1 >= base - F1_TOLERANCE]
        chosen[backend] = {PRECISION: max(fine), RECALL: min(fine)}
    return chosen


def sweep_table(rows: Sequence[SweepRow]) -> list[str]:
    """The sweep's rows as a Markdown table."""
    lines = ["| backend | shift | word P | word R | word F1 |", "| --- | --- | --- | --- | --- |"]
    return lines + [
        f"| `{r.backend}` | {r.shift:+.2f} | {r.score.precision:.4f} | {r.score.recall:.4f} | {r.score.f1:.4f} |"
        for r in rows
    ]


def format_page_type_sweep(rows: Sequence[SweepRow]) -> str:
    """The article or the other sweep as a Markdown table, then the shift chosen per backend."""
    lines = [*sweep_table(rows), f"\nChosen (the shift nearest 0 within {PAGE_TYPE_TOLERANCE} of the best word F1):"]
    lines += [f"{name}: {shift:+.2f}" for name, shift in chosen_page_type_shifts(rows).items()]
    return "\n".join(lines)


def format_sweep(rows: Sequence[SweepRow]) -> str:
    """The sweep as a Markdown table, then the shifts chosen."""
    lines = sweep_table(rows)
    lines.append(f"\nChosen (widest shift within {F1_TOLERANCE} of the unshifted word F1):")
    lines += [
        f"{name}: precision {s[PRECISION]:+.2f}, recall {s[RECALL]:+.2f}" for name, s in chosen_shifts(rows).items()
    ]
    return "\n".join(lines)
