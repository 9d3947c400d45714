"""The README's HTTP API section: its curl examples work as written, and its settings table is complete.

Each ``curl`` line of a ``sh`` block runs against a test server in place of
``make serve`` (only the address changes); it must answer 200, or the status
its trailing comment names (``# 403``), and every extraction it answers must carry
what it promises: a non-empty text, and the html or markdown it asked for. An example
whose comment says it ``needs the internet`` is skipped.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings

from support.live_server import LiveServer
from support.paths import REPO

pytestmark = pytest.mark.timeout(60)

SERVE_URL = "http://127.0.0.1:8000"
_SECTION = re.compile(r"^## HTTP API\n(.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)
_SH_BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)
_EXPECTED = re.compile(r"#\s*(\d{3})\s*$")


def api_section() -> str:
    found = _SECTION.search((REPO / "README.md").read_text(encoding="utf-8"))
    assert found, "README.md has no '## HTTP API' section"
    return found.group(1)


def curl_examples() -> list[str]:
    commands = []
    for block in _SH_BLOCK.findall(api_section()):
        for command in block.replace("\\\n", " ").splitlines():
            if command.strip().startswith("curl "):
                commands.append(command.strip())
    return commands


def test_the_section_has_examples_of_every_endpoint() -> None:
    examples = " ".join(curl_examples())
    for path in ("/extract", "/extract/batch", "/compare", "/backends", "/readyz", "/metrics", "/extract?url="):
        assert f"{SERVE_URL}{path}" in examples, path


def test_every_setting_is_documented() -> None:
    section = api_section()
    missing = [name for name in Settings.model_fields if f"`EXTRACT_{name.upper()}`" not in section]
    assert missing == []


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    with LiveServer(Settings()) as server:
        yield server.url


@pytest.mark.parametrize("command", curl_examples())
def test_the_curl_example_works_as_written(server_url: str, command: str, tmp_path: Path) -> None:
    if command.endswith("# needs the internet"):
        pytest.skip("needs the internet")
    expected = _EXPECTED.search(command)
    argv = shlex.split(command.replace(SERVE_URL, server_url), comments=True)
    body = tmp_path / "body"
    result = subprocess.run(
        [*argv, "-o", str(body), "-w", "%{http_code}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == (int(expected.group(1)) if expected else 200), body.read_text()
    if expected is None and body.read_bytes().startswith(b"{"):
        assert empty_fields(json.loads(body.read_bytes()), command) == []


def empty_fields(answer: dict[str, Any], command: str) -> list[str]:
    """The fields an extraction example promises (text, and the html or markdown it asks for) that came back empty."""
    promised = [
        "text",
        *(name for name in ("html", "markdown") if f"format={name}" in command or f'"format": "{name}"' in command),
    ]
    extractions = [answer] if "text" in answer else answer.get("results", [])
    return [
        f"{extraction.get('backend', i)}.{name}"
        for i, extraction in enumerate(extractions)
        for name in promised
        if not str(extraction.get(name) or "").strip()
    ]
