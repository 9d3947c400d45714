"""``ensemble``: the other backends' scores, stacked block by block, read by a small boosted-trees combiner.

Every backend labels the same block sequence and their mistakes differ, so
a combiner that sees each member's score of a block and of its neighbours
(:mod:`service.features.stack`) can keep what most of them, or the right
one for this kind of region, keep. Per page, each member's ``classify``
runs exactly once; its scores and labels become the stack features, and one
ONNX Runtime call (through :class:`OnnxFeatureBackend`, the same verified
path as ``svm`` and ``mlp``) gives every block's content probability.

Members are looked up by name through a ``resolve`` function (the
registry's ``get``, as ``grf`` does), so this module imports no registry
and no other backend. A model may also list *peers* among its members
(the slow mode, ``ensemble_peer``): an open-source extractor run on the
page as one more member (:class:`service.backends.peers.PeerMember`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np

from service.backends.base import Backend, BackendResolver, BlockLabels
from service.backends.onnx_features import FeatureFunction, FeatureSchema, OnnxFeatureBackend
from service.backends.peers import PeerMember, peers_available
from service.backends.spec import BackendSpec, BuildContext
from service.features.stack import SCHEMA_NAME, SCHEMA_VERSION, StackLayout, stack_features
from service.models.store import ModelEntry, ModelError, ModelStore
from service.parsing.document import Document
from service.runtime.sessions import CPU

NAME = "ensemble"


def is_ensemble(name: str) -> bool:
    """Whether a store entry name is an ensemble variant (``ensemble``, ``ensemble_cpu``, ...)."""
    return name == NAME or name.startswith(NAME + "_")


def servable(store: ModelStore, name: str) -> bool:
    """Whether to offer ensemble ``name``: not when a peer it needs is missing (a broken entry fails at load)."""
    try:
        _, peers = layout_of(store.entry(name))
    except ModelError:
        return True  # let the load say what is wrong
    return peers_available(peers)


def layout_of(entry: ModelEntry) -> tuple[StackLayout, list[str]]:
    """The stack layout and the peers a stored ensemble model was trained with."""
    try:
        layout = StackLayout.from_config(entry.config["stack"])
        peers = list(entry.config.get("peers", []))
    except (KeyError, TypeError, ValueError) as error:
        raise ModelError(f"model {entry.name!r}: no valid stack layout in its config ({error})") from error
    unknown = [p for p in peers if p not in layout.members]
    if unknown:
        raise ModelError(f"model {entry.name!r}: peers {unknown} are not among its members")
    return layout, peers


class StackFeatures:
    """The feature function of an ensemble model: each member once, then the stack features."""

    def __init__(self, members: Sequence[Backend], layout: StackLayout) -> None:
        self.members = list(members)
        self.layout = layout

    def member_outputs(self, document: Document) -> list[BlockLabels]:
        return [member.classify(document) for member in self.members]

    def __call__(self, document: Document, unit_of_leaf: np.ndarray) -> np.ndarray:
        outputs = self.member_outputs(document)
        return stack_features(document, [o.scores for o in outputs], [o.labels for o in outputs], self.layout)


def member_models(store: ModelStore, members: Sequence[str]) -> dict[str, str]:
    """The sha256 of each member's model file, for the members that have one in ``store``."""
    present = set(store.names())
    return {m: store.entry(m).files["model"]["sha256"] for m in members if m in present}


def check_member_models(store: ModelStore, entry: ModelEntry) -> None:
    """Refuse an ensemble whose members' models changed since it was fitted: it learned their old scores."""
    recorded = entry.config.get("member_models", {})
    now = member_models(store, list(recorded))
    for member, digest in recorded.items():
        if now.get(member) != digest:
            found = f"{now[member][:12]}…" if member in now else "none"
            raise ModelError(
                f"model {entry.name!r} was fitted on the scores of {member!r} model {digest[:12]}…, the store "
                f"now has {found}: retrain it (python -m service train ensemble)"
            )


def _features(resolve: BackendResolver, entry: ModelEntry, paths: dict[str, Path]) -> FeatureFunction:
    layout, peers = layout_of(entry)
    if entry.name in layout.members:
        raise ModelError(f"model {entry.name!r} cannot be its own member")
    members = [PeerMember(m) if m in peers else resolve(m) for m in layout.members]
    recorded = entry.config.get("member_versions", {})
    for member in members:
        served = (member.version, *member.compatible_versions)  # and earlier versions its scores replace
        if member.name in recorded and recorded[member.name] not in served:
            raise ModelError(
                f"model {entry.name!r} was fitted on {member.name!r} version {recorded[member.name]}, this "
                f"installation serves version {member.version}: retrain it (python -m service train ensemble)"
            )
    return StackFeatures(members, layout)


def load_ensemble(
    store: ModelStore,
    name: str,
    resolve: BackendResolver,
    providers: Sequence[str] = (CPU,),
    intra_op_threads: int = 1,
) -> OnnxFeatureBackend:
    """The ensemble model ``name`` from ``store``, its members found through ``resolve``."""
    entry = store.entry(name)
    layout, _ = layout_of(entry)
    check_member_models(store, entry)
    schema = FeatureSchema(SCHEMA_NAME, SCHEMA_VERSION, layout.width)
    return OnnxFeatureBackend(
        store, name, schema, partial(_features, resolve), providers=providers, intra_op_threads=intra_op_threads
    )


def _stored(store: ModelStore) -> list[str]:
    """The ensembles the store holds (``train ensemble``) that this installation can serve."""
    return [name for name in store.names() if is_ensemble(name) and servable(store, name)]


def _build(name: str, context: BuildContext) -> OnnxFeatureBackend:
    providers, threads = context.settings.execution_providers, context.settings.onnx_intra_op_threads
    return load_ensemble(context.store, name, context.resolve, providers, threads)


SPEC = BackendSpec(_build, find=_stored)
