"""One registry of backends, keyed by the one name used everywhere."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from service.backends.base import Backend
from service.backends.bilstm import BilstmBackend
from service.backends.boilerpipe import BoilerpipeBackend
from service.backends.ensemble import is_ensemble, load_ensemble, servable
from service.backends.grf import GrfBackend
from service.backends.mlp import load_mlp
from service.backends.svm import load_svm
from service.errors import DuplicateBackend, UnknownBackend
from service.models.store import ModelStore
from service.settings import Settings

BackendFactory = Callable[[], Backend]


class BackendRegistry:
    """Named backend factories; each backend is built on first use and kept."""

    def __init__(self) -> None:
        self._factories: dict[str, BackendFactory] = {}
        self._built: dict[str, Backend] = {}

    def register(self, name: str, factory: BackendFactory) -> None:
        if name in self._factories:
            raise DuplicateBackend(f"a backend named {name!r} is already registered")
        self._factories[name] = factory

    def names(self) -> list[str]:
        return sorted(self._factories)

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> Backend:
        """The backend called ``name``, built now if it was not yet."""
        backend = self._built.get(name)
        if backend is not None:
            return backend
        factory = self._factories.get(name)
        if factory is None:
            raise UnknownBackend(name, self.names())
        backend = self._built[name] = factory()
        if backend.name != name:
            raise DuplicateBackend(f"factory for {name!r} built a backend named {backend.name!r}")
        return backend


# The BiLSTM models the store may hold: the shipped configuration and the paper's (`train bilstm --paper`).
BILSTM_VARIANTS = frozenset({"bilstm", "bilstm_paper"})


def default_registry(settings: Settings | None = None) -> BackendRegistry:
    """Every backend this installation ships, registered by name, configured by ``settings``."""
    chosen = settings or Settings()
    registry = BackendRegistry()
    registry.register("boilerpipe", lambda: BoilerpipeBackend(chosen.boilerpipe_tree_filter_depth))
    registry.register("grf", lambda: GrfBackend(resolve=registry.get))
    store = ModelStore(chosen.model_store_dir)
    trained = set(store.names())  # a model backend is offered only where its artifact is in the store
    for name in sorted(trained & BILSTM_VARIANTS):
        registry.register(
            name,
            partial(
                BilstmBackend,
                store,
                model_name=name,
                providers=chosen.execution_providers,
                intra_op_threads=chosen.onnx_intra_op_threads,
                window_blocks=chosen.bilstm_window_blocks,
                overlap_blocks=chosen.bilstm_overlap_blocks,
                max_padded_blocks=chosen.batch_max_padded_blocks,
            ),
        )
    for name, load in (("svm", load_svm), ("mlp", load_mlp)):
        if name in trained:
            registry.register(name, partial(load, store, chosen.execution_providers, chosen.onnx_intra_op_threads))
    # Ensembles (`train ensemble`): their members are found by name in this registry, each built once.
    for name in sorted(n for n in trained if is_ensemble(n) and servable(store, n)):
        registry.register(
            name,
            partial(load_ensemble, store, name, registry.get, chosen.execution_providers, chosen.onnx_intra_op_threads),
        )
    return registry
