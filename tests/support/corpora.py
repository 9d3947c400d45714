"""Tiny annotated corpora on disk, for the commands that read a corpus (eval, bench, train)."""

from __future__ import annotations

import json
from pathlib import Path


def tiny_corpus(root: Path, types: dict[str, str]) -> Path:
    """A WCXB-layout corpus: one page per id, each page's text its id and type."""
    (root / "html").mkdir(parents=True)
    (root / "ground-truth").mkdir()
    for page_id, page_type in types.items():
        (root / "html" / f"{page_id}.html").write_text(f"<p>{page_id} {page_type}</p>", encoding="utf-8")
        gold = {"url": f"https://{page_id}.example/", "ground_truth": {"main_content": page_id}}
        (root / "ground-truth" / f"{page_id}.json").write_text(json.dumps(gold), encoding="utf-8")
    files = {page_id: {"page_type": page_type, "domain": f"{page_id}.example"} for page_id, page_type in types.items()}
    (root / "metadata.json").write_text(json.dumps({"files": files}), encoding="utf-8")
    return root
