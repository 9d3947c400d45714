import time

import numpy as np
import pytest

from service.features.shallow import (
    LINE_WIDTH,
    SCHEMA_VERSION,
    count_words,
    following,
    previous,
    text_density,
    text_features,
    words_of,
    wrapped_lines,
)
from service.features.units import first_leaves, leaf_units, paragraph_units
from service.parsing.lexbor import parse_html


def page(body: str):
    return parse_html(f"<html><body>{body}</body></html>")


def test_schema_version_is_an_int():
    assert isinstance(SCHEMA_VERSION, int)
    assert SCHEMA_VERSION >= 1


# -- words -----------------------------------------------------------------------
def test_words_are_whitespace_tokens_with_a_letter_or_digit():
    assert words_of("don't stop 3.5 e-mail | » --- _ a_b") == ["don't", "stop", "3.5", "e-mail", "a_b"]
    assert count_words("Ünïcödé wörds, 日本語 ok") == 4
    assert count_words("  \n ") == 0
    assert count_words("| · —") == 0


def test_every_han_and_kana_letter_is_a_script_word_and_cuts_tokens():
    """Chinese and Japanese put no space between words: one white-space token would be a whole paragraph."""
    assert words_of("日本語のtext, 3.5円", script_words=True) == ["日", "本", "語", "の", "text,", "3.5", "円"]
    assert words_of("カタカナ・ひらがな。漢字、", script_words=True) == [*"カタカナひらがな漢字"]
    assert count_words("한국어 문장", script_words=True) == 2  # Korean is written with spaces
    assert count_words("𠀋𠀋 x", script_words=True) == 3  # Han beyond U+FFFF too
    latin = "don't stop 3.5 e-mail | » --- _ a_b Ünïcödé wörds, ok"
    assert words_of(latin, script_words=True) == words_of(latin)


def test_a_line_holds_40_han_characters():
    """Full-width characters take two columns: 80 columns wrap 40 of them, as a one-letter word and a space."""
    assert text_density("漢" * 400, script_words=True) == 40
    assert text_density("漢" * 400) == 1


def test_script_words_change_nothing_without_han_or_kana():
    document = parse_html("<p>Ünïcödé wörds, <a href=x>a link</a> and 😀 𝔘nicode</p><p>" + "long words " * 30)
    words, script = text_features(document), text_features(document, script_words=True)
    for name in ("words", "link_words", "chars", "text_density"):
        np.testing.assert_array_equal(getattr(words, name), getattr(script, name))


def test_long_punctuation_runs_are_linear():
    text = ("-" * 20000 + " ") * 5 + "end"
    started = time.perf_counter()
    assert count_words(text) == 1
    assert time.perf_counter() - started < 1.0


# -- text density ----------------------------------------------------------------
def test_text_density_of_one_line_is_its_word_count():
    assert text_density("a b c") == 3.0
    assert text_density("x" * LINE_WIDTH) == 1.0
    # two words of 40 + 1 space + 39 = 80 characters still fit one line
    assert text_density("x" * 40 + " " + "y" * 39) == 2.0


def test_text_density_drops_the_last_incomplete_line():
    # 81 characters: two lines of one word each; only the first counts
    assert text_density("x" * 40 + " " + "y" * 40) == 1.0
    # 100 one-letter words: lines of 40, 40 and 20 words -> (40 + 40) / 2
    assert text_density("a " * 100) == 40.0
    # nine-letter words: 8 per line (8*9 + 7 = 79); 20 words -> 8, 8, 4 -> 16 / 2
    assert text_density(" ".join(["abcdefghi"] * 20)) == 8.0
    # 41 one-letter words: a full line of 40 and one word left over -> 40 / 1
    assert text_density("a " * 41) == 40.0


def test_text_density_ignores_non_words_and_handles_overlong_words():
    assert text_density("a | b | c") == 3.0
    assert text_density("") == 0.0
    assert wrapped_lines([]) == (0, 1)
    # a first word longer than a line fills its own line (no empty line before it)
    assert wrapped_lines([200, 1, 1]) == (1, 1)
    assert text_density("x" * 200 + " a b") == 1.0


def _greedy_reference(word_lengths: list[int], width: int = LINE_WIDTH) -> tuple[int, int]:
    """The wrap as Boilerpipe states it, a word at a time: the definition wrapped_lines must keep."""
    completed, line_length, in_line = 0, -1, 0
    for length in word_lengths:
        line_length += length + 1
        if line_length > width and in_line:
            completed, line_length, in_line = completed + 1, length, 1
        else:
            in_line += 1
    return (len(word_lengths), 1) if completed == 0 else (len(word_lengths) - in_line, completed)


def test_wrapped_lines_match_the_word_by_word_wrap():
    rng = np.random.default_rng(3)
    for _ in range(500):
        lengths = rng.integers(1, 30, size=rng.integers(0, 60)).tolist()
        if rng.random() < 0.2:
            lengths.insert(int(rng.integers(0, len(lengths) + 1)), int(rng.integers(81, 200)))  # over-long words
        assert wrapped_lines(lengths) == _greedy_reference(lengths), lengths


def test_text_density_counts_across_the_leaves_of_a_unit():
    words = ["abcdefghi"] * 20
    body = "<p>" + " ".join(words[:5]) + " <b>" + " ".join(words[5:12]) + "</b> " + " ".join(words[12:]) + "</p>"
    features = text_features(page(body))
    assert len(features) == 1
    assert features.words.tolist() == [20]
    assert features.text_density.tolist() == [8.0]


# -- units -----------------------------------------------------------------------
def test_inline_leaves_of_one_paragraph_form_one_unit():
    doc = page("<p>A <b>B</b> C <a href='#'>D</a></p>")
    assert doc.texts == ["A", "B", "C", "D"]
    assert paragraph_units(doc).tolist() == [0, 0, 0, 0]


def test_units_break_where_the_block_level_ancestor_changes():
    doc = page("<div>A<p>B</p>C</div><ul><li>D</li><li>E</li></ul>")
    assert paragraph_units(doc).tolist() == [0, 1, 2, 3, 4]


def test_units_break_at_br_unless_asked_not_to():
    doc = page("<p>one two<br>three</p>")
    assert paragraph_units(doc).tolist() == [0, 1]
    assert paragraph_units(doc, split_at_breaks=False).tolist() == [0, 0]


def test_a_heading_is_a_unit_of_its_own():
    doc = page("<div>intro <h2>Title <em>here</em></h2> more</div>")
    assert doc.texts == ["intro", "Title", "here", "more"]
    assert paragraph_units(doc).tolist() == [0, 1, 1, 2]


def test_leaf_units_number_every_leaf():
    doc = page("<p>A <b>B</b></p>")
    assert leaf_units(doc).tolist() == [0, 1]
    features = text_features(doc, leaf_units(doc))
    assert features.words.tolist() == [1, 1]


def test_first_leaves_are_where_each_unit_starts():
    assert first_leaves(np.array([0, 0, 1, 2, 2, 2, 3])).tolist() == [0, 2, 3, 6]
    assert first_leaves(np.arange(3)).tolist() == [0, 1, 2]
    assert first_leaves(np.zeros(0, dtype=np.int32)).tolist() == []


# -- link density and the per-unit table ---------------------------------------------
def test_link_density_is_linked_words_over_words():
    doc = page("<p>one two <a href='#'>three four</a> five six</p><ul><li><a href='#'>Home page</a></li></ul><p>|</p>")
    features = text_features(doc)
    assert features.words.tolist() == [6, 2, 0]
    assert features.link_words.tolist() == [2, 2, 0]
    np.testing.assert_allclose(features.link_density, [1 / 3, 1.0, 0.0], rtol=1e-6)
    assert features.link_density.dtype == np.float32


def test_unit_values_map_back_to_leaves():
    doc = page("<p>a <a href='#'>b</a></p><p>c d e</p>")
    features = text_features(doc)
    assert features.unit_of_leaf.tolist() == [0, 0, 1]
    assert features.to_leaves(features.words).tolist() == [2, 2, 3]
    assert features.chars.tolist() == [2, 5]


def test_previous_and_following_see_empty_edges():
    values = np.array([3, 5, 7], dtype=np.int32)
    assert previous(values).tolist() == [0, 3, 5]
    assert following(values).tolist() == [5, 7, 0]
    assert previous(values, fill=-1).tolist() == [-1, 3, 5]
    assert len(previous(np.zeros(0))) == 0
    assert len(following(np.zeros(0))) == 0


def test_matrix_has_previous_current_and_next_columns():
    doc = page("<p>one two three</p><p><a href='#'>link</a></p>")
    matrix, names = text_features(doc).matrix()
    assert matrix.shape == (2, 9)
    assert matrix.dtype == np.float32
    columns = dict(zip(names, matrix.T, strict=True))
    assert columns["words"].tolist() == [3, 1]
    assert columns["next_words"].tolist() == [1, 0]
    assert columns["prev_link_density"].tolist() == [0, 0]
    assert columns["next_link_density"].tolist() == [1, 0]


def test_empty_document_has_no_units():
    doc = parse_html(b"")
    assert len(doc) == 0
    features = text_features(doc)
    assert len(features) == 0
    assert features.link_density.shape == (0,)
    assert features.matrix()[0].shape == (0, 9)
    assert paragraph_units(doc).shape == (0,)


@pytest.mark.parametrize("n_words", [1, 79, 5000])
def test_one_huge_block(n_words):
    doc = page("<p>" + " ".join(f"w{i % 10}" for i in range(n_words)) + "</p>")
    features = text_features(doc)
    assert features.words.tolist() == [n_words]
    # words of two letters: 27 per full line (27*2 + 26 = 80)
    assert features.text_density[0] == min(n_words, 27)
