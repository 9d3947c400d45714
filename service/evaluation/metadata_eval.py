"""``eval --metadata``: title, author, publication date and page type against the corpus's gold.

Scored per page as the issue asks: a title or an author is right when its
word-token F1 against the gold is at least :data:`MATCH_F1`; a date when it
is the same day. Author and date are scored on the pages whose gold has one
(the annotators left them empty where the page shows none), and beside that
we count how often a system names one where the gold has none (``spurious``).
trafilatura's ``extract_metadata`` runs in the same loop on the same decoded
page, so both columns come from one run. Data: WCXB (Murrough Foley 2026).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from service.evaluation.datasets import Page
from service.evaluation.metrics import harmonic_mean, word_tokens
from service.metadata.fields import PAGE_TYPES
from service.metadata.reader import MetadataReader
from service.parsing.decode import to_utf8
from service.parsing.lexbor import parse_html

MATCH_F1 = 0.8
FIELDS = ("title", "author", "date_published")


@dataclass(frozen=True)
class Guess:
    """What one system says of one page's metadata."""

    title: str | None
    author: str | None = None
    date_published: str | None = None
    page_type: str | None = None


MetadataSystem = Callable[[bytes, str], Guess]


def token_f1(predicted: str | None, gold: str | None) -> float:
    """Multiset word-token F1 of two strings (lowercase word tokens, as the corpus's text metric)."""
    left, right = Counter(word_tokens(predicted or "")), Counter(word_tokens(gold or ""))
    overlap = sum((left & right).values())
    if not overlap:
        return 0.0
    return harmonic_mean(overlap / sum(left.values()), overlap / sum(right.values()))


def is_right(name: str, predicted: str | None, gold: str) -> bool:
    if name == "date_published":
        return bool(predicted) and (predicted or "")[:10] == gold[:10]
    return token_f1(predicted, gold) >= MATCH_F1


@dataclass
class FieldScore:
    right: int = 0
    with_gold: int = 0
    spurious: int = 0  # a value where the gold has none
    without_gold: int = 0

    @property
    def accuracy(self) -> float:
        return self.right / self.with_gold if self.with_gold else 0.0

    @property
    def spurious_share(self) -> float:
        return self.spurious / self.without_gold if self.without_gold else 0.0


@dataclass
class SystemScore:
    """One system's scores over a part, with its time per page."""

    fields: dict[str, FieldScore] = field(default_factory=lambda: {name: FieldScore() for name in FIELDS})
    types: Counter[tuple[str, str]] = field(default_factory=Counter)  # (gold, predicted) page types
    seconds: float = 0.0
    pages: int = 0
    misses: dict[str, list[tuple[str, str | None, str | None]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, page: Page, guess: Guess, seconds: float) -> None:
        gold = page.gold_metadata
        self.seconds += seconds
        self.pages += 1
        if guess.page_type is not None:
            self.types[(page.page_type, guess.page_type)] += 1
        if gold is None:
            return
        for name in FIELDS:
            expected, predicted, score = getattr(gold, name), getattr(guess, name), self.fields[name]
            if expected:
                score.with_gold += 1
                if is_right(name, predicted, expected):
                    score.right += 1
                else:
                    self.misses[name].append((page.id, predicted, expected))
            else:
                score.without_gold += 1
                score.spurious += bool(predicted)

    @property
    def ms_per_page(self) -> float:
        return self.seconds * 1e3 / self.pages if self.pages else 0.0

    def type_accuracy(self) -> float | None:
        total = sum(self.types.values())
        return sum(n for (gold, got), n in self.types.items() if gold == got) / total if total else None

    def type_f1(self) -> dict[str, float]:
        """Per-type F1 of the page-type predictions."""
        out = {}
        for kind in PAGE_TYPES:
            tp = self.types[(kind, kind)]
            predicted = sum(n for (_, got), n in self.types.items() if got == kind)
            actual = sum(n for (gold, _), n in self.types.items() if gold == kind)
            out[kind] = harmonic_mean(tp / predicted if predicted else 0.0, tp / actual if actual else 0.0)
        return out

    def as_dict(self) -> dict[str, object]:
        record: dict[str, object] = {
            name: {"accuracy": s.accuracy, "pages": s.with_gold, "spurious": s.spurious_share}
            for name, s in self.fields.items()
        }
        record["ms_per_page"] = self.ms_per_page
        if self.types:
            record["page_type"] = {"accuracy": self.type_accuracy(), "f1": self.type_f1()}
        return record


def ours(reader: MetadataReader) -> MetadataSystem:
    """The service's metadata: one parse, then the reader (fields and page type), as the pipeline runs it."""

    def guess(html: bytes, url: str) -> Guess:
        metadata = reader.read(parse_html(html), url)
        author = ", ".join(metadata.author) or None
        return Guess(metadata.title, author, metadata.date_published, metadata.page_type)

    return guess


def trafilatura_metadata() -> MetadataSystem:
    """Trafilatura's own ``extract_metadata`` on the page decoded as our parser decodes it."""
    from trafilatura.metadata import extract_metadata  # noqa: PLC0415 - the eval extra, imported when used

    def guess(html: bytes, url: str) -> Guess:
        found = extract_metadata(to_utf8(html)[0].decode("utf-8", "replace"), default_url=url)
        if found is None:
            return Guess(None)
        return Guess(found.title, found.author, found.date)

    return guess


def evaluate_metadata(pages: Sequence[Page], systems: dict[str, MetadataSystem]) -> dict[str, SystemScore]:
    """Every system on every page, interleaved page by page.

    A page without gold metadata (Dragnet's) still counts for the page type, which its corpus gives.
    """
    scores = {name: SystemScore() for name in systems}
    for page in pages:
        html = page.html()
        for name, system in systems.items():
            started = time.perf_counter()
            guess = system(html, page.url)
            scores[name].add(page, guess, time.perf_counter() - started)
    return scores


def format_table(scores: dict[str, SystemScore]) -> str:
    """Accuracy per field (pages with gold), spurious shares, ms per page and page-type accuracy."""
    header = "| system | title | author | date published | author spurious | date spurious | page type | ms/page |"
    rows = [header, "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, score in scores.items():
        f = score.fields
        accuracy = score.type_accuracy()
        rows.append(
            f"| {name} | {f['title'].accuracy:.3f} ({f['title'].with_gold}) | {f['author'].accuracy:.3f} "
            f"({f['author'].with_gold}) | {f['date_published'].accuracy:.3f} ({f['date_published'].with_gold}) "
            f"| {f['author'].spurious_share:.3f} | {f['date_published'].spurious_share:.3f} "
            f"| {'-' if accuracy is None else f'{accuracy:.3f}'} | {score.ms_per_page:.2f} |"
        )
    typed = [(name, s) for name, s in scores.items() if s.types]
    if typed:
        rows += ["", "| system | " + " | ".join(PAGE_TYPES) + " |", "| --- |" + " --- |" * len(PAGE_TYPES)]
        for name, score in typed:
            f1 = score.type_f1()
            rows.append(f"| {name} (F1) | " + " | ".join(f"{f1[k]:.3f}" for k in PAGE_TYPES) + " |")
    return "\n".join(rows)


def format_misses(score: SystemScore, limit: int) -> str:
    """Up to ``limit`` misses per field, in page order: the page, what the system said, the gold (for error study)."""
    rows = []
    for name in FIELDS:
        misses = score.misses.get(name, [])
        rows.append(f"## {name}: {len(misses)} missed" + (f", the first {limit}" if len(misses) > limit else ""))
        rows += [f"{page_id}\tsaid {said!r}\tgold {gold!r}" for page_id, said, gold in misses[:limit]]
    return "\n".join(rows)
