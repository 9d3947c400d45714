"""The one small protocol every backend implements.

A backend reads the shared block sequence of a :class:`Document` and
returns a float32 score per block (higher means content) and the final
boolean labels. Labels are separate from ``scores >= threshold`` because
some backends post-process them (Boilerpipe's tree filter keeps one
subtree), and callers want both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Sized
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol, runtime_checkable

import numpy as np

from service.parsing.document import Document


@dataclass(frozen=True, slots=True)
class BlockLabels:
    """Per-block output of a backend: scores in [0, 1] and content labels."""

    scores: np.ndarray  # float32, one per block
    labels: np.ndarray  # bool, one per block
    threshold: float = 0.5  # the score the backend's decision turns at (service.backends.favor shifts it)

    @classmethod
    def from_scores(cls, scores: np.ndarray, threshold: float = 0.5) -> BlockLabels:
        scores = np.asarray(scores, dtype=np.float32)
        return cls(scores=scores, labels=scores >= threshold, threshold=threshold)


# A small page that touches every stage (parse, features, models, all three renderers): whoever serves or
# times a backend extracts it first (service.pipeline.warm_up, the one place), because the first session
# run allocates and features and renderers build lookup tables on first use; no request pays that.
WARM_UP_PAGE = (
    # a title misread as some pages serve theirs (UTF-8's "’" read as Windows-1252): its repair imports ftfy now
    b"<html><head><title>A reader\xc3\xa2\xe2\x82\xac\xe2\x84\xa2s warm-up</title></head>"
    b"<body><nav><a href='/'>Home</a></nav>"
    b"<article><h1>Warm-up</h1><p>One paragraph with <b>two</b> sentences. Here is the second.</p>"
    b"<ol start='2'><li>An item</li></ol></article><footer>&copy; 2026</footer></body></html>"
)


@runtime_checkable
class Backend(Protocol):
    """What the registry, the pipeline and the API need from a backend.

    Every backend subclasses it, so the facts only some backends have come with the
    rule backend's defaults (on the CPU, unbatched, always ready) and a model backend
    overrides what it knows; callers read them as attributes, never probe for them.
    """

    name: str  # the one name used everywhere: registry, manifest, requests, metrics
    kind: str  # "rules", "onnx" or "graph"
    version: str  # model or rule-set version, reported with every extraction
    execution_provider: str = "CPU"  # where it runs: "CPU", "CUDA", "Tensorrt", the one ONNX Runtime really uses
    batched: bool = False  # True: a BatchedBackend whose requests may share inference calls (Settings.micro_batching)
    compatible_versions: tuple[str, ...] = ()  # earlier versions whose scores this one's replace (for ensembles)
    # By page type, the model that classifies such pages in its stead (bilstm's article model); none by default.
    routes: Mapping[str, Route] = MappingProxyType({})

    def is_ready(self) -> bool:
        """Whether it can serve now (/readyz asks); a backend that loads or reconnects in the background says no."""
        return True

    def route_of(self, type_probabilities: Mapping[str, float]) -> str | None:
        """The page type whose route classifies a page the page-type model gives these probabilities; None: none.

        The pipeline asks; ``classify`` itself never routes, so an ensemble reads the scores it was fitted on.
        """
        reached = (t for t, route in self.routes.items() if type_probabilities.get(t, -1.0) >= route.min_probability)
        return next(reached, None)

    def for_page(self, type_probabilities: Mapping[str, float]) -> Backend:
        """The model that classifies such a page for this backend: itself, or the backend of its route."""
        page_type = self.route_of(type_probabilities)
        return self.routes[page_type].backend if page_type is not None else self

    def classify(self, document: Document) -> BlockLabels: ...


@dataclass(frozen=True, slots=True)
class Route:
    """A backend's model for one page type: for the pages whose probability of that type reaches ``min_probability``."""

    backend: Backend
    min_probability: float


# Finds a backend by name (the registry's ``get``): how grf and the ensemble reach the backends they build on.
BackendResolver = Callable[[str], Backend]


@runtime_checkable
class BatchedBackend(Backend, Protocol):
    """A model backend whose documents can share inference calls (through the micro-batcher); sets ``batched``.

    ``classify(d)`` must equal ``labels(infer([encode(d)])[0])``, whatever else is in the batch.
    """

    def encode(self, document: Document) -> Sized: ...

    def infer(self, inputs: Sequence[Sized]) -> list[np.ndarray]: ...

    def labels(self, scores: np.ndarray) -> BlockLabels: ...
