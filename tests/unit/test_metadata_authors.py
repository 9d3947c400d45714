"""Author marks in the page (microdata, rel="author", byline classes), read the same by either walk."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from service.parsing import attributes, lexbor
from service.parsing.lexbor import parse_html
from service.parsing.markup import AuthorMarks, collect_author_marks
from service.parsing.walk import python_walk

from support.metadata_pages import BODY, metadata_of_page, page


@pytest.mark.parametrize("walk", ["python", "compiled"])
def test_author_marks_come_in_page_order_from_microdata_rel_and_classes_whichever_walk_ran(walk: str) -> None:
    chosen = python_walk if walk == "python" else lexbor.compiled_walk
    if chosen is None:
        pytest.skip("the compiled walk is not built (make build-ext)")
    body = (
        '<div class="head"><a rel="author" href="/u/li">Bo Li</a> <a rel="Author" href="/x">Not a byline</a></div>'
        '<span itemprop="author" itemscope><span itemprop="name">Ann Roe</span></span>'
        '<meta itemprop="author" content="Cy Dee"><p itemprop=" author ">Spaced Out</p>'
        '<div class="card"><div class="author-box"><span class="username">Dee Fox</span></div></div>' + BODY
    )
    marks = parse_html(page(body=body), walk=chosen).author_marks
    # an item's text is its parts' (not a name), a <meta> gives its content, and the itemprop is matched exactly
    assert marks.microdata == ("Cy Dee",)
    assert marks.bylines == ("Bo Li", "Dee Fox", "Dee Fox")  # rel="author" as written; the box and its name, nested


@pytest.mark.parametrize("walk", ["python", "compiled"])
@pytest.mark.parametrize(
    ("mark", "microdata", "bylines"),
    [
        ('<span itemprop="author">Kim Park</span>', ("Kim Park",), ()),
        ('<a rel="author" href="/u/kim">Kim Park</a>', (), ("Kim Park",)),
    ],
)
def test_an_author_attribute_alone_is_matched_whichever_walk_ran(
    walk: str, mark: str, microdata: tuple[str, ...], bylines: tuple[str, ...]
) -> None:
    """No class word on the page: the matcher runs for the itemprop or rel the walk recorded."""
    chosen = python_walk if walk == "python" else lexbor.compiled_walk
    if chosen is None:
        pytest.skip("the compiled walk is not built (make build-ext)")
    marks = parse_html(page(body=f'<div class="post">{mark}</div>' + BODY), walk=chosen).author_marks
    assert (marks.microdata, marks.bylines) == (microdata, bylines)


@pytest.mark.parametrize(
    ("body", "attributed"),
    [
        ('<div class="post" itemprop="articleBody"><a rel="nofollow" href="/x">x</a></div>', False),
        ('<div class="post"><a rel="Author" href="/x">x</a></div>', True),  # the matcher decides the case
        ('<div class="post"><span itemprop="author">x</span></div>', True),
    ],
)
def test_the_walks_record_says_whether_an_author_attribute_may_match(
    body: str, attributed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[bool] = []

    def spy(root: object, classes: object, *, attributed: bool = True) -> AuthorMarks:
        asked.append(attributed)
        return collect_author_marks(root, classes, attributed=attributed)  # type: ignore[arg-type]

    monkeypatch.setattr(attributes, "collect_author_marks", spy)
    assert parse_html(page(body=body + BODY)).author_marks is not None
    assert asked == [attributed]


def test_without_an_author_attribute_or_class_word_the_matcher_does_not_run() -> None:
    assert collect_author_marks(_Unmatchable(), ["post", "entry-title"], attributed=False) == AuthorMarks()  # type: ignore[arg-type]
    root = LexborHTMLParser(page(body='<p class="byline">Kim Park</p>')).root
    assert collect_author_marks(root, ["byline"], attributed=False).bylines == ("Kim Park",)


class _Unmatchable:
    def css(self, selector: str) -> list[object]:
        raise AssertionError(f"the matcher ran: {selector}")


BYLINE_CLASSES = ["post-author-name", "c-byline__name", "AuthorBox", "username", "postuser", "creator"]


@pytest.mark.parametrize("css_class", BYLINE_CLASSES)
def test_an_element_whose_class_names_an_author_is_a_byline(css_class: str) -> None:
    """Each class word is looked for where a page's class holds it, and beside another one's."""
    body = f'<div class="{css_class}">Lee Moss</div><p class="byline x">By Ann Roe</p>' + BODY
    marks = parse_html(page(body=body)).author_marks
    assert marks.bylines == ("Lee Moss", "By Ann Roe")
    assert parse_html(page(body=BODY)).author_marks.bylines == ()


def test_a_byline_records_a_line_where_two_pieces_meet_without_white_space() -> None:
    """Two elements the page's style sets apart read "Harry RabinowitzTech Reporter" as one text."""
    body = (
        '<div class="byline"><span>Harry Rabinowitz</span><span>Tech Reporter</span></div>'
        '<div class="author">Ann <b>Roe</b>, <i>Bo Li</i></div>' + BODY  # white space or a comma: one line
    )
    assert parse_html(page(body=body)).author_marks.bylines == ("Harry Rabinowitz\nTech Reporter", "Ann Roe, Bo Li")


DATED = '<meta property="article:published_time" content="2024-03-03">'


@pytest.mark.parametrize(
    ("byline", "author"),
    [
        ("<span>Harry Rabinowitz</span><span>Tech Reporter</span>", ("Harry Rabinowitz",)),
        ("<b>Mateusz Haberny</b><i>Founder at Oakywood</i>", ("Mateusz Haberny",)),
        ("<span>By</span><a href=/u/j>Jane Doe</a><span>Staff Writer</span>", ("Jane Doe",)),
        ("<span>Luke Kim</span><time>December 17, 2025</time>", ("Luke Kim",)),
        ("Text by Hunter Dukes", ("Hunter Dukes",)),
        ("Words by Hunter Dukes", ("Hunter Dukes",)),
        ("Jane <b>Doe</b>", ("Jane Doe",)),  # white space between: one name
        ("<span>AquaCare</span><span>AquaCare</span>", ("AquaCare",)),
    ],
)
def test_a_bylines_first_line_is_the_name_and_what_follows_its_role(byline: str, author: tuple[str, ...]) -> None:
    body = f'<div class="byline">{byline}</div>' + BODY
    assert metadata_of_page(DATED, body).author == author


def test_a_long_byline_is_read_whole_not_by_its_first_line() -> None:
    """A byline class on some container: its first line ("Friday") is no name, and the whole is too long for one."""
    story = "<p>" + "A story of the day that goes on. " * 3 + "</p>"
    body = f'<div class="author-wrap"><span>Friday</span><span>Oct 19 2012</span>{story}</div>' + BODY
    assert metadata_of_page(DATED, body).author == ()
