"""``python -m service eval``: our backends and the peers side by side on an annotated corpus.

Also the entry to the oracle report (``--oracle``), the quality-gate floors
(``--update-floors``) and the committed split (``--make-split``). Figures on
the WCXB dev pages credit WCXB (Murrough Foley 2026, CC-BY-4.0).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from threadpoolctl import threadpool_limits

from service.arguments import input_folder, number_list, output_file
from service.backends.peers import PEER_NAMES, PeerUnavailable
from service.evaluation import favor, gate, metadata_eval, oracle, tables
from service.evaluation.datasets import AUTO_LAYOUT, LAYOUTS, Corpus, CorpusError, Page, load_corpus
from service.evaluation.evaluate import System, backend_system, evaluate, peer_system
from service.evaluation.split import ALL_PARTS, PARTS, SEED, Split, SplitError, committed_split_path, make_split, select
from service.paths import default_check_data_dir, default_data_dir
from service.pipeline import Extractor, default_extractor

ALL = "all"
NONE = "none"
DEFAULT_WORST = 20
USAGE_ERROR = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data",
        type=input_folder,
        default=None,
        help="corpus directory (default: EXTRACT_DATA_DIR, else ../shared/data/wcxb-dev)",
    )
    parser.add_argument(
        "--layout", choices=(AUTO_LAYOUT, *LAYOUTS), default=AUTO_LAYOUT, help="corpus layout (default: detected)"
    )
    parser.add_argument(
        "--part", choices=(*PARTS, ALL_PARTS), default="test", help="which part of the split (default: test)"
    )
    parser.add_argument(
        "--split",
        type=Path,
        default=None,
        help="split JSON (default: the committed one for the corpus); with --make-split, where to write it",
    )
    parser.add_argument("--backends", default=ALL, help="comma-separated backends, 'all' or 'none' (default: all)")
    parser.add_argument("--peers", default="", help=f"comma-separated peers or 'all': {','.join(PEER_NAMES)}")
    parser.add_argument(
        "--check-data",
        default=None,
        help="a corpus unlike the training pages, evaluated whole beside the main one in the same run, or 'none' "
        "(default: EXTRACT_CHECK_DATA_DIR, else ../shared/data/dragnet-2012 when it is there)",
    )
    parser.add_argument("--json", type=output_file, default=None, help="also write every score here")
    parser.add_argument(
        "--oracle", action="store_true", help="score the alignment labels themselves and explain the losses"
    )
    parser.add_argument("--worst", type=int, default=DEFAULT_WORST, help="pages listed by --oracle")
    parser.add_argument(
        "--update-floors", action="store_true", help="raise the quality-gate floors from a run on the test part"
    )
    parser.add_argument(
        "--allow-lower", action="store_true", help="let --update-floors lower a floor or re-pin on a new corpus"
    )
    parser.add_argument(
        "--floors", type=Path, default=gate.FLOORS_PATH, help="floors file (default: service/evaluation/floors.json)"
    )
    parser.add_argument(
        "--favor-sweep",
        action="store_true",
        help="word P/R/F1 of each backend at each threshold shift, and the shifts favor would choose",
    )
    parser.add_argument(
        "--shifts",
        type=number_list,
        default=",".join(f"{s:g}" for s in favor.DEFAULT_SHIFTS),
        help="comma-separated threshold shifts for --favor-sweep",
    )
    parser.add_argument(
        "--article-sweep",
        action="store_true",
        help="word P/R/F1 of each backend with its threshold shifted on the pages taken for articles only",
    )
    parser.add_argument(
        "--other-sweep",
        action="store_true",
        help="the same on the pages taken for anything but articles (listings, services, documentation, ...)",
    )
    parser.add_argument(
        "--metadata",
        action="store_true",
        help="score title, author, publication date and page type against the gold, beside trafilatura's metadata",
    )
    parser.add_argument(
        "--misses", type=int, default=0, help="with --metadata: list up to N of the service's misses per field"
    )
    parser.add_argument("--make-split", action="store_true", help="(re)write the split of the corpus deterministically")
    parser.add_argument("--seed", type=int, default=SEED, help="seed for --make-split")


def run(args: argparse.Namespace) -> int:
    # One BLAS thread, as the server and bench run: the ms/doc column is then comparable with theirs
    # (grf's graph took 4 to 8 times as long with two OpenBLAS threads on a busy 2-core machine).
    threadpool_limits(1, user_api="blas")
    try:
        corpus = load_corpus(args.data or default_data_dir(), args.layout)
        if args.make_split:
            return _make_split(corpus, args)
        split = _split_for(corpus, args.split)
        if args.update_floors:
            return _update_floors(corpus, select(corpus, gate.GATE_PART, split), args)
        pages = select(corpus, args.part, split)
        if args.favor_sweep:
            return _favor_sweep(corpus, args.part, pages, args)
        if args.article_sweep or args.other_sweep:
            return _page_type_sweep(corpus, args.part, pages, args)
        if args.metadata:
            return _metadata_report(corpus, args.part, pages, args.json, args.misses)
        if args.oracle:
            cases = oracle.run_oracle(pages)
            print(f"# {_describe(corpus, args.part, len(pages))}")
            print(oracle.format_report(cases, args.worst))
            return 0
        check = _check_corpus(args.check_data, corpus)
        systems = _systems(args.backends, args.peers, corpus)
        check_systems = _systems(args.backends, args.peers, check) if check is not None else []
    except (CorpusError, SplitError, PeerUnavailable, gate.FloorLowered) as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_ERROR
    if not systems:
        print("error: nothing to evaluate (give --backends or --peers)", file=sys.stderr)
        return USAGE_ERROR
    record: dict[str, object] = _report(corpus, args.part, pages, systems)
    if check is not None:
        print()
        record["check"] = _report(check, ALL_PARTS, list(check.pages), check_systems)
    if args.json:
        args.json.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0


def _report(corpus: Corpus, part: str, pages: list[Page], systems: list[System]) -> dict[str, object]:
    """Evaluate, print the tables, and return the JSON record of one corpus."""
    results = evaluate(pages, systems)
    print(f"# {_describe(corpus, part, len(pages))}; ms/doc from raw bytes to text, one process, same run")
    print(tables.overview(results))
    print("\n" + tables.by_page_type(results))
    print("\nKept text: paragraphs partly kept, and the share of kept tokens that are link text or hidden")
    print(tables.kept_table(results))
    print("\nBlock level, gold = alignment labels; peers' text projected onto our blocks by the same alignment")
    print(tables.block_table(results))
    record: dict[str, object] = {"corpus": corpus.name, "credit": corpus.credit, "part": part, "pages": len(pages)}
    record["systems"] = {name: result.as_dict() for name, result in results.items()}
    return record


def _metadata_report(corpus: Corpus, part: str, pages: list[Page], json_path: Path | None, misses: int = 0) -> int:
    """``--metadata``: the service's metadata and trafilatura's, page by page in one run."""
    systems = {"ours": metadata_eval.ours(default_extractor().metadata)}
    try:
        systems["trafilatura"] = metadata_eval.trafilatura_metadata()
    except ImportError:
        print("note: trafilatura is not installed (the eval extra); scoring ours alone", file=sys.stderr)
    scores = metadata_eval.evaluate_metadata(pages, systems)
    print(f"# {_describe(corpus, part, len(pages))}; metadata, same run")
    print(metadata_eval.format_table(scores))
    if misses > 0:
        print("\n# the service's misses (page, said, gold)")
        print(metadata_eval.format_misses(scores["ours"], misses))
    if json_path:
        record = {"corpus": corpus.name, "credit": corpus.credit, "part": part, "pages": len(pages)}
        record["metadata"] = {name: score.as_dict() for name, score in scores.items()}
        json_path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0


def _check_corpus(spec: str | None, main: Corpus) -> Corpus | None:
    """The corpus evaluated beside the main one: the one named, else the default where it exists."""
    if spec == NONE:
        return None
    root = Path(spec) if spec else default_check_data_dir()
    if spec is None and not root.is_dir():
        return None
    check = load_corpus(root)
    return None if check.root.resolve() == main.root.resolve() else check


def _describe(corpus: Corpus, part: str, pages: int) -> str:
    credit = f"; {corpus.credit}" if corpus.credit else ""
    return f"{pages} pages of {corpus.name} ({part} part){credit}"


def _split_for(corpus: Corpus, given: Path | None) -> Split | None:
    """The split given (a :class:`SplitError` where it cannot be read), else the committed one, else None.

    Without a split only --part all works.
    """
    path = given or committed_split_path(corpus.name)
    if given is None and not path.is_file():
        return None
    split = Split.read(path)
    if split.corpus_digest != corpus.digest():
        print(f"warning: {path} was made for another version of {corpus.name}", file=sys.stderr)
    return split


def _backend_names(extractor: Extractor, spec: str) -> list[str]:
    """``all``, ``none`` or a comma-separated list of registered backends."""
    return extractor.registry.names() if spec == ALL else [n for n in spec.split(",") if n and n != "none"]


def _systems(backends: str, peers: str, corpus: Corpus) -> list[System]:
    extractor = default_extractor()
    systems = [backend_system(extractor, name) for name in _backend_names(extractor, backends)]
    peer_names = PEER_NAMES if peers == ALL else [n for n in peers.split(",") if n]
    return systems + [peer_system(name, comments=corpus.comments_are_content) for name in peer_names]


def _update_floors(corpus: Corpus, pages: list[Page], args: argparse.Namespace) -> int:
    extractor = default_extractor()
    measured = gate.measure(pages, extractor, _backend_names(extractor, args.backends))
    digest = corpus.digest()
    floors = gate.Floors.read(args.floors) if args.floors.is_file() else gate.Floors(corpus.name, digest)
    updated = gate.raise_floors(floors, measured.word_f1, digest, allow_lower=args.allow_lower)
    updated.write(args.floors)
    for name, f1 in sorted(measured.word_f1.items()):
        before = floors.floors.get(name)
        was = f"{before:.4f}" if before is not None else "none"
        now = updated.floors[name]
        cuts = measured.cut_paragraphs[name]
        figures = f"{gate.GATE_METRIC} {f1:.4f} on {len(pages)} pages, {cuts} cut paragraphs"
        print(f"{name}: {figures}; floor {was} -> {now:.4f}")
    print(f"wrote {args.floors}")
    return 0


def _favor_sweep(corpus: Corpus, part: str, pages: list[Page], args: argparse.Namespace) -> int:
    extractor = default_extractor()
    shifts = sorted({*args.shifts, 0.0})
    rows = favor.sweep(pages, extractor, _backend_names(extractor, args.backends), shifts)
    print(f"# {_describe(corpus, part, len(pages))}; mean word scores over the pages with gold text")
    print(favor.format_sweep(rows))
    return 0


def _page_type_sweep(corpus: Corpus, part: str, pages: list[Page], args: argparse.Namespace) -> int:
    extractor = default_extractor()
    backends = _backend_names(extractor, args.backends)
    if args.article_sweep:
        rows = favor.article_sweep(pages, extractor, backends, favor.ARTICLE_SHIFTS_TRIED)
    else:
        rows = favor.other_sweep(pages, extractor, backends, favor.OTHER_SHIFTS_TRIED)
    print(f"# {_describe(corpus, part, len(pages))}; mean word scores over the pages with gold text")
    print(favor.format_page_type_sweep(rows))
    return 0


def _make_split(corpus: Corpus, args: argparse.Namespace) -> int:
    split = make_split(corpus, args.seed)
    path = args.split or committed_split_path(corpus.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(split.to_json(corpus.credit), encoding="utf-8")
    types = {page.id: page.page_type for page in corpus.pages}
    for part, ids in split.parts.items():
        counts: dict[str, int] = {}
        for page_id in ids:
            counts[types[page_id]] = counts.get(types[page_id], 0) + 1
        print(f"{part:<11}{len(ids):>6} pages  " + "  ".join(f"{t} {n}" for t, n in sorted(counts.items())))
    print(f"wrote {path}")
    return 0
