"""``svm``: Yao & Zuo's 18 block features and an RBF SVM, served by ONNX Runtime.

The model's id/class tokens, chosen on the train part, are a side file
(``tokens``: a JSON list) verified with the model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from service.backends.onnx_features import FeatureFunction, FeatureSchema, OnnxFeatureBackend, feature_model_spec
from service.features.svm import N_FEATURES, SCHEMA_NAME, SCHEMA_VERSION, TOKEN_FEATURES, svm_features
from service.models.store import ModelEntry, ModelError, ModelStore
from service.runtime.sessions import CPU

MODEL_NAME = "svm"
SCHEMA = FeatureSchema(SCHEMA_NAME, SCHEMA_VERSION, N_FEATURES)


def _features(entry: ModelEntry, paths: dict[str, Path]) -> FeatureFunction:
    if "tokens" not in paths:
        raise ModelError(f"model {entry.name!r} has no 'tokens' file")
    tokens = json.loads(paths["tokens"].read_text(encoding="utf-8"))
    if not (isinstance(tokens, list) and len(tokens) == TOKEN_FEATURES and all(isinstance(t, str) for t in tokens)):
        raise ModelError(f"model {entry.name!r}: its tokens file must list {TOKEN_FEATURES} tokens")
    return partial(svm_features, tokens=tokens)


def load_svm(store: ModelStore, providers: Sequence[str] = (CPU,), intra_op_threads: int = 1) -> OnnxFeatureBackend:
    return OnnxFeatureBackend(
        store, MODEL_NAME, SCHEMA, _features, providers=providers, intra_op_threads=intra_op_threads
    )


SPEC = feature_model_spec(MODEL_NAME, SCHEMA, _features)
