"""The oracle: extract exactly the blocks the alignment labels content, and say why it falls short.

Its word-F1 is the ceiling any block classifier can reach on our blocks
with these labels, and a check of the labels themselves. Each page's loss
is split, in gold tokens, into causes:

- ``not in HTML``: gold words the fetched page does not contain at all;
- ``only in scripts/attributes``: gold words in the source but in no text
  block (client-rendered JSON, ``content=`` attributes, image alt text);
- ``partial blocks``: gold words inside blocks less than half gold (a block
  is all-or-nothing: a long block the annotators cut short);
- ``order differs``: gold words in the page that the monotone alignment
  skips (sections in another order than the gold, repeated text);
- ``extra words``: words of labeled blocks that are not gold (precision).

The page's main cause is the largest of these. Pages whose labeled content
sits mostly inside ``<noscript>`` are counted too: our parser keeps it (some
forum software serves its posts only there), so they are no loss, but
they are where a parser that drops ``<noscript>`` would fail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from service.evaluation.datasets import Page
from service.evaluation.labels import LabelCache, labels_for
from service.evaluation.metrics import PRF, word_prf, word_tokens
from service.evaluation.progress import Progress
from service.features.alignment import aligned_tokens
from service.output.formats import render_text
from service.parsing.lexbor import parse_html

CAUSES = ("not in HTML", "only in scripts/attributes", "partial blocks", "order differs", "extra words")
NO_LOSS = "none"
WEAK_PAGE_F1 = 0.9  # pages below this are counted per cause in the report
NOSCRIPT_MAJORITY = 0.5  # a page "lives in <noscript>" when more than this share of its content blocks do


@dataclass(frozen=True, slots=True)
class OracleCase:
    """The oracle on one page: its score and the gold tokens lost to each cause."""

    page: Page
    word: PRF
    losses: dict[str, int]
    in_noscript: bool  # most of its labeled blocks are inside <noscript>

    @property
    def cause(self) -> str:
        cause, lost = max(self.losses.items(), key=lambda item: item[1])
        return cause if lost else NO_LOSS


def oracle_case(page: Page, cache: LabelCache | None = None) -> OracleCase | None:
    """Score the oracle on one page and attribute its loss; None for a page without gold text."""
    gold = word_tokens(page.main_content)
    if not gold:
        return None
    html = page.html()
    document = parse_html(html)
    labels = labels_for(page, document, cache=cache)
    predicted = word_tokens(render_text(document, labels))
    block_tokens = [word_tokens(text) for text in document.texts]
    page_tokens = [t for tokens in block_tokens for t in tokens]
    gold_counts, page_counts = Counter(gold), Counter(page_tokens)
    not_in_page = gold_counts - page_counts
    in_source = sum((not_in_page & Counter(word_tokens(html.decode("utf-8", "replace")))).values())
    lengths = np.fromiter((len(t) for t in block_tokens), dtype=np.int64, count=len(block_tokens))
    token_labels = np.repeat(labels, lengths)
    partial = int(np.count_nonzero(aligned_tokens(page_tokens, gold) & ~token_labels))
    missed = sum((gold_counts - Counter(predicted)).values())
    absent = sum(not_in_page.values())
    losses = {
        "not in HTML": absent - in_source,
        "only in scripts/attributes": in_source,
        "partial blocks": partial,
        "order differs": max(missed - absent - partial, 0),
        "extra words": sum((Counter(predicted) - gold_counts).values()),
    }
    noscript = sum("noscript" in document.tag_paths[i] for i in np.flatnonzero(labels).tolist())
    in_noscript = noscript > NOSCRIPT_MAJORITY * max(int(labels.sum()), 1)
    return OracleCase(page=page, word=word_prf(predicted, gold), losses=losses, in_noscript=in_noscript)


def run_oracle(
    pages: Sequence[Page], cache: LabelCache | None = None, progress: bool | None = None
) -> list[OracleCase]:
    """The oracle over ``pages`` (those without gold text are skipped)."""
    cases = []
    with Progress(len(pages), "oracle", enabled=progress) as bar:
        for page in pages:
            case = oracle_case(page, cache)
            if case is not None:
                cases.append(case)
            bar.advance()
    return cases


def format_report(cases: Sequence[OracleCase], worst: int, credit: str = "") -> str:
    """The oracle's mean word P/R/F1, F1 lost per cause, and the worst pages with their cause."""
    mean = PRF.mean([c.word for c in cases])
    lines = [
        f"oracle (exactly the aligned blocks): word P {mean.precision:.4f}  R {mean.recall:.4f}  F1 {mean.f1:.4f}"
        f"  over {len(cases)} pages with gold text" + (f"  [{credit}]" if credit else ""),
        "",
        f"{'main cause':<30}{'pages':>7}{f'F1<{WEAK_PAGE_F1}':>8}{'F1 lost':>10}",
    ]
    for cause in (*CAUSES, NO_LOSS):
        mine = [c for c in cases if c.cause == cause]
        weak = sum(c.word.f1 < WEAK_PAGE_F1 for c in mine)
        lost = sum(1 - c.word.f1 for c in mine) / len(cases) if cases else 0.0
        lines.append(f"{cause:<30}{len(mine):>7}{weak:>8}{lost:>10.4f}")
    noscript = sum(c.in_noscript for c in cases)
    lines += ["", f"pages whose content is inside <noscript> (kept by our parser): {noscript}"]
    lines += ["", f"worst {worst} pages:", f"{'id':<10}{'type':<15}{'domain':<34}{'P':>7}{'R':>7}{'F1':>7}  cause"]
    for case in sorted(cases, key=lambda c: (c.word.f1, c.page.id))[:worst]:
        page = case.page
        lines.append(
            f"{page.id:<10}{page.page_type:<15}{page.domain[:33]:<34}"
            f"{case.word.precision:>7.3f}{case.word.recall:>7.3f}{case.word.f1:>7.3f}  {case.cause}"
        )
    return "\n".join(lines)
