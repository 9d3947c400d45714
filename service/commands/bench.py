"""``python -m service bench``: throughput on raw pages, every system in the same run.

Each system (the parse-only floor, each backend, each peer) runs in its own
child process pinned to one CPU core, over the same raw pages (scripts and
styles included), so peak RSS is its own and imports don't leak between
systems. Reports docs/s, ms/doc p50/p99 and peak RSS, as a table and JSON, and for
each backend the mean time of the metadata pass inside its extraction and
its share of the whole.

Any set of pages: ``--data``, ``--part``, ``--page-type`` (:mod:`service.commands.bench_pages`);
``--rounds N`` times them all N times and reads each speed-up within a round
(:mod:`service.commands.bench_rounds`).
``parse`` is the floor with the walk that serves (compiled where built), ``parse-python`` the same
with the pure-Python walk. ``--plot OUT.png`` draws word F1 against docs/s
(:mod:`service.commands.bench_plot`).

``--http`` load-tests a real server on 127.0.0.1 instead
(:mod:`service.commands.loadtest`, imported only then).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from service.arguments import cpu_core, input_file, input_folder, non_negative_int, output_file, positive_int
from service.commands.bench_pages import (
    PageSelectionError,
    add_page_arguments,
    child_arguments,
    selected_files,
    selected_pages,
)
from service.commands.bench_rounds import BenchRow, Round, format_speedups, median_rows, rotated
from service.commands.pages import load_pages, page_files
from service.errors import UsageError
from service.paths import default_data_dir
from service.runtime.heap import settle_heap

PARSE_FLOOR = "parse"
PARSE_PYTHON_FLOOR = "parse-python"  # the floor with the pure-Python walk, for the compiled walk's gain
FLOORS = {PARSE_FLOOR: "parse floor", PARSE_PYTHON_FLOOR: "parse floor, Python walk"}
WARMUP_PAGES = 20
STAGES = ("parse", "classify", "render", "metadata")  # the pipeline's own timings (Extraction.timings)
ENCODING_PAGES = 200  # pages for --input-encodings unless --limit says otherwise


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data",
        type=input_folder,
        default=None,
        help="a corpus in an eval layout, or a folder with html/ (default: dev pages)",
    )
    parser.add_argument("--backends", default="boilerpipe", help="comma-separated backend names")
    parser.add_argument("--backend", dest="backends", help="one backend (alias of --backends)")
    parser.add_argument("--peers", default="", help="comma-separated peers, e.g. trafilatura,resiliparse")
    parser.add_argument("--limit", type=non_negative_int, default=0, help="only the first N pages (0: all)")
    parser.add_argument("--core", type=cpu_core, default=0, help="the CPU core every system is pinned to")
    parser.add_argument(
        "--rounds",
        type=positive_int,
        default=1,
        help="time every system this many times, in rotated order; report each one's median round and each"
        " backend's speed-up over each peer within every round (min, median, max)",
    )
    parser.add_argument("--json", type=output_file, default=None, help="also write the results here")
    parser.add_argument("--plot", type=output_file, default=None, help="draw word F1 against docs/s into this PNG")
    parser.add_argument(
        "--eval",
        type=input_file,
        default=None,
        help="eval --json output with the word F1 for --plot (default: compute)",
    )
    parser.add_argument("--results", type=input_file, default=None, help="--plot a saved --json run instead of timing")
    add_page_arguments(parser)
    parser.add_argument(
        "--input-encodings", action="store_true", help="measure the BiLSTM's dense vs sparse input projection instead"
    )
    parser.add_argument(
        "--batch-curve",
        action="store_true",
        help="measure the BiLSTM's inference docs/s against batch size, on each provider here, instead",
    )
    parser.add_argument("--batch-sizes", default="1,2,4,8,16,32,64,128,256", help="batch sizes for --batch-curve")
    parser.add_argument(
        "--page-budget",
        action="store_true",
        help="report the corpus' most start tags and attribute names and what the page budget's check costs instead",
    )
    parser.add_argument(
        "--page-memory",
        action="store_true",
        help="report each backend's peak memory on one 9.8 MB page of 103,511 paragraphs instead (no corpus needed)",
    )
    parser.add_argument("--system", default=None, help=argparse.SUPPRESS)  # internal: run one system
    _add_http_arguments(parser)
    _add_warc_arguments(parser)


def _add_warc_arguments(parser: argparse.ArgumentParser) -> None:
    """``--make-warc`` and ``--warc-readers`` (:mod:`service.commands.warc_bench`)."""
    group = parser.add_argument_group("WARC inputs for the corpus command")
    group.add_argument("--make-warc", type=Path, default=None, help="write the pages as WARC.gz files into this folder")
    group.add_argument("--shards", type=int, default=4, help="how many WARC.gz files --make-warc writes")
    group.add_argument("--copies", type=int, default=1, help="how many times --make-warc writes every page")
    group.add_argument("--warc-readers", type=Path, default=None, help="time FastWARC and warcio reading this WARC")


def _add_http_arguments(parser: argparse.ArgumentParser) -> None:
    """``--http`` and its options (``--data``, ``--backends``, ``--limit``, ``--json`` shared; ``--core``: server)."""
    group = parser.add_argument_group("HTTP load test (--http)")
    group.add_argument("--http", action="store_true", help="load-test a real server on 127.0.0.1 instead")
    group.add_argument("--concurrency", default="1,8,64", help="comma-separated concurrency levels")
    group.add_argument("--requests", type=int, default=0, help="most requests per level (0: one per page)")
    group.add_argument("--duration", type=float, default=60.0, help="most seconds per level")
    group.add_argument("--workers", type=int, default=None, help="server worker processes (default EXTRACT_WORKERS)")
    group.add_argument("--server-cores", default=None, help="comma-separated cores for the server (default: --core)")
    group.add_argument("--client-core", type=int, default=1, help="core the load generator is pinned to")
    group.add_argument("--client", choices=("raw", "httpx"), default="raw", help="asyncio streams or httpx")
    group.add_argument(
        "--fresh-connections", action="store_true", help="a new connection per request (Connection: close)"
    )
    group.add_argument("--overload-limit", type=int, default=2, help="EXTRACT_MAX_IN_FLIGHT of the overload round")
    group.add_argument("--overload-requests", type=int, default=1000, help="requests in the overload round (0: none)")
    group.add_argument("--overload-concurrency", type=int, default=64, help="requests at once in the overload round")
    group.add_argument("--no-inprocess", action="store_true", help="skip the in-process comparison at concurrency 1")


def _system(name: str) -> Callable[[bytes], object]:
    """Bytes -> result callable for one system name."""
    if name in (PARSE_FLOOR, PARSE_PYTHON_FLOOR):
        from service.parsing.lexbor import parse_html  # noqa: PLC0415 - each child imports its system
        from service.parsing.walk import python_walk  # noqa: PLC0415

        return parse_html if name == PARSE_FLOOR else lambda page: parse_html(page, walk=python_walk)
    if name.startswith("peer:"):
        from service.backends.peers import get_peer  # noqa: PLC0415

        return get_peer(name.removeprefix("peer:"))
    from service.pipeline import default_extractor, warm_up  # noqa: PLC0415

    extractor = default_extractor()
    warm_up(extractor, [name])  # loaded and run once as the service does at start, not inside the timed loop
    return lambda page: extractor.extract(page, backend=name)


def measure(name: str, pages: list[bytes]) -> BenchRow:
    """Time one system over the pages in this process, warmed up and its heap settled as the service's is."""
    run = _system(name)
    for page in pages[:WARMUP_PAGES]:
        run(page)
    settle_heap()
    times = np.empty(len(pages))
    # each stage's own time inside a backend's extraction (the parse floors and the peers report none)
    stage_ms = {stage: np.zeros(len(pages)) for stage in STAGES}
    cpu_started = time.process_time()
    for i, page in enumerate(pages):
        started = time.perf_counter()
        result = run(page)
        times[i] = time.perf_counter() - started
        for stage, value in getattr(result, "timings", {}).items():
            if stage in stage_ms:
                stage_ms[stage][i] = value
    cpu_s = time.process_time() - cpu_started
    metadata_ms = stage_ms["metadata"]
    return {
        "system": name,
        "pages": len(pages),
        "docs_per_s": len(pages) / float(times.sum()),
        # CPU time is the steadier figure where other jobs share the core: they stretch wall time only
        "docs_per_cpu_s": len(pages) / cpu_s,
        "ms_p50": float(np.percentile(times, 50) * 1e3),
        "ms_p99": float(np.percentile(times, 99) * 1e3),
        "ms_mean": float(times.mean() * 1e3),
        "metadata_ms_mean": float(metadata_ms.mean()),
        "metadata_share": float(metadata_ms.sum() / (times.sum() * 1e3)),
        "stage_ms_mean": {stage: float(ms.mean()) for stage, ms in stage_ms.items()},
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _run_child(name: str, args: argparse.Namespace, data_dir: Path) -> BenchRow:
    command = [sys.executable, "-m", "service", "bench", "--system", name, "--data", str(data_dir)]
    command += ["--limit", str(args.limit), "--core", str(args.core), *child_arguments(args)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench of {name} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def format_table(rows: list[BenchRow]) -> str:
    header = f"{'system':<22}{'docs/s':>10}{'docs/CPU-s':>12}{'ms p50':>10}{'ms p99':>10}{'peak RSS MB':>13}"
    header += f"{'metadata ms':>13}{'share':>8}"
    lines = [header, "-" * len(header)]
    for row in rows:
        share = float(row.get("metadata_share", 0.0))
        metadata = f"{row.get('metadata_ms_mean', 0.0):>13.2f}{share:>8.1%}" if share else f"{'-':>13}{'-':>8}"
        lines.append(
            f"{row['system']!s:<22}{row['docs_per_s']:>10.1f}{row['docs_per_cpu_s']:>12.1f}{row['ms_p50']:>10.2f}"
            f"{row['ms_p99']:>10.2f}{row['peak_rss_mb']:>13.0f}{metadata}"
        )
    return "\n".join(lines)


def format_stages(rows: list[BenchRow]) -> str:
    """Where each backend's time goes: the mean milliseconds a page of every pipeline stage; '' for none."""
    staged = [row for row in rows if any(row.get("stage_ms_mean", {}).values())]
    if not staged:
        return ""
    header = f"{'stage ms, mean a page':<22}" + "".join(f"{stage:>10}" for stage in STAGES) + f"{'other':>10}"
    lines = [header, "-" * len(header)]
    for row in staged:
        means = row["stage_ms_mean"]
        other = float(row["ms_mean"]) - sum(means.values())  # whole paragraphs, pruning, the readable score
        lines.append(f"{row['system']!s:<22}" + "".join(f"{means[s]:>10.2f}" for s in STAGES) + f"{other:>10.2f}")
    return "\n".join(lines)


def _check_names(backends: list[str], peers: list[str]) -> None:
    """Unknown names are refused before any system is timed (each is timed in a child, which would fail late)."""
    from service.backends.peers import PEER_NAMES  # noqa: PLC0415 - the parent only: children import what they time
    from service.backends.registry import default_registry  # noqa: PLC0415

    default_registry().check(backends)
    for name in peers:
        if name not in PEER_NAMES:
            raise UsageError(f"unknown peer {name!r}; known peers: {', '.join(PEER_NAMES)}")


def run(args: argparse.Namespace) -> int:
    data_dir = args.data or default_data_dir()
    if args.system:  # child: pinned, measures one system, prints JSON
        os.sched_setaffinity(0, {args.core})
        threadpool_limits(1, user_api="blas")  # one core: more BLAS threads would only take turns on it
        print(json.dumps(measure(args.system, selected_pages(data_dir, args)[0])))
        return 0
    if args.page_memory:  # a page of its own making: no corpus needed
        return _bench_page_memory(args)
    if args.plot and args.results:
        from service.commands.bench_plot import plot_saved  # noqa: PLC0415 - matplotlib only when asked

        return plot_saved(args, FLOORS, data_dir)
    if not (data_dir / "html").is_dir():
        print(f"error: no corpus at {data_dir} (give --data or set EXTRACT_DATA_DIR)", file=sys.stderr)
        return 2
    try:
        described = selected_files(data_dir, args)[1]
    except PageSelectionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.input_encodings:
        return _bench_encodings(data_dir, args)
    if args.page_budget:
        return _bench_page_budget(data_dir, args)
    if args.batch_curve:
        return _bench_batch_curve(data_dir, args)
    if args.make_warc or args.warc_readers:
        return _bench_warc(data_dir, args)
    if args.http:
        from service.commands.loadtest import run as run_http  # noqa: PLC0415 - httpx and asyncio only when asked

        return run_http(args, data_dir, _cpu_model())
    backends = [n for n in args.backends.split(",") if n]
    peer_names = [n for n in args.peers.split(",") if n]
    _check_names(backends, peer_names)
    peers = [f"peer:{n}" for n in peer_names]
    names = [*FLOORS, *backends, *peers]
    rounds: list[Round] = []
    for number in range(args.rounds):
        timed = {}
        for name in rotated(names, number):
            print(f"bench: {name} (round {number + 1}/{args.rounds}) ...", file=sys.stderr, flush=True)
            timed[name] = _run_child(name, args, data_dir)
        rounds.append(timed)
    rows = median_rows(rounds, names)
    cpu = _cpu_model()
    counted = f"{args.rounds} rounds, each system's median round" if args.rounds > 1 else "one round"
    print(f"# {rows[0]['pages']} pages of {described}, one process per system pinned to core {args.core}; {counted}")
    print(f"# {cpu}")
    print(format_table(rows))
    for extra in (format_stages(rows), format_speedups(rounds, backends, peers)):
        if extra:
            print(f"\n{extra}")
    if args.json:
        record = {"cpu": cpu, "data": str(data_dir), "pages": described, "results": rows, "rounds": rounds}
        args.json.write_text(json.dumps(record, indent=2))
    if args.plot:
        from service.commands.bench_plot import plot_command  # noqa: PLC0415 - matplotlib only when asked

        return plot_command(rows, FLOORS, args, data_dir, f"{rows[0]['pages']} pages of {described}; {cpu}")
    return 0


def _bench_encodings(data_dir: Path, args: argparse.Namespace) -> int:
    from service.commands.encodings import measure_encodings  # noqa: PLC0415 - needs the onnx package
    from service.parsing.lexbor import parse_html  # noqa: PLC0415

    os.sched_setaffinity(0, {args.core})
    documents = [parse_html(page) for page in load_pages(data_dir, args.limit or ENCODING_PAGES)]
    rows = measure_encodings(documents)
    print(f"# median ms per page over {len(documents)} pages, one thread pinned to core {args.core}; {_cpu_model()}")
    print(f"{'units':>6}{'dense MatMul':>14}{'sparse Gather+Scatter':>23}{'build dense':>13}")
    for row in rows:
        print(f"{row['units']:>6}{row['dense_ms']:>14.3f}{row['sparse_ms']:>23.3f}{row['build_dense_ms']:>13.3f}")
    if args.json:
        args.json.write_text(json.dumps({"cpu": _cpu_model(), "input_encodings": rows}, indent=2))
    return 0


def _bench_batch_curve(data_dir: Path, args: argparse.Namespace) -> int:
    from service.backends.bilstm import ARTICLE_MODEL, VARIANTS  # noqa: PLC0415 - loads the models' code
    from service.commands.batch_curve import format_curve, measure_curve  # noqa: PLC0415

    sizes = [int(size) for size in args.batch_sizes.split(",") if size]
    pages, described = selected_pages(data_dir, args)
    # --backend bilstm_paper, say, or bilstm_article (the model bilstm reads on article pages)
    model = args.backends if args.backends in (*VARIANTS, ARTICLE_MODEL) else "bilstm"
    result = measure_curve(pages, sizes, model)
    print(
        f"# {model}'s inference alone over {result['pages']} pages of {described} ({result['blocks']} blocks); "
        f"{_cpu_model()}"
    )
    print(format_curve(result))
    if args.json:
        args.json.write_text(json.dumps({"cpu": _cpu_model(), "data": described, **result}, indent=2))
    return 0


def _bench_page_memory(args: argparse.Namespace) -> int:
    from service.commands.page_memory import big_page, measure, print_report  # noqa: PLC0415

    page = big_page()
    backends = [n for n in args.backends.split(",") if n]
    _check_names(backends, [])
    results = measure(backends, page)
    print_report(results, len(page))
    if args.json:
        args.json.write_text(json.dumps({"cpu": _cpu_model(), "page_memory": results}, indent=2))
    return 0


def _bench_page_budget(data_dir: Path, args: argparse.Namespace) -> int:
    from service.commands.page_budget import print_report, report  # noqa: PLC0415

    os.sched_setaffinity(0, {args.core})
    result = report(load_pages(data_dir, args.limit), [f.name for f in page_files(data_dir, args.limit)])
    print_report(result, data_dir)
    print(f"# one process pinned to core {args.core}; {_cpu_model()}")
    if args.json:
        args.json.write_text(json.dumps({"cpu": _cpu_model(), "page_budget": asdict(result)}, indent=2))
    return 0


def _bench_warc(data_dir: Path, args: argparse.Namespace) -> int:
    from service.commands.warc_bench import make_warcs, measure_readers  # noqa: PLC0415 - warcio, fastwarc

    if args.make_warc:
        paths = make_warcs(load_pages(data_dir, args.limit), args.make_warc, args.shards, args.copies)
        megabytes = sum(p.stat().st_size for p in paths) / 1e6
        print(f"# wrote {len(paths)} WARC.gz files, {megabytes:.1f} MB, in {args.make_warc}")
    if args.warc_readers:
        os.sched_setaffinity(0, {args.core})
        print(f"# {args.warc_readers}: best of 3, one process pinned to core {args.core}; {_cpu_model()}")
        print(f"{'reader':<10}{'seconds':>10}{'MB/s':>10}")
        for row in measure_readers(args.warc_readers):
            print(f"{row['reader']!s:<10}{row['seconds']:>10.3f}{row['mb_per_s']:>10.1f}")
    return 0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"
