"""Training pages seen again without class and id names (service/training/augment.py, service/parsing/stripped.py)."""

from __future__ import annotations

from pathlib import Path

from service.parsing.lexbor import parse_html
from service.parsing.stripped import without_attributes
from service.training.augment import NAMES, nameless_copies

from support.train_pages import labeled_pages

PAGE = (
    '<html><head><meta charset="windows-1252"><title id="t">Caf\xe9</title>'
    '<script>var s = "<div class=\\"x\\">";</script></head><body>'
    '<div class="post-body" id="main"><p class=lead>Un caf\xe9 <a href="/x" class="link" data-id="7">ici</a>.</p>'
    "<p>A second paragraph that is long enough to be the content of this small page.</p></div>"
    '<aside class="sidebar" role="complementary">Related stories</aside></body></html>'
).encode("cp1252")
GOLD = "Un café ici. A second paragraph that is long enough to be the content of this small page."


def test_class_and_id_go_and_everything_else_stays() -> None:
    stripped = without_attributes(PAGE, NAMES)
    for gone in ('class="', "class=lead", 'id="main"', 'id="t"'):
        assert gone not in stripped
    assert 'href="/x"' in stripped and 'data-id="7"' in stripped and 'role="complementary"' in stripped
    assert 'var s = "<div class=\\"x\\">";' in stripped  # a script's text is text, not markup
    assert "Un café" in stripped  # decoded as a request's page is (the page declares windows-1252)
    original, copy = parse_html(PAGE), parse_html(stripped)
    assert copy.texts == original.texts and copy.elem_tag == original.elem_tag
    assert not copy.elem_attribute("class") and not copy.elem_attribute("id")
    assert original.elem_attribute("class") and original.elem_attribute("id")


def test_a_share_of_the_pages_is_copied_without_names_and_labelled_anew(tmp_path: Path) -> None:
    docs = labeled_pages(tmp_path, [(PAGE, GOLD)] * 40)
    every = nameless_copies(docs, 1.0, seed=3)
    assert [copy.page for copy in every] == [doc.page for doc in docs]
    for copy, doc in zip(every, docs, strict=True):
        assert not copy.document.elem_attribute("class")
        assert copy.labels.tolist() == doc.labels.tolist() and copy.labels.any()  # same text, same gold
    assert nameless_copies(docs, 0.0, seed=3) == []
    half = nameless_copies(docs, 0.5, seed=3)
    assert 10 < len(half) < 30
    assert [c.page.id for c in half] == [c.page.id for c in nameless_copies(docs, 0.5, seed=3)]  # the seed decides
