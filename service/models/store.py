"""The model store: ONNX artifacts plus one manifest that says what each one is.

``model_store/manifest.json`` maps a backend name (the one name used
everywhere) to an entry: the files and their sha256, the ONNX opset and
I/O names, the feature schema the model was trained on, where its training
data came from, its configuration and its validation figures. Training
writes entries through :meth:`ModelStore.write`; serving reads them through
:meth:`ModelStore.verified`, which refuses a file whose digest differs.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from service.errors import ExtractionError

MANIFEST_NAME = "manifest.json"
MANIFEST_SCHEMA_VERSION = 1
# The size we keep every committed artifact under (a repository, not a blob store).
MAX_ARTIFACT_BYTES = 25 * 1024 * 1024
ARTIFACT_MODE = 0o644


class ModelError(ExtractionError):
    """A model that is missing, corrupt or does not match the code that reads it."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class ModelEntry:
    """One model's manifest entry; validates itself on construction."""

    name: str
    version: str
    files: dict[str, dict[str, str]]  # role ("model", "vocabulary", ...) -> {"path", "sha256"}
    opset: int
    inputs: list[str]
    outputs: list[str]
    feature_schema: str  # which feature function the model reads
    feature_schema_version: int
    training: dict[str, Any] = field(default_factory=dict)  # command, data, data digest, split, seed
    config: dict[str, Any] = field(default_factory=dict)
    validation: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if "model" not in self.files:
            raise ModelError(f"manifest entry {self.name!r} has no 'model' file")
        for role, spec in self.files.items():
            if set(spec) != {"path", "sha256"} or len(spec["sha256"]) != 64:
                raise ModelError(f"manifest entry {self.name!r}: file {role!r} needs a path and a sha256")
        if not self.inputs or not self.outputs:
            raise ModelError(f"manifest entry {self.name!r} names no inputs or outputs")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def require_schema(self, name: str, *versions: int) -> None:
        """Refuse a model trained on other features than the code computes now: its scores would be noise.

        ``versions``: the schema versions whose input this code still computes exactly (the current one first).
        """
        if self.feature_schema != name or self.feature_schema_version not in versions:
            raise ModelError(
                f"model {self.name!r} reads features {self.feature_schema} v{self.feature_schema_version}, "
                f"this code computes {name} v{'/'.join(map(str, versions))}: retrain it"
            )


class ModelStore:
    """A directory of artifacts with its manifest."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST_NAME

    def _manifest(self) -> dict[str, Any]:
        try:
            manifest = json.loads(self.manifest_path.read_text())
        except FileNotFoundError:
            return {"schema_version": MANIFEST_SCHEMA_VERSION, "models": {}}
        except (OSError, ValueError) as error:
            raise ModelError(f"cannot read {self.manifest_path}: {error}") from error
        if manifest.get("schema_version") != MANIFEST_SCHEMA_VERSION:
            raise ModelError(f"{self.manifest_path}: unsupported manifest schema {manifest.get('schema_version')!r}")
        return manifest

    def names(self) -> list[str]:
        return sorted(self._manifest()["models"])

    def entry(self, name: str) -> ModelEntry:
        found = self._manifest()["models"].get(name)
        if found is None:
            raise ModelError(f"no model named {name!r} in {self.manifest_path}")
        try:
            return ModelEntry(**found)
        except TypeError as error:
            raise ModelError(f"manifest entry {name!r} is malformed: {error}") from error

    def verified(self, name: str) -> tuple[ModelEntry, dict[str, Path]]:
        """The entry and the absolute path of each of its files, every digest checked."""
        entry = self.entry(name)
        paths: dict[str, Path] = {}
        for role, spec in entry.files.items():
            path = self.root / spec["path"]
            if not path.is_file():
                raise ModelError(f"model {name!r}: {role} file {path} is missing")
            actual = sha256_of(path)
            if actual != spec["sha256"]:
                raise ModelError(
                    f"model {name!r}: {role} file {path} is corrupt (sha256 {actual[:12]}…, "
                    f"manifest says {spec['sha256'][:12]}…); retrain it or restore it from git"
                )
            paths[role] = path
        return entry, paths

    def write(self, entry_fields: dict[str, Any], files: dict[str, tuple[str, bytes]]) -> ModelEntry:
        """Write the artifacts (role -> (relative path, bytes)) and record their entry in the manifest."""
        specs: dict[str, dict[str, str]] = {}
        for role, (relative, data) in files.items():
            if len(data) > MAX_ARTIFACT_BYTES:
                raise ModelError(f"{relative} is {len(data)} bytes, over the {MAX_ARTIFACT_BYTES}-byte limit")
            _atomic_write(self.root / relative, data)
            specs[role] = {"path": relative, "sha256": hashlib.sha256(data).hexdigest()}
        entry = ModelEntry(**{**entry_fields, "files": specs})
        manifest = self._manifest()
        manifest["models"][entry.name] = entry.to_json()
        manifest["models"] = dict(sorted(manifest["models"].items()))
        _atomic_write(self.manifest_path, (json.dumps(manifest, indent=2, sort_keys=False) + "\n").encode())
        return entry


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "wb") as stream:
        stream.write(data)
    Path(temporary).chmod(ARTIFACT_MODE)  # mkstemp makes files private; artifacts are read by the service's user
    Path(temporary).replace(path)
