"""``mlp``: texrex's 37 block features and a one-hidden-layer perceptron (Schäfer), served by ONNX Runtime."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from service.backends.onnx_features import FeatureFunction, FeatureSchema, OnnxFeatureBackend, feature_model_spec
from service.features.texrex import N_FEATURES, SCHEMA_NAME, SCHEMA_VERSION, texrex_features
from service.models.store import ModelEntry, ModelStore
from service.runtime.sessions import CPU

MODEL_NAME = "mlp"
SCHEMA = FeatureSchema(SCHEMA_NAME, SCHEMA_VERSION, N_FEATURES)


def _features(entry: ModelEntry, paths: dict[str, Path]) -> FeatureFunction:
    return texrex_features


def load_mlp(store: ModelStore, providers: Sequence[str] = (CPU,), intra_op_threads: int = 1) -> OnnxFeatureBackend:
    return OnnxFeatureBackend(
        store, MODEL_NAME, SCHEMA, _features, providers=providers, intra_op_threads=intra_op_threads
    )


SPEC = feature_model_spec(MODEL_NAME, SCHEMA, _features)
