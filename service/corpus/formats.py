"""The input formats, registered in one place, and how an input is recognised: by its bytes first.

Adding a format is one reader function and one entry in :data:`FORMATS`.
Extensions only choose which files of a directory are inputs; what a file is
comes from its first bytes (gunzipped when they are gzip), so a WARC named
``.gz`` or a JSON Lines file named ``.txt`` is read as what it is. Where the
first bytes say nothing, a JSON Lines name decides: its first line may be the
broken one, and each line gets its own row.
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
HEAD_PIECE_BYTES = 512  # the head is gunzipped this much at a time, so what decodes before an error is kept
GZIP_TRAILER_BYTES = 8
UTF8_BOM = b"\xef\xbb\xbf"

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
        "jsonl",
        (".jsonl", ".jsonl.gz", ".ndjson", ".json"),
        lambda head: head.removeprefix(UTF8_BOM).lstrip()[:1] in (b"{", b""),
        read_jsonl,
    ),
)
JSONL_FALLBACK = "jsonl"  # the format a file is read as by its name alone, where its first bytes are none known


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
    fallback = named(JSONL_FALLBACK)
    if _has_extension(path, fallback):
        return fallback
    known = ", ".join(f.name for f in FORMATS)
    raise UnknownInput(f"{path}: not a recognised input (known formats: {known})")


def _head(path: Path) -> bytes:
    """The file's first bytes, gunzipped as far as they go: a small file's broken trailer is its reader's to report."""
    with path.open("rb") as stream:
        head = stream.read(HEAD_BYTES)
    if not head.startswith(GZIP_MAGIC):
        return head
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
    out = b""
    try:
        # the last 8 bytes apart: in a file that small, gzip's trailer (CRC and length), checked on its own
        body, trailer = head[:-GZIP_TRAILER_BYTES], head[-GZIP_TRAILER_BYTES:]
        pieces = [body[at : at + HEAD_PIECE_BYTES] for at in range(0, len(body), HEAD_PIECE_BYTES)]
        for piece in [*pieces, trailer]:
            out += inflater.decompress(piece, HEAD_BYTES - len(out))
            if len(out) >= HEAD_BYTES:
                break
    except zlib.error as error:
        if not out:
            raise UnknownInput(f"{path}: gzip data that does not decompress: {error}") from error
    return out


def expand(inputs: list[str], out_dir: Path | None = None) -> list[Path]:
    """Files named, matched by a glob, or found in a directory (by extension, recursively); sorted, no duplicates.

    Nothing under ``out_dir`` is an input: an output folder inside an input folder would otherwise be read
    back, its shards and summary as pages, on every run after the first. A file named there is refused.
    """
    found: dict[Path, None] = {}
    written = out_dir.resolve() if out_dir is not None else None
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
        resolved = [p.resolve() for p in matches]
        if written is not None:
            if path.is_file() and resolved[0].is_relative_to(written):
                raise UnknownInput(f"{item}: is inside --out {out_dir}, which holds what this command writes")
            resolved = [p for p in resolved if not p.is_relative_to(written)]
        if not resolved:
            raise UnknownInput(f"{item}: no such file, or no input file in it")
        found.update(dict.fromkeys(resolved))
    return list(found)


def _known_extension(path: Path) -> bool:
    return any(_has_extension(path, f) for f in FORMATS)


def _has_extension(path: Path, input_format: InputFormat) -> bool:
    name = path.name.lower()
    return any(name.endswith(extension) for extension in input_format.extensions)
