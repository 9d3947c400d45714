"""Which pages ``python -m service bench`` times: any corpus, a part of its split, one page type.

``--data`` names the corpus (any layout :mod:`service.evaluation.datasets` reads, or a bare folder
of ``html/*.html[.gz]``), ``--part`` a part of its committed split (``all`` by default: every page),
and ``--page-type`` keeps the pages of one type as the corpus metadata gives it (WCXB's ``article``
pages, say: the news-like subset). The parent and each pinned child select the same pages from the
same arguments, which :func:`child_arguments` passes on. The corpus readers are imported only when
a selection is asked for, so a child timing a peer on a whole folder imports nothing of ours.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from service.arguments import input_file
from service.commands.pages import page_files, read_pages
from service.errors import UsageError

ANY_TYPE = "any"
ALL_PARTS = "all"  # as service.evaluation.split names it
AUTO_LAYOUT = "auto"


class PageSelectionError(UsageError):
    """A selection the corpus cannot give: no split for a part, or no page of the type asked for."""


def add_page_arguments(parser: argparse.ArgumentParser) -> None:
    """The selection options beside ``--data`` and ``--limit``."""
    parser.add_argument("--layout", default=AUTO_LAYOUT, help="corpus layout, as for eval (default: detected)")
    parser.add_argument(
        "--part", default=ALL_PARTS, help="train, validation or test part of the corpus's split (default: all)"
    )
    parser.add_argument("--split", type=input_file, default=None, help="split JSON (default: the committed one)")
    parser.add_argument(
        "--page-type", default=ANY_TYPE, help="only pages of this type, e.g. article (default: any type)"
    )


def selects(args: argparse.Namespace) -> bool:
    """Whether the arguments ask for a corpus's pages, not the folder's every file (any html/ folder will do).

    A layout named is such a request: the folder is read as that corpus (and an unknown layout refused).
    """
    return args.part != ALL_PARTS or args.page_type != ANY_TYPE or args.layout != AUTO_LAYOUT


def selected_files(data_dir: Path, args: argparse.Namespace) -> tuple[list[Path], str]:
    """The files of the pages the arguments select, and what they are (a whole folder needs no annotations)."""
    return (
        select_page_paths(data_dir, args) if selects(args) else (page_files(data_dir), f"{data_dir.name} (every page)")
    )


def selected_pages(data_dir: Path, args: argparse.Namespace) -> tuple[list[bytes], str]:
    """The pages the arguments select, read (the first ``--limit`` if given), and what they are."""
    files, described = selected_files(data_dir, args)
    return read_pages(files[: args.limit] if args.limit else files), described


def select_page_paths(data_dir: Path, args: argparse.Namespace) -> tuple[list[Path], str]:
    """The selected pages' files, in id order, and a description for the report."""
    from service.evaluation.datasets import LAYOUTS, CorpusError, load_corpus  # noqa: PLC0415 - see above
    from service.evaluation.split import Split, SplitError, committed_split_path, select  # noqa: PLC0415

    if args.layout != AUTO_LAYOUT and args.layout not in LAYOUTS:
        raise PageSelectionError(f"unknown layout {args.layout!r}; known: {', '.join(LAYOUTS)}")
    try:
        corpus = load_corpus(data_dir, args.layout)
        split_path = args.split or committed_split_path(corpus.name)
        split = Split.read(split_path) if args.part != ALL_PARTS and split_path.is_file() else None
        pages = select(corpus, args.part, split)
    except (CorpusError, SplitError) as error:
        raise PageSelectionError(str(error)) from error
    if args.page_type != ANY_TYPE:
        pages = [page for page in pages if page.page_type == args.page_type]
        if not pages:
            known = sorted({page.page_type for page in corpus.pages})
            raise PageSelectionError(f"no {args.page_type!r} pages in {corpus.name}; it has {', '.join(known)}")
    credit = f"; {corpus.credit}" if corpus.credit else ""
    kind = "" if args.page_type == ANY_TYPE else f", {args.page_type} pages"
    return [page.html_path for page in pages], f"{corpus.name} ({args.part} part{kind}){credit}"


def child_arguments(args: argparse.Namespace) -> list[str]:
    """The selection options again, for a child process that loads the pages itself."""
    out = ["--layout", args.layout, "--part", args.part, "--page-type", args.page_type]
    return [*out, "--split", str(args.split)] if args.split else out
