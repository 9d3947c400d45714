"""The ``ensemble`` backends: the committed combiners through ONNX Runtime, members run once, refusals, export."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from service.backends.base import Backend, BlockLabels
from service.backends.ensemble import is_ensemble, layout_of, load_ensemble, servable
from service.backends.peers import document_html, peers_available
from service.backends.registry import default_registry
from service.features.stack import SCHEMA_NAME, SCHEMA_VERSION
from service.models.store import ModelError, ModelStore
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE
from service.pipeline import Extractor
from service.settings import Settings

from support.paths import FIXTURES_DIR

ARTICLE = FIXTURES_DIR / "article.html"
SHIPPED = ("ensemble", "ensemble_cpu")
CPU_STORE = ("ensemble_cpu", "mlp")  # the CPU ensemble and its members that have models


# Scores of the committed models on tests/fixtures/article.html, one per block; retraining changes them.
GOLDEN = {
    "ensemble": [
        0.000874, 0.000312, 0.000695, 0.001151, 0.00103, 0.001129, 0.001135, 0.000916, 0.000957, 0.002626, 0.055053,
        0.065133, 0.454967, 0.750573, 0.993591, 0.994092, 0.980974, 0.978058, 0.976265, 0.991416, 0.984879, 0.980218,
        0.982807, 0.981707, 0.992668, 0.971199, 0.965718, 0.02061, 0.009859, 0.001592, 0.003132, 0.004205, 0.003781,
        0.001546, 0.000999, 0.00129, 0.000574, 0.0001, 0.000105, 0.000123, 9.8e-05, 0.000109, 9.3e-05, 0.000103,
    ],
    "ensemble_cpu": [
        0.00981, 0.008002, 0.00885, 0.005955, 0.005289, 0.006359, 0.0064, 0.006813, 0.00697, 0.010875, 0.070365,
        0.1196, 0.301677, 0.499573, 0.959095, 0.967179, 0.940581, 0.967625, 0.95285, 0.971047, 0.974511, 0.969286,
        0.971265, 0.962976, 0.961365, 0.88019, 0.901352, 0.042263, 0.045876, 0.025901, 0.050471, 0.084899, 0.044633,
        0.020367, 0.01056, 0.012925, 0.004775, 0.00088, 0.001038, 0.000906, 0.00087, 0.000843, 0.000715, 0.000773,
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def registry():
    return default_registry(Settings(model_store_dir=MODEL_STORE))


class Counting:
    """A member that counts its classify calls and passes them on."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.name, self.kind, self.version = backend.name, backend.kind, backend.version
        self.compatible_versions = backend.compatible_versions
        self.calls = 0

    def classify(self, document: Document) -> BlockLabels:
        self.calls += 1
        return self.backend.classify(document)


@pytest.mark.parametrize("name", SHIPPED)
def test_the_registry_serves_the_committed_ensembles(registry, name):
    backend = registry.get(name)
    entry = ModelStore(MODEL_STORE).entry(name)
    assert (backend.name, backend.kind, backend.version) == (name, "onnx", entry.version)
    assert (entry.feature_schema, entry.feature_schema_version) == (SCHEMA_NAME, SCHEMA_VERSION)
    layout, peers = layout_of(entry)
    assert peers == []
    assert ("bilstm" in layout.members) == (name == "ensemble")  # the CPU set leaves the BiLSTM out
    extraction = Extractor(registry).extract(ARTICLE.read_bytes(), backend=name)
    assert "the sleeper train looked like a relic" in extraction.text
    assert "Share on Facebook" not in extraction.text


@pytest.mark.parametrize("name", SHIPPED)
def test_each_member_runs_once_per_page_and_output_is_deterministic(registry, name):
    members: dict[str, Counting] = {}

    def resolve(member: str) -> Backend:
        members[member] = Counting(registry.get(member))
        return members[member]

    backend = load_ensemble(ModelStore(MODEL_STORE), name, resolve)
    assert set(members) == set(layout_of(ModelStore(MODEL_STORE).entry(name))[0].members)
    assert {m: c.calls for m, c in members.items()} == dict.fromkeys(members, 0)  # loading runs none (warm_up does)
    document = parse_html(ARTICLE.read_bytes())
    first = backend.classify(document)
    assert {m: c.calls for m, c in members.items()} == dict.fromkeys(members, 1)
    second = backend.classify(parse_html(ARTICLE.read_bytes()))
    np.testing.assert_array_equal(first.scores, second.scores)
    np.testing.assert_array_equal(first.labels, second.labels)
    assert first.scores.dtype == np.float32
    assert first.scores.shape == (len(document),)
    assert np.all((first.scores >= 0) & (first.scores <= 1))
    # served through the same registry object as every other backend: the same answer
    np.testing.assert_array_equal(registry.get(name).classify(document).scores, first.scores)


@pytest.mark.parametrize("name", SHIPPED)
def test_golden_scores_of_the_committed_models(registry, name):
    scores = registry.get(name).classify(parse_html(ARTICLE.read_bytes())).scores
    np.testing.assert_allclose(scores, GOLDEN[name], atol=1e-5)


def test_an_empty_page_gets_no_blocks(registry):
    labels = registry.get("ensemble_cpu").classify(parse_html("<html><body></body></html>"))
    assert labels.scores.shape == labels.labels.shape == (0,)


def _copy_store(tmp_path: Path, names: tuple[str, ...]) -> ModelStore:
    """A scratch store holding copies of the named committed models."""
    source = ModelStore(MODEL_STORE)
    target = ModelStore(tmp_path / "store")
    for name in names:
        entry, paths = source.verified(name)
        files = {role: (spec["path"], paths[role].read_bytes()) for role, spec in entry.files.items()}
        target.write({k: v for k, v in entry.to_json().items() if k != "files"}, files)
    return target


def test_a_corrupt_ensemble_model_is_refused_at_start(tmp_path, registry):
    store = _copy_store(tmp_path, CPU_STORE)
    model = store.root / store.entry("ensemble_cpu").files["model"]["path"]
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="corrupt"):
        load_ensemble(store, "ensemble_cpu", registry.get)


def test_a_layout_that_does_not_fit_the_model_is_refused(tmp_path, registry):
    store = _copy_store(tmp_path, CPU_STORE)
    manifest = json.loads(store.manifest_path.read_text())
    manifest["models"]["ensemble_cpu"]["config"]["stack"]["neighbours"] = 1  # narrower than the model reads
    store.manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match=r"takes \d+ features"):
        load_ensemble(store, "ensemble_cpu", registry.get)


def test_a_model_without_a_layout_is_refused(tmp_path, registry):
    store = _copy_store(tmp_path, ("ensemble_cpu",))
    manifest = json.loads(store.manifest_path.read_text())
    del manifest["models"]["ensemble_cpu"]["config"]["stack"]
    store.manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="no valid stack layout"):
        load_ensemble(store, "ensemble_cpu", registry.get)
    assert servable(store, "ensemble_cpu")  # offered, so that its start says what is wrong


def test_a_model_naming_a_missing_peer_is_not_offered(tmp_path):
    store = _copy_store(tmp_path, ("ensemble_cpu",))
    manifest = json.loads(store.manifest_path.read_text())
    config = manifest["models"]["ensemble_cpu"]["config"]
    config["stack"]["members"].append("no-such-peer")
    config["peers"] = ["no-such-peer"]
    store.manifest_path.write_text(json.dumps(manifest))
    assert not peers_available(["no-such-peer"])
    assert not servable(store, "ensemble_cpu")
    registry = default_registry(Settings(model_store_dir=store.root))
    assert "ensemble_cpu" not in registry


def test_ensemble_names():
    assert is_ensemble("ensemble") and is_ensemble("ensemble_cpu") and is_ensemble("ensemble_without_svm")
    assert not is_ensemble("ensembles") and not is_ensemble("bilstm")


def test_the_page_written_back_from_a_document_parses_to_the_same_blocks():
    document = parse_html(ARTICLE.read_bytes())
    again = parse_html(document_html(document))
    assert again.texts == document.texts
    assert again.title == document.title
    np.testing.assert_array_equal(again.block_in_link, document.block_in_link)
    np.testing.assert_array_equal(again.block_break_before, document.block_break_before)
    assert again.tag_paths == document.tag_paths


def test_the_combiner_exports_with_parity():
    pytest.importorskip("sklearn")
    pytest.importorskip("skl2onnx")
    from service.training.ensemble import GRID, _combiner, combiner_converters  # noqa: PLC0415
    from service.training.sklearn_export import check_parity, to_onnx  # noqa: PLC0415

    rng = np.random.default_rng(3)
    features = rng.random((800, 12)).astype(np.float32)
    labels = features[:, 0] * features[:, 5] + 0.2 * features[:, 11] > 0.3
    model = _combiner({**GRID[0], "max_iter": 20}, seed=3).fit(features, labels)
    exported = to_onnx(model, 12, "ensemble", combiner_converters())
    assert check_parity(model, exported.data, features) < 1e-5


def test_the_scratch_store_gets_the_members_it_needs(tmp_path):
    from service.training.ensemble import copy_members  # noqa: PLC0415

    target = ModelStore(tmp_path / "scratch")
    copy_members(ModelStore(MODEL_STORE), target, ["mlp", "grf"])  # grf has no model: nothing to copy
    assert target.names() == ["mlp"]
    target.verified("mlp")
    shutil.rmtree(target.root)


def test_the_variants_and_their_ablations():
    from service.training.ensemble import CPU_MEMBERS, FULL_MEMBERS, variants_for  # noqa: PLC0415

    variants = {v.name: v for v in variants_for(["ensemble", "ensemble_cpu"], ablate=True)}
    assert variants["ensemble"].members == FULL_MEMBERS
    assert variants["ensemble_cpu"].members == CPU_MEMBERS
    assert "bilstm" not in CPU_MEMBERS
    for member in FULL_MEMBERS:
        assert set(variants[f"ensemble_without_{member}"].members) == set(FULL_MEMBERS) - {member}
        assert variants[f"ensemble_without_{member}"].ablation_of == "ensemble"
    cpu = {v.name: v for v in variants_for([], ablate=True, ablate_of="ensemble_cpu")}
    assert sorted(cpu) == sorted(f"ensemble_cpu_without_{m}" for m in CPU_MEMBERS)
    for member in CPU_MEMBERS:
        assert set(cpu[f"ensemble_cpu_without_{member}"].members) == set(CPU_MEMBERS) - {member}
    with pytest.raises(SystemExit, match="unknown ensemble variants"):
        variants_for(["ensemble_gpu"], ablate=False)


@pytest.mark.parametrize("name", SHIPPED)
def test_the_manifest_says_the_combiner_never_saw_the_members_training_pages(name):
    entry = ModelStore(MODEL_STORE).entry(name)
    assert entry.training["combiner_fitted_on"].startswith("validation part")
    assert entry.training["pages"] == {"validation": 206}
    assert entry.validation["method"].startswith("grouped 5-fold cross-validation by domain")
    assert entry.validation["parity_max_difference"] < 1e-4
    assert (ModelStore(MODEL_STORE).root / entry.files["model"]["path"]).stat().st_size < 1024 * 1024


def test_an_ensemble_whose_member_model_changed_is_refused(tmp_path, registry):
    store = _copy_store(tmp_path, ("ensemble_cpu", "mlp"))
    manifest = json.loads(store.manifest_path.read_text())
    assert (
        manifest["models"]["ensemble_cpu"]["config"]["member_models"]["mlp"]
        == (manifest["models"]["mlp"]["files"]["model"]["sha256"])
    )
    manifest["models"]["ensemble_cpu"]["config"]["member_models"]["mlp"] = "0" * 64  # fitted on another mlp
    store.manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match=r"fitted on the scores of 'mlp'.*retrain it"):
        load_ensemble(store, "ensemble_cpu", registry.get)


def test_an_ensemble_whose_rule_member_changed_is_refused(tmp_path, registry):
    store = _copy_store(tmp_path, CPU_STORE)
    manifest = json.loads(store.manifest_path.read_text())
    assert manifest["models"]["ensemble_cpu"]["config"]["member_versions"]["grf"] == registry.get("grf").version
    manifest["models"]["ensemble_cpu"]["config"]["member_versions"]["grf"] = "0.9"
    store.manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match=r"fitted on 'grf' version 0\.9"):
        load_ensemble(store, "ensemble_cpu", registry.get)


def test_an_ensemble_fitted_on_a_compatible_rule_version_is_served(tmp_path, registry):
    """Boilerpipe 1.2 counts script words; the ensembles fitted on 1.1 keep loading, any other version is refused."""
    boilerpipe = registry.get("boilerpipe")
    assert boilerpipe.compatible_versions and boilerpipe.version not in boilerpipe.compatible_versions
    store = _copy_store(tmp_path, CPU_STORE)
    manifest = json.loads(store.manifest_path.read_text())
    for recorded in (*boilerpipe.compatible_versions, boilerpipe.version):
        manifest["models"]["ensemble_cpu"]["config"]["member_versions"]["boilerpipe"] = recorded
        store.manifest_path.write_text(json.dumps(manifest))
        assert load_ensemble(store, "ensemble_cpu", registry.get).name == "ensemble_cpu"
    manifest["models"]["ensemble_cpu"]["config"]["member_versions"]["boilerpipe"] = "1.0"
    store.manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match=r"fitted on 'boilerpipe' version 1\.0"):
        load_ensemble(store, "ensemble_cpu", registry.get)
