"""The document model: blocks, their facts, and robustness to hostile input."""

from __future__ import annotations

import codecs

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from service.parsing import lexbor
from service.parsing.attributes import RECORDED_ATTRIBUTES
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.parsing.nesting import MAX_BLOCK_NESTING, flatten_deep_nesting
from service.parsing.walk import MAX_DEPTH, python_walk


def texts(html: str | bytes, **kwargs: str) -> list[str]:
    return parse_html(html, **kwargs).texts


class TestBlocks:
    def test_every_text_leaf_is_a_block_as_in_boilernet(self) -> None:
        assert texts("<p>A<b>B</b>C</p>") == ["A", "B", "C"]

    def test_whitespace_only_leaves_are_not_blocks_and_text_is_collapsed(self) -> None:
        assert texts("<div>\n  <p>  one \n two </p>\n  &nbsp; </div>") == ["one two"]

    @given(st.text(alphabet=st.sampled_from(" a\tb\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2009\u2028\u3000\xad.é"), min_size=1))
    def test_text_is_collapsed_exactly_as_python_splits_white_space(self, text: str) -> None:
        # the parse takes a shortcut for leaves already collapsed; the result must not show it
        collapsed = " ".join(text.split())
        assert texts(f"<p>{text}</p>".encode()) == ([collapsed] if collapsed else [])

    @pytest.mark.parametrize("tag", ["script", "style", "template", "svg", "select", "iframe"])
    def test_unrendered_subtrees_are_skipped(self, tag: str) -> None:
        assert texts(f"<body><p>kept</p><{tag}>hidden text</{tag}></body>") == ["kept"]

    def test_head_is_skipped_but_gives_the_title(self) -> None:
        doc = parse_html("<html><head><title>The title</title></head><body><p>x</p></body></html>")
        assert doc.texts == ["x"]
        assert doc.title == "The title"

    def test_noscript_content_is_kept(self) -> None:
        doc = parse_html("<body><noscript><div class='post'>Only here</div></noscript></body>")
        assert doc.texts == ["Only here"]
        assert "noscript" in doc.tag_paths[0]

    def test_comments_are_not_blocks(self) -> None:
        assert texts("<p>a<!-- hidden -->b</p>") == ["a", "b"]

    def test_tag_paths_run_from_root_to_leaf(self) -> None:
        doc = parse_html("<div><p>A<b>B</b></p></div><ul><li>C</li></ul>")
        assert doc.tag_paths == [
            ("html", "body", "div", "p"),
            ("html", "body", "div", "p", "b"),
            ("html", "body", "ul", "li"),
        ]
        assert doc.paths[doc.block_path[0]] == doc.tag_paths[0]

    def test_id_and_class_tokens_along_the_path(self) -> None:
        doc = parse_html('<div id="Main" class="post  Body"><p class="lead">x</p></div><p>y</p>')
        assert doc.token_paths == [("main", "post", "body", "lead"), ()]

    def test_inside_a_link(self) -> None:
        doc = parse_html('<p>see <a href="/x">the <b>link</b></a> here</p>')
        assert doc.texts == ["see", "the", "link", "here"]
        assert doc.block_in_link.tolist() == [False, True, True, False]
        link = int(doc.block_elem[1])
        assert doc.elem_href(link) == "/x"

    def test_nearest_block_level_ancestor_groups_a_paragraph(self) -> None:
        doc = parse_html("<div><p>a <i>b</i></p><h2>c</h2>d</div>")
        para = doc.block_paragraph.tolist()
        assert para[0] == para[1] != para[2]
        assert doc.elem_tag[para[0]] == "p"
        assert doc.elem_tag[para[2]] == "h2"
        assert doc.elem_tag[para[3]] == "div"

    def test_spacing_and_breaks_between_leaves(self) -> None:
        doc = parse_html("<p>Hello <b>world</b>!<br>next</p>")
        assert doc.texts == ["Hello", "world", "!", "next"]
        assert doc.block_space_before.tolist() == [False, True, False, False]
        assert doc.block_break_before.tolist() == [False, False, False, True]

    def test_preformatted_text_keeps_its_whitespace(self) -> None:
        doc = parse_html("<pre>  a\n    b</pre>")
        assert doc.texts == ["  a\n    b"]
        assert doc.block_in_pre.tolist() == [True]

    def test_indices_and_blocks_view(self) -> None:
        doc = parse_html("<p>A</p><p>B</p>")
        assert [b.index for b in doc.blocks] == [0, 1]
        assert [b.text for b in doc.blocks] == ["A", "B"]
        assert len(doc) == 2

    def test_columns_are_numpy_arrays_of_one_length(self) -> None:
        doc = parse_html("<p>A <a href=#>B</a></p><pre>C</pre>")
        for column in (doc.block_elem, doc.block_paragraph, doc.block_in_link, doc.block_child):
            assert isinstance(column, np.ndarray)
            assert len(column) == len(doc)


class TestLocators:
    PAGE = (
        "<html><head><script>var a = 1;</script></head><body>"
        "<nav><a href='/'>Home</a></nav><!-- c --><script>x()</script>"
        "<main><h1>Title</h1><p>One <b>two</b> three</p><ul><li>item</li></ul></main></body></html>"
    )

    def test_a_browser_style_lookup_finds_every_block_again(self) -> None:
        doc = parse_html(self.PAGE)
        tree = LexborHTMLParser(self.PAGE)
        for block in doc.blocks:
            element = tree.css_first(block.locator.selector)
            assert element is not None, block.locator
            children = list(element.iter(include_text=True, skip_empty=False))
            assert block.locator.text_node is not None
            assert children[block.locator.text_node].text_content.strip() == block.text

    def test_title_prefers_og_title_then_title_then_h1(self) -> None:
        og = '<head><meta property="og:title" content="OG"><title>T</title></head><h1>H</h1>'
        assert parse_html(og).title == "OG"
        assert parse_html("<head><title> T  x </title></head><h1>H</h1>").title == "T x"
        assert parse_html("<h1>Only <i>h1</i></h1>").title == "Only h1"
        assert parse_html("<p>none</p>").title == ""


class TestEncodings:
    def test_utf8_bom(self) -> None:
        assert texts(codecs.BOM_UTF8 + "<p>café</p>".encode()) == ["café"]

    def test_utf16_bom(self) -> None:
        assert texts(codecs.BOM_UTF16_LE + "<p>Grüße</p>".encode("utf-16-le")) == ["Grüße"]

    def test_meta_charset(self) -> None:
        page = '<meta charset="windows-1251"><p>Привет</p>'.encode("cp1251")
        doc = parse_html(page)
        assert doc.texts == ["Привет"]
        assert doc.encoding == "cp1251"

    def test_http_equiv_declaration(self) -> None:
        page = '<meta http-equiv="Content-Type" content="text/html; charset=shift_jis"><p>日本語</p>'
        assert texts(page.encode("shift_jis")) == ["日本語"]

    def test_the_caller_beats_meta_and_detection(self) -> None:
        page = '<meta charset="iso-8859-1"><p>façade</p>'.encode()
        assert texts(page, charset="utf-8") == ["façade"]
        undeclared = "<p>Ελληνικά κείμενα</p>".encode("iso-8859-7")
        assert texts(undeclared, charset="iso-8859-7") == ["Ελληνικά κείμενα"]

    def test_undeclared_non_utf8_is_detected(self) -> None:
        page = ("<p>" + "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 5 + "</p>").encode("cp1251")
        assert parse_html(page).texts[0].startswith("Съешь же ещё")

    def test_invalid_bytes_in_a_utf8_page_are_replaced(self) -> None:
        assert texts(b'<meta charset="utf-8"><p>ok \xff\xfe here</p>') == ["ok \ufffd\ufffd here"]

    def test_unknown_declared_charset_falls_through(self) -> None:
        assert texts(b'<meta charset="no-such-thing"><p>plain</p>') == ["plain"]

    def test_str_input_is_taken_as_is(self) -> None:
        assert parse_html("<p>ünïcode</p>").encoding == "str"


class TestHostileInput:
    @pytest.mark.parametrize("page", [b"", "", b"   \n\t", b"\x00" * 100, "<", "<<<>>>", "<html></html>"])
    def test_empty_and_degenerate_pages_give_no_blocks_or_a_few(self, page: bytes | str) -> None:
        doc = parse_html(page)
        assert isinstance(doc, Document)
        assert all(t.strip() for t in doc.texts)

    def test_binary_garbage_never_raises(self) -> None:
        rng = np.random.default_rng(7)
        for _ in range(20):
            parse_html(rng.integers(0, 256, size=5000, dtype=np.uint8).tobytes())

    @pytest.mark.timeout(60)
    def test_a_5mb_page(self) -> None:
        paragraph = "<div class='c'><p>Some words in a paragraph, <a href='#'>a link</a>.</p></div>\n"
        page = ("<html><body>" + paragraph * (5_000_000 // len(paragraph)) + "</body></html>").encode()
        doc = parse_html(page)
        assert len(doc) == 3 * (5_000_000 // len(paragraph))

    @pytest.mark.timeout(60)
    def test_100000_blocks(self) -> None:
        doc = parse_html("<body>" + "<p>x</p>" * 100_000 + "</body>")
        assert len(doc) == 100_000
        assert doc.tag_paths[-1] == ("html", "body", "p")

    @pytest.mark.timeout(60)
    def test_10000_deep_nesting_keeps_every_text_with_bounded_paths(self) -> None:
        doc = parse_html("<div>x" * 10_000)
        assert len(doc) == 10_000
        assert max(len(p) for p in doc.tag_paths) <= MAX_DEPTH + 1
        deep = doc.locator(len(doc) - 1)
        assert deep.text_node is None  # flattened below the cap: only the element is known
        assert doc.locator(0).text_node == 0

    @pytest.mark.timeout(60)
    @pytest.mark.parametrize("tag", ["div", "section", "blockquote", "ul", "b", "span"])
    def test_100000_deep_nesting_parses(self, tag: str) -> None:
        doc = parse_html(f"<{tag}>" * 100_000 + "bottom")
        assert doc.texts == ["bottom"]

    def test_flattening_keeps_shallow_pages_untouched(self) -> None:
        page = b"<div><section><p>x</p></section></div>" * 10_000
        assert flatten_deep_nesting(page) == page

    def test_flattening_drops_only_tags_beyond_the_cap(self) -> None:
        page = b"<div>" * (MAX_BLOCK_NESTING + 20_000) + b"x"
        flat = flatten_deep_nesting(page)
        assert flat.count(b"<div>") == MAX_BLOCK_NESTING
        assert flat.endswith(b"x")

    def test_stray_end_tags_never_count_below_zero(self) -> None:
        # 20,000 stray </div> first: depth stays at 0, so the deep run after them is still flattened
        page = b"</div>" * 20_000 + b"<div>" * (MAX_BLOCK_NESTING + 10) + b"x"
        assert flatten_deep_nesting(page).count(b"<div>") == MAX_BLOCK_NESTING

    def test_nesting_exactly_at_the_cap_is_kept(self) -> None:
        page = (b"<div>" * MAX_BLOCK_NESTING + b"</div>" * MAX_BLOCK_NESTING) * 5
        assert flatten_deep_nesting(page) == page


def test_line_breaks_between_highlighted_spans_in_pre_are_breaks() -> None:
    doc = parse_html('<pre><span class="k">def</span> f():\n<span>    return</span> 1\n<span>x</span></pre>')
    assert doc.texts == ["def", " f():", "    return", " 1", "x"]  # white space kept inside pre
    assert doc.block_break_before.tolist() == [False, False, True, False, True]


def test_nearest_marked_ancestor_and_ancestors_at() -> None:
    doc = parse_html("<div><section><p><b>x</b></p></section></div>")
    tags = doc.elem_tag  # html, body, div, section, p, b
    marked = doc.elem_tagged({"div", "p"})
    assert marked.tolist() == [tag in {"div", "p"} for tag in tags]
    nearest = doc.nearest_marked(marked)
    assert [tags[e] if e >= 0 else None for e in nearest] == [None, None, "div", "div", "p", "p"]
    b = tags.index("b")
    assert [tags[e] for e in doc.ancestors_at(np.array([b, 0]), 2)] == ["section", "html"]
    assert doc.ancestors_at(np.array([b]), 10).tolist() == [0]  # the root where there are fewer levels


@pytest.mark.parametrize("tags", [{"div"}, {"p", "li"}, {"ul"}, {"i"}, {"html"}, set()])
def test_within_a_marked_subtree_is_having_a_nearest_marked_ancestor(tags: set[str]) -> None:
    doc = parse_html("<div><ul><li><p><b>x</b></p><i>y</i></li><li>z</li></ul><p>w</p></div><ul><li>v</li></ul><p>u")
    marked = doc.elem_tagged(tags)
    assert doc.within(marked).tolist() == (doc.nearest_marked(marked) >= 0).tolist()
    assert doc.blocks_within(marked).tolist() == (doc.nearest_marked(marked) >= 0)[doc.block_elem].tolist()


RECORDED_PAGE = (
    '<div ROLE="Main" style="color:red" hidden aria-hidden=true id=a class=b data-role=x roles=y>'
    '<p aria-hiddenx=1 role="" data-a-name-longer-than-sixteen-letters=z Hidden=until-found>x</p>'
    "<svg role=img><g style=s></g></svg><span Style='display:none'>y</span></div>"
)


@pytest.mark.parametrize("walk", ["compiled", "python"])
def test_the_walk_records_the_attributes_every_extraction_reads(walk: str) -> None:
    if walk == "compiled" and lexbor.compiled_walk is None:
        pytest.skip("compiled walk not built (make build-ext)")
    doc = parse_html(RECORDED_PAGE, walk=lexbor.compiled_walk if walk == "compiled" else python_walk)
    div, p, span = (doc.elem_tag.index(tag) for tag in ("div", "p", "span"))
    assert doc.elem_attribute("role") == {div: "Main", p: ""}  # values as written, names in any case
    assert doc.elem_attribute("hidden") == {div: "", p: "until-found"}
    assert doc.elem_attribute("aria-hidden") == {div: "true"}
    assert doc.elem_attribute("style") == {div: "color:red", span: "display:none"}  # not in the skipped <svg>
    assert (doc.elem_attribute("id"), doc.elem_attribute("class")) == ({div: "a"}, {div: "b"})
    for name in RECORDED_ATTRIBUTES:  # what the matcher finds, one name at a time
        assert doc.elem_attribute(name) == {**doc.elem_attribute(name, "div"), **doc.elem_attribute(name, "p"),
                                            **doc.elem_attribute(name, "span")}  # fmt: skip


def test_attribute_counts_per_element() -> None:
    doc = parse_html(
        "<div id=a class=b><p id=c>x</p><p class=d>y</p><p title=e>z</p>"
        "<svg class=f><g id=g></g></svg><span CLASS=''>w</span></div>"
    )
    counts = doc.elem_attribute_counts(["id", "class"])
    by_tag = {(tag, n) for tag, n in zip(doc.elem_tag, counts.tolist(), strict=True)}
    assert by_tag == {("html", 0), ("body", 0), ("div", 2), ("p", 1), ("p", 0), ("span", 1)}
    assert counts.tolist() == [0, 0, 2, 1, 1, 0, 1]  # the skipped <svg> subtree is not an element here
    assert doc.elem_attribute_counts(["id", "no such name!"]).tolist() == [0, 0, 1, 1, 0, 0, 0]
