"""The quality gate's passes, remembered in pytest's cache (.pytest_cache) by the digests of what it measures.

The gate re-measures every shipped backend over the dev pages' test part (about 84 s). Its verdict can
change only when what it measures changes: a model file (the sha256s in model_store/manifest.json), the
corpus (its digest), the floors, or the code it runs, which is all of service/ (a parsing change moves F1
as surely as a new model) plus the gate test itself and the parser and runtime it runs on. A pass is
recorded under those digests; a later run with the same digests skips, saying when it passed.
``--no-gate-cache`` or ``EXTRACT_NO_GATE_CACHE=1`` runs it anyway.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Protocol

from support.paths import REPO

CACHE_KEY = "extract/quality-gate"
KEPT_PASSES = 8  # passes remembered, newest last: switching between a few branches keeps each one's
RUNTIME_PACKAGES = ("selectolax", "onnxruntime", "numpy")  # what parses and scores; a new version may move F1
GATE_TESTS = ("tests/eval/test_quality_gate.py", "tests/support/gate_cache.py")


class Cache(Protocol):
    """The part of pytest's ``config.cache`` this uses."""

    def get(self, key: str, default: object) -> object: ...

    def set(self, key: str, value: object) -> None: ...


def _digest(chunks: Iterable[bytes]) -> str:
    total = hashlib.sha256()
    for chunk in chunks:
        total.update(hashlib.sha256(chunk).digest())
    return total.hexdigest()


def models_digest(manifest_path: Path) -> str:
    """Over every model file's name and sha256 as the manifest records them (the store verifies them at load)."""
    models = json.loads(manifest_path.read_text(encoding="utf-8"))["models"]
    files = sorted(
        f"{name}/{role}:{entry['sha256']}" for name, model in models.items() for role, entry in model["files"].items()
    )
    return _digest(line.encode() for line in files)


def code_digest(root: Path = REPO) -> str:
    """Over the service's sources, the gate's own test code and the versions of the packages it runs on."""
    sources = sorted((root / "service").rglob("*.py")) + sorted((root / "service").rglob("*.pyx"))
    sources += [root / name for name in GATE_TESTS]
    chunks = [path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() for path in sources]
    chunks += [f"{name}=={metadata.version(name)}".encode() for name in RUNTIME_PACKAGES]
    return _digest(chunks)


def gate_digests(corpus_digest: str, floors_path: Path, manifest_path: Path) -> dict[str, str]:
    """What the gate's verdict depends on, each as one sha256."""
    return {
        "models": models_digest(manifest_path),
        "corpus": corpus_digest,
        "floors": _digest([floors_path.read_bytes()]),
        "code": code_digest(),
    }


class GatePasses:
    """Passes of the gate under their digests; ``enabled=False`` (a forced run) finds none but still records.

    Without pytest's cache (``-p no:cacheprovider``) the gate always runs and remembers nothing.
    """

    def __init__(self, cache: Cache | None, *, enabled: bool) -> None:
        self.cache = cache
        self.enabled = enabled and cache is not None

    def _passes(self) -> list[dict[str, object]]:
        if self.cache is None:
            return []
        stored = self.cache.get(CACHE_KEY, [])
        return [entry for entry in stored if isinstance(entry, dict)] if isinstance(stored, list) else []

    def passed_at(self, digests: Mapping[str, str]) -> str | None:
        """When the gate last passed with exactly these digests (UTC, ISO 8601), or None."""
        if not self.enabled:
            return None
        for entry in reversed(self._passes()):
            if entry.get("digests") == dict(digests):
                return str(entry.get("passed_at"))
        return None

    def record(self, digests: Mapping[str, str]) -> None:
        if self.cache is None:
            return
        passes = [entry for entry in self._passes() if entry.get("digests") != dict(digests)]
        passes.append({"digests": dict(digests), "passed_at": datetime.now(UTC).isoformat(timespec="seconds")})
        self.cache.set(CACHE_KEY, passes[-KEPT_PASSES:])


def skip_reason(passed_at: str, digests: Mapping[str, str]) -> str:
    short = ", ".join(f"{name} {value[:12]}" for name, value in digests.items())
    return (
        f"gate passed for these digests at {passed_at} ({short}); "
        "--no-gate-cache or EXTRACT_NO_GATE_CACHE=1 runs it again"
    )
