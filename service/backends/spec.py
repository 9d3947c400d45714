"""How a backend is declared: each backend module exports one ``SPEC``; the registry loops over a list of them.

A spec says under which names the backend is offered and how one is built
from the model store, the settings and the registry itself (for backends
built on other backends: grf's seeds, the ensemble's members). A backend
that needs a model is offered only under the names whose artifact the store
holds, so an installation without a trained model simply lacks that backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from service.backends.base import Backend, BackendResolver
from service.models.store import ModelStore
from service.settings import Settings


@dataclass(frozen=True, slots=True)
class BuildContext:
    """What a spec's ``build`` may use; ``resolve`` is the registry's ``get``, so no backend imports another."""

    store: ModelStore
    settings: Settings
    resolve: BackendResolver


BuildBackend = Callable[[str, BuildContext], Backend]  # (the name asked for, the context) -> the backend


@dataclass(frozen=True, slots=True)
class BackendSpec:
    """One backend module's declaration: the names it serves and how one is built."""

    build: BuildBackend
    names: tuple[str, ...] = ()  # the names it serves (a model's variants under their store names)
    requires_model: bool = False  # offer a name only where the store holds its model
    find: Callable[[ModelStore], Iterable[str]] | None = None  # else: the store names it serves, found at start

    def offered(self, store: ModelStore) -> list[str]:
        """The names this installation serves it under."""
        if self.find is not None:
            return sorted(self.find(store))
        if not self.requires_model:
            return list(self.names)
        stored = set(store.names())
        return [name for name in self.names if name in stored]
