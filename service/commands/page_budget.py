"""The figures behind the page budget's defaults (``bench --page-budget``).

What the corpus asks of the parser (the most start tags and distinct attribute names of any page),
what the budget's count costs beside the parse (per page, with and without it, interleaved on the
same pages) and what its attribute-name scan costs alone (Python, and compiled where built), and why
attribute names have a budget at all: Lexbor's parse time for one page of N distinct attribute names
against N times the same name. The same for options: the most of any page, and Lexbor's time for one
``<select>`` of N options against the same options in groups of ten (``<optgroup>``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from service.parsing.budget import (
    PageBudget,
    compiled_count_attribute_names,
    count_attribute_names,
    count_options,
    count_start_tags,
    lexbor_parse_only,
    python_count_attribute_names,
)
from service.parsing.decode import to_utf8
from service.parsing.lexbor import parse_html

SYNTHETIC_NAMES = (5_000, 10_000, 20_000)
SYNTHETIC_OPTIONS = (5_000, 10_000, 20_000)
OPTION_GROUP = 10
REPEATS = 3


def _seconds(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


@dataclass(frozen=True)
class BudgetReport:
    """What ``bench --page-budget`` found."""

    pages: int
    most_start_tags: tuple[int, str]  # count, page
    most_attribute_names: tuple[int, str]
    median_attribute_names: float
    parse_ms_per_page: float
    parse_with_budget_ms_per_page: float
    scan_ms_per_page: dict[str, float]  # the attribute-name scan alone: "python", and "compiled" where built
    lexbor_s: dict[int, tuple[float, float]]  # names -> (distinct names, one name) seconds
    most_options: tuple[int, str]
    lexbor_options_s: dict[int, tuple[float, float]]  # options -> (one select, groups of OPTION_GROUP) seconds


def report(
    pages: list[bytes],
    names: list[str],
    synthetic: tuple[int, ...] = SYNTHETIC_NAMES,
    synthetic_options: tuple[int, ...] = SYNTHETIC_OPTIONS,
) -> BudgetReport:
    """The corpus maxima, the cost of the budget check, and Lexbor's cost of distinct attribute names and options."""
    utf8 = [to_utf8(page)[0] for page in pages]
    tags = [count_start_tags(page) for page in utf8]
    attribute_names = [count_attribute_names(page) for page in utf8]
    budget = PageBudget()
    plain = checked = 0.0
    for page in pages:  # the median of a few runs of each, interleaved, so load hits both alike
        plain += statistics.median(_seconds(partial(parse_html, page)) for _ in range(REPEATS))
        checked += statistics.median(_seconds(partial(parse_html, page, budget=budget)) for _ in range(REPEATS))
    scans: dict[str, Callable[[bytes], int]] = {"python": python_count_attribute_names}
    if compiled_count_attribute_names is not None:
        scans["compiled"] = compiled_count_attribute_names
    scan_s = dict.fromkeys(scans, 0.0)
    for page in utf8:  # interleaved too
        for name, scan in scans.items():
            scan_s[name] += statistics.median(_seconds(partial(scan, page)) for _ in range(REPEATS))
    lexbor = {}
    for count in synthetic:
        distinct = b"".join(b"<b a%d>" % i for i in range(count))
        same = b"<b a>" * count
        lexbor[count] = (_seconds(partial(lexbor_parse_only, distinct)), _seconds(partial(lexbor_parse_only, same)))
    options = [count_options(page) for page in utf8]
    lexbor_options = {}
    for count in synthetic_options:
        one = b"<select>" + b"<option>x</option>" * count + b"</select>"
        group = b"<optgroup>" + b"<option>x</option>" * OPTION_GROUP + b"</optgroup>"
        grouped = b"<select>" + group * (count // OPTION_GROUP) + b"</select>"
        lexbor_options[count] = (
            _seconds(partial(lexbor_parse_only, one)),
            _seconds(partial(lexbor_parse_only, grouped)),
        )
    most_options = max(range(len(pages)), key=options.__getitem__)
    most_tags = max(range(len(pages)), key=tags.__getitem__)
    most_names = max(range(len(pages)), key=attribute_names.__getitem__)
    return BudgetReport(
        pages=len(pages),
        most_start_tags=(tags[most_tags], names[most_tags]),
        most_attribute_names=(attribute_names[most_names], names[most_names]),
        median_attribute_names=statistics.median(attribute_names),
        parse_ms_per_page=1e3 * plain / len(pages),
        parse_with_budget_ms_per_page=1e3 * checked / len(pages),
        scan_ms_per_page={name: 1e3 * seconds / len(pages) for name, seconds in scan_s.items()},
        lexbor_s=lexbor,
        most_options=(options[most_options], names[most_options]),
        lexbor_options_s=lexbor_options,
    )


def print_report(result: BudgetReport, data_dir: Path) -> None:
    print(f"# {result.pages} pages from {data_dir}")
    print("most start tags: {} ({})".format(*result.most_start_tags))
    print("most distinct attribute names: {} ({}); median {}".format(*result.most_attribute_names,
          result.median_attribute_names))  # fmt: skip
    print(
        f"parse: {result.parse_ms_per_page:.2f} ms/page; "
        f"with the budget check: {result.parse_with_budget_ms_per_page:.2f} ms/page"
    )
    print(
        "attribute-name scan alone: "
        + "; ".join(f"{name} {ms:.3f} ms/page" for name, ms in result.scan_ms_per_page.items())
    )
    for count, (distinct, same) in result.lexbor_s.items():
        print(f"Lexbor, {count} elements: {distinct:.3f} s with distinct attribute names, {same:.3f} s with one")
    print("most <option>s: {} ({})".format(*result.most_options))
    for count, (one, grouped) in result.lexbor_options_s.items():
        print(f"Lexbor, {count} options: {one:.3f} s in one <select>, {grouped:.3f} s in groups of {OPTION_GROUP}")
