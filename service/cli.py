"""The command line: ``python -m service extract|serve|corpus|eval|bench|soak|train``.

Each subcommand lives in its own module with ``add_arguments(parser)`` and
``run(args) -> int``; this file only wires them together, and imports each
one when it is chosen, so ``extract`` never pays for training or eval code.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from pydantic import ValidationError
from pydantic_settings import SettingsError

from service.arguments import INTERRUPTED_EXIT
from service.commands.help import HelpFormatter
from service.errors import ExtractionError, UsageError

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "extract": ("service.commands.extract", "extract the main content of a file, a URL or stdin"),
    "serve": ("service.commands.serve", "run the HTTP service"),
    "eval": ("service.evaluation.command", "score backends and peers on an annotated corpus"),
    "corpus": ("service.commands.corpus", "extract every page of WARC, JSON Lines or Parquet files to Parquet shards"),
    "bench": ("service.commands.bench", "measure throughput on raw pages, one core"),
    "soak": ("service.commands.soak", "send thousands of real pages to a server and follow its memory"),
    "train": ("service.training.command", "train a model on the dev corpus and export it to model_store/"),
}


DESCRIPTION = "Main-content extraction: one page, a server, an evaluation, a benchmark, a soak test or a training run."


def build_parser(chosen: str | None) -> argparse.ArgumentParser:
    """The parser, with the arguments of the ``chosen`` subcommand only."""
    parser = argparse.ArgumentParser(prog="python -m service", description=DESCRIPTION, formatter_class=HelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text, formatter_class=HelpFormatter)
        if name == chosen:  # only the chosen command's module is imported
            importlib.import_module(module).add_arguments(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the chosen command; what it cannot use (a corpus, a backend name, a setting) is one line and exit 2.

    A command answers its own errors where it can (``extract``'s codes, ``corpus``'s shards); these are
    what reach here from deeper down: :class:`UsageError` (a corpus, split or page selection),
    :class:`ExtractionError` (an unknown backend), a setting (``EXTRACT_*``) pydantic refuses, also where
    a command's defaults read the settings (``serve --help``). Ctrl-C is one line and exit 130.
    """
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if not a.startswith("-")), None)
    try:
        args = build_parser(chosen).parse_args(argv)
        return int(importlib.import_module(COMMANDS[args.command][0]).run(args))
    except (UsageError, ExtractionError, ValidationError, SettingsError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT
