"""The corpus engine on the batched path: where the settings batch the BiLSTM, a batch's pages share inference calls.

On the CPU a batcher is there only when ``EXTRACT_BATCH_MAX_SIZE`` asks for one (on a GPU
provider it is the default); either way every row must be what the page-by-page path writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import pytest

from support.corpus_inputs import article, jsonl, output_rows, run_corpus

pytest.importorskip("pyarrow", reason="the corpus extra: pip install -e '.[corpus]'")

from service.corpus.batch import BatchExtractor, Options
from service.corpus.pages import NOT_HTML, Page

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

BACKEND = "bilstm"  # a batched backend
BATCH = 8


def pages() -> list[Page]:
    good = [Page("test", n, f"http://example.org/{n}", article(n, words=20 + 10 * n)) for n in range(5)]
    unread = Page("test", 5, "http://example.org/unread", error=NOT_HTML, message="image/png")
    binary = Page("test", 6, "http://example.org/binary", b"\x00\x01\x02" * 100)
    return [good[0], unread, *good[1:3], binary, *good[3:]]


def fail_whole(jobs: object) -> NoReturn:
    raise RuntimeError("a bug that fails the whole call")


def test_a_batch_through_the_micro_batcher_gives_the_rows_of_the_page_by_page_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("EXTRACT_BATCH_MAX_SIZE", raising=False)
    alone = BatchExtractor(Options(BACKEND, batch_size=BATCH))
    monkeypatch.setenv("EXTRACT_BATCH_MAX_SIZE", "4")
    batched = BatchExtractor(Options(BACKEND, batch_size=BATCH))
    assert alone.served is None
    assert batched.served is not None
    try:
        expected, got = alone.rows(pages()), batched.rows(pages())
        counted = batched.served.service.metrics.registry.get_sample_value
        routes = [BACKEND, f"{BACKEND}/article"]  # a page typed article is batched by bilstm's article model
        batched_pages = sum(counted("extract_batch_documents_sum", {"backend": name}) or 0 for name in routes)
        assert batched_pages == 5  # the five pages, batched
        monkeypatch.setattr(batched.served, "run", fail_whole)
        redone = batched.rows(pages())  # a call that fails whole is redone page by page
    finally:
        batched.served.close()
    assert got == expected
    assert redone == expected
    assert [row["error"] for row in got] == ["", NOT_HTML, "", "", "not_html", "", ""]
    assert all(row["text"] for row in got if not row["error"])


def test_the_corpus_command_writes_the_same_rows_with_and_without_batches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    jsonl(tmp_path / "in.jsonl", range(6))
    written = {}
    for batch_max_size in ("", "4"):  # "": the CPU default, no batcher
        if batch_max_size:
            monkeypatch.setenv("EXTRACT_BATCH_MAX_SIZE", batch_max_size)
        else:
            monkeypatch.delenv("EXTRACT_BATCH_MAX_SIZE", raising=False)
        out = tmp_path / f"out{batch_max_size}"
        done = run_corpus(tmp_path / "in.jsonl", "--out", out, "--backend", BACKEND, "--workers", "1",
                          "--batch-size", str(BATCH))  # fmt: skip
        assert done.returncode == 0, done.stderr
        written[batch_max_size] = output_rows(out)
    assert written["4"] == written[""]
    assert sum(1 for row in written[""] if row["text"]) == 6
