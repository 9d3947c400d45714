"""Block vectors and the block graph: weights, symmetry, neighbours and the size bound."""

import zlib

import numpy as np
import pytest

from service.graph.build import GraphOptions, block_graph, order_edges, similarity_edges
from service.graph.vectors import TAG_COLUMNS, TOKEN_COLUMNS, WORD_COLUMNS, VectorWeights, block_vectors, hashed_bags
from service.parsing.lexbor import parse_html


def page(body: str):
    return parse_html(f"<html><body>{body}</body></html>")


# -- vectors -------------------------------------------------------------------------
def test_features_hash_to_a_fixed_crc32_column():
    row = hashed_bags([["menu"]], 64)[0]
    assert np.flatnonzero(row).tolist() == [zlib.crc32(b"menu") % 64]
    assert row.max() == pytest.approx(1.0)


def test_counts_are_log_damped_and_rows_normalised():
    rows = hashed_bags([["a", "a", "a", "b"], []], 1 << 16)
    a, b = zlib.crc32(b"a") % (1 << 16), zlib.crc32(b"b") % (1 << 16)
    assert rows[0, a] / rows[0, b] == pytest.approx(np.log1p(3) / np.log1p(1))
    assert np.linalg.norm(rows[0]) == pytest.approx(1.0)
    assert not rows[1].any()  # an empty bag stays zero


def test_dot_product_is_the_weighted_mean_of_the_group_cosines():
    doc = page("<div class='x'><p>alpha beta</p></div><div class='x'><p>gamma delta</p></div>")
    weights = VectorWeights(words=0.2, tags=0.3, tokens=0.5)
    vectors = block_vectors(doc, weights)
    assert vectors.shape == (2, WORD_COLUMNS + TAG_COLUMNS + TOKEN_COLUMNS)
    assert vectors.dtype == np.float32
    # same tags and tokens, disjoint words (barring a hash collision, which these four words do not have)
    assert float(vectors[0] @ vectors[1]) == pytest.approx(0.3 + 0.5, abs=1e-6)
    assert float(vectors[0] @ vectors[0]) == pytest.approx(1.0, abs=1e-6)


def test_vectors_are_the_same_in_every_run():
    body = "<nav><a href='/'>Home</a></nav><p>Some text here.</p>"
    assert np.array_equal(block_vectors(page(body)), block_vectors(page(body)))


# -- edges ---------------------------------------------------------------------------
def test_order_edges_are_heavier_inside_one_paragraph_unit():
    doc = page("<p>one <b>two</b> three</p><p>four</p>")
    options = GraphOptions(order_weight=0.5, same_unit_weight=2.0)
    w = order_edges(doc, options).toarray()
    assert w[0, 1] == w[1, 2] == 2.0  # leaves of one <p>
    assert w[2, 3] == 0.5  # across paragraphs
    assert w[0, 2] == 0.0
    assert (w == w.T).all()


def test_each_block_links_to_its_most_similar_blocks():
    vectors = np.array([[1, 0], [0.99, 0.141], [0, 1], [0.141, 0.99], [0.6, 0.8]], dtype=np.float32)
    w = similarity_edges(vectors, GraphOptions(k=1, sharpness=1.0)).toarray()
    assert w[0, 1] > 0 and w[2, 3] > 0
    assert w[0, 2] == 0  # orthogonal blocks are never neighbours
    assert (w == w.T).all()


def test_sharpness_raises_the_cosine_to_a_power():
    vectors = np.array([[1, 0], [0.6, 0.8]], dtype=np.float32)
    w = similarity_edges(vectors, GraphOptions(k=1, sharpness=3.0)).toarray()
    assert w[0, 1] == pytest.approx(0.6**3, rel=1e-5)


def test_neighbours_are_sought_only_inside_the_window():
    vectors = np.tile(np.array([[1.0, 0.0]], dtype=np.float32), (50, 1))
    w = similarity_edges(vectors, GraphOptions(k=4, window=3)).tocoo()
    assert (np.abs(w.row - w.col) <= 3).all()
    assert (w.row != w.col).all()


def test_the_graph_has_at_most_two_k_plus_two_entries_per_block():
    rng = np.random.default_rng(0)
    n, k = 700, 5  # more than two chunks of rows
    vectors = rng.random((n, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    body = "".join(f"<p>block {i}</p>" for i in range(n))
    doc = page(body)
    weights = block_graph(doc, vectors, GraphOptions(k=k, window=40))
    assert weights.shape == (n, n)
    assert weights.nnz <= n * (2 * k + 2)
    assert abs(weights - weights.T).max() == 0
    assert weights.diagonal().max() == 0


def test_tiny_pages():
    assert block_graph(page(""), np.zeros((0, 4), dtype=np.float32)).shape == (0, 0)
    one = page("<p>alone</p>")
    assert block_graph(one, block_vectors(one)).nnz == 0
