"""The harmonic solver on small graphs whose solution is known in closed form."""

import numpy as np
import pytest
from scipy import sparse

from service.graph.harmonic import (
    BOILERPLATE,
    CONTENT,
    NO_SEEDS_PRIOR,
    UNLABELLED,
    class_mass_normalised,
    harmonic,
    seed_prior,
)

U = UNLABELLED


def graph(n: int, edges: dict[tuple[int, int], float]) -> sparse.csr_matrix:
    """Symmetric weights from ``{(i, j): w}``."""
    rows, cols, vals = [], [], []
    for (i, j), w in edges.items():
        rows += [i, j]
        cols += [j, i]
        vals += [w, w]
    return sparse.csr_matrix((vals, (rows, cols)), shape=(n, n))


def chain(n: int) -> sparse.csr_matrix:
    return graph(n, {(i, i + 1): 1.0 for i in range(n - 1)})


def test_middle_of_a_path_is_the_mean_of_its_ends():
    values = harmonic(chain(3), np.array([CONTENT, U, BOILERPLATE]))
    assert values == pytest.approx([1.0, 0.5, 0.0], abs=1e-4)


def test_weights_pull_towards_the_heavier_neighbour():
    # f1 = (3 * 1 + 1 * 0) / (3 + 1)
    values = harmonic(graph(3, {(0, 1): 3.0, (1, 2): 1.0}), np.array([CONTENT, U, BOILERPLATE]))
    assert values[1] == pytest.approx(0.75, abs=1e-4)


def test_a_chain_interpolates_linearly_between_its_seeds():
    values = harmonic(chain(5), np.array([CONTENT, U, U, U, BOILERPLATE]))
    assert values == pytest.approx([1.0, 0.75, 0.5, 0.25, 0.0], abs=1e-4)


def test_a_hub_takes_the_weighted_vote_of_its_seeds():
    star = graph(4, {(0, 1): 1.0, (0, 2): 1.0, (0, 3): 1.0})
    values = harmonic(star, np.array([U, CONTENT, CONTENT, BOILERPLATE]))
    assert values[0] == pytest.approx(2 / 3, abs=1e-4)


def test_matches_the_dense_closed_form_on_a_random_graph():
    rng = np.random.default_rng(7)
    n = 40
    dense = rng.random((n, n)) * (rng.random((n, n)) < 0.2)
    dense = np.triu(dense, 1)
    dense += dense.T
    dense += np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)  # connected
    seeds = np.full(n, U)
    seeds[[0, 5, 11]] = CONTENT
    seeds[[3, 20, 39]] = BOILERPLATE
    free, fixed = seeds == U, seeds != U
    laplacian = np.diag(dense.sum(axis=1)) - dense
    expected = np.linalg.solve(laplacian[np.ix_(free, free)], dense[np.ix_(free, fixed)] @ seeds[fixed])
    values = harmonic(sparse.csr_matrix(dense), seeds)
    assert values[free] == pytest.approx(expected, abs=1e-4)
    assert (values[fixed] == seeds[fixed]).all()


def test_a_component_without_seeds_takes_the_prior():
    # 0-1 seeded and linked; 2-3 linked to nothing seeded
    weights = graph(4, {(0, 1): 1.0, (2, 3): 1.0})
    values = harmonic(weights, np.array([CONTENT, U, U, U]), prior=0.3)
    assert values[1] == pytest.approx(1.0, abs=1e-3)
    assert values[2:] == pytest.approx([0.3, 0.3], abs=1e-6)


def test_degenerate_pages():
    assert harmonic(sparse.csr_matrix((0, 0)), np.array([], dtype=np.int8)).shape == (0,)
    # no seeds: every block at the no-seed prior (kept)
    assert harmonic(chain(3), np.array([U, U, U])) == pytest.approx([NO_SEEDS_PRIOR] * 3)
    # everything seeded: the seeds themselves
    assert list(harmonic(chain(3), np.array([CONTENT, BOILERPLATE, CONTENT]))) == [1.0, 0.0, 1.0]
    # one class only: it spreads everywhere
    assert harmonic(chain(4), np.array([BOILERPLATE, U, U, U])) == pytest.approx([0.0] * 4, abs=1e-3)


def test_values_stay_in_the_unit_interval():
    rng = np.random.default_rng(3)
    n = 60
    dense = np.triu(rng.random((n, n)) * (rng.random((n, n)) < 0.1), 1)
    seeds = rng.choice([U, U, U, CONTENT, BOILERPLATE], size=n)
    values = harmonic(sparse.csr_matrix(dense + dense.T), seeds)
    assert ((values >= 0) & (values <= 1)).all()


def test_seed_prior_is_the_share_of_content_seeds():
    assert seed_prior(np.array([CONTENT, BOILERPLATE, BOILERPLATE, BOILERPLATE, U])) == 0.25
    assert seed_prior(np.array([U, U])) == NO_SEEDS_PRIOR


def test_class_mass_normalisation_rescales_to_the_seed_proportions():
    seeds = np.array([CONTENT, BOILERPLATE, U, U])
    values = np.array([1.0, 0.0, 0.6, 0.2])
    # q = 1/2; content masses 0.6/0.8 and 0.2/0.8 against boilerplate 0.4/1.2 and 0.8/1.2
    scores = class_mass_normalised(values, seeds)
    assert scores[:2].tolist() == [1.0, 0.0]
    assert scores[2] == pytest.approx(0.75 / (0.75 + 1 / 3))
    assert scores[3] == pytest.approx(0.25 / (0.25 + 2 / 3))
    assert scores[2] > 0.5 > scores[3]


def test_class_mass_normalisation_can_flip_a_decision_the_threshold_made():
    # one content seed against three boilerplate seeds (q = 1/4): 0.55 is no longer content
    seeds = np.array([CONTENT, BOILERPLATE, BOILERPLATE, BOILERPLATE, U, U])
    values = np.array([1.0, 0.0, 0.0, 0.0, 0.55, 0.45])
    scores = class_mass_normalised(values, seeds)
    assert scores[4] < 0.5
    assert scores[4] > scores[5]


def test_class_mass_normalisation_of_degenerate_values_changes_nothing():
    seeds = np.array([CONTENT, U, U])
    values = np.array([1.0, 1.0, 1.0])  # no boilerplate mass
    assert class_mass_normalised(values, seeds).tolist() == [1.0, 1.0, 1.0]
