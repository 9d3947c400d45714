import numpy as np
import pytest

from service.features.texrex import (
    ATTRIBUTE_BYTES,
    COUNTED_ATTRIBUTES,
    EMPTY_BLOCKS_SCALE,
    FEATURE_NAMES,
    N_FEATURES,
    SCHEMA_VERSION,
    SENTENCE_COUNT_SCALE,
    SENTENCE_LENGTH_SCALE,
    TAG_OVERHEAD_BYTES,
    TEXT_LENGTH_SCALE,
    doctype_of,
    texrex_features,
)
from service.features.units import leaf_units, paragraph_units
from service.parsing.lexbor import parse_html

PAGE = (
    "<!DOCTYPE html><html><body>"
    '<div class="nav"><a href="/">Home</a></div>'
    "<div></div><p></p>"
    "<article><h1>Title</h1><p>First sentence here. Second one! Mail me@x.org</p></article>"
    "loose text."
    "<footer>© 2024 #site https://x.org</footer>"
    "</body></html>"
)
TEXTS = ["Home", "Title", "First sentence here. Second one! Mail me@x.org", "loose text.", "© 2024 #site https://x.org"]


def tag_bytes(tag: str, attributes: int = 0) -> int:
    return 2 * len(tag) + TAG_OVERHEAD_BYTES + ATTRIBUTE_BYTES * attributes


@pytest.fixture(scope="module")
def page():
    document = parse_html(PAGE)
    assert document.texts == TEXTS
    matrix = texrex_features(document, leaf_units(document))
    return document, {name: matrix[:, i] for i, name in enumerate(FEATURE_NAMES)}


def test_the_paper_has_37_features_all_in_the_unit_interval(page):
    document, _ = page
    matrix = texrex_features(document, leaf_units(document))
    assert N_FEATURES == len(FEATURE_NAMES) == 37
    assert matrix.shape == (5, 37)
    assert matrix.dtype == np.float32
    assert matrix.min() >= 0
    assert matrix.max() <= 1
    assert isinstance(SCHEMA_VERSION, int)


def test_markup_is_charged_to_the_leaf_after_it(page):
    _, f = page
    # before "Home": <html>, <body>, <div class>, <a href> (only id and class attributes are counted)
    home_markup = tag_bytes("html") + tag_bytes("body") + tag_bytes("div", 1) + tag_bytes("a")
    assert f["markup_share"][0] == pytest.approx(home_markup / (home_markup + 4))
    # before "Title": <div>, <p>, <article>, <h1>; nothing before "loose text."
    title_markup = tag_bytes("div") + tag_bytes("p") + tag_bytes("article") + tag_bytes("h1")
    assert f["markup_share"][1] == pytest.approx(title_markup / (title_markup + 5))
    assert f["markup_share"][3] == 0
    # the window of one unit either side of "Title": Home, Title and the <p> sentence
    p_markup = tag_bytes("p")
    window = home_markup + title_markup + p_markup
    assert f["markup_share_1"][1] == pytest.approx(window / (window + 4 + 5 + len(TEXTS[2])))
    assert f["markup_share_2"][0] == pytest.approx(window / (window + 4 + 5 + len(TEXTS[2])))


def test_id_and_class_are_the_counted_attributes() -> None:
    assert COUNTED_ATTRIBUTES == ("id", "class")
    plain, marked = (parse_html(f"<div{a}><p>text</p></div>") for a in ("", ' id="x" class="a b" data-y="1"'))
    shares = [texrex_features(d, leaf_units(d))[0, FEATURE_NAMES.index("markup_share")] for d in (plain, marked)]
    markup = [share / (1 - share) * len("text") for share in shares]  # share = markup / (markup + 4 text bytes)
    assert markup[1] - markup[0] == pytest.approx(2 * ATTRIBUTE_BYTES, rel=1e-4)  # id and class, not data-y


def test_container_tag_is_one_hot_and_text_outside_containers_is_flagged(page):
    _, f = page
    np.testing.assert_array_equal(f["container_div"], [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(f["container_heading"], [0, 1, 0, 0, 0])
    np.testing.assert_array_equal(f["container_p"], [0, 0, 1, 0, 0])
    np.testing.assert_array_equal(f["container_header_footer"], [0, 0, 0, 0, 1])
    np.testing.assert_array_equal(f["outside_containers"], [0, 0, 0, 1, 0])  # directly in <body>


def test_empty_blocks_before(page):
    _, f = page
    # the empty <div> and <p> between "Home" and "Title"; <article> and <h1> hold text
    np.testing.assert_allclose(f["empty_blocks_before"], [0, 2 / EMPTY_BLOCKS_SCALE, 0, 0, 0])


def test_counts_per_character(page):
    _, f = page
    assert f["anchors_per_char"][0] == pytest.approx(1 / 4)
    assert f["emails_per_char"][2] == pytest.approx(1 / len(TEXTS[2]))
    assert f["urls_per_char"][4] == pytest.approx(1 / len(TEXTS[4]))
    assert f["hashtags_per_char"][4] == pytest.approx(1 / len(TEXTS[4]))
    assert f["emails_per_char"][[0, 1, 3, 4]].sum() == 0


def test_text_length_and_position(page):
    _, f = page
    lengths = np.array([len(t) for t in TEXTS])
    total = lengths.sum()
    np.testing.assert_allclose(f["text_length"], lengths / TEXT_LENGTH_SCALE, rtol=1e-6)
    np.testing.assert_allclose(f["text_share"], lengths / total, rtol=1e-6)
    middle = (np.cumsum(lengths) - lengths / 2) / total
    np.testing.assert_allclose(f["text_mass_position"], np.abs(2 * middle - 1), rtol=1e-6)
    np.testing.assert_allclose(f["block_position"], [0.1, 0.3, 0.5, 0.7, 0.9], rtol=1e-6)


def test_graphemic_features(page):
    _, f = page
    sentence = TEXTS[2]
    assert f["letter_share"][0] == 1
    assert f["uppercase_share"][0] == pytest.approx(1 / 4)  # of the letters
    assert f["punctuation_share"][2] == pytest.approx(4 / len(sentence))  # . ! @ .
    assert f["digit_share"][4] == pytest.approx(4 / len(TEXTS[4]))
    np.testing.assert_array_equal(f["has_copyright"], [0, 0, 0, 0, 1])


def test_sentence_features(page):
    _, f = page
    # "here." and "one!" end sentences, "Mail me@x.org" is a third, unfinished one
    assert f["sentence_count"][2] == pytest.approx(3 / SENTENCE_COUNT_SCALE)
    assert f["sentence_length"][2] == pytest.approx(len(TEXTS[2]) / 3 / SENTENCE_LENGTH_SCALE)
    np.testing.assert_array_equal(f["ends_with_punctuation"], [0, 0, 0, 1, 0])


def test_document_features(page):
    document, f = page
    np.testing.assert_array_equal(f["doctype_html5"], 1)
    assert f["doctype_xhtml"].sum() + f["doctype_html4"].sum() + f["doctype_undeclared"].sum() == 0
    text_bytes = sum(len(t.encode()) for t in TEXTS)
    np.testing.assert_allclose(f["document_markup_share"], 1 - text_bytes / document.source_bytes, rtol=1e-6)


@pytest.mark.parametrize(
    ("declared", "kind"),
    [
        ("", "undeclared"),
        ("html", "html5"),
        ('html public "-//w3c//dtd html 4.01 transitional//en"', "html4"),
        ('html public "-//w3c//dtd xhtml 1.0 strict//en" "http://www.w3.org/tr/xhtml1/dtd/xhtml1-strict.dtd"', "xhtml"),
    ],
)
def test_doctypes(declared, kind):
    assert doctype_of(declared) == kind


def test_paragraph_units_sum_their_leaves():
    document = parse_html("<html><body><p>Some <a href='#'>linked</a> text.</p><p>Next</p></body></html>")
    matrix = texrex_features(document, paragraph_units(document))
    f = {name: matrix[:, i] for i, name in enumerate(FEATURE_NAMES)}
    assert matrix.shape == (2, N_FEATURES)
    assert f["anchors_per_char"][0] == pytest.approx(1 / len("Somelinkedtext."))
    np.testing.assert_array_equal(f["ends_with_punctuation"], [1, 0])  # the unit's last leaf
    np.testing.assert_array_equal(f["container_p"], [1, 1])


def test_an_empty_document_has_no_rows():
    document = parse_html("<html><body><div></div></body></html>")
    assert texrex_features(document, leaf_units(document)).shape == (0, N_FEATURES)
