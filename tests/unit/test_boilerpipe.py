import numpy as np
import pytest

from service import extract
from service.backends import boilerpipe as bp
from service.backends.base import Backend, BlockLabels
from service.backends.boilerpipe import RULE_NAMES, BoilerpipeBackend
from service.backends.registry import default_registry
from service.features.shallow import text_features
from service.parsing.lexbor import parse_html


def words(n: int, stem: str = "w") -> str:
    return " ".join(f"{stem}{i}" for i in range(n))


def para(n: int, linked: int = 0, stem: str = "w") -> str:
    """A <p> of ``n`` words, the first ``linked`` of them inside one link."""
    head = f"<a href='#'>{words(linked, stem + 'l')}</a> " if linked else ""
    return f"<p>{head}{words(n - linked, stem)}</p>"


def links(n: int) -> str:
    """A block that is all link text: ``n`` words in one <a>."""
    return para(n, linked=n, stem="nav")


def page(*blocks: str):
    return parse_html("<html><body>" + "".join(blocks) + "</body></html>")


def decide(*blocks: str, unit: int) -> tuple[bool, str]:
    """Verdict and rule name of one unit of a page built from ``blocks`` (no tree filter)."""
    doc = page(*blocks)
    _, verdict, fired = BoilerpipeBackend(tree_filter_depth=0).unit_verdicts(doc)
    return bool(verdict[unit]), RULE_NAMES[fired[unit]]


# -- one test per rule: its input flipped across its threshold flips the verdict ------
def test_link_dense_rule():
    # 9 of 30 words linked: not link-dense, and long -> content
    assert decide(para(30), para(30, linked=9), para(30), unit=1) == (True, "long")
    # 10 of 30 linked: exactly a third is above 0.333333 -> boilerplate, whatever its length
    assert decide(para(30), para(30, linked=10), para(30), unit=1) == (False, "link_dense")


def test_after_links_rule_threshold_on_previous_link_density():
    # previous block 5 of 9 words linked (0.5555...): not a link list; a 20-word block is content
    assert decide(para(9, linked=5), para(20), unit=1) == (True, "long")
    # 6 of 9 linked: a link list; 20 words after it, no long next block -> boilerplate
    assert decide(para(9, linked=6), para(20), unit=1) == (False, "after_links")


def test_long_after_links_rule():
    assert decide(links(5), para(41), para(5), unit=1) == (True, "long_after_links")
    assert decide(links(5), para(40), para(5), unit=1) == (False, "after_links")


def test_before_long_after_links_rule():
    assert decide(links(5), para(5), para(18), unit=1) == (True, "before_long_after_links")
    assert decide(links(5), para(5), para(17), unit=1) == (False, "after_links")


def test_long_rule():
    # first block: the previous one is the page's empty start (0 words)
    assert decide(para(17), para(3), unit=0) == (True, "long")
    assert decide(para(16), para(3), unit=0) == (False, "isolated_short")


def test_before_long_rule():
    assert decide(para(5), para(16), unit=0) == (True, "before_long")
    assert decide(para(5), para(15), unit=0) == (False, "isolated_short")


def test_after_text_rule():
    # last block: the next one is the page's empty end (0 words)
    assert decide(para(5), para(5), unit=1) == (True, "after_text")
    assert decide(para(4), para(5), unit=1) == (False, "isolated_short")


def test_thresholds_are_the_published_ones():
    assert (bp.MAX_LINK_DENSITY, bp.MAX_PREV_LINK_DENSITY) == (0.333333, 0.555556)
    assert (bp.MIN_WORDS_AFTER_LINKS, bp.MIN_NEXT_WORDS_AFTER_LINKS) == (40, 17)
    assert (bp.MIN_WORDS, bp.MIN_NEXT_WORDS, bp.MIN_PREV_WORDS) == (16, 15, 4)


def _published_tree(ld, prev_ld, w, prev_w, next_w) -> bool:
    """Boilerpipe 1.2 NumWordsRulesClassifier, transcribed as nested ifs."""
    if ld <= 0.333333:
        if prev_ld <= 0.555556:
            if w <= 16:
                if next_w <= 15:
                    return prev_w > 4
                return True
            return True
        if w <= 40:
            return next_w > 17
        return True
    return False


def test_cascade_equals_the_published_tree():
    rng = np.random.default_rng(7)
    n = 5000
    ld = rng.choice([0.0, 0.2, 0.333333, 0.34, 0.5, 0.555556, 0.56, 1.0], n).astype(np.float32)
    prev_ld = rng.choice([0.0, 0.333333, 0.555556, 0.56, 1.0], n).astype(np.float32)
    w, prev_w, next_w = (rng.integers(0, 60, n) for _ in range(3))
    zeros = np.zeros(n, dtype=np.float32)
    context = bp.Context(
        words=w,
        link_density=ld,
        text_density=zeros,
        prev_words=prev_w,
        prev_link_density=prev_ld,
        prev_text_density=zeros,
        next_words=next_w,
        next_link_density=zeros,
        next_text_density=zeros,
    )
    expected = [_published_tree(*row) for row in zip(ld.tolist(), prev_ld.tolist(), w, prev_w, next_w, strict=True)]
    assert bp.num_words_rules(context).tolist() == expected
    assert 0.2 < np.mean(expected) < 0.8  # both verdicts are exercised


def test_inline_leaves_are_judged_as_one_block():
    # 20 words, each alone in an inline element: short leaves, one long block
    doc = page("<p>" + " ".join(f"<span>w{i}</span>" for i in range(20)) + "</p>")
    labels = BoilerpipeBackend(tree_filter_depth=0).classify(doc)
    assert len(doc) == 20
    assert labels.labels.all()


def test_density_rules_flip_on_text_density():
    # a 10-word block (density 10 > 9) before another block is content; 9 words before a sparse block is not
    feats = text_features(page(para(10), para(3)))
    assert bp.density_rules(bp.Context.of(feats)).tolist()[0]
    feats = text_features(page(para(9), para(3)))
    assert not bp.density_rules(bp.Context.of(feats)).tolist()[0]


# -- tree filter -----------------------------------------------------------------------
TWO_SUBTREES = (
    "<div id='small'><div>{x}</div><div>{y}</div></div>"  # two sibling paragraphs, together the most text
    "<div id='big'><div>{z}</div></div>"  # one paragraph, longer than either x or y alone
).format(x=para(30, stem="x"), y=para(30, stem="y"), z=para(45, stem="z"))


def _kept_stems(doc, labels) -> set[str]:
    return {doc.texts[i][0] for i in np.flatnonzero(labels)}


def test_tree_filter_keeps_the_grandparent_group_with_most_text():
    doc = page(TWO_SUBTREES)
    out = BoilerpipeBackend(tree_filter_depth=2).classify(doc)
    assert (out.scores > 0).all()  # the classifier took all three
    assert _kept_stems(doc, out.labels) == {"x", "y"}  # grandparent div#small: x + y > z


def test_tree_filter_depth_one_groups_by_parent():
    doc = page(TWO_SUBTREES)
    assert _kept_stems(doc, BoilerpipeBackend(tree_filter_depth=1).classify(doc).labels) == {"z"}


def test_tree_filter_depth_zero_keeps_everything_selected():
    doc = page(TWO_SUBTREES)
    out = BoilerpipeBackend(tree_filter_depth=0).classify(doc)
    assert _kept_stems(doc, out.labels) == {"x", "y", "z"}
    assert (out.labels == (out.scores > 0)).all()


def test_tree_filter_counts_characters_and_breaks_ties_by_document_order():
    doc = page("<div><div>" + para(20, stem="a") + "</div></div><div><div>" + para(20, stem="b") + "</div></div>")
    selected = np.ones(len(doc), dtype=bool)
    assert _kept_stems(doc, bp.tree_filter(doc, selected, 2)) == {"a"}
    # fewer words but more characters wins
    doc = page(
        "<div><div><p>" + words(20, "a") + "</p></div></div><div><div><p>" + words(15, "bbbbbbbb") + "</p></div></div>"
    )
    assert _kept_stems(doc, bp.tree_filter(doc, np.ones(len(doc), dtype=bool), 2)) == {"b"}
    # a tie between a subtree and an element above it: the one whose text comes first wins, not the outer one
    doc = page("<div><div><p>" + words(10, "b") + "</p></div></div><p>" + words(10, "a") + "</p>")
    assert _kept_stems(doc, bp.tree_filter(doc, np.ones(len(doc), dtype=bool), 2)) == {"b"}


def test_paragraph_is_the_nearest_paragraph_tag():
    doc = page("<ul><li><span>item</span></li></ul><table><tr><td><b>cell</b></td></tr></table><p><em>t</em></p>")
    found = bp.paragraph_elements(doc, doc.block_elem)
    assert [doc.elem_tag[e] for e in found] == ["ul", "table", "p"]


def test_tree_filter_removes_a_competing_aside():
    article = "<article><div class='body'>" + para(60, stem="a") + para(50, stem="b") + "</div></article>"
    aside = "<aside><div><div>" + para(25, stem="c") + "</div></div></aside>"
    doc = page(article, aside)
    out = BoilerpipeBackend().classify(doc)
    assert _kept_stems(doc, out.scores > 0) == {"a", "b", "c"}
    assert _kept_stems(doc, out.labels) == {"a", "b"}


# -- the backend as a whole ---------------------------------------------------------------
def test_backend_protocol_and_registry():
    backend = BoilerpipeBackend()
    assert isinstance(backend, Backend)
    assert (backend.name, backend.kind, backend.tree_filter_depth) == ("boilerpipe", "rules", 2)
    assert isinstance(backend.version, str) and backend.version
    assert isinstance(default_registry().get("boilerpipe"), BoilerpipeBackend)


@pytest.mark.parametrize("html", [b"", b"<html><body></body></html>", b"<script>var x = 1;</script>"])
def test_empty_document(html):
    doc = parse_html(html)
    assert len(doc) == 0
    out = BoilerpipeBackend().classify(doc)
    assert isinstance(out, BlockLabels)
    assert out.scores.shape == (0,) and out.scores.dtype == np.float32
    assert out.labels.shape == (0,) and out.labels.dtype == bool


def test_page_of_navigation_only_selects_nothing():
    doc = page("<ul>" + "".join(f"<li><a href='#'>{words(2, f'n{i}')}</a></li>" for i in range(10)) + "</ul>")
    out = BoilerpipeBackend().classify(doc)
    assert not out.labels.any()
    assert not out.scores.any()


def test_one_huge_block():
    doc = page("<nav>" + links(3) + "</nav><p>" + words(20000) + "</p>")
    out = BoilerpipeBackend().classify(doc)
    assert out.labels.tolist() == [False, True]
    # the word tree takes it; the density tree refuses a dense block right before the page's end
    assert out.scores.tolist() == [0.0, 0.5]


def test_scores_are_in_range_and_labels_are_a_subset():
    doc = page(links(4), para(30), para(3), "<div><div>" + para(25) + "</div></div>", links(6))
    out = BoilerpipeBackend().classify(doc)
    assert out.scores.dtype == np.float32
    assert ((out.scores >= 0) & (out.scores <= 1)).all()
    assert not (out.labels & (out.scores == 0)).any()


def test_extract_keeps_the_article_and_drops_navigation():
    nav = "<nav><ul>" + "".join(f"<li><a href='/{i}'>Section {i}</a></li>" for i in range(8)) + "</ul></nav>"
    body = (
        "<article><h1>A headline of some length</h1>"
        "<p>" + words(40, "alpha") + "</p><p>" + words(30, "beta") + "</p></article>"
    )
    footer = "<footer><p><a href='/about'>About</a> <a href='/privacy'>Privacy</a></p></footer>"
    result = extract(f"<html><body>{nav}{body}{footer}</body></html>".encode(), backend="boilerpipe")
    assert "alpha0" in result.text and "beta29" in result.text and "headline" in result.text
    assert "Section" not in result.text and "Privacy" not in result.text
    assert result.backend == "boilerpipe" and result.backend_version == bp.VERSION
