"""Plain-text tables of an evaluation run: the overview, word-F1 by page type, and BoilerNet's layout."""

from __future__ import annotations

from collections.abc import Mapping

from service.evaluation.evaluate import SystemResult
from service.evaluation.metrics import PRF

_MISSING = "-"


def _number(value: float | None, width: int, digits: int = 3) -> str:
    return f"{value:>{width}.{digits}f}" if value is not None else f"{_MISSING:>{width}}"


def overview(results: Mapping[str, SystemResult]) -> str:
    """One row per system: every metric's headline figure and ms/doc."""
    header = (
        f"{'system':<14}{'kind':<9}{'pages':>6}{'word P':>8}{'word R':>8}{'word F1':>9}{'with':>7}{'w/o kept':>9}"
        f"{'shingle F1':>11}{'token F1':>9}{'LCS F1':>8}{'block F1+':>10}{'block F1-':>10}{'ms/doc':>9}{'failed':>7}"
    )
    lines = [header, "-" * len(header)]
    for result in results.values():
        s = result.summary
        positive = s.blocks.positive.f1 if s.blocks is not None else None
        negative = s.blocks.negative.f1 if s.blocks is not None else None
        lines.append(
            f"{result.name:<14}{result.kind:<9}{s.pages:>6}{s.word.precision:>8.3f}{s.word.recall:>8.3f}"
            f"{s.word.f1:>9.3f}{_number(s.with_found, 7)}{_number(s.without_kept, 9)}{s.shingle.f1:>11.3f}"
            f"{s.token.f1:>9.3f}{s.lcs.f1:>8.3f}{_number(positive, 10)}"
            f"{_number(negative, 10)}{result.ms_per_doc:>9.2f}{len(result.failures):>7}"
        )
    return "\n".join(lines)


def by_page_type(results: Mapping[str, SystemResult]) -> str:
    """Word-F1 per page type, one column per type (with its page count)."""
    types = sorted({name for result in results.values() for name in result.by_type})
    first = next(iter(results.values()))
    counts = {name: first.by_type[name].pages if name in first.by_type else 0 for name in types}
    columns = [f"{name} ({counts[name]})" for name in types]
    widths = [max(len(c) + 2, 8) for c in columns]
    header = f"{'word F1':<14}" + "".join(f"{c:>{w}}" for c, w in zip(columns, widths, strict=True))
    lines = [header, "-" * len(header)]
    for result in results.values():
        cells = [
            _number(result.by_type[name].word.f1 if name in result.by_type else None, width)
            for name, width in zip(types, widths, strict=True)
        ]
        lines.append(f"{result.name:<14}" + "".join(cells))
    return "\n".join(lines)


def kept_table(results: Mapping[str, SystemResult]) -> str:
    """What each system's kept text is made of: cut paragraphs, link text, hidden text."""
    header = f"{'system':<14}{'cut paragraphs':>16}{'pages with cuts':>17}{'link text':>11}{'hidden':>9}"
    lines = [header, "-" * len(header)]
    for result in results.values():
        kept = result.summary.kept
        if kept is None:
            continue
        lines.append(
            f"{result.name:<14}{kept.cut_paragraphs:>16}{kept.pages_with_cuts:>17}"
            f"{_number(kept.link_share, 11)}{_number(kept.hidden_share, 9)}"
        )
    return "\n".join(lines)


def block_table(results: Mapping[str, SystemResult]) -> str:
    """Block-level P/R/F1 for both classes, laid out like BoilerNet's Tables 1-2."""
    header = f"{'':<14}{'Negative class':^24}{'Positive class':^24}"
    columns = f"{'system':<14}" + f"{'P':>8}{'R':>8}{'F1':>8}" * 2
    lines = [header, columns, "-" * len(columns)]
    for result in results.values():
        blocks = result.summary.blocks
        if blocks is None:
            continue
        lines.append(f"{result.name:<14}{_prf(blocks.negative)}{_prf(blocks.positive)}")
    return "\n".join(lines)


def _prf(score: PRF) -> str:
    return f"{score.precision:>8.3f}{score.recall:>8.3f}{score.f1:>8.3f}"
