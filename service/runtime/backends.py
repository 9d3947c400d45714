"""Loading the enabled backends, and the optional facts a backend may declare beyond the protocol.

The protocol (name, kind, version, classify) is all a rule backend needs.
A model backend may add ``execution_provider`` ("CPU" or "CUDA", the one
ONNX Runtime really uses), ``batched = True`` when its requests go through
the micro-batcher, and ``is_ready() -> bool`` (its batcher is alive). Each
is read here with a default, so new backends appear in /backends, /readyz
and the metrics without API changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from service.backends.base import Backend
from service.backends.registry import BackendRegistry
from service.errors import ExtractionError


class InvalidManifest(ExtractionError):
    """A model-store manifest that cannot be read."""


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


def read_manifest(model_store_dir: Path) -> dict[str, dict[str, object]]:
    """The model store's manifest entries by backend name; none when the store has no manifest."""
    path = model_store_dir / "manifest.json"
    if not path.is_file():
        return {}
    try:
        models = json.loads(path.read_text(encoding="utf-8")).get("models", {})
    except (ValueError, AttributeError) as error:
        raise InvalidManifest(f"cannot read {path}: {error}") from error
    if not isinstance(models, dict):
        raise InvalidManifest(f"{path}: 'models' must be an object keyed by backend name")
    return {str(name): dict(entry) for name, entry in models.items() if isinstance(entry, dict)}
