"""Train / validation / test parts of a corpus: grouped by domain, stratified by page type.

A site's pages share a template, so a domain in two parts would let a
learned backend score its own training template: every domain goes whole
into one part. Within that constraint each part gets about its share of
every page type. The assignment is a deterministic greedy pass (domains
shuffled by a fixed seed, the largest first, each to the part furthest
below its target for the domain's page types), so the committed file can
be regenerated and checked byte for byte.

The committed split of the WCXB dev pages (Murrough Foley 2026, CC-BY-4.0)
is ``splits/wcxb-dev.json``; every dev figure we report is on its test part.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from service.errors import UsageError
from service.evaluation.datasets import Corpus, Page

PARTS = ("train", "validation", "test")
ALL_PARTS = "all"
FRACTIONS: Mapping[str, float] = {"train": 0.70, "validation": 0.15, "test": 0.15}
SEED = 20261121
SPLITS_DIR = Path(__file__).resolve().parent / "splits"


class SplitError(UsageError):
    """A split that does not fit the corpus it is applied to."""


@dataclass(frozen=True)
class Split:
    """Page ids per part, with what they were made from."""

    corpus: str
    seed: int
    corpus_digest: str
    parts: Mapping[str, tuple[str, ...]]

    def to_json(self, credit: str = "") -> str:
        return (
            json.dumps(
                {
                    "corpus": self.corpus,
                    "credit": credit,
                    "method": "grouped by domain, stratified by page type (service/evaluation/split.py)",
                    "seed": self.seed,
                    "fractions": dict(FRACTIONS),
                    "corpus_digest": self.corpus_digest,
                    "parts": {part: list(ids) for part, ids in self.parts.items()},
                },
                indent=1,
            )
            + "\n"
        )

    @classmethod
    def read(cls, path: Path) -> Split:
        """The split in ``path``; :class:`SplitError` where it is no file, no JSON, or not of a split's shape."""
        try:
            record = json.loads(Path(path).read_text(encoding="utf-8"))
            return cls(
                corpus=str(record["corpus"]),
                seed=int(record["seed"]),
                corpus_digest=str(record["corpus_digest"]),
                parts={str(part): tuple(map(str, ids)) for part, ids in record["parts"].items()},
            )
        except OSError as error:
            raise SplitError(f"cannot read the split {path}: {error.strerror or error}") from error
        except (ValueError, TypeError, AttributeError, KeyError) as error:
            raise SplitError(f"{path} is no split: {type(error).__name__}: {error}") from error


def committed_split_path(corpus_name: str) -> Path:
    """Where the committed split of a corpus lives (it may not exist)."""
    return SPLITS_DIR / f"{corpus_name}.json"


def make_split(corpus: Corpus, seed: int = SEED) -> Split:
    """The deterministic split of ``corpus``."""
    return Split(corpus=corpus.name, seed=seed, corpus_digest=corpus.digest(), parts=assign_parts(corpus.pages, seed))


def assign_parts(
    pages: Sequence[Page], seed: int = SEED, fractions: Mapping[str, float] = FRACTIONS
) -> dict[str, tuple[str, ...]]:
    """Page ids per part: whole domains, each part near its share of every page type."""
    groups: dict[str, list[Page]] = {}
    for page in pages:
        groups.setdefault(page.domain or page.id, []).append(page)  # a page naming no domain stands alone
    order = sorted(groups)
    random.Random(seed).shuffle(order)
    order.sort(key=lambda domain: -len(groups[domain]))  # stable: the shuffle breaks ties
    type_totals = Counter(page.page_type for page in pages)
    targets = {part: {t: share * n for t, n in type_totals.items()} for part, share in fractions.items()}
    filled: dict[str, Counter[str]] = {part: Counter() for part in fractions}
    chosen: dict[str, list[str]] = {part: [] for part in fractions}
    for domain in order:
        members = Counter(page.page_type for page in groups[domain])

        def room(part: str, members: Counter[str] = members) -> float:
            """How far below its target this part is for these page types, relative to the target."""
            return sum(n * (targets[part][t] - filled[part][t]) / targets[part][t] for t, n in members.items())

        part = max(fractions, key=room)  # ties go to the first part listed
        filled[part].update(members)
        chosen[part].extend(page.id for page in groups[domain])
    return {part: tuple(sorted(ids)) for part, ids in chosen.items()}


def select(corpus: Corpus, part: str, split: Split | None) -> list[Page]:
    """The pages of one part (or all of them), checking the split covers the corpus."""
    if part == ALL_PARTS:
        return list(corpus.pages)
    if split is None:
        raise SplitError(f"no split for corpus {corpus.name!r}: give --split FILE or --part all")
    if part not in split.parts:
        raise SplitError(f"the split has no part {part!r}; it has {', '.join(split.parts)}")
    assigned = {page_id for ids in split.parts.values() for page_id in ids}
    missing = [page.id for page in corpus.pages if page.id not in assigned]
    if missing:
        raise SplitError(f"{len(missing)} pages are in no part of the split (first: {missing[0]}); regenerate it")
    wanted = set(split.parts[part])
    return [page for page in corpus.pages if page.id in wanted]
