"""Loading the enabled backends at start, and the manifest figures /backends shows of their models."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path

from service.backends.base import Backend
from service.backends.registry import BackendRegistry
from service.models.store import ModelStore


def load_enabled(registry: BackendRegistry, names: Sequence[str]) -> tuple[BackendRegistry, dict[str, Backend]]:
    """Build every enabled backend now (a broken one fails the start, not a request) in a registry of only them."""
    backends = {name: registry.get(name) for name in names}
    enabled = BackendRegistry()
    for name, backend in backends.items():
        enabled.register(name, partial(_same, backend))
    return enabled, backends


def _same(backend: Backend) -> Backend:
    return backend


def manifest_figures(model_store_dir: Path, names: Iterable[str]) -> dict[str, dict[str, object]]:
    """What /backends shows of each model's manifest entry: version, schema, digest, training and validation."""
    store = ModelStore(model_store_dir)
    stored = set(store.names())
    figures: dict[str, dict[str, object]] = {}
    for name in names:
        if name in stored:
            entry = store.entry(name)
            figures[name] = {
                "version": entry.version,
                "opset": entry.opset,
                "feature_schema": entry.feature_schema,
                "feature_schema_version": entry.feature_schema_version,
                "model_sha256": entry.files["model"]["sha256"],
                "training": entry.training,
                "validation": entry.validation,
            }
    return figures
