"""Argument types the commands share (every entry point: the CLI's, eval's, training's), and their exit codes."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

INTERRUPTED_EXIT = 130  # Ctrl-C: 128 + SIGINT, as a shell reports a command it interrupted


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (a count of rounds, requests, workers)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0 (a limit where 0 means none)."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def output_file(text: str) -> Path:
    """An argparse type: a file the command can write when it is done, checked before any work is spent on it.

    Not a folder, in a folder that exists and can be written: a path found wrong after a long
    evaluation or benchmark would lose its results.
    """
    path = Path(text)
    if not text or path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file to write")
    folder = path.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write into {str(folder)!r}: no such folder, or not writable")
    return path


def input_file(text: str) -> Path:
    """An argparse type: a file that exists and can be read."""
    path = Path(text)
    if not path.is_file() or not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"{text!r} is no file that can be read")
    return path


def input_folder(text: str) -> Path:
    """An argparse type: a folder that exists (an empty name would be the current one, which no one means)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty name is no folder")
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is no folder")
    return path


def cpu_core(text: str) -> int:
    """An argparse type: a CPU core this process may run on (what pinning to it needs)."""
    core = int(text)
    allowed = sorted(os.sched_getaffinity(0))
    if core not in allowed:
        raise argparse.ArgumentTypeError(f"core {core} is not one this process may use: {allowed}")
    return core


def number_list(text: str) -> tuple[float, ...]:
    """An argparse type: comma-separated numbers ("-0.1,0,0.1")."""
    try:
        return tuple(float(item) for item in text.split(",") if item.strip())
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from error


def output_folder(text: str) -> Path:
    """An argparse type: a folder to write into, made where missing; checked before any work is spent on it.

    It, or the nearest of its parents that exists, must be a folder this process can write.
    """
    if not text:
        raise argparse.ArgumentTypeError("an empty name is no folder")
    path = Path(text)
    existing = next(folder for folder in (path, *path.parents) if folder.exists())
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot make or write {text!r}: {str(existing)!r} is no writable folder")
    return path
