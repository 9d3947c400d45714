"""``gbt``: one boosted-trees model over the cheap feature groups with neighbour context, served by ONNX Runtime."""

from __future__ import annotations

from service.backends.onnx_features import FeatureSchema, FixedFeatureModel
from service.features.combined import N_FEATURES, SCHEMA_NAME, SCHEMA_VERSION, combined_features

MODEL_NAME = "gbt"
SCHEMA = FeatureSchema(SCHEMA_NAME, SCHEMA_VERSION, N_FEATURES)
MODEL = FixedFeatureModel(MODEL_NAME, SCHEMA, combined_features)

load_gbt = MODEL.load
SPEC = MODEL.spec()
