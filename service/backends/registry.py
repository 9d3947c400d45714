"""One registry of backends, keyed by the one name used everywhere, filled from one list of specs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial

from service.backends import bilstm, boilerpipe, ensemble, gbt, grf, mlp, svm
from service.backends.base import Backend
from service.backends.spec import BackendSpec, BuildContext
from service.errors import DuplicateBackend, UnknownBackend
from service.models.store import ModelStore
from service.settings import Settings

BackendFactory = Callable[[], Backend]


class BackendRegistry:
    """Named backend factories; each backend is built on first use and kept."""

    def __init__(self, why_few: str = "") -> None:
        self._factories: dict[str, BackendFactory] = {}
        self._built: dict[str, Backend] = {}
        self.why_few = why_few  # why backends one would expect are not offered, told with an unknown name

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

    def check(self, names: Iterable[str]) -> None:
        """:class:`UnknownBackend` for the first of ``names`` not registered; nothing is built."""
        for name in names:
            if name not in self._factories:
                raise UnknownBackend(name, self.names(), self.why_few)

    def get(self, name: str) -> Backend:
        """The backend called ``name``, built now if it was not yet."""
        backend = self._built.get(name)
        if backend is not None:
            return backend
        factory = self._factories.get(name)
        if factory is None:
            raise UnknownBackend(name, self.names(), self.why_few)
        backend = self._built[name] = factory()
        if backend.name != name:
            raise DuplicateBackend(f"factory for {name!r} built a backend named {backend.name!r}")
        return backend


# Every backend this installation ships: a new backend is one module exporting its SPEC and one entry here.
SPECS: tuple[BackendSpec, ...] = (boilerpipe.SPEC, grf.SPEC, bilstm.SPEC, svm.SPEC, mlp.SPEC, gbt.SPEC, ensemble.SPEC)


def default_registry(settings: Settings | None = None) -> BackendRegistry:
    """Every backend of :data:`SPECS` under each name it is offered, configured by ``settings``."""
    chosen = settings or Settings()
    store = ModelStore(chosen.model_store_dir)
    unread = "" if store.manifest_path.is_file() else f"{store.manifest_path} is missing: EXTRACT_MODEL_STORE_DIR"
    registry = BackendRegistry(why_few=unread and f"no model backend: {unread}")
    context = BuildContext(store, chosen, registry.get)
    for spec in SPECS:
        for name in spec.offered(context.store):
            registry.register(name, partial(spec.build, name, context))
    return registry
