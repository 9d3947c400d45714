"""One output shard: Parquet (zstd), written under a temporary name and renamed when complete.

So a shard file under its final name is always whole: a crash mid-shard leaves
only a ``.partial`` file, which the next run overwrites. The footer carries
the shard's fingerprint (input, size, mtime, options) and its outcome counts,
so a rerun can tell a finished shard from a stale one by reading the footer only.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from service.corpus.batch import Row

ROW_GROUP_ROWS = 1024  # rows buffered before a row group is written: bounds memory, keeps row groups readable
ROW_GROUP_TEXT_BYTES = 64 * 1024 * 1024  # or this much text, whichever comes first
FINGERPRINT_KEY = b"extraction.fingerprint"
COUNTS_KEY = b"extraction.counts"
OK = "ok"  # the outcome of a row whose error is empty


class ShardWriter:
    """``with ShardWriter(path, schema, fingerprint) as out: out.write(rows) ... out.commit()``."""

    def __init__(self, path: Path, schema: pa.Schema, fingerprint: dict[str, Any]) -> None:
        self.path = path
        self.partial = path.with_name(path.name + ".partial")
        self.schema = schema
        self.fingerprint = fingerprint
        self.counts: Counter[str] = Counter()
        self._buffer: list[Row] = []
        self._buffered_bytes = 0
        self._writer = pq.ParquetWriter(self.partial, schema, compression="zstd")

    def __enter__(self) -> ShardWriter:
        return self

    def __exit__(self, *_: object) -> None:
        self._writer.close()
        self.partial.unlink(missing_ok=True)  # a committed shard was renamed already

    def write(self, rows: list[Row]) -> None:
        for row in rows:
            self.counts[row["error"] or OK] += 1
            self._buffered_bytes += sum(len(value) for value in row.values() if isinstance(value, str))
        self._buffer += rows
        if len(self._buffer) >= ROW_GROUP_ROWS or self._buffered_bytes >= ROW_GROUP_TEXT_BYTES:
            self._flush()

    def commit(self) -> Counter[str]:
        """Write what is buffered and the footer, then give the shard its final name."""
        self._flush()
        self._writer.add_key_value_metadata(
            {FINGERPRINT_KEY: json.dumps(self.fingerprint, sort_keys=True), COUNTS_KEY: json.dumps(self.counts)}
        )
        self._writer.close()
        self.partial.replace(self.path)
        return self.counts

    def _flush(self) -> None:
        if self._buffer:
            self._writer.write_table(pa.Table.from_pylist(self._buffer, schema=self.schema))
        self._buffer, self._buffered_bytes = [], 0


def finished_counts(path: Path, fingerprint: dict[str, Any]) -> Counter[str] | None:
    """The outcome counts of a complete shard at ``path`` made with ``fingerprint``; None if there is none."""
    try:
        metadata = pq.read_metadata(path).metadata or {}
    except (OSError, pa.ArrowInvalid):
        return None
    if json.loads(metadata.get(FINGERPRINT_KEY, b"null")) != json.loads(json.dumps(fingerprint)):
        return None
    return Counter(json.loads(metadata.get(COUNTS_KEY, b"{}")))
