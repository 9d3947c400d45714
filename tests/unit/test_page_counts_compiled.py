"""The compiled page-type counts (``service/metadata/_page_counts.pyx``) against the NumPy reference: the same numbers.

Over a corpus of malformed pages from tests/support/fuzz_pages.py and pages built for what the counts
turn on (list items, cells, headings, navigation and <p> paragraphs; link text; paragraphs of prose
side by side and apart; no blocks at all), and over every WCXB dev and Dragnet page in
tests/eval/test_feature_twins_dev_pages.py. The compiled counts are optional (``make build-ext``):
without them these tests skip, and the fallback test checks that the reference then serves.
"""

from __future__ import annotations

import numpy as np
import pytest

from service.metadata import page_type
from service.metadata.fields import Metadata
from service.metadata.page_type import FEATURES, LONG_PARAGRAPH_CHARS, page_counts, page_type_features
from service.parsing.lexbor import parse_html

from support.fuzz_pages import fuzz_corpus
from support.page_count_twins import assert_page_count_twins_agree, compiled

FUZZ_PAGES = 300
FUZZ_SEED = 20261129
PROSE = "p" * LONG_PARAGRAPH_CHARS

PAGES = [
    f"<article><p>{PROSE}</p><p>{PROSE}<a href=x>a link</a></p><p>short</p></article><div><p>{PROSE}</p></div>",
    "<ul><li>one</li><li><a href=/2>two</a></li></ul><table><tr><th>h</th><td>cell</td></tr></table>",
    "<nav><a href=/>Home</a></nav><h2>Heading</h2><pre><code>x = 1</code></pre><form><input><button>Go</button></form>",
    "<img src=a.png><picture></picture><time>today</time><x-card>custom</x-card>",
    "<p></p>",
    "",
]


@compiled
def test_the_fuzz_corpus_gets_the_same_counts() -> None:
    for page in fuzz_corpus(FUZZ_PAGES, FUZZ_SEED):
        assert_page_count_twins_agree(parse_html(page))


@compiled
@pytest.mark.parametrize("html", PAGES)
def test_built_pages_get_the_same_counts(html: str) -> None:
    assert_page_count_twins_agree(parse_html(html))


@compiled
def test_arrays_that_do_not_fit_are_refused() -> None:
    document = parse_html(PAGES[0])
    assert page_type._compiled is not None
    shares, tag_counts = np.empty(2), np.empty(9, dtype=np.int64)  # share codes run to 6: too short
    with pytest.raises(ValueError, match="share group"):
        page_type._compiled.page_counts(
            page_type._path_codes(document), document.elem_path, document.elem_parent, document.block_paragraph,
            document.block_chars, document.block_in_link.view(np.uint8), 3, 200.0, shares, tag_counts,
        )  # fmt: skip
    parents = document.elem_parent.copy()
    parents[-1] = len(parents)  # a parent past the last element
    with pytest.raises(ValueError, match="parent"):
        page_type._compiled.page_counts(
            page_type._path_codes(document), document.elem_path, parents, document.block_paragraph,
            document.block_chars, document.block_in_link.view(np.uint8), 3, 200.0, np.empty(7), tag_counts,
        )  # fmt: skip
    with pytest.raises(ValueError, match="do not fit"):
        page_type._compiled.page_counts(
            page_type._path_codes(document), document.elem_path, document.elem_parent, document.block_paragraph[1:],
            document.block_chars, document.block_in_link.view(np.uint8), 3, 200.0, np.empty(7), tag_counts,
        )  # fmt: skip


@pytest.mark.parametrize("counts", ["served", "reference"])
def test_the_features_read_the_counts(counts: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if counts == "reference":  # what serves where the counts are not built
        monkeypatch.setattr(page_type, "_compiled", None)
    document = parse_html(PAGES[0])
    found = page_counts(document)
    assert (found.long_paragraphs, found.prose_side_by_side) == (3, 2)  # the <div>'s paragraph is apart
    assert found.longest_paragraph == LONG_PARAGRAPH_CHARS + len("a link")
    assert (found.link_blocks, found.link_chars) == (1, len("a link"))
    features = dict(zip(FEATURES, page_type_features(document, Metadata(), set(), None).tolist(), strict=True))
    assert features["p_share"] == 1.0  # every block is in a <p>
    assert features["log_prose_siblings"] == pytest.approx(np.log1p(2))
    assert features["log_n_article"] == pytest.approx(np.log1p(1))
