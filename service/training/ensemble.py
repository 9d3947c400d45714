"""``python -m service train ensemble``: a boosted-trees combiner over the other backends' block scores.

No leakage by construction: the members (``bilstm``, ``mlp``, ``svm``) were
fitted on the **train** part; the combiner is fitted on the members' scores
of the **validation** part, pages none of them was fitted on; the test part
is never read here. ``grf`` and ``boilerpipe`` have no fitted parameters.
What remains is milder: ``bilstm`` chose its epoch and threshold, ``mlp``
and ``svm`` their thresholds, on the validation part, so their labels there
are a little better than on unseen pages, and the combiner may trust them a
little too much.

The combiner's hyper-parameters (a small grid, :data:`GRID`) and its
decision threshold are chosen by grouped cross-validation inside the
validation part: :data:`FOLDS` folds of whole domains (a site's pages share
a template), out-of-fold probabilities scored the way the service serves
(kept blocks rendered to text, word F1 averaged over pages). The final
combiner is then fitted on the whole validation part with the chosen
setting and served at the threshold chosen out of fold. Fixed seed; the
trees are fitted without early stopping (no random inner split), so the
same command writes the same bytes.

Variants (:data:`VARIANTS`), each its own store entry registered by name:
``ensemble`` (every trained backend), ``ensemble_cpu`` (without ``bilstm``,
for CPU-only deployments, and without ``svm``, which added 0.0003 out-of-fold word F1 to it for a tenth
of its time) and ``ensemble_peer`` (the slow mode: also
whether trafilatura keeps the block's text; needs the ``eval`` extra).
``--ablate`` adds ``ensemble_without_<member>`` for every member of the full
set (``--ablate-of ensemble_cpu``: ``ensemble_cpu_without_<member>`` for every
member of that one), for the README's tables; write those to a scratch store (``--out``),
which then also gets copies of the member models so that it can be served
(``EXTRACT_MODEL_STORE_DIR=<out> python -m service eval ...``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from service.backends.base import Backend, BlockLabels
from service.backends.ensemble import member_models
from service.backends.peers import PeerMember, peers_available
from service.features.stack import SCHEMA_NAME, SCHEMA_VERSION, StackLayout, stack_features
from service.models.store import ModelStore
from service.paths import MODEL_STORE
from service.training.block_models import FIGURE_DECIMALS, Figures, UnitRows, choose_threshold, say
from service.training.data import LabeledDocument, load_training_data
from service.training.sklearn_export import Converter, check_parity, onnx_probabilities, to_onnx

VERSION = "1"
FULL_MEMBERS = ("bilstm", "mlp", "svm", "grf", "boilerpipe")
CPU_MEMBERS = ("mlp", "grf", "boilerpipe")
PEER = "trafilatura"
# name -> (members, peers among them)
VARIANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ensemble": (FULL_MEMBERS, ()),
    "ensemble_cpu": (CPU_MEMBERS, ()),
    "ensemble_peer": ((*FULL_MEMBERS, PEER), (PEER,)),
}
ABLATION_INFIX = "_without_"
NEIGHBOURS = 3
CONTEXT = 10
FOLDS = 5
# Tried by grouped cross-validation on the validation part (the manifest keeps each one's figure). Measured
# there for the full set (out-of-fold word F1, 2026-11-22): 200 x 31 leaves at 0.1: 0.868; 300 x 15 leaves at
# 0.05, L2 1: 0.865; 100 x 63 leaves, 50 rows a leaf: 0.865; weighting rows by sqrt(characters): 0.862, by
# log(characters): 0.861 (so rows are not weighted).
GRID: tuple[dict[str, Any], ...] = (
    {"max_iter": 200, "learning_rate": 0.1, "max_leaf_nodes": 31},
    {"max_iter": 300, "learning_rate": 0.05, "max_leaf_nodes": 15, "l2_regularization": 1.0},
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"comma-separated variants to train (default: all; {PEER} ones are skipped when it is not installed)",
    )
    parser.add_argument(
        "--ablate", action="store_true", help="also train <variant>_without_<member> for each member of one variant"
    )
    parser.add_argument(
        "--ablate-of",
        default="ensemble",
        choices=[n for n, (_, peers) in VARIANTS.items() if not peers],
        help="the variant whose members --ablate leaves out in turn (default: ensemble, the full set)",
    )
    parser.add_argument(
        "--members-store", type=Path, default=MODEL_STORE, help="store holding the member models (default: ours)"
    )
    parser.add_argument(
        "--compare-sequence",
        action="store_true",
        help="also score a small convolutional sequence model over each page's stack rows out of fold"
        " (the alternative combiner; needs the train extra) and record it beside the trees' figure",
    )


@dataclass(frozen=True)
class Variant:
    """One combiner to train: its store name, its members and which of them are peers."""

    name: str
    members: tuple[str, ...]
    peers: tuple[str, ...] = ()
    ablation_of: str | None = None  # the variant this one leaves a member of out

    @property
    def layout(self) -> StackLayout:
        return StackLayout(self.members, NEIGHBOURS, CONTEXT)


def variants_for(names: Sequence[str], ablate: bool, ablate_of: str = "ensemble") -> list[Variant]:
    """The variants asked for, plus the leave-one-out ablations of ``ablate_of`` (the full set by default)."""
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise SystemExit(f"unknown ensemble variants {unknown}; known: {', '.join(VARIANTS)}")
    chosen = [Variant(n, *VARIANTS[n]) for n in names]
    if ablate:
        members = VARIANTS[ablate_of][0]
        chosen += [
            Variant(f"{ablate_of}{ABLATION_INFIX}{m}", tuple(x for x in members if x != m), ablation_of=ablate_of)
            for m in members
        ]
    return chosen


def member_outputs(docs: Sequence[LabeledDocument], members: dict[str, Backend]) -> dict[str, list[BlockLabels]]:
    """Every member's output on every page, computed once and shared by all variants."""
    return {name: [backend.classify(doc.document) for doc in docs] for name, backend in members.items()}


def stack_rows(docs: Sequence[LabeledDocument], outputs: dict[str, list[BlockLabels]], layout: StackLayout) -> UnitRows:
    """Stack features and alignment labels of every block of ``docs`` (rows are leaves)."""
    features = []
    for page, doc in enumerate(docs):
        chosen = [outputs[m][page] for m in layout.members]
        features.append(stack_features(doc.document, [o.scores for o in chosen], [o.labels for o in chosen], layout))
    sizes = [len(f) for f in features]
    return UnitRows(
        features=np.concatenate(features),
        labels=np.concatenate([doc.labels for doc in docs]),
        offsets=np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
        unit_of_leaf=[np.arange(n, dtype=np.int32) for n in sizes],
    )


class _IntegerFlags:
    """A converter container that writes skl2onnx's missing-value flags as integers.

    skl2onnx 1.20 passes scikit-learn 1.9's ``missing_go_to_left`` booleans
    straight into an ONNX ``ints`` attribute, which onnx refuses; the values
    are kept, only their type changes (our features have no missing values).
    """

    def __init__(self, container: Any) -> None:
        self._container = container

    def __getattr__(self, name: str) -> Any:
        return getattr(self._container, name)

    def add_node(self, *args: Any, **attributes: Any) -> Any:
        flags = attributes.get("nodes_missing_value_tracks_true")
        if flags is not None:
            attributes["nodes_missing_value_tracks_true"] = [int(flag) for flag in flags]
        return self._container.add_node(*args, **attributes)


def _convert_boosted_trees(scope: Any, operator: Any, container: Any) -> None:
    from skl2onnx.operator_converters.random_forest import (  # noqa: PLC0415 - training-only
        convert_sklearn_random_forest_classifier,
    )

    convert_sklearn_random_forest_classifier(scope, operator, _IntegerFlags(container))


def combiner_converters() -> dict[type, Converter]:
    """skl2onnx's own converter for the combiner, with :class:`_IntegerFlags` around its container."""
    from skl2onnx.common.shape_calculator import calculate_linear_classifier_output_shapes  # noqa: PLC0415
    from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: PLC0415

    return {HistGradientBoostingClassifier: (calculate_linear_classifier_output_shapes, _convert_boosted_trees)}


def _combiner(params: dict[str, Any], seed: int) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: PLC0415 - a training-only dependency

    return HistGradientBoostingClassifier(random_state=seed, early_stopping=False, **params)


def out_of_fold(rows: UnitRows, groups: np.ndarray, params: dict[str, Any], seed: int) -> np.ndarray:
    """Content probability of every row from a combiner that never saw its domain (grouped K-fold)."""
    from sklearn.model_selection import GroupKFold  # noqa: PLC0415

    probabilities = np.zeros(len(rows.labels), dtype=np.float64)
    for fit_rows, held_rows in GroupKFold(FOLDS).split(rows.features, rows.labels, groups):
        model = _combiner(params, seed).fit(rows.features[fit_rows], rows.labels[fit_rows])
        probabilities[held_rows] = model.predict_proba(rows.features[held_rows])[:, 1]
    return probabilities


# The alternative combiner --compare-sequence scores: two 1-D convolutions over a page's stack rows.
SEQUENCE_FILTERS = 32
SEQUENCE_KERNEL = 7  # blocks seen on either side: (7 // 2) * 2 = 6 through the two layers
SEQUENCE_EPOCHS = 15
SEQUENCE_WINDOW = 512  # training rows per window


def sequence_out_of_fold(rows: UnitRows, groups: np.ndarray, seed: int) -> np.ndarray:
    """Content probability of every row from a small sequence model that never saw its domain (grouped K-fold).

    The model reads each page's rows in order and learns its own neighbourhood (two convolutions),
    where the trees read the neighbour scores the stack features spell out.
    """
    import keras  # noqa: PLC0415 - training-only dependencies
    from sklearn.model_selection import GroupKFold  # noqa: PLC0415

    pages = [rows.page_rows(p) for p in range(len(rows.offsets) - 1)]
    page_groups = groups[np.minimum(rows.offsets[:-1], len(groups) - 1)]  # a page without blocks: any group
    width = rows.features.shape[1]
    probabilities = np.zeros(len(rows.labels), dtype=np.float64)
    for fold, (fit_pages, held_pages) in enumerate(GroupKFold(FOLDS).split(pages, groups=page_groups)):
        keras.utils.set_random_seed(seed + fold)
        fit_rows = np.concatenate([np.arange(pages[i].start, pages[i].stop) for i in fit_pages])
        mean = rows.features[fit_rows].mean(axis=0)
        scale = rows.features[fit_rows].std(axis=0) + 1e-6
        windows = [
            (start, min(start + SEQUENCE_WINDOW, pages[i].stop))
            for i in fit_pages
            for start in range(pages[i].start, pages[i].stop, SEQUENCE_WINDOW)
        ]
        x = np.zeros((len(windows), SEQUENCE_WINDOW, width), dtype=np.float32)
        y = np.zeros((len(windows), SEQUENCE_WINDOW), dtype=np.float32)
        real = np.zeros((len(windows), SEQUENCE_WINDOW), dtype=np.float32)
        for row, (start, stop) in enumerate(windows):
            x[row, : stop - start] = (rows.features[start:stop] - mean) / scale
            y[row, : stop - start] = rows.labels[start:stop]
            real[row, : stop - start] = 1
        model = keras.Sequential(
            [
                keras.Input((None, width)),
                keras.layers.Conv1D(SEQUENCE_FILTERS, SEQUENCE_KERNEL, padding="same", activation="relu"),
                keras.layers.Conv1D(SEQUENCE_FILTERS, SEQUENCE_KERNEL, padding="same", activation="relu"),
                keras.layers.Conv1D(1, 1, activation="sigmoid"),
            ]
        )
        model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="binary_crossentropy")
        model.fit(x, y[..., None], sample_weight=real, epochs=SEQUENCE_EPOCHS, batch_size=16, verbose=0)
        for i in held_pages:
            if pages[i].stop == pages[i].start:  # a page without blocks
                continue
            page = (rows.features[pages[i]] - mean) / scale
            probabilities[pages[i]] = model(page[None].astype(np.float32), training=False).numpy()[0, :, 0]
    return probabilities


@dataclass(frozen=True)
class Stacking:
    """What every variant is fitted from: the validation pages, every member's outputs on them, their domains."""

    docs: Sequence[LabeledDocument]
    outputs: dict[str, list[BlockLabels]]
    groups: np.ndarray  # the domain of every block's page: the cross-validation groups
    provenance: dict[str, object]
    versions: dict[str, str]  # every member backend's version


def train_variant(
    variant: Variant, stacking: Stacking, args: argparse.Namespace, grid: Sequence[dict[str, Any]] = GRID
) -> dict[str, Any]:
    """Choose the setting out of fold, fit on the whole validation part, export with parity, write the entry.

    Returns the setting chosen.
    """
    layout = variant.layout
    docs, groups = stacking.docs, stacking.groups
    rows = stack_rows(docs, stacking.outputs, layout)
    tried: list[tuple[dict[str, Any], Figures]] = []
    for params in grid:
        figures = choose_threshold(docs, rows, out_of_fold(rows, groups, params, args.seed))
        say(f"{variant.name}: {params} -> out-of-fold word F1 {figures.word.f1:.4f} at {figures.threshold}")
        tried.append((params, figures))
    params, figures = max(tried, key=lambda pair: pair[1].word.f1)  # the first on a tie
    sequence: dict[str, float] = {}
    if args.compare_sequence:
        alternative = choose_threshold(docs, rows, sequence_out_of_fold(rows, groups, args.seed))
        say(f"{variant.name}: sequence model -> out-of-fold word F1 {alternative.word.f1:.4f}")
        sequence = {"sequence_model_out_of_fold_word_f1": round(alternative.word.f1, FIGURE_DECIMALS)}
    started = time.perf_counter()
    model = _combiner(params, args.seed).fit(rows.features, rows.labels)
    fit_seconds = time.perf_counter() - started
    exported = to_onnx(model, layout.width, variant.name, combiner_converters())
    parity = check_parity(model, exported.data, rows.features)
    served = onnx_probabilities(exported.data, rows.features)
    in_sample = choose_threshold(docs, rows, served)  # reported, not used: in-sample figures flatter
    command = (
        f"python -m service train ensemble --variants '' --ablate --ablate-of {variant.ablation_of} --out SCRATCH_STORE"
        if variant.ablation_of
        else f"python -m service train ensemble --variants {variant.name}"
    )
    ModelStore(Path(args.out)).write(
        {
            "name": variant.name,
            "version": VERSION,
            "opset": exported.opset,
            "inputs": exported.inputs,
            "outputs": exported.outputs,
            "feature_schema": SCHEMA_NAME,
            "feature_schema_version": SCHEMA_VERSION,
            "training": {
                "command": command,
                "seed": args.seed,
                **stacking.provenance,
                "combiner_fitted_on": "validation part: member scores on pages no member was fitted on",
                "rows": len(rows.labels),
                "fit_seconds": round(fit_seconds, 1),
            },
            "config": {
                "units": "leaves",
                "threshold": figures.threshold,
                "stack": layout.as_config(),
                "peers": list(variant.peers),
                "member_models": member_models(ModelStore(Path(args.members_store)), variant.members),
                "member_versions": {m: stacking.versions[m] for m in variant.members if m not in variant.peers},
                "combiner": {"kind": "HistGradientBoostingClassifier", **params},
                "features": layout.names(),
            },
            "validation": {
                "method": f"grouped {FOLDS}-fold cross-validation by domain inside the validation part",
                **{f"out_of_fold_{k}": v for k, v in figures.as_dict().items()},
                "in_sample_word_f1": round(in_sample.word.f1, FIGURE_DECIMALS),
                "grid": [
                    {**p, "word_f1": round(f.word.f1, FIGURE_DECIMALS), "threshold": f.threshold} for p, f in tried
                ],
                "parity_max_difference": parity,
                **sequence,
            },
        },
        {"model": (f"{variant.name}/model.onnx", exported.data)},
    )
    say(
        f"{variant.name}: wrote {args.out}/{variant.name} ({len(exported.data) / 1024:.0f} KiB), {params}, "
        f"out-of-fold word F1 {figures.word.f1:.4f} at threshold {figures.threshold}"
    )
    return params


def _stored_setting(store: ModelStore, name: str) -> dict[str, Any] | None:
    """The combiner setting a stored ensemble was fitted with, if the store has it."""
    if name not in store.names():
        return None
    return {k: v for k, v in store.entry(name).config["combiner"].items() if k != "kind"}


def copy_members(source: ModelStore, target: ModelStore, names: Sequence[str]) -> None:
    """Copy member models into a scratch store, so that the ensembles written there can be served from it."""
    for name in names:
        if name in target.names() or name not in source.names():
            continue
        entry, paths = source.verified(name)
        files = {role: (spec["path"], paths[role].read_bytes()) for role, spec in entry.files.items()}
        fields = {k: v for k, v in entry.to_json().items() if k != "files"}
        target.write(fields, files)


def train(args: argparse.Namespace) -> int:
    from service.backends.registry import default_registry  # noqa: PLC0415 - the registry imports this package
    from service.settings import Settings  # noqa: PLC0415

    variants = variants_for([n for n in args.variants.split(",") if n], args.ablate, args.ablate_of)
    for variant in [v for v in variants if not peers_available(v.peers)]:
        say(f"{variant.name}: skipped, {', '.join(variant.peers)} is not installed (pip install -e '.[eval]')")
        variants.remove(variant)
    say(f"ensemble: parsing and labeling the validation part of {args.data} ...")
    data = load_training_data(args.data, ("validation",))
    docs = data.parts["validation"]
    registry = default_registry(Settings(model_store_dir=args.members_store))
    names = sorted({m for v in variants for m in v.members})
    peers = {p for v in variants for p in v.peers}
    members: dict[str, Backend] = {m: PeerMember(m) if m in peers else registry.get(m) for m in names}
    say(f"ensemble: running {', '.join(names)} on {len(docs)} pages ...")
    groups = np.concatenate([np.full(len(doc.document), doc.page.domain or doc.page.id) for doc in docs])
    versions = {name: backend.version for name, backend in members.items()}
    stacking = Stacking(docs, member_outputs(docs, members), groups, data.provenance(), versions)
    chosen: dict[str, dict[str, Any]] = {}
    for variant in variants:
        if variant.ablation_of:
            # ablations keep their variant's combiner setting, so that only the members change
            parent = variant.ablation_of
            full = chosen.get(parent) or _stored_setting(ModelStore(Path(args.members_store)), parent)
            chosen[variant.name] = train_variant(variant, stacking, args, grid=[full] if full else GRID)
        else:
            chosen[variant.name] = train_variant(variant, stacking, args)
    source, target = ModelStore(Path(args.members_store)), ModelStore(Path(args.out))
    if source.root.resolve() != target.root.resolve():
        copy_members(source, target, [m for m in names if m not in peers])
    return 0
