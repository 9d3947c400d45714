"""Hidden subtrees: which elements hide themselves, by their style, ``hidden`` and ``aria-hidden``."""

from __future__ import annotations

import pytest

from service.features.hidden import hidden_blocks, hiding_elements
from service.parsing.lexbor import parse_html


@pytest.mark.parametrize(
    ("style", "hides"),
    [
        ("display:none", True),
        ("color:red; DISPLAY : None !important;", True),
        ("visibility:hidden", True),
        ("margin:0;visibility: HIDDEN ;", True),
        ("display:block", False),
        ("display:none-ish", False),  # a value that only starts with the keyword
        ("overflow:hidden", False),
        ("x-display:none", False),
        ("display:\u00a0none", False),  # CSS white space is ASCII's: a no-break space is not one
        ("diſplay:none", False),  # a long s is no "s" to CSS (nor to the ASCII-only pattern)
    ],
)
def test_a_style_hides_by_the_css_keywords(style: str, hides: bool) -> None:
    document = parse_html(f'<div><p style="{style}">a</p><p>b</p></div>')
    assert hiding_elements(document).any() == hides
    assert hidden_blocks(document).tolist() == [hides, False]


def test_the_hidden_attribute_and_aria_hidden_hide_what_is_under_them() -> None:
    document = parse_html('<div hidden><p>a</p></div><div aria-hidden="TRUE "><b>b</b></div><p aria-hidden=false>c</p>')
    assert hidden_blocks(document).tolist() == [True, True, False]
