"""ARCHITECTURE.md and the tree agree: every folder it names exists, every folder under service/ is named."""

from __future__ import annotations

import re

from support.paths import REPO

ARCHITECTURE = REPO / "ARCHITECTURE.md"
SERVICE = REPO / "service"
# A folder as the document names it: `service/<name>/`, in backticks.
FOLDER = re.compile(r"`service/(\w+)/")
# The line of the folder list that describes one: "- `service/<name>/` — ..."
LISTED = re.compile(r"^- `service/(\w+)/` — ", re.MULTILINE)


def named_folders() -> set[str]:
    return set(FOLDER.findall(ARCHITECTURE.read_text(encoding="utf-8")))


def listed_folders() -> set[str]:
    return set(LISTED.findall(ARCHITECTURE.read_text(encoding="utf-8")))


def package_folders() -> set[str]:
    return {path.name for path in SERVICE.iterdir() if path.is_dir() and (path / "__init__.py").is_file()}


def test_every_folder_named_exists() -> None:
    missing = sorted(name for name in named_folders() if not (SERVICE / name).is_dir())
    assert not missing, f"ARCHITECTURE.md names folders that do not exist under service/: {missing}"


def test_every_folder_under_service_is_listed() -> None:
    unlisted = sorted(package_folders() - listed_folders())
    assert not unlisted, (
        f"service/ has packages that ARCHITECTURE.md does not describe: {unlisted}. A new package (such as "
        "service/metadata or service/corpus when it lands) gets one line under '## Folders' in ARCHITECTURE.md: "
        "what it holds and what it may import (and its layer in [tool.importlinter] in pyproject.toml)."
    )


def test_the_patterns_read_the_document() -> None:
    """The checks above would pass vacuously if the patterns stopped matching the document's lines."""
    assert {"parsing", "backends", "api"} <= listed_folders() <= named_folders()
