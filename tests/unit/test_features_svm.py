import numpy as np
import pytest

from service.features.svm import (
    N_FEATURES,
    POSITION_BUCKETS,
    SCHEMA_VERSION,
    TEXT_FEATURES,
    TOKEN_FEATURES,
    element_tokens,
    feature_names,
    svm_features,
    token_flags,
    unit_token_sets,
)
from service.features.units import leaf_units, paragraph_units
from service.parsing.lexbor import parse_html

TOKENS = ["nav", "menu", "footer", "widget", "sidebar", "module", "right", "dropdown", "cat", "navigation"]

PAGE = (
    "<html><body>"
    '<ul class="main-nav"><li class="menu-item"><a href="/">Home</a></li></ul>'
    '<div id="content"><p>One two three. Four five six seven eight! Nine ten</p>'
    "<p>Short <a href='#'>link words here</a></p></div>"
    '<div class="site-footer">Copyright</div>'
    "</body></html>"
)


def page():
    return parse_html(PAGE)


def columns(matrix: np.ndarray) -> dict[str, np.ndarray]:
    return {name: matrix[:, i] for i, name in enumerate(feature_names(TOKENS))}


def test_eighteen_features_as_the_paper_has():
    assert N_FEATURES == len(feature_names(TOKENS)) == 18
    assert len(TEXT_FEATURES) == 7
    assert isinstance(SCHEMA_VERSION, int)


def test_tokens_are_the_letter_and_digit_runs_of_id_and_class():
    document = parse_html('<html><body><div id="Main-Nav" class="cat-item  widget_2 x">t</div></body></html>')
    assert element_tokens(document)[-1] == ("main", "nav", "cat", "item", "widget", "2", "x")


def test_text_features_per_paragraph_unit():
    document = page()
    units = paragraph_units(document)  # Home | sentence paragraph | Short + link | Copyright
    f = columns(svm_features(document, units, TOKENS))
    np.testing.assert_array_equal(f["words"], [1, 10, 4, 1])
    np.testing.assert_allclose(f["words_quotient"], [2 / 1, 11 / 2, 5 / 11, 2 / 5], rtol=1e-6)
    # "One two three." and "Four ... eight!" end, "Nine ten" is a third sentence
    np.testing.assert_allclose(f["sentence_length"], [1, 10 / 3, 4, 1], rtol=1e-6)
    np.testing.assert_allclose(f["sentence_length_quotient"], [2, (10 / 3 + 1) / 2, 5 / (10 / 3 + 1), 2 / 5], rtol=1e-6)
    np.testing.assert_allclose(f["text_density"], [1, 10, 4, 1])  # every unit fits one 80-character line
    np.testing.assert_allclose(f["text_density_quotient"], [2, 11 / 2, 5 / 11, 2 / 5], rtol=1e-6)
    np.testing.assert_allclose(f["link_density"], [1, 0, 3 / 4, 0])


def test_relative_position_buckets():
    document = parse_html("<html><body>" + "".join(f"<p>w{i}</p>" for i in range(25)) + "</body></html>")
    f = columns(svm_features(document, paragraph_units(document), TOKENS))
    expected = np.arange(25) * POSITION_BUCKETS // 25
    np.testing.assert_array_equal(f["relative_position"], expected)
    assert f["relative_position"][0] == 0
    assert f["relative_position"][-1] == POSITION_BUCKETS - 1


def test_token_flags_follow_the_path_of_every_leaf():
    document = page()
    f = columns(svm_features(document, paragraph_units(document), TOKENS))
    np.testing.assert_array_equal(f["token_nav"], [1, 0, 0, 0])  # from the <ul> two levels up
    np.testing.assert_array_equal(f["token_menu"], [1, 0, 0, 0])
    np.testing.assert_array_equal(f["token_footer"], [0, 0, 0, 1])
    assert f["token_widget"].sum() == 0


def test_a_unit_has_the_tokens_of_any_of_its_leaves():
    document = parse_html('<html><body><p>plain <span class="cat">tagged</span> end</p></body></html>')
    flags = token_flags(document, paragraph_units(document), ["cat"])
    np.testing.assert_array_equal(flags, [[True]])
    np.testing.assert_array_equal(token_flags(document, leaf_units(document), ["cat"])[:, 0], [False, True, False])


def test_unit_token_sets_collect_every_distinct_token_on_the_paths():
    document = page()
    sets = unit_token_sets(document, paragraph_units(document))
    assert sets[0] == {"main", "nav", "menu", "item"}
    assert sets[1] == sets[2] == {"content"}
    assert sets[3] == {"site", "footer"}


def test_leaves_as_units():
    document = page()
    matrix = svm_features(document, leaf_units(document), TOKENS)
    assert matrix.shape == (len(document), N_FEATURES)
    assert matrix.dtype == np.float32


def test_the_token_count_is_fixed():
    document = page()
    with pytest.raises(ValueError, match="10 tokens"):
        svm_features(document, leaf_units(document), TOKENS[:3])
    assert len(TOKENS) == TOKEN_FEATURES


def test_an_empty_document_has_no_rows():
    document = parse_html("<html><body></body></html>")
    assert svm_features(document, leaf_units(document), TOKENS).shape == (0, N_FEATURES)
