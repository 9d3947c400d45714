"""The quality gate: shipped backends keep their word-F1 on the test part of the WCXB dev pages.

Figures are on WCXB (Murrough Foley 2026, CC-BY-4.0). The floors and the
corpus digest they were measured on are in ``service/evaluation/floors.json``;
raise them with ``python -m service eval --update-floors``. A pass is remembered by the digests of the
models, the corpus, the floors and the code (tests/support/gate_cache.py): the gate reruns when one changes,
or with ``--no-gate-cache``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from service.backends.base import Backend, BlockLabels
from service.backends.registry import BackendRegistry
from service.evaluation.datasets import load_corpus
from service.evaluation.gate import FLOORS_PATH, Floors, Measured, check, measure
from service.evaluation.split import Split, committed_split_path, select
from service.parsing.document import Document
from service.paths import MODEL_STORE
from service.pipeline import Extractor, default_extractor

from support.gate_cache import GatePasses, gate_digests, skip_reason
from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "eval"


@pytest.mark.data
def test_shipped_backends_stay_above_their_floors(data_dir: Path, gate_passes: GatePasses) -> None:
    floors = Floors.read(FLOORS_PATH)
    corpus = load_corpus(data_dir)
    digests = gate_digests(corpus.digest(), FLOORS_PATH, MODEL_STORE / "manifest.json")
    passed_at = gate_passes.passed_at(digests)
    if passed_at is not None:
        pytest.skip(skip_reason(passed_at, digests))
    pages = select(corpus, floors.part, Split.read(committed_split_path(corpus.name)))
    extractor = default_extractor()
    measured = measure(pages, extractor, extractor.registry.names())
    problems = check(measured, floors, corpus.digest())
    assert not problems, "quality gate failed:\n" + "\n".join(problems)
    gate_passes.record(digests)


class _KeepArticle(Backend):
    """Keeps the blocks inside <article>: right on every fixture page."""

    name = "keep-article"
    kind = "rules"
    version = "test"

    def classify(self, document: Document) -> BlockLabels:
        keep = np.array(["article" in path for path in document.tag_paths], dtype=bool)
        return BlockLabels(keep.astype(np.float32), keep)


class _EveryOther(Backend):
    """A deliberately degraded backend: every other block, whatever it says."""

    name = "every-other"
    kind = "rules"
    version = "test"

    def classify(self, document: Document) -> BlockLabels:
        keep = np.arange(len(document)) % 2 == 0
        return BlockLabels(keep.astype(np.float32), keep)


def test_gate_fails_for_a_degraded_backend() -> None:
    corpus = load_corpus(FIXTURES / "wcxb")
    registry = BackendRegistry()
    registry.register("keep-article", _KeepArticle)
    registry.register("every-other", _EveryOther)
    floors = Floors(corpus.name, corpus.digest(), floors={"keep-article": 0.95, "every-other": 0.95})
    measured = measure(list(corpus), Extractor(registry, default_backend="keep-article"), registry.names())
    assert measured.word_f1["keep-article"] == pytest.approx(1.0)
    assert measured.word_f1["every-other"] < 0.95
    assert measured.cut_paragraphs["keep-article"] == 0
    (problem,) = check(measured, floors, corpus.digest())
    assert "'every-other'" in problem
    assert "below its floor" in problem


def test_gate_fails_for_a_cut_paragraph() -> None:
    corpus = load_corpus(FIXTURES / "wcxb")
    floors = Floors(corpus.name, corpus.digest(), floors={"keep-article": 0.5})
    measured = Measured(word_f1={"keep-article": 0.9}, cut_paragraphs={"keep-article": 2})
    (problem,) = check(measured, floors, corpus.digest())
    assert "2 paragraphs in part" in problem
