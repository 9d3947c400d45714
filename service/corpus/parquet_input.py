"""Parquet input: one :class:`Page` per row, from the columns ``url`` and ``html`` (string or binary).

Read a batch of rows at a time, so memory follows the batch, not the file. A
file without an ``html`` column still gives one ``invalid_record`` row per row.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from service.corpus.pages import DECODE_ERROR, INVALID_RECORD, TOO_LARGE, Page

READ_BATCH_ROWS = 256


def read_parquet(stream: BinaryIO, source: str, max_page_bytes: int) -> Iterator[Page]:
    """Every row of the file; ``position`` is the row number, counted from 0.

    A file that does not read (cut short: no footer; a corrupt page) gives its rows up to there, then one
    ``decode_error`` row for the rest, whose count it cannot tell: failing the shard lost them on every run.
    """
    number = 0
    try:
        table = pq.ParquetFile(stream)
        columns = [name for name in ("url", "html") if name in table.schema_arrow.names]
        for batch in table.iter_batches(batch_size=READ_BATCH_ROWS, columns=columns or None):
            urls = batch.column("url").to_pylist() if "url" in columns else [None] * batch.num_rows
            htmls = batch.column("html").to_pylist() if "html" in columns else [None] * batch.num_rows
            for url, html in zip(urls, htmls, strict=True):
                yield _page(source, number, url if isinstance(url, str) else None, html, max_page_bytes)
                number += 1
    except (pa.ArrowException, OSError) as error:  # every Arrow error, and a read that fails
        yield Page(source, number, None, error=DECODE_ERROR, message=f"the Parquet file does not read: {error}")


def _page(source: str, number: int, url: str | None, html: object, max_page_bytes: int) -> Page:
    content = html.encode("utf-8", "surrogatepass") if isinstance(html, str) else html
    if not isinstance(content, bytes):
        return Page(source, number, url, error=INVALID_RECORD, message="the row has no html string or bytes")
    if len(content) > max_page_bytes:
        return Page(source, number, url, error=TOO_LARGE, message=f"the page exceeds {max_page_bytes} bytes")
    return Page(source, number, url, content, charset="utf-8" if isinstance(html, str) else None)
