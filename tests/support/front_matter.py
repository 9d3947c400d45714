"""The YAML front matter of a Markdown output, read back as YAML reads it."""

from __future__ import annotations

from typing import Any

import yaml


def read_front_matter(markdown: str) -> tuple[dict[str, Any], str]:
    """The front matter's fields and the body after it; the Markdown must begin with one."""
    assert markdown.startswith("---\n"), markdown[:80]
    head, closed, body = markdown.removeprefix("---\n").partition("\n---\n\n")
    assert closed, "the front matter is not closed"
    return yaml.safe_load(head), body
