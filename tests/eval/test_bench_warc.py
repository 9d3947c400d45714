"""``bench --make-warc`` writes a crawl the corpus reads back page for page; ``--warc-readers`` times both libraries."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.corpus_inputs import article

pytest.importorskip("fastwarc", reason="the corpus extra: pip install -e '.[corpus]'")

from service.commands.warc_bench import make_warcs, measure_readers
from service.corpus.warc import read_warc


def test_the_made_crawl_holds_every_page_every_copy_under_its_own_url(tmp_path: Path) -> None:
    pages = [article(n) for n in range(3)]
    paths = make_warcs(pages, tmp_path, shards=2, copies=2)
    read = []
    for path in paths:
        with path.open("rb") as stream:
            read += list(read_warc(stream, str(path), 1 << 20))
    assert sorted(page.content for page in read) == sorted(pages * 2)
    assert len({page.url for page in read}) == 6 and all(page.error is None for page in read)
    assert [len([p for p in read if p.source == str(path)]) for path in paths] == [3, 3]


def test_both_readers_read_the_same_payload(tmp_path: Path) -> None:
    (path,) = make_warcs([article(n) for n in range(4)], tmp_path, shards=1, copies=1)
    rows = {row["reader"]: row for row in measure_readers(path)}
    assert set(rows) == {"fastwarc", "warcio"}
    assert (
        rows["fastwarc"]["payload_mb"] == rows["warcio"]["payload_mb"] == sum(len(article(n)) for n in range(4)) / 1e6
    )
