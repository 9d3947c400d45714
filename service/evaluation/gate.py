"""The quality gate: every shipped backend's word-F1 on the test part stays at or above its floor.

Floors live in a committed file beside this module (``floors.json``, package data) with the
digest of the corpus they were measured on, so a changed corpus is noticed
instead of silently moving the bar. No backend may keep a paragraph in part (:data:`MAX_CUT_PARAGRAPHS`).
Floors only move up: raising them is
``eval --update-floors`` (each floor becomes the measured F1 less
:data:`FLOOR_MARGIN`, if that is higher), and lowering one, or re-pinning on
another corpus, takes ``--allow-lower``. Like trafilatura's own evaluation
guard, the gate runs in the test suite whenever the corpus is present.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from service.evaluation.datasets import Page
from service.evaluation.evaluate import backend_system, evaluate
from service.pipeline import Extractor

FLOORS_PATH = Path(__file__).resolve().parent / "floors.json"  # the package owns its bar; the tests read it
FLOOR_MARGIN = 0.01  # a floor sits this far below the measured F1: room for small, harmless changes
GATE_PART = "test"
GATE_METRIC = "word_f1"
FLOOR_DECIMALS = 4
MAX_CUT_PARAGRAPHS = 0  # paragraphs kept in part, over the whole part: no backend may cut a sentence


class FloorLowered(Exception):
    """An update that would lower a floor (or re-pin on another corpus) without permission."""


@dataclass(frozen=True)
class Floors:
    """The pinned floors and what they were measured on."""

    corpus: str
    corpus_digest: str
    part: str = GATE_PART
    metric: str = GATE_METRIC
    floors: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path = FLOORS_PATH) -> Floors:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(
            corpus=record["corpus"],
            corpus_digest=record["corpus_digest"],
            part=record["part"],
            metric=record["metric"],
            floors={name: float(value) for name, value in record["floors"].items()},
        )

    def write(self, path: Path = FLOORS_PATH) -> None:
        record = {
            "corpus": self.corpus,
            "corpus_digest": self.corpus_digest,
            "part": self.part,
            "metric": self.metric,
            "margin": FLOOR_MARGIN,
            "how": "floor = measured F1 - margin; raise with `python -m service eval --update-floors`",
            "floors": dict(sorted(self.floors.items())),
        }
        Path(path).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Measured:
    """What the gate reads of each backend: mean word F1 and paragraphs kept in part."""

    word_f1: Mapping[str, float]
    cut_paragraphs: Mapping[str, int]


def measure(pages: Sequence[Page], extractor: Extractor, backends: Sequence[str]) -> Measured:
    """Each backend over ``pages`` (no block scores: the gate needs none, only the kept text's anatomy)."""
    systems = [backend_system(extractor, name) for name in backends]
    results = evaluate(pages, systems, blocks=False, anatomy=True)
    return Measured(
        word_f1={name: result.summary.word.f1 for name, result in results.items()},
        cut_paragraphs={
            name: result.summary.kept.cut_paragraphs if result.summary.kept else 0 for name, result in results.items()
        },
    )


def check(measured: Measured, floors: Floors, corpus_digest: str) -> list[str]:
    """Why the gate fails: one message per problem, empty when it passes."""
    problems = []
    if corpus_digest != floors.corpus_digest:
        problems.append(
            f"the corpus differs from the one the floors were pinned on ({corpus_digest[:12]} vs "
            f"{floors.corpus_digest[:12]}); re-measure and re-pin: eval --update-floors --allow-lower"
        )
    for name, cuts in sorted(measured.cut_paragraphs.items()):
        if cuts > MAX_CUT_PARAGRAPHS:
            problems.append(f"backend {name!r} keeps {cuts} paragraphs in part on the {floors.part} part (allowed: 0)")
    for name, f1 in sorted(measured.word_f1.items()):
        floor = floors.floors.get(name)
        if floor is None:
            problems.append(f"backend {name!r} has no floor; pin one: python -m service eval --update-floors")
        elif f1 < floor:
            problems.append(
                f"backend {name!r}: {GATE_METRIC} {f1:.4f} on the {floors.part} part is below its floor {floor:.4f}"
            )
    return problems


def raise_floors(floors: Floors, measured: Mapping[str, float], corpus_digest: str, *, allow_lower: bool) -> Floors:
    """Floors moved up to the measured F1 less the margin; :class:`FloorLowered` instead of lowering one."""
    same_corpus = corpus_digest == floors.corpus_digest
    if not same_corpus and not allow_lower:
        raise FloorLowered("the corpus changed since the floors were pinned; re-pin them all with --allow-lower")
    updated = dict(floors.floors) if same_corpus else {}
    for name, f1 in measured.items():
        candidate = round(f1 - FLOOR_MARGIN, FLOOR_DECIMALS)
        current = updated.get(name)
        if current is None or candidate >= current or allow_lower:
            updated[name] = candidate
        elif f1 < current:
            raise FloorLowered(
                f"backend {name!r} measures {f1:.4f}, below its floor {current:.4f}; lowering it takes --allow-lower"
            )
    return Floors(floors.corpus, corpus_digest, floors.part, floors.metric, updated)
