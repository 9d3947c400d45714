import unicodedata

import numpy as np
import pytest

from service.features.shallow import text_density, text_features, words_of
from service.features.text_stats import MAX_COUNTED_CHARS, PUNCTUATION, TERMINATOR, JoinedText
from service.features.units import leaf_units
from service.parsing.lexbor import parse_html


def stats(*texts: str) -> JoinedText:
    return JoinedText.of(list(texts))


def test_character_classes_are_counted_per_leaf():
    text = stats("Hello, World 42!", "ÄÖü ß", "“Quote” — «x» | ©")
    np.testing.assert_array_equal(text.chars, [16, 5, 17])
    np.testing.assert_array_equal(text.letters, [10, 4, 6])
    np.testing.assert_array_equal(text.uppercase, [2, 2, 1])
    np.testing.assert_array_equal(text.digits, [2, 0, 0])
    # , and ! ; “ ” — « » (| and © are symbols, not punctuation)
    np.testing.assert_array_equal(text.punctuation, [2, 0, 5])
    np.testing.assert_array_equal(text.copyright_signs, [0, 0, 1])


def test_every_basic_plane_character_is_classed_as_python_classes_it():
    characters = [chr(unit) for unit in range(1, 0x10000) if not 0xD800 <= unit < 0xE000]
    text = JoinedText.of(characters)
    np.testing.assert_array_equal(text.letters, [c.isalpha() for c in characters])
    np.testing.assert_array_equal(text.uppercase, [c.isupper() for c in characters])
    np.testing.assert_array_equal(text.digits, [c.isdigit() for c in characters])
    np.testing.assert_array_equal(text.punctuation, [unicodedata.category(c).startswith("P") for c in characters])
    np.testing.assert_array_equal(text.utf8_bytes, [len(c.encode()) for c in characters])
    np.testing.assert_array_equal(text.copyright_signs, [c == "©" for c in characters])


def test_utf8_bytes_match_python_for_every_plane():
    texts = ["plain", "é and ü", "中文", "emoji 😀 and 𝔘"]
    text = JoinedText.of(texts)
    np.testing.assert_array_equal(text.utf8_bytes, [len(t.encode("utf-8", "surrogatepass")) for t in texts])
    # a character beyond U+FFFF is one character but two code units, and neither a letter nor punctuation
    assert text.chars[3] == 13
    assert text.lengths[3] == 15
    assert text.letters[3] == 8


def test_sentences():
    text = stats("One. Two! Three?", "No end", "Wow!!! Next", "…", "...", "3.5 is a number.")
    # a terminator after white space ("…" alone) ends nothing; "..." ends one after its first dot
    np.testing.assert_array_equal(text.sentence_ends, [3, 0, 1, 0, 1, 1])
    np.testing.assert_array_equal(text.sentences(np.arange(6)), [3, 1, 2, 0, 1, 1])


def test_a_sentence_across_leaves_of_one_unit_is_one_sentence():
    text = stats("Read", "this article", "for more.", "Next one")
    np.testing.assert_array_equal(text.sentences(np.array([0, 0, 0, 1])), [1, 1])
    np.testing.assert_array_equal(text.sentences(np.arange(4)), [1, 1, 1, 1])


def test_last_character_classes():
    text = stats("ends.", "ends", "»")
    assert text.last_classes[0] & TERMINATOR
    assert not text.last_classes[1] & PUNCTUATION
    assert text.last_classes[2] & PUNCTUATION
    assert not text.last_classes[2] & TERMINATOR


def test_emails_urls_and_hashtags():
    text = stats(
        "write to me@example.org or a.b@c.de, not @handle",
        "see https://a.org, ftp://b.net and www.c.com; not xwww.d or //www.e.f",
        "#python and #2024 but not C# or # alone",
        "nothing here",
    )
    np.testing.assert_array_equal(text.emails, [2, 0, 0, 0])
    np.testing.assert_array_equal(text.urls, [0, 3, 0, 0])
    np.testing.assert_array_equal(text.hashtags, [0, 0, 2, 0])


def test_patterns_do_not_cross_leaves():
    # "a" ends one leaf, "@b.c" starts the next: no address; "www" then ".x" neither
    text = stats("a", "@b.c", "www", ".x.org")
    np.testing.assert_array_equal(text.emails, [0, 0, 0, 0])
    np.testing.assert_array_equal(text.urls, [0, 0, 0, 0])


def test_no_leaves():
    text = stats()
    assert len(text) == 0
    assert text.letters.shape == (0,)
    assert text.sentences(np.zeros(0, dtype=np.int32)).shape == (0,)
    assert text.urls.shape == (0,)


def test_a_nul_inside_a_text_does_not_shift_the_leaves():
    text = stats("a\0b", "cd")
    np.testing.assert_array_equal(text.letters, [2, 2])
    np.testing.assert_array_equal(text.starts, [1, 5])


def test_a_huge_leaf_is_counted_over_its_head_only():
    text = stats("a" * (MAX_COUNTED_CHARS + 10), "b")
    assert text.letters[0] == MAX_COUNTED_CHARS
    assert text.chars[0] == MAX_COUNTED_CHARS + 10
    assert text.letters[1] == 1


def _regex_words(texts: list[str], script_words: bool) -> tuple[list[int], list[int]]:
    """(leaf, length) of every word by the shallow features' regex, the definition the table must match."""
    pairs = [(leaf, len(word)) for leaf, text in enumerate(texts) for word in words_of(text, script_words=script_words)]
    return [leaf for leaf, _ in pairs], [length for _, length in pairs]


@pytest.mark.parametrize("script_words", [False, True])
def test_words_from_the_table_match_the_regex(script_words: bool) -> None:
    rng = np.random.default_rng(7)
    alphabet = list("ab Z9_-|.,'  \t\n\u00a0\u2003½³Ⅻ日本語ßÄ»«©—…\u200b\u0301のカ・ー。、々\u9fff\u3099한")
    for _ in range(300):
        texts = ["".join(rng.choice(alphabet, size=rng.integers(0, 30))) for _ in range(rng.integers(1, 6))]
        joined = JoinedText.of(texts)
        words = joined.script_words if script_words else joined.words
        leaves, lengths = _regex_words(texts, script_words)
        assert words[0].tolist() == leaves, texts
        assert words[1].tolist() == lengths, texts


def test_words_leave_out_the_leaves_beyond_the_basic_plane_and_the_cut_ones() -> None:
    joined = JoinedText.of(["emoji 😀 here", "plain words", "x" * (MAX_COUNTED_CHARS + 1)])
    assert joined.uncounted.tolist() == [0, 2]  # two code units for one character; a leaf cut short
    assert joined.words[0].tolist() == [1, 1]
    assert joined.words[1].tolist() == [5, 5]
    empty = JoinedText.of(["", "  "])
    assert empty.uncounted.size == 0
    assert empty.words[0].size == 0


def test_shallow_features_agree_with_the_regex_when_the_table_cannot_say() -> None:
    document = parse_html("<p>Grinning 😀 face, 𝔘nicode words</p><p>two words</p>")
    assert text_features(document).words.tolist() == [4, 2]  # "😀" is no word; "𝔘nicode" is one


@pytest.mark.parametrize("script_words", [False, True])
def test_shallow_features_of_mixed_leaves_match_the_regex_leaf_by_leaf(script_words: bool) -> None:
    # table words for most leaves, regex words for those beyond U+FFFF, merged back in leaf order
    rng = np.random.default_rng(11)
    alphabet = [*"ab Z9_-.,  ½日ß😀𝔘のカ・。\U00020000", "longword" * 6]
    for _ in range(100):
        texts = ["".join(rng.choice(alphabet, size=rng.integers(1, 40))).strip() or "x" for _ in range(6)]
        document = parse_html("".join(f"<p>{t}</p>" for t in texts))
        features = text_features(document, leaf_units(document), script_words=script_words)
        expected = [words_of(t, script_words=script_words) for t in document.texts]
        assert features.words.tolist() == [len(w) for w in expected], document.texts
        densities = [np.float32(text_density(t, script_words=script_words)) for t in document.texts]
        assert features.text_density.tolist() == densities
