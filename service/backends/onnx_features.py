"""One backend for every model that reads a feature matrix: features → one ONNX Runtime call per page → scores.

A page's units (leaves or paragraph units, as the model was trained) become
one float32 matrix through the model's feature function; one session call
gives each unit's content probability; every leaf gets its unit's, and is
content at ``score >= threshold`` (the threshold chosen on the validation
part and recorded in the manifest). The model is loaded through
:meth:`ModelStore.verified`, so a corrupt or missing file stops the start,
and a model trained on another feature schema or version is refused.

This module also fixes the interface every such model is exported with
(training conforms to it): input :data:`INPUT_NAME` (float32, units ×
features), output :data:`PROBABILITIES` (units × 2, column
:data:`CONTENT` the content class).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from service.backends.base import Backend, BlockLabels
from service.backends.spec import BackendSpec, BuildContext
from service.features.units import UNITS
from service.models.store import ModelEntry, ModelError, ModelStore
from service.parsing.document import Document
from service.runtime.sessions import CPU, active_provider, create_session

INPUT_NAME = "features"
PROBABILITIES = "probabilities"
CONTENT = 1  # column of the content class in PROBABILITIES
# Units per session call: the SVM's kernel features of a 103,511-unit page took 1 GB in one call (a row is
# scored alone, so the calls' rows join as one call's would; no dev page has more units than this).
MAX_ROWS_PER_CALL = 8192

FeatureFunction = Callable[[Document, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class FeatureSchema:
    """The feature definitions a model must have been trained on, and their width."""

    name: str
    version: int
    width: int


class OnnxFeatureBackend(Backend):
    """A verified feature-matrix model, its feature function and its threshold."""

    kind = "onnx"

    def __init__(
        self,
        store: ModelStore,
        name: str,
        schema: FeatureSchema,
        features_of: Callable[[ModelEntry, dict[str, Path]], FeatureFunction],
        *,
        providers: Sequence[str] = (CPU,),
        intra_op_threads: int = 1,
    ) -> None:
        """Load model ``name``; ``features_of(entry, paths)`` builds its feature function (reading side files)."""
        entry, paths = store.verified(name)
        entry.require_schema(schema.name, schema.version)
        if entry.inputs != [INPUT_NAME] or PROBABILITIES not in entry.outputs:
            raise ModelError(f"model {name!r} has inputs {entry.inputs}, outputs {entry.outputs}: not this interface")
        units = entry.config.get("units")
        if units not in UNITS:
            raise ModelError(f"model {name!r}: unknown units {units!r} (known: {sorted(UNITS)})")
        self.name = name
        self.version = entry.version
        self.entry = entry
        self.units = UNITS[units]
        self.threshold = float(entry.config["threshold"])
        self.features = features_of(entry, paths)
        self.session = create_session(paths["model"], providers=providers, intra_op_threads=intra_op_threads)
        width = self.session.get_inputs()[0].shape[1]
        if width != schema.width:
            raise ModelError(f"model {name!r} takes {width} features, {schema.name} has {schema.width}")
        self.execution_provider = active_provider(self.session)

    def scores(self, document: Document) -> np.ndarray:
        """Content probability of every leaf (float32), its unit's."""
        if not len(document):
            return np.zeros(0, dtype=np.float32)
        unit_of_leaf = self.units(document)
        rows = self.features(document, unit_of_leaf)
        calls = [rows[start : start + MAX_ROWS_PER_CALL] for start in range(0, len(rows), MAX_ROWS_PER_CALL)]
        parts = [self.session.run([PROBABILITIES], {INPUT_NAME: part})[0] for part in calls]
        probabilities = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return np.ascontiguousarray(probabilities[unit_of_leaf, CONTENT], dtype=np.float32)

    def classify(self, document: Document) -> BlockLabels:
        return BlockLabels.from_scores(self.scores(document), self.threshold)


def feature_model_spec(
    model_name: str, schema: FeatureSchema, features_of: Callable[[ModelEntry, dict[str, Path]], FeatureFunction]
) -> BackendSpec:
    """The spec of a feature-matrix model stored under ``model_name`` (svm, mlp): offered where the store holds it."""

    def build(name: str, context: BuildContext) -> OnnxFeatureBackend:
        settings = context.settings
        return OnnxFeatureBackend(
            context.store,
            name,
            schema,
            features_of,
            providers=settings.execution_providers,
            intra_op_threads=settings.onnx_intra_op_threads,
        )

    return BackendSpec(build, names=(model_name,), requires_model=True)


@dataclass(frozen=True)
class FixedFeatureModel:
    """A stored model whose features are one function of the page, nothing read from its files (mlp, gbt)."""

    name: str
    schema: FeatureSchema
    features: FeatureFunction

    def features_of(self, entry: ModelEntry, paths: dict[str, Path]) -> FeatureFunction:
        return self.features

    def load(
        self, store: ModelStore, providers: Sequence[str] = (CPU,), intra_op_threads: int = 1
    ) -> OnnxFeatureBackend:
        return OnnxFeatureBackend(
            store, self.name, self.schema, self.features_of, providers=providers, intra_op_threads=intra_op_threads
        )

    def spec(self) -> BackendSpec:
        return feature_model_spec(self.name, self.schema, self.features_of)
