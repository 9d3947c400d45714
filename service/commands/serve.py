"""``python -m service serve``: the HTTP service under uvicorn."""

from __future__ import annotations

import argparse

import uvicorn

from service.settings import get_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    settings = get_settings()
    parser.add_argument("--host", default=settings.host, help=f"bind address (default {settings.host})")
    parser.add_argument("--port", type=int, default=settings.port, help=f"port (default {settings.port})")
    parser.add_argument("--workers", type=int, default=settings.workers, help="worker processes")


def run(args: argparse.Namespace) -> int:
    uvicorn.run(
        "service.api.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="info",
    )
    return 0
