"""The input formats, registered in one place, and how an input is recognised: by its bytes first.

Adding a format is one reader function and one entry in :data:`FORMATS`.
Extensions only choose which files of a directory are inputs; what a file is
comes from its first bytes (gunzipped when they are gzip), so a WARC named
``.gz`` or a JSON Lines file named ``.txt`` is read as what it is.
"""

from __future__ import annotations

import glob
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from service.corpus.jsonl import read_jsonl
from service.corpus.pages import GZIP_MAGIC, Page
from service.corpus.parquet_input import read_parquet
from service.corpus.warc import read_warc

HEAD_BYTES = 4096

Reader = Callable[[BinaryIO, str, int], Iterator[Page]]


class UnknownInput(ValueError):
    """An input that is none of the registered formats, or a path or pattern that names no file."""


@dataclass(frozen=True)
class InputFormat:
    """A readable format: its name, the extensions a directory listing picks, how its first bytes look."""

    name: str
    extensions: tuple[str, ...]
    sniff: Callable[[bytes], bool]  # on the first bytes of the file, gunzipped
    read: Reader  # (open file, its name, max_page_bytes) -> one Page per record, unreadable ones included


FORMATS: tuple[InputFormat, ...] = (
    InputFormat("warc", (".warc", ".warc.gz"), lambda head: head.startswith(b"WARC/"), read_warc),
    InputFormat("parquet", (".parquet",), lambda head: head.startswith(b"PAR1"), read_parquet),
    InputFormat(
        "jsonl", (".jsonl", ".jsonl.gz", ".ndjson", ".json"), lambda head: head.lstrip()[:1] in (b"{", b""), read_jsonl
    ),
)


def named(name: str) -> InputFormat:
    """The registered format called ``name``."""
    (found,) = [f for f in FORMATS if f.name == name]
    return found


def format_of(path: Path) -> InputFormat:
    """The format of ``path``, known by its first bytes."""
    head = _head(path)
    for candidate in FORMATS:
        if candidate.sniff(head):
            return candidate
    known = ", ".join(f.name for f in FORMATS)
    raise UnknownInput(f"{path}: not a recognised input (known formats: {known})")


def _head(path: Path) -> bytes:
    with path.open("rb") as stream:
        head = stream.read(HEAD_BYTES)
    if head.startswith(GZIP_MAGIC):
        try:
            return zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(head, HEAD_BYTES)
        except zlib.error as error:
            raise UnknownInput(f"{path}: gzip data that does not decompress: {error}") from error
    return head


def expand(inputs: list[str]) -> list[Path]:
    """Files named, matched by a glob, or found in a directory (by extension, recursively); sorted, no duplicates."""
    found: dict[Path, None] = {}
    for item in inputs:
        if not item:  # Path("") is the current folder, which no one names by leaving the name out
            raise UnknownInput("an empty name is no input (name the folder, . for this one)")
        path = Path(item)
        if path.is_dir():
            matches = [p for p in sorted(path.rglob("*")) if p.is_file() and _known_extension(p)]
        elif path.is_file():
            matches = [path]
        else:
            found_by_glob = sorted(glob.glob(item, recursive=True))  # noqa: PTH207 - the pattern may be absolute
            matches = [Path(p) for p in found_by_glob if Path(p).is_file()]
        if not matches:
            raise UnknownInput(f"{item}: no such file, or no input file in it")
        found.update(dict.fromkeys(p.resolve() for p in matches))
    return list(found)


def _known_extension(path: Path) -> bool:
    name = path.name.lower()
    return any(name.endswith(extension) for f in FORMATS for extension in f.extensions)
