"""What the benchmarks, the load test and the soak test share: the raw pages of a corpus and a free loopback port.

It sits below all of them so that none imports another for these.
"""

from __future__ import annotations

import gzip
import socket
from pathlib import Path

HOST = "127.0.0.1"


def load_pages(data_dir: Path, limit: int = 0) -> list[bytes]:
    """Raw page bytes (``html/*.html`` or ``*.html.gz``), in file-name order."""
    files = sorted(p for p in (data_dir / "html").iterdir() if p.name.endswith((".html", ".html.gz")))
    if limit:
        files = files[:limit]
    return [gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes() for f in files]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])
