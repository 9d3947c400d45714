r"""Text encoded twice, read back: misread UTF-8, and HTML entities escaped twice.

UTF-8 read as Latin-1 or Windows-1252 ("Investorâ\x80\x99s" → "Investor’s"); an entity escaped once
more than the markup unescapes ("Maria &amp; Katerina" in a ``<meta>``'s content, "R&amp;D" in
JSON-LD, which no parser unescapes: 11 of the 1,358 WCXB dev pages' authors, site names,
descriptions or tags).

Some pages serve their titles and bylines double-encoded (4 of the 1,152 WCXB train and validation
pages' ``<title>``s: "JOHNSONâ\x80\x99SÂ®", "itertools Ã¢Â\x80Â\x94 ..."). ftfy's ``fix_encoding``
undoes it where its heuristics are sure, and leaves real "Ã" and "Â" alone ("SÃO PAULO"). It is
imported and run only on a text that holds one of the characters such a misreading makes, so the
other pages pay a substring test on a short string.
"""

from __future__ import annotations

import html
import re

# What a misread UTF-8 lead byte of the Latin-1 supplement or of punctuation becomes ("Ã", "Â", "â" + a
# C1 control or "€"): a text without any of them has nothing to repair.
_MARKERS = ("Ã", "Â", "â\x80", "â€")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


def repaired_text(text: str) -> str:
    """``text`` with a twice-escaped entity read and misread UTF-8 repaired: what a metadata field shows a reader."""
    if "&" in text and _ENTITY.search(text):
        text = html.unescape(text)
    return repair_mojibake(text)


def repair_mojibake(text: str) -> str:
    """``text`` with double-encoded UTF-8 read as UTF-8 once; unchanged where it has none."""
    if not any(marker in text for marker in _MARKERS):
        return text
    from ftfy import fix_encoding  # noqa: PLC0415 - 50 ms to import, needed by a few pages only

    return fix_encoding(text)
