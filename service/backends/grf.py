"""Gaussian-random-field label propagation (Bose & Mukherjee; Zhu, Ghahramani, Lafferty 2003).

No trained model: per page, some blocks get a confident label (the seeds)
and the harmonic function on the page's block graph spreads them to the
rest. Seeds come from the markup and text heuristics of
:mod:`service.graph.seeds`, or, with ``seed_backend``, from the most
confident blocks of another registered backend (one ``classify`` call per
page): blocks it scores at least ``1 - seed_margin`` become content seeds,
those at most ``seed_margin`` boilerplate seeds. The other backend is
looked up by name through a ``resolve`` function (the registry's ``get``),
so this module imports no registry and no other backend.

Score of a block: its harmonic value in [0, 1] (seeds keep 1 or 0), after
class mass normalisation when that option is on; label: score >= 0.5.

Measured on the train part of the WCXB dev pages (word F1, pages
averaged): 0.831. The heuristics seed about 92 % of the blocks and nearly
all long ones, so they decide most of the score; the propagation decides
the short unmarked blocks (table cells, list items, headings), about as
well as keeping them all would (0.833). Class mass normalisation scored
0.828: content seeds are the minority while the unlabelled blocks are
content about half the time. Seeds from ``boilerpipe`` scored 0.774.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from service.backends.base import Backend, BackendResolver, BlockLabels
from service.backends.spec import BackendSpec, BuildContext
from service.graph.build import GraphOptions, block_graph
from service.graph.harmonic import BOILERPLATE, CONTENT, UNLABELLED, class_mass_normalised, harmonic
from service.graph.seeds import heuristic_seeds
from service.graph.vectors import VectorWeights, block_vectors
from service.parsing.document import Document

NAME = "grf"
# Bump whenever a seed rule, the graph or the solver changes.
VERSION = "1.0"

# With a seed backend: blocks it scores within this distance of 1 (or of 0) become seeds.
DEFAULT_SEED_MARGIN = 0.1


@dataclass(frozen=True, slots=True)
class GrfOptions:
    """Everything that shapes the propagation; the defaults were chosen on the train part of the dev pages."""

    graph: GraphOptions = field(default_factory=GraphOptions)
    vectors: VectorWeights = field(default_factory=VectorWeights)
    class_mass_normalisation: bool = False
    seed_backend: str | None = None  # a registered backend's name; None: the heuristics
    seed_margin: float = DEFAULT_SEED_MARGIN


def backend_seeds(labels: BlockLabels, margin: float) -> np.ndarray:
    """Seeds from another backend's scores: confident content, confident boilerplate, the rest unlabelled."""
    seeds = np.full(len(labels.scores), UNLABELLED, dtype=np.int8)
    seeds[labels.scores >= 1.0 - margin] = CONTENT
    seeds[labels.scores <= margin] = BOILERPLATE
    return seeds


class GrfBackend(Backend):
    """Heuristic (or another backend's) seeds, a k-NN block graph, the harmonic solution."""

    name = NAME
    kind = "graph"
    version = VERSION

    def __init__(self, options: GrfOptions | None = None, resolve: BackendResolver | None = None) -> None:
        """``resolve`` finds the backend named by ``options.seed_backend`` (needed only then)."""
        self.options = options or GrfOptions()
        self.seed_backend: Backend | None = None
        wanted = self.options.seed_backend
        if wanted is not None:
            if wanted == NAME:
                raise ValueError("the grf backend cannot seed itself")
            if resolve is None:
                raise ValueError(f"seed_backend {wanted!r} needs a resolver (the registry's get)")
            self.seed_backend = resolve(wanted)

    def seeds(self, document: Document) -> np.ndarray:
        """Seed code per block (int8): content, boilerplate or unlabelled."""
        if self.seed_backend is None:
            return heuristic_seeds(document)
        return backend_seeds(self.seed_backend.classify(document), self.options.seed_margin)

    def classify(self, document: Document) -> BlockLabels:
        seeds = self.seeds(document)
        weights = block_graph(document, block_vectors(document, self.options.vectors), self.options.graph)
        values = harmonic(weights, seeds)
        if self.options.class_mass_normalisation:
            values = class_mass_normalised(values, seeds)
        return BlockLabels.from_scores(values)


def _build(name: str, context: BuildContext) -> GrfBackend:
    return GrfBackend(resolve=context.resolve)


SPEC = BackendSpec(_build, names=(NAME,))
