"""Stack features on small hand-built pages: neighbour windows at the edges, window and page means, block signals."""

from __future__ import annotations

import numpy as np
import pytest

from service.features.stack import (
    BLOCK_SIGNALS,
    EDGE,
    PER_MEMBER,
    StackLayout,
    block_signals,
    neighbour_scores,
    stack_features,
    window_means,
)
from service.parsing.lexbor import parse_html

PAGE = (
    "<html><body><nav><a href='/'>Home</a> <a href='/b'>About us</a></nav>"
    "<div><p>First para text here.</p><p>Second <a href='/x'>link</a> words</p></div></body></html>"
)  # blocks: Home, About us, First para text here., Second, link, words


def test_neighbours_read_edge_outside_the_page():
    scores = np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32)
    out = neighbour_scores(scores, (-2, -1, 1, 2))
    np.testing.assert_allclose(
        out,
        [
            [EDGE, EDGE, 0.2, 0.3],
            [EDGE, 0.1, 0.3, 0.4],
            [0.1, 0.2, 0.4, EDGE],
            [0.2, 0.3, EDGE, EDGE],
        ],
    )


def test_neighbours_reaching_past_a_short_page_are_all_edge():
    out = neighbour_scores(np.array([0.5], dtype=np.float32), (-3, -2, -1, 1, 2, 3))
    np.testing.assert_array_equal(out, np.full((1, 6), EDGE, dtype=np.float32))


def test_window_means_are_clipped_at_the_edges():
    scores = np.array([1.0, 0.0, 0.0, 1.0, 1.0], dtype=np.float32)
    np.testing.assert_allclose(window_means(scores, 1), [0.5, 1 / 3, 1 / 3, 2 / 3, 1.0], rtol=1e-6)
    np.testing.assert_allclose(window_means(scores, 0), scores)
    np.testing.assert_allclose(window_means(scores, 10), np.full(5, 0.6), rtol=1e-6)


def test_block_signals_of_a_small_page():
    document = parse_html(PAGE)
    assert document.texts == ["Home", "About us", "First para text here.", "Second", "link", "words"]
    signals = block_signals(document)
    column = {name: signals[:, i] for i, name in enumerate(BLOCK_SIGNALS)}
    np.testing.assert_allclose(column["position"], [0, 0.2, 0.4, 0.6, 0.8, 1.0], rtol=1e-6)
    np.testing.assert_array_equal(column["in_link"], [1, 1, 0, 0, 1, 0])
    # the nav's paragraph is all link text; "Second link words" has 4 of its 15 characters in a link
    np.testing.assert_allclose(column["paragraph_link_density"], [1, 1, 0, 4 / 15, 4 / 15, 4 / 15], rtol=1e-6)
    chars = [4, 8, 21, 6, 4, 5]
    np.testing.assert_allclose(column["page_link_share"], np.full(6, 16 / sum(chars)), rtol=1e-6)
    np.testing.assert_allclose(column["log_chars"], np.log1p(chars), rtol=1e-6)
    assert column["depth"][4] == column["depth"][3] + 1  # the <a> inside the <p>
    np.testing.assert_allclose(column["log_blocks"], np.full(6, np.log1p(6)), rtol=1e-6)


def test_stack_features_lay_out_every_member_then_the_block_signals():
    document = parse_html(PAGE)
    layout = StackLayout(("a", "b"), neighbours=2, context=1)
    a = np.array([0.0, 0.1, 0.9, 0.8, 0.7, 0.6], dtype=np.float32)
    b = np.array([1.0, 1.0, 0.0, 0.0, 0.0, 1.0], dtype=np.float32)
    rows = stack_features(document, [a, b], [a >= 0.5, b >= 0.5], layout)
    names = layout.names()
    assert rows.shape == (6, layout.width) == (6, len(names))
    assert rows.dtype == np.float32
    per_member = len(PER_MEMBER) + 4
    assert layout.width == 2 * per_member + len(BLOCK_SIGNALS)
    col = {name: rows[:, i] for i, name in enumerate(names)}
    np.testing.assert_array_equal(col["a.score"], a)
    np.testing.assert_array_equal(col["b.label"], [1, 1, 0, 0, 0, 1])
    np.testing.assert_allclose(col["a.page_mean"], np.full(6, a.mean()), rtol=1e-6)
    np.testing.assert_allclose(col["b.window_mean"], [1, 2 / 3, 1 / 3, 0, 1 / 3, 0.5], rtol=1e-6)
    np.testing.assert_array_equal(col["a.neighbour-2"], [EDGE, EDGE, *a[:4]])
    np.testing.assert_array_equal(col["b.neighbour+1"], [1, 0, 0, 0, 1, EDGE])
    np.testing.assert_array_equal(rows[:, -len(BLOCK_SIGNALS) :], block_signals(document))


def test_stack_features_of_an_empty_page_have_the_layouts_width():
    layout = StackLayout(("a",))
    rows = stack_features(parse_html("<html><body></body></html>"), [np.zeros(0)], [np.zeros(0, bool)], layout)
    assert rows.shape == (0, layout.width)


def test_member_outputs_must_match_the_page_and_the_layout():
    document = parse_html(PAGE)
    layout = StackLayout(("a", "b"))
    with pytest.raises(ValueError, match="members"):
        stack_features(document, [np.zeros(6)], [np.zeros(6, bool)], layout)
    with pytest.raises(ValueError, match="blocks"):
        stack_features(document, [np.zeros(5), np.zeros(6)], [np.zeros(5, bool), np.zeros(6, bool)], layout)


def test_a_layout_round_trips_through_its_config_and_refuses_nonsense():
    layout = StackLayout(("bilstm", "mlp"), neighbours=3, context=10)
    assert StackLayout.from_config(layout.as_config()) == layout
    with pytest.raises(ValueError):
        StackLayout(())
    with pytest.raises(ValueError):
        StackLayout(("a", "a"))
    with pytest.raises(ValueError):
        StackLayout.from_config({"members": "bilstm", "neighbours": 1, "context": 1})
