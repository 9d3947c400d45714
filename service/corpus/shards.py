"""Shards, the unit of work and of resuming: one input file, one output Parquet file.

:func:`process_shard` is what each local worker process and each Ray actor runs:
read the file a batch of pages at a time, extract the batch, write its rows.
Memory holds one batch and one row group, whatever the file's size.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from service.corpus.batch import BatchExtractor, Options, schema
from service.corpus.formats import format_of, named
from service.corpus.pages import Page
from service.corpus.writer import ShardWriter

# (pages done, input bytes read) since the last report: what the progress bar shows
Report = Callable[[int, int], None]


@dataclass(frozen=True)
class Shard:
    input: Path
    format: str
    output: Path
    size_bytes: int
    fingerprint: dict[str, Any]

    def to_json(self) -> str:
        """The shard as text, to travel to a Ray actor."""
        return json.dumps({**asdict(self), "input": str(self.input), "output": str(self.output)})

    @classmethod
    def from_json(cls, text: str) -> Shard:
        fields = json.loads(text)
        return cls(**{**fields, "input": Path(fields["input"]), "output": Path(fields["output"])})


def plan(inputs: list[Path], out_dir: Path, options: Options) -> list[Shard]:
    """A shard per input; each output name is the input's name and a hash of its path, so names never clash."""
    shards = []
    for path in inputs:
        stat = path.stat()
        digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:12]  # a name's bytes, UTF-8 or not
        name = re.sub(r"[^A-Za-z0-9._-]", "_", path.name)
        fingerprint = {"input": str(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, **asdict(options)}
        del fingerprint["batch_size"]  # how the work was cut does not change the rows
        shards.append(
            Shard(path, format_of(path).name, out_dir / f"{name}.{digest}.parquet", stat.st_size, fingerprint)
        )
    return shards


def source_name(path: Path) -> str:
    r"""``path`` as the rows' ``source`` and the summary name it: bytes of a name that are no UTF-8 as ``\xff``.

    Parquet's strings are UTF-8: the lone surrogates Python reads such a name into would fail the shard.
    """
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def pool_size(workers: int, shards: int) -> int:
    """How many workers a run starts: no more than there are shards (a worker with none would only load the models)."""
    return min(workers, shards)


STAGES = ("read", "extract", "write")


@dataclass(frozen=True)
class Done:
    """A finished shard: its outcome counts, and the wall-clock seconds its worker spent in each of :data:`STAGES`."""

    outcomes: Counter[str]
    seconds: dict[str, float]

    def to_json(self) -> str:
        """The result as text, to travel back from a Ray actor."""
        return json.dumps({"outcomes": self.outcomes, "seconds": self.seconds})

    @classmethod
    def from_json(cls, text: str) -> Done:
        fields = json.loads(text)
        return cls(Counter(fields["outcomes"]), fields["seconds"])


def process_shard(shard: Shard, extractor: BatchExtractor, report: Report) -> Done:
    """Extract every page of one shard into its output file; the outcome counts and where the time went."""
    reader = named(shard.format).read
    seconds = dict.fromkeys(STAGES, 0.0)
    clock = time.perf_counter
    with (
        shard.input.open("rb") as stream,
        ShardWriter(shard.output, schema(extractor.options), shard.fingerprint) as out,
    ):
        pages = reader(stream, source_name(shard.input), extractor.options.max_page_bytes)
        read = 0
        batches = _batches(pages, extractor.options.batch_size)
        while True:
            started = clock()
            batch = next(batches, None)
            extracting = clock()
            seconds["read"] += extracting - started
            if batch is None:
                break
            rows = extractor.rows(batch)
            writing = clock()
            out.write(rows)
            seconds["extract"] += writing - extracting
            seconds["write"] += clock() - writing
            now = stream.tell()
            report(len(batch), max(now - read, 0))
            read = max(read, now)
        report(0, max(shard.size_bytes - read, 0))
        started = clock()
        outcomes = out.commit()
        seconds["write"] += clock() - started
        return Done(outcomes, seconds)


def _batches(pages: Iterator[Page], size: int) -> Iterator[list[Page]]:
    while batch := list(islice(pages, size)):
        yield batch
