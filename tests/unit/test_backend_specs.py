"""Backends are declared: each backend module's SPEC, one list of them, and a registry built by one loop."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

from service import backends
from service.backends import boilerpipe, registry
from service.backends.base import Backend
from service.backends.registry import SPECS, default_registry
from service.errors import DuplicateBackend
from service.models.store import ModelStore
from service.paths import MODEL_STORE
from service.settings import Settings


def test_every_module_that_declares_a_backend_is_in_the_list() -> None:
    modules = [importlib.import_module(f"service.backends.{m.name}") for m in pkgutil.iter_modules(backends.__path__)]
    declared = [module.SPEC for module in modules if hasattr(module, "SPEC")]
    assert len(declared) == len(SPECS) == len(set(SPECS))
    assert set(declared) == set(SPECS), "a module exports a SPEC that registry.SPECS does not list"


def test_a_model_backend_is_offered_only_where_the_store_holds_its_model(tmp_path: Path) -> None:
    assert default_registry(Settings(model_store_dir=tmp_path)).names() == ["boilerpipe", "grf"]
    shipped = ModelStore(MODEL_STORE)
    entry, paths = shipped.verified("mlp")
    fields = {key: value for key, value in entry.to_json().items() if key != "files"}
    ModelStore(tmp_path).write(fields, {role: (entry.files[role]["path"], paths[role].read_bytes()) for role in paths})
    offered = default_registry(Settings(model_store_dir=tmp_path))
    assert offered.names() == ["boilerpipe", "grf", "mlp"]
    assert offered.get("mlp").name == "mlp"


def test_the_shipped_store_offers_every_spec_name_it_holds() -> None:
    store = ModelStore(MODEL_STORE)
    names = default_registry(Settings(model_store_dir=MODEL_STORE)).names()
    assert names == sorted(name for spec in SPECS for name in spec.offered(store))
    assert {"boilerpipe", "grf", "bilstm", "svm", "mlp", "ensemble"} <= set(names)


def test_two_specs_offering_one_name_fail_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "SPECS", (boilerpipe.SPEC, boilerpipe.SPEC))
    with pytest.raises(DuplicateBackend, match="boilerpipe"):
        default_registry()


def test_a_backend_built_from_its_spec_carries_the_protocol_defaults() -> None:
    backend = default_registry(Settings(boilerpipe_tree_filter_depth=3)).get("boilerpipe")
    assert isinstance(backend, Backend)
    assert (backend.execution_provider, backend.batched, backend.is_ready()) == ("CPU", False, True)
    assert isinstance(backend, boilerpipe.BoilerpipeBackend) and backend.tree_filter_depth == 3  # the settings reach it
