"""``mlp``: texrex's 37 block features and a one-hidden-layer perceptron (Schäfer), served by ONNX Runtime."""

from __future__ import annotations

from service.backends.onnx_features import FeatureSchema, FixedFeatureModel
from service.features.texrex import N_FEATURES, SCHEMA_NAME, SCHEMA_VERSION, texrex_features

MODEL_NAME = "mlp"
SCHEMA = FeatureSchema(SCHEMA_NAME, SCHEMA_VERSION, N_FEATURES)
MODEL = FixedFeatureModel(MODEL_NAME, SCHEMA, texrex_features)

load_mlp = MODEL.load
SPEC = MODEL.spec()
