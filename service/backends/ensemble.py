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
page, its text projected onto the blocks by the evaluation's alignment, as
one more member whose score is 1 where it keeps the block's text. A peer
reads HTML, and a backend sees only the parsed :class:`Document`, so the
page is written back out from the Document (:func:`document_html`); the
model was trained on exactly that input.
"""

from __future__ import annotations

import html
import importlib.util
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import numpy as np

from service.backends.base import Backend, BlockLabels
from service.backends.onnx_features import FeatureFunction, FeatureSchema, OnnxFeatureBackend
from service.features.stack import SCHEMA_NAME, SCHEMA_VERSION, StackLayout, stack_features
from service.models.store import ModelEntry, ModelError, ModelStore
from service.parsing.document import Document
from service.runtime.sessions import CPU

NAME = "ensemble"
BackendResolver = Callable[[str], Backend]
# Peers a model may name as members: the package that must be importable for it.
PEER_PACKAGES = {"trafilatura": "trafilatura"}
# Elements written without an end tag.
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})


def is_ensemble(name: str) -> bool:
    """Whether a store entry name is an ensemble variant (``ensemble``, ``ensemble_cpu``, ...)."""
    return name == NAME or name.startswith(NAME + "_")


def peers_available(peers: Sequence[str]) -> bool:
    """Whether every peer a model names can run here (peers are the eval extra, not a serving dependency)."""
    return all(p in PEER_PACKAGES and importlib.util.find_spec(PEER_PACKAGES[p]) is not None for p in peers)


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


def document_html(document: Document) -> str:
    """The Document written back out as HTML: its elements, attributes and text leaves in document order.

    Scripts, styles and the head (but the title) are not in a Document, so
    not here either. A leaf's place among its element's children is
    recovered from document order: a child element comes before a leaf when
    its subtree's first leaf does; an element without text goes just before
    its next sibling that has some.
    """
    n_elem = len(document.elem_tag)
    if not n_elem:
        return f"<html><head><title>{html.escape(document.title)}</title></head></html>"
    parent = document.elem_parent.tolist()
    blocks_of: list[list[int]] = [[] for _ in range(n_elem)]
    for block, elem in enumerate(document.block_elem.tolist()):
        blocks_of[elem].append(block)
    first = [b[0] if b else np.inf for b in blocks_of]  # each list ascends: blocks come in document order
    children: list[list[int]] = [[] for _ in range(n_elem)]
    for elem in range(n_elem - 1, 0, -1):  # pre-order: children come after their parent
        up = parent[elem]
        if up >= 0:
            first[up] = min(first[up], first[elem])
            children[up].append(elem)
    attributes = document.elem_attributes
    texts = document.texts
    spaces = document.block_space_before.tolist()
    breaks = document.block_break_before.tolist()
    out: list[str] = [f"<html><head><title>{html.escape(document.title)}</title></head>"]

    def items(elem: int) -> list[tuple[float, int, int]]:
        """(key, 0 for a leaf / 1 for an element, id) of the element's children, in document order."""
        kids = children[elem][::-1]  # the reverse walk appended them last first
        keyed: list[tuple[float, int, int]] = [(float(b), 0, b) for b in blocks_of[elem]]
        following = np.inf
        for kid in reversed(kids):
            following = first[kid] - 0.5 if first[kid] != np.inf else following - 1e-6
            keyed.append((following, 1, kid))
        return sorted(keyed)

    def write(elem: int) -> None:  # an explicit stack would avoid recursion, but depth is capped at 512
        tag = document.elem_tag[elem]
        attrs = "".join(
            f' {k}="{html.escape(v)}"' if v is not None else f" {k}"
            for k, v in attributes[elem].items()
            if k.replace("-", "").replace("_", "").replace(":", "").isalnum()
        )
        out.append(f"<{tag}{attrs}>")
        if tag in VOID_TAGS:
            return
        write_children(elem)
        out.append(f"</{tag}>")

    def write_children(elem: int) -> None:
        for _, is_element, ident in items(elem):
            if is_element:
                write(ident)
            else:
                leaf(ident)

    def leaf(block: int) -> None:
        """A text leaf, with the <br> or the white space that separated it from the previous one."""
        out.append("<br>" if breaks[block] else " " if spaces[block] else "")
        out.append(html.escape(texts[block], quote=False))

    write_children(0)  # the root's own tag is written above, with the title
    out.append("</html>")
    return "".join(out)


class PeerMember:
    """A peer extractor as an ensemble member: score 1 for the blocks whose text it keeps."""

    kind = "peer"
    version = "peer"

    def __init__(self, name: str) -> None:
        from service.evaluation.peers import get_peer  # noqa: PLC0415 - the eval extra, only in the slow mode

        self.name = name
        self.extract = get_peer(name)

    def classify(self, document: Document) -> BlockLabels:
        from service.evaluation.labels import align_blocks  # noqa: PLC0415

        text = self.extract(document_html(document).encode("utf-8"))
        keep = align_blocks(document.texts, text) if text else np.zeros(len(document), dtype=bool)
        return BlockLabels(keep.astype(np.float32), keep)


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
        # A member may name earlier versions whose scores its own replace (``compatible_versions``).
        served = (member.version, *getattr(member, "compatible_versions", ()))
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
