"""``python -m service serve``: the HTTP service under uvicorn.

Several workers (``--workers``, ``EXTRACT_WORKERS``) serve CPU backends, one
process each; a GPU gets one process (the settings refuse more). With more
than one worker, Prometheus runs in multiprocess mode: each worker writes its
samples under ``PROMETHEUS_MULTIPROC_DIR`` (a fresh temporary directory
unless set) and ``/metrics`` on any worker reports the sum over all of them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import uvicorn

from service.api.protocol import HttpProtocol
from service.metrics import MULTIPROC_ENV
from service.runtime.workers import STARTUP_FAILED, startup_failed
from service.settings import Settings, get_settings, unknown_variables

STARTUP_FAILURE = 3  # uvicorn's exit status for a start that failed (one worker); the same for several


def add_arguments(parser: argparse.ArgumentParser) -> None:
    settings = get_settings()
    parser.add_argument("--host", default=settings.host, help=f"bind address (default {settings.host})")
    parser.add_argument("--port", type=int, default=settings.port, help=f"port (default {settings.port})")
    parser.add_argument("--workers", type=int, default=settings.workers, help="worker processes")


def _multiprocess_metrics_dir() -> Path | None:
    """Point the workers at one directory of metric files, emptied first; the path when it was made here."""
    configured = os.environ.get(MULTIPROC_ENV)
    path = Path(configured) if configured else Path(tempfile.mkdtemp(prefix="extract-metrics-"))
    path.mkdir(parents=True, exist_ok=True)
    for stale in [*path.glob("*.db"), path / STARTUP_FAILED]:  # an earlier run's samples would be summed in
        stale.unlink(missing_ok=True)
    os.environ[MULTIPROC_ENV] = str(path)
    return None if configured else path


def run(args: argparse.Namespace) -> int:
    # Validated like the environment, so a GPU provider with several workers fails here.
    settings = Settings(host=args.host, port=args.port, workers=args.workers)
    for line in unknown_variables(os.environ):  # ignored, as before, but not unseen
        print(f"warning: {line}; it is ignored", file=sys.stderr)
    made = _multiprocess_metrics_dir() if settings.workers > 1 else None
    failed = False
    try:
        uvicorn.run(
            "service.api.app:create_app",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=settings.workers,
            http=HttpProtocol,  # TCP_NODELAY on every connection; no reset after an early 429 (see the module)
            timeout_graceful_shutdown=settings.graceful_shutdown_timeout_s,
            log_level="info",
            access_log=settings.access_log,
        )
        # uvicorn's parent stops when a worker fails to start, but ends 0: a supervisor restarting on failure
        # would not restart it, and Kubernetes would show the pod Completed
        failed = settings.workers > 1 and startup_failed(Path(os.environ[MULTIPROC_ENV]))
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
    return STARTUP_FAILURE if failed else 0
