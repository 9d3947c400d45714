r"""The papers' and benchmarks' scores for one page, and their averages over pages.

- WCXB (Murrough Foley 2026): lower-cased ``\w+`` word tokens, multiset
  overlap, precision / recall / F1 per page, averaged over pages; plus the
  share of ``with`` snippets found and of ``without`` snippets wrongly kept.
- Scrapinghub's article-extraction-benchmark: 4-gram shingles of
  case-kept ``\w+`` tokens; per page true/false positives and false
  negatives normalised to sum to one (so long pages weigh no more), summed
  over pages, then precision / recall / F1 from the sums.
- Yao & Zuo (SVM paper): token-level F1 over the *sets* of words, and LCS
  F1 over the word sequences (every occurrence distinct).
- BoilerNet (Leonhardt et al., Tables 1-2): block-level precision / recall /
  F1 for both classes, from the confusion counts pooled over all blocks.

A page whose gold text is empty has nothing to score text or blocks
against and is left out of those averages (its snippets still count). An
empty prediction scores precision, recall and F1 of zero.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from service.features.alignment import WORD, word_tokens

SHINGLE_SIZE = 4  # the article-extraction-benchmark's n-gram length


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall and their harmonic mean."""

    precision: float
    recall: float
    f1: float

    @classmethod
    def from_counts(cls, matched: float, predicted: float, gold: float) -> PRF:
        precision = matched / predicted if predicted else 0.0
        recall = matched / gold if gold else 0.0
        return cls(precision, recall, harmonic_mean(precision, recall))

    @classmethod
    def mean(cls, scores: Sequence[PRF]) -> PRF:
        """The per-page average of each of the three (not F1 of the averages)."""
        if not scores:
            return cls(0.0, 0.0, 0.0)
        return cls(*(float(np.mean([getattr(s, k) for s in scores])) for k in ("precision", "recall", "f1")))


def harmonic_mean(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


# -- text metrics ----------------------------------------------------------------


def word_prf(predicted: Sequence[str], gold: Sequence[str]) -> PRF:
    """WCXB's word score: multiset overlap of the two token lists."""
    matched = sum((Counter(predicted) & Counter(gold)).values())
    return PRF.from_counts(matched, len(predicted), len(gold))


def token_set_prf(predicted: Sequence[str], gold: Sequence[str]) -> PRF:
    """The SVM paper's token-level score: overlap of the two word *sets*."""
    mine, theirs = set(predicted), set(gold)
    return PRF.from_counts(len(mine & theirs), len(mine), len(theirs))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel.

    Crochemore et al. (2001): one machine word per 64 positions of ``a``,
    so ``len(a) * len(b) / 64`` steps; Python's big integers are the bit
    vector, which makes 10,000 x 10,000 tokens a matter of milliseconds.
    """
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full  # zero bits mark the positions of a used by the LCS so far
    for token in b:
        match = masks.get(token)
        if match is None:
            continue
        used = row & match
        row = ((row + used) | (row - used)) & full
    return len(a) - row.bit_count()


def lcs_prf(predicted: Sequence[str], gold: Sequence[str]) -> PRF:
    """The SVM paper's LCS score: LCS length over each sequence's length."""
    return PRF.from_counts(lcs_length(predicted, gold), len(predicted), len(gold))


def shingle_counts(predicted: str, gold: str, size: int = SHINGLE_SIZE) -> tuple[float, float, float]:
    """The article-extraction-benchmark's (tp, fp, fn) over shingles, normalised to sum to one."""
    mine, theirs = Counter(_shingles(predicted, size)), Counter(_shingles(gold, size))
    tp = sum((mine & theirs).values())
    fp = sum((mine - theirs).values())
    fn = sum((theirs - mine).values())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def _shingles(text: str, size: int) -> list[str]:
    """Joined n-grams of case-kept tokens; a text shorter than ``size`` is one shingle."""
    tokens = WORD.findall(text)
    return [" ".join(tokens[i : i + size]) for i in range(max(1, len(tokens) - size + 1))] if tokens else []


def shingle_prf(counts: Iterable[tuple[float, float, float]]) -> PRF:
    """Precision / recall / F1 from per-page normalised counts summed over pages."""
    rows = list(counts)
    tp, fp, fn = (sum(column) for column in zip(*rows, strict=True)) if rows else (0.0, 0.0, 0.0)
    return PRF.from_counts(tp, tp + fp, tp + fn)


def snippet_share(snippets: Sequence[str], predicted_tokens: Sequence[str]) -> float | None:
    """Share of ``snippets`` whose words occur contiguously in the prediction (None: no snippets)."""
    wanted = [" ".join(word_tokens(s)) for s in snippets]
    wanted = [w for w in wanted if w]
    if not wanted:
        return None
    haystack = f" {' '.join(predicted_tokens)} "
    return sum(f" {w} " in haystack for w in wanted) / len(wanted)


# -- block metrics -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Confusion:
    """Block counts, content being the positive class."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @classmethod
    def of(cls, predicted: np.ndarray, gold: np.ndarray) -> Confusion:
        predicted, gold = np.asarray(predicted, dtype=bool), np.asarray(gold, dtype=bool)
        if predicted.shape != gold.shape:
            raise ValueError(f"{predicted.size} predicted labels for {gold.size} gold blocks")
        return cls(
            tp=int(np.count_nonzero(predicted & gold)),
            fp=int(np.count_nonzero(predicted & ~gold)),
            fn=int(np.count_nonzero(~predicted & gold)),
            tn=int(np.count_nonzero(~predicted & ~gold)),
        )

    def __add__(self, other: Confusion) -> Confusion:
        return Confusion(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn)

    @property
    def positive(self) -> PRF:
        """Content blocks found (BoilerNet's positive class)."""
        return PRF.from_counts(self.tp, self.tp + self.fp, self.tp + self.fn)

    @property
    def negative(self) -> PRF:
        """Boilerplate blocks found (BoilerNet's negative class)."""
        return PRF.from_counts(self.tn, self.tn + self.fn, self.tn + self.fp)


@dataclass(frozen=True, slots=True)
class Kept:
    """Kept tokens by kind and cut paragraphs of one page, or pooled over pages (see ``evaluation.anatomy``)."""

    tokens: int = 0
    link_tokens: int = 0
    hidden_tokens: int = 0
    cut_paragraphs: int = 0
    pages_with_cuts: int = 0

    def __add__(self, other: Kept) -> Kept:
        return Kept(*(a + b for a, b in zip(self.astuple(), other.astuple(), strict=True)))

    def astuple(self) -> tuple[int, ...]:
        return (self.tokens, self.link_tokens, self.hidden_tokens, self.cut_paragraphs, self.pages_with_cuts)

    @property
    def link_share(self) -> float | None:
        return self.link_tokens / self.tokens if self.tokens else None

    @property
    def hidden_share(self) -> float | None:
        return self.hidden_tokens / self.tokens if self.tokens else None


# -- one page, and many ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PageScore:
    """Every score of one system on one page; ``None`` where the page has nothing to score."""

    page_id: str
    page_type: str
    word: PRF | None
    token: PRF | None
    lcs: PRF | None
    shingle: tuple[float, float, float] | None
    with_found: float | None
    without_kept: float | None
    blocks: Confusion | None
    kept: Kept | None = None  # what the kept text is made of, where the page was parsed


def score_page(
    page_id: str,
    page_type: str,
    predicted: str,
    gold: str,
    *,
    with_snippets: Sequence[str] = (),
    without_snippets: Sequence[str] = (),
    predicted_blocks: np.ndarray | None = None,
    gold_blocks: np.ndarray | None = None,
    kept: Kept | None = None,
) -> PageScore:
    """All metrics of one extraction against one page's gold."""
    mine, theirs = word_tokens(predicted), word_tokens(gold)
    scored = bool(theirs)
    blocks = None
    if scored and predicted_blocks is not None and gold_blocks is not None:
        blocks = Confusion.of(predicted_blocks, gold_blocks)
    return PageScore(
        page_id=page_id,
        page_type=page_type,
        word=word_prf(mine, theirs) if scored else None,
        token=token_set_prf(mine, theirs) if scored else None,
        lcs=lcs_prf(mine, theirs) if scored else None,
        shingle=shingle_counts(predicted, gold) if scored else None,
        with_found=snippet_share(with_snippets, mine),
        without_kept=snippet_share(without_snippets, mine),
        blocks=blocks,
        kept=kept,
    )


@dataclass(frozen=True)
class Summary:
    """One system's scores over a set of pages."""

    pages: int  # pages with gold text, the ones text and block scores average over
    word: PRF
    token: PRF
    lcs: PRF
    shingle: PRF
    with_found: float | None
    without_kept: float | None
    blocks: Confusion | None
    kept: Kept | None = None

    def as_dict(self) -> dict[str, object]:
        """Flat, JSON-ready."""
        out: dict[str, object] = {"pages": self.pages}
        for name in ("word", "token", "lcs", "shingle"):
            prf: PRF = getattr(self, name)
            out |= {f"{name}_precision": prf.precision, f"{name}_recall": prf.recall, f"{name}_f1": prf.f1}
        out |= {"with_found": self.with_found, "without_kept": self.without_kept}
        if self.blocks is not None:
            pos, neg = self.blocks.positive, self.blocks.negative
            out |= {
                "block_positive_precision": pos.precision,
                "block_positive_recall": pos.recall,
                "block_positive_f1": pos.f1,
                "block_negative_precision": neg.precision,
                "block_negative_recall": neg.recall,
                "block_negative_f1": neg.f1,
            }
        if self.kept is not None:
            out |= {
                "cut_paragraphs": self.kept.cut_paragraphs,
                "pages_with_cut_paragraphs": self.kept.pages_with_cuts,
                "kept_link_share": self.kept.link_share,
                "kept_hidden_share": self.kept.hidden_share,
            }
        return out


def summarize(scores: Sequence[PageScore]) -> Summary:
    """Averages per page (word, token, LCS, snippets), pooled sums (shingles, blocks)."""
    scored = [s for s in scores if s.word is not None]
    with_found = [s.with_found for s in scores if s.with_found is not None]
    without_kept = [s.without_kept for s in scores if s.without_kept is not None]
    confusions = [s.blocks for s in scored if s.blocks is not None]
    kept = [s.kept for s in scores if s.kept is not None]
    return Summary(
        pages=len(scored),
        word=PRF.mean([s.word for s in scored if s.word]),
        token=PRF.mean([s.token for s in scored if s.token]),
        lcs=PRF.mean([s.lcs for s in scored if s.lcs]),
        shingle=shingle_prf(s.shingle for s in scored if s.shingle),
        with_found=float(np.mean(with_found)) if with_found else None,
        without_kept=float(np.mean(without_kept)) if without_kept else None,
        blocks=sum(confusions, Confusion()) if confusions else None,
        kept=sum(kept, Kept()) if kept else None,
    )


def summarize_by_type(scores: Sequence[PageScore]) -> dict[str, Summary]:
    """:func:`summarize` for each page type, in name order."""
    by_type: dict[str, list[PageScore]] = {}
    for score in scores:
        by_type.setdefault(score.page_type, []).append(score)
    return {name: summarize(by_type[name]) for name in sorted(by_type)}
