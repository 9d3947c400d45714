"""``python -m service corpus INPUT... --out DIR``: every page of a crawl to Parquet shards, resumably.

Inputs are WARC/WARC.gz, JSON Lines and Parquet files, directories and globs
of them. One shard per input file; a shard already complete in DIR with the
same options is skipped. Exit status: 0 when every shard is complete, 1 when
some failed (run again to redo them), 2 when the inputs or options are wrong.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from service.arguments import INTERRUPTED_EXIT, output_folder, positive_int
from service.settings import DEFAULT_BACKEND, Settings

if TYPE_CHECKING:
    from collections.abc import Iterable

    from service.corpus.batch import Options
    from service.corpus.shards import Done, Shard

ENGINES = ("local", "ray")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "inputs", nargs="+", metavar="INPUT", help="WARC, JSON Lines or Parquet files, directories, globs"
    )
    parser.add_argument(
        "--out", type=output_folder, required=True, help="directory for the Parquet shards and summary.json"
    )
    parser.add_argument(
        "--backend", default=None, help=f"backend name (default: EXTRACT_DEFAULT_BACKEND, else {DEFAULT_BACKEND})"
    )
    parser.add_argument(
        "--format", default="text", choices=("text", "markdown", "html"), help="a markdown or html column beside text"
    )
    parser.add_argument("--metadata", action="store_true", help="add WARC-Date, HTTP status, content type, charset")
    parser.add_argument(
        "--workers", type=positive_int, default=os.cpu_count() or 1, help="worker processes or Ray actors"
    )
    parser.add_argument("--engine", default="local", choices=ENGINES, help="a local process pool, or Ray")
    parser.add_argument("--ray-address", default=None, help="a Ray cluster to join (default: start one here)")
    parser.add_argument("--batch-size", type=positive_int, default=64, help="pages extracted and written at a time")
    parser.add_argument(
        "--max-page-bytes", type=positive_int, default=10 * 1024 * 1024, help="larger pages get a too_large row, unread"
    )


def run(args: argparse.Namespace) -> int:
    try:
        from service.corpus.batch import Options  # noqa: PLC0415 - pyarrow and fastwarc only for this command
        from service.corpus.formats import UnknownInput, expand  # noqa: PLC0415
        from service.corpus.shards import plan  # noqa: PLC0415
    except ImportError as error:
        print(f"error: {error.name} is missing: pip install 'extraction-service[corpus]'", file=sys.stderr)
        return 2
    args.backend = args.backend or Settings().default_backend  # as the server and `extract` read it
    if unknown := _unknown_backend(args.backend):
        print(f"error: unknown_backend: {unknown}", file=sys.stderr)
        return 2
    options = Options(args.backend, args.format, args.metadata, args.max_page_bytes, args.batch_size)
    try:
        shards = plan(expand(args.inputs, args.out), args.out.resolve(), options)
    except UnknownInput as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # what only making it tells (/proc); output_folder checked the rest as it was read
        print(f"error: cannot create --out {args.out}: {error.strerror or error}", file=sys.stderr)
        return 2
    return _process(shards, options, args)


def _cpu_s() -> dict[str, float]:
    """CPU seconds (user and system) of this process and of the children (local workers) it waited for.

    Beside the wall-clock rate: on a machine other jobs keep busy, pages per CPU second still
    show whether more workers cost more per page.
    """
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"main": own.ru_utime + own.ru_stime, "workers": children.ru_utime + children.ru_stime}


def _stage_facts(done: Iterable[Done], workers: int, elapsed: float) -> dict[str, dict[str, float]]:
    """Seconds the workers spent reading, extracting and writing, and each as a share of their time in the run.

    One minus the extracting share is what the engine costs the workers besides extraction (what
    ``bench`` measures alone), read in the run itself: unlike a ``bench`` run before or after, it
    does not move with the machine's speed.
    """
    from service.corpus.shards import STAGES  # noqa: PLC0415 - the corpus modules load with the command's work

    seconds = dict.fromkeys(STAGES, 0.0)
    for result in done:
        for stage in STAGES:
            seconds[stage] += result.seconds[stage]
    budget = workers * elapsed
    return {
        "stage_s": {stage: round(s, 3) for stage, s in seconds.items()},
        "stage_share": {stage: round(s / budget, 4) if budget else 0.0 for stage, s in seconds.items()},
    }


def _peak_rss_mb() -> dict[str, float]:
    """Peak resident memory of this process and of the largest child (a local worker) it waited for."""
    return {
        "main": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "largest_child": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
    }


def _unknown_backend(name: str) -> str | None:
    from service.backends.registry import default_registry  # noqa: PLC0415
    from service.errors import UnknownBackend  # noqa: PLC0415

    try:
        default_registry().check([name])
    except UnknownBackend as error:
        return str(error)
    return None


def _process(shards: list[Shard], options: Options, args: argparse.Namespace) -> int:
    from service.corpus.progress import Progress  # noqa: PLC0415
    from service.corpus.shards import pool_size  # noqa: PLC0415
    from service.corpus.summary import write_summary  # noqa: PLC0415
    from service.corpus.writer import finished_counts  # noqa: PLC0415

    counts = {s.input: c for s in shards if (c := finished_counts(s.output, s.fingerprint)) is not None}
    pending = [s for s in shards if s.input not in counts]
    print(
        f"corpus: {len(shards)} shards, {len(counts)} already complete, {len(pending)} to do;"
        f" engine {args.engine}, {args.workers} workers, backend {args.backend}",
        file=sys.stderr,
    )
    started, cpu_started = time.perf_counter(), _cpu_s()
    done: dict[Path, Done] = {}
    failed: dict[Path, str] = {}
    interrupted = False
    with Progress(sum(s.size_bytes for s in pending)) as progress:
        if not pending:
            pass
        elif args.engine == "ray":
            from service.corpus.ray_engine import run_ray  # noqa: PLC0415 - the optional `ray` extra

            done, failed = run_ray(pending, options, args.workers, args.ray_address, progress.update)
        else:
            from service.corpus.local import Interrupted, run_local  # noqa: PLC0415

            try:
                done, failed = run_local(pending, options, args.workers, progress.update)
            except Interrupted as stop:  # the finished shards go in the summary; the next run does the rest
                done, failed, interrupted = stop.done, stop.failed, True
    elapsed = time.perf_counter() - started
    cpu = {who: round(now - cpu_started[who], 3) for who, now in _cpu_s().items()}
    pages = sum(sum(d.outcomes.values()) for d in done.values())
    stages = _stage_facts(done.values(), pool_size(args.workers, len(pending)), elapsed)
    run_facts = {
        "backend": args.backend,
        "format": args.format,
        "engine": args.engine,
        "workers": args.workers,
        "this_run": {"shards": len(done), "pages": pages, "seconds": round(elapsed, 3),
                     "pages_per_s": round(pages / elapsed, 2) if elapsed else None, "cpu_s": cpu,
                     "pages_per_cpu_s": round(pages / sum(cpu.values()), 2) if pages else None,
                     "peak_rss_mb": _peak_rss_mb(), **stages},
    }  # fmt: skip
    summary = write_summary(
        args.out, shards, counts | {path: d.outcomes for path, d in done.items()}, failed, run_facts
    )
    outcomes = ", ".join(f"{code} {n}" for code, n in summary["outcomes"].items())
    print(f"corpus: {summary['pages']} pages ({outcomes}) in {args.out}", file=sys.stderr)
    if done:
        shares = ", ".join(f"{stage} {share:.1%}" for stage, share in stages["stage_share"].items())
        print(f"corpus: the workers' time: {shares}; the rest start-up, waiting and failed shards", file=sys.stderr)
    if interrupted:
        print(f"corpus: interrupted; {len(failed)} shards left for the next run", file=sys.stderr)
        return INTERRUPTED_EXIT
    for path, why in failed.items():
        print(f"error: shard {path} failed: {why}", file=sys.stderr)
    return 1 if failed else 0
