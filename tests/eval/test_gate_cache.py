"""The quality gate's remembered passes: found only for the same digests, forced runs find none, digests move."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support.gate_cache import GATE_TESTS, KEPT_PASSES, GatePasses, code_digest, models_digest, skip_reason
from support.paths import REPO

DIGESTS = {"models": "a" * 64, "corpus": "b" * 64, "floors": "c" * 64, "code": "d" * 64}


class JsonCache:
    """pytest's cache as far as the gate uses it: values go through JSON, as they do on disk."""

    def __init__(self) -> None:
        self.stored: dict[str, str] = {}

    def get(self, key: str, default: object) -> object:
        return json.loads(self.stored[key]) if key in self.stored else default

    def set(self, key: str, value: object) -> None:
        self.stored[key] = json.dumps(value)


def test_a_pass_is_found_for_the_same_digests_only() -> None:
    passes = GatePasses(JsonCache(), enabled=True)
    assert passes.passed_at(DIGESTS) is None
    passes.record(DIGESTS)
    when = passes.passed_at(DIGESTS)
    assert when is not None and when.endswith("+00:00")
    for name in DIGESTS:
        assert passes.passed_at({**DIGESTS, name: "e" * 64}) is None, name
    reason = skip_reason(when, DIGESTS)
    assert reason.startswith(f"gate passed for these digests at {when}")
    assert "--no-gate-cache" in reason


def test_a_forced_run_finds_no_pass_but_records_its_own() -> None:
    cache = JsonCache()
    GatePasses(cache, enabled=True).record(DIGESTS)
    assert GatePasses(cache, enabled=False).passed_at(DIGESTS) is None
    other = {**DIGESTS, "code": "f" * 64}
    GatePasses(cache, enabled=False).record(other)
    assert GatePasses(cache, enabled=True).passed_at(other) is not None


def test_only_the_newest_passes_are_kept() -> None:
    passes = GatePasses(JsonCache(), enabled=True)
    runs = [{**DIGESTS, "code": f"{n:064d}"} for n in range(KEPT_PASSES + 2)]
    for digests in runs:
        passes.record(digests)
    assert passes.passed_at(runs[0]) is None and passes.passed_at(runs[1]) is None
    assert all(passes.passed_at(digests) is not None for digests in runs[2:])


def test_the_models_digest_follows_the_manifests_file_digests(tmp_path: Path) -> None:
    manifest = json.loads((REPO / "model_store" / "manifest.json").read_text(encoding="utf-8"))
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    before = models_digest(path)
    manifest["models"]["mlp"]["validation"] = {"note": "figures are no model bytes"}
    path.write_text(json.dumps(manifest), encoding="utf-8")
    assert models_digest(path) == before
    manifest["models"]["mlp"]["files"]["model"]["sha256"] = "0" * 64
    path.write_text(json.dumps(manifest), encoding="utf-8")
    assert models_digest(path) != before


def test_the_code_digest_follows_the_service_and_the_gate_test(tmp_path: Path) -> None:
    (tmp_path / "service" / "parsing").mkdir(parents=True)
    (tmp_path / "service" / "parsing" / "walk.py").write_text("DEPTH = 1\n", encoding="utf-8")
    for name in GATE_TESTS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, tmp_path / name)
    before = code_digest(tmp_path)
    assert code_digest(tmp_path) == before
    (tmp_path / "service" / "parsing" / "walk.py").write_text("DEPTH = 2\n", encoding="utf-8")
    after_service = code_digest(tmp_path)
    assert after_service != before
    (tmp_path / GATE_TESTS[0]).write_text("# changed\n", encoding="utf-8")
    assert code_digest(tmp_path) != after_service


def test_without_pytests_cache_the_gate_always_runs() -> None:
    passes = GatePasses(None, enabled=True)
    passes.record({"models": "a"})
    assert not passes.enabled and passes.passed_at({"models": "a"}) is None
