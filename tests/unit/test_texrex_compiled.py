"""The compiled texrex passes (``service/features/_texrex.pyx``) against the NumPy reference: the same features.

Over a corpus of malformed pages from tests/support/fuzz_pages.py and pages built for what the
definitions turn on (markup before the first leaf and after the last, empty block-level elements,
anchors, every container group, the doctypes, a page larger than its text and one that is all
text), and over every WCXB dev and Dragnet page in tests/eval/test_feature_twins_dev_pages.py. The passes
are optional (``make build-ext``): without them these tests skip, and the fallback test checks that
the reference then serves.
"""

from __future__ import annotations

import numpy as np
import pytest

from service.features import texrex
from service.features.texrex import FEATURE_NAMES, texrex_features
from service.features.units import paragraph_units
from service.parsing.lexbor import parse_html

from support.fuzz_pages import fuzz_corpus
from support.texrex_twins import assert_texrex_twins_agree, compiled

FUZZ_PAGES = 300
FUZZ_SEED = 20261127

PAGES = [
    "<!DOCTYPE html><div class=a id=b><p></p><a href=x>one</a> two<br>three</div><footer><p></p></footer>",
    '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN"><table><tr><td>cell.<td>cell two</table><ul><li>x</ul>',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"><h2>Head</h2><blockquote>q!</blockquote><pre>c</pre>',
    "<nav>n</nav><aside>s</aside><header>h</header><address>a</address><section>s.</section><main>m</main>",
    "<article><x-card><p>Custom. Element?</p></x-card><dl><dt>t<dd>d</dl><figcaption>f</figcaption></article>",
    "only text, no markup at all",
    "<p>Hi. Bye! me@x.org www.x.org #tag ©</p>" * 30 + "<div></div>" * 12,
]


@compiled
def test_the_fuzz_corpus_gets_the_same_features() -> None:
    for page in fuzz_corpus(FUZZ_PAGES, FUZZ_SEED):
        assert_texrex_twins_agree(parse_html(page))


@compiled
@pytest.mark.parametrize("html", PAGES)
def test_built_pages_get_the_same_features(html: str) -> None:
    assert_texrex_twins_agree(parse_html(html))


@pytest.mark.parametrize("passes", ["served", "reference"])
def test_the_features_read_the_definitions(passes: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if passes == "reference":  # what serves where the passes are not built
        monkeypatch.setattr(texrex, "_compiled", None)
    document = parse_html("<!DOCTYPE html><div><div></div><a href=x>Go</a></div><p>One. Two</p>")
    rows = texrex_features(document, paragraph_units(document))
    column = {name: rows[:, at].tolist() for at, name in enumerate(FEATURE_NAMES)}
    assert column["empty_blocks_before"] == [pytest.approx(0.1), 0.0]  # the empty <div> before "Go"
    assert column["anchors_per_char"] == [0.5, 0.0]
    assert column["sentence_count"] == [pytest.approx(0.1), pytest.approx(0.2)]  # "Two" is an unfinished sentence
    assert column["container_div"] == [1.0, 0.0] and column["container_p"] == [0.0, 1.0]
    assert column["doctype_html5"] == [1.0, 1.0]
    assert rows.shape == (2, len(FEATURE_NAMES)) and rows.dtype == np.float32


@compiled
@pytest.mark.parametrize("units", [[0, 2, 1], [0, 0, 2], [0, -1, 1]])
def test_a_numbering_that_is_not_units_in_order_is_refused(units: list[int]) -> None:
    document = parse_html("<p>one</p><p>two</p><p>three</p>")
    with pytest.raises(ValueError, match="unit"):
        texrex_features(document, np.array(units, dtype=np.int32))
