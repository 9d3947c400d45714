"""What the benchmarks, the load test and the soak test share: the raw pages of a corpus and a free loopback port.

It sits below all of them so that none imports another for these.
"""

from __future__ import annotations

import gzip
import socket
from pathlib import Path

HOST = "127.0.0.1"


def page_files(data_dir: Path, limit: int = 0) -> list[Path]:
    """The corpus' pages (``html/*.html`` or ``*.html.gz``), in file-name order, the first ``limit`` if given."""
    files = sorted(p for p in (data_dir / "html").iterdir() if p.name.endswith((".html", ".html.gz")))
    return files[:limit] if limit else files


def load_pages(data_dir: Path, limit: int = 0) -> list[bytes]:
    """Raw page bytes of :func:`page_files`."""
    return read_pages(page_files(data_dir, limit))


def read_pages(files: list[Path]) -> list[bytes]:
    """The files' bytes, gunzipped where ``.gz``."""
    return [gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes() for f in files]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])
