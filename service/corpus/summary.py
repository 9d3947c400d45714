"""``summary.json``: how many pages each outcome had, over every shard of the output, resumed ones included."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from service.corpus.shards import Shard, source_name

SUMMARY_NAME = "summary.json"


def write_summary(
    out_dir: Path,
    shards: list[Shard],
    counts: dict[Path, Counter[str]],
    failed: dict[Path, str],
    run: dict[str, Any],
) -> dict[str, Any]:
    """Write and return the summary: totals, each shard's counts, the shards that failed and why, and ``run``."""
    outcomes: Counter[str] = Counter()
    for shard_counts in counts.values():
        outcomes.update(shard_counts)
    summary = {
        "pages": sum(outcomes.values()),
        "outcomes": dict(sorted(outcomes.items())),
        "shards": {"total": len(shards), "complete": len(counts), "failed": len(failed)},
        **run,
        "inputs": [
            {
                "input": source_name(shard.input),
                "format": shard.format,
                "output": shard.output.name,
                "pages": sum(counts[shard.input].values()) if shard.input in counts else None,
                "outcomes": dict(sorted(counts[shard.input].items())) if shard.input in counts else None,
                "failed": failed.get(shard.input),
            }
            for shard in shards
        ],
    }
    partial = out_dir / (SUMMARY_NAME + ".partial")
    partial.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    partial.replace(out_dir / SUMMARY_NAME)
    return summary
