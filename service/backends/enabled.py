"""Loading the enabled backends, and the optional facts a backend may declare beyond the protocol.

The protocol (name, kind, version, classify) is all a rule backend needs.
A model backend may add ``execution_provider`` ("CPU" or "CUDA", the one
ONNX Runtime really uses), ``batched = True`` when its requests can share
inference calls through a micro-batcher (the app starts one where batching
pays, :attr:`~service.settings.Settings.micro_batching`), and
``is_ready() -> bool`` (its batcher is alive). Each is read here with a
default, so new backends appear in /backends, /readyz and the metrics
without API changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

from service.backends.base import Backend
from service.backends.registry import BackendRegistry
from service.models.store import ModelStore


def execution_provider(backend: Backend) -> str:
    return str(getattr(backend, "execution_provider", "CPU"))


def is_batched(backend: Backend) -> bool:
    return bool(getattr(backend, "batched", False))


def is_ready(backend: Backend) -> bool:
    probe: Callable[[], bool] | None = getattr(backend, "is_ready", None)
    return probe() if callable(probe) else True


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
