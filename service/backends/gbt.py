"""``gbt``: one boosted-trees model over the cheap feature groups with neighbour context, served by ONNX Runtime."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from service.backends.onnx_features import FeatureFunction, FeatureSchema, OnnxFeatureBackend, feature_model_spec
from service.features.combined import N_FEATURES, SCHEMA_NAME, SCHEMA_VERSION, combined_features
from service.models.store import ModelEntry, ModelStore
from service.runtime.sessions import CPU

MODEL_NAME = "gbt"
SCHEMA = FeatureSchema(SCHEMA_NAME, SCHEMA_VERSION, N_FEATURES)


def _features(entry: ModelEntry, paths: dict[str, Path]) -> FeatureFunction:
    return combined_features


def load_gbt(store: ModelStore, providers: Sequence[str] = (CPU,), intra_op_threads: int = 1) -> OnnxFeatureBackend:
    return OnnxFeatureBackend(
        store, MODEL_NAME, SCHEMA, _features, providers=providers, intra_op_threads=intra_op_threads
    )


SPEC = feature_model_spec(MODEL_NAME, SCHEMA, _features)
