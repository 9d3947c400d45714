"""ARCHITECTURE.md and the tree agree: every folder it names exists, every folder under service/ is named,
and no code under service/ reads from tests/."""

from __future__ import annotations

import ast
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


def paths_into_tests(source: str) -> list[str]:
    """String literals that name tests/ (a path part ``"tests"``, or text starting ``tests/``), docstrings aside."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and (node.value == "tests" or node.value.startswith("tests/"))
    ]


def test_no_code_under_service_reads_from_tests() -> None:
    """The package owns what it reads (the gate's floors are service/evaluation/floors.json); tests read the package."""
    found = {
        path.relative_to(REPO).as_posix(): hits
        for path in sorted(SERVICE.rglob("*.py"))
        if (hits := paths_into_tests(path.read_text(encoding="utf-8")))
    }
    assert not found, f"code under service/ names paths under tests/: {found}"


def test_a_path_into_tests_is_found_and_a_docstring_is_not() -> None:
    source = '"""Measured by tests/http/test_x.py."""\nFLOORS = ROOT / "tests" / "floors.json"\nHELP = "tests/a.json"\n'
    assert sorted(paths_into_tests(source)) == ["tests", "tests/a.json"]
