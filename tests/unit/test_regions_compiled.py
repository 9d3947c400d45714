"""The compiled region-word scan (``service/features/_regions.pyx``) against the Python reference: the same bits.

Over values generated from what the rule turns on (region words whole, as prefixes and inside other
words, separators, digits, upper case, characters that lower-case to ASCII or to two characters), and
over every WCXB dev and Dragnet page's ids and classes in tests/eval/test_regions_dev_pages.py. The
compiled scan is optional (``make build-ext``): without it these tests skip, and the fallback test
checks that the Python scan then serves.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings

from service import features
from service.features import structure
from service.features.structure import REGION_BITS, python_region_bits

from support.token_texts import token_texts

compiled = pytest.mark.skipif(
    structure.compiled_region_bits is None, reason="compiled region-word scan not built (make build-ext)"
)

_WORDS = sorted({word for _, _, words in structure.REGIONS.values() for word in words})
_TOKENS = [
    *_WORDS, *(word.upper() for word in _WORDS), *(word.capitalize() for word in _WORDS),
    "-", "_", " ", "\n", ":", "2", "x", "s", "ing", "bar", "list",
    "\u212a",  # KELVIN SIGN: lower-cases to "k"
    "\u0130",  # I WITH DOT ABOVE: lower-cases to two characters, "i" and a combining dot
    "\u00e9", "\u65b0", "\U0001f600",
]  # fmt: skip
values = token_texts(_TOKENS, per_text=8, texts=12)


@compiled
@settings(max_examples=3000, deadline=None)
@given(values)
def test_generated_values_get_the_same_bits(listed: list[str]) -> None:
    assert structure.compiled_region_bits is not None
    assert structure.compiled_region_bits(listed).tolist() == python_region_bits(listed).tolist()


@pytest.mark.parametrize(
    ("value", "regions"),
    [
        ("site-nav main-navigation", {"nav"}),
        ("navy nav2 canvas", set()),  # "nav" is too short to be a prefix, and only whole words count
        ("Comments-Area sidebar_widget", {"comment", "aside"}),
        ("SITE-FOOTER", {"footer"}),
        ("\u212aomment", set()),  # lower-cases to "kcomment": no word starts with a region word
        ("x\u0130 search", {"form"}),
        ("", set()),
    ],
)
def test_the_scan_that_serves_reads_whole_words(value: str, regions: set[str]) -> None:
    expected = sum(REGION_BITS[region] for region in regions)
    assert structure.region_bits([value, "plain"]).tolist() == [expected, 0]
    assert python_region_bits([value]).tolist() == [expected]


@compiled
def test_the_compiled_scan_serves_by_default() -> None:
    assert structure.region_bits is structure.compiled_region_bits


@compiled
def test_region_words_must_be_lower_case_letters_or_digits() -> None:
    from service.features import _regions  # noqa: PLC0415 - built only by make build-ext

    with pytest.raises(ValueError, match="lower-case"):
        _regions.configure([("Nav", 1, False)])
    structure._load_compiled_region_bits()  # the module's words again, for the tests after this one
    assert structure.region_bits(["nav"]).tolist() == [REGION_BITS["nav"]]


def test_without_the_compiled_scan_the_python_scan_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "service.features._regions", None)  # as if not built: importing it fails
    monkeypatch.delattr(features, "_regions", raising=False)
    assert structure._load_compiled_region_bits() is None
    assert np.array_equal(python_region_bits(["menu", "x"]), [REGION_BITS["nav"], 0])
