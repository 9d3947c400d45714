r"""The harmonic function of Zhu, Ghahramani and Lafferty (ICML 2003) on a weighted graph.

With ``W`` the symmetric weights, ``D`` the diagonal of degrees, ``L`` the
seeded (labelled) nodes with values ``f_L`` in {0, 1} and ``U`` the rest,
the minimum of the energy :math:`\tfrac12 \sum_{ij} w_{ij} (f_i - f_j)^2`
with ``f_L`` fixed is

.. math:: (D_{UU} - W_{UU}) f_U = W_{UL} f_L,

every unlabelled value the weighted mean of its neighbours' (the paper's
equation 2). The system is symmetric positive semi-definite, and definite
when every component of ``U`` touches a seed. To make it definite always,
each node is also tied to a *prior* node of value ``prior`` by the small
weight :data:`PRIOR_WEIGHT` (Zhu's "dongle" construction): a component
without a seed takes the value ``prior``, every other value moves by a
negligible amount. The system is solved by conjugate gradient with a
Jacobi (diagonal) preconditioner, at most :data:`MAX_ITERATIONS` steps, so
a page costs O(iterations · edges) time and O(nodes + edges) memory.

Class mass normalisation (the paper's section 4, optional): the harmonic
values of a class are scaled so that the two classes' masses match the
proportion ``q`` of content among the seeds; a block is content when
``q f / Σf > (1 - q) (1 - f) / Σ(1 - f)``.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import cg

# Weight of every node's tie to the prior node, against edge weights of order one.
PRIOR_WEIGHT = 1e-4
# Conjugate gradient stops when the residual falls below this share of the right-hand side ...
RELATIVE_TOLERANCE = 1e-6
# ... or after this many steps (the values are then close to, not at, the harmonic solution).
MAX_ITERATIONS = 500
# Seed codes.
UNLABELLED = -1
BOILERPLATE = 0
CONTENT = 1
# The prior of a page without seeds: every block undecided, kept.
NO_SEEDS_PRIOR = 0.5


def seed_prior(seeds: np.ndarray) -> float:
    """The share of content among the seeds (:data:`NO_SEEDS_PRIOR` without seeds)."""
    labelled = seeds[seeds != UNLABELLED]
    return float(labelled.mean()) if len(labelled) else NO_SEEDS_PRIOR


def harmonic(weights: sparse.spmatrix, seeds: np.ndarray, prior: float | None = None) -> np.ndarray:
    """Harmonic values in [0, 1] (float64) for every node; seeds keep theirs.

    ``seeds`` holds :data:`CONTENT`, :data:`BOILERPLATE` or
    :data:`UNLABELLED` per node; ``prior`` defaults to :func:`seed_prior`.
    """
    seeds = np.asarray(seeds)
    n = len(seeds)
    prior = seed_prior(seeds) if prior is None else prior
    values = np.where(seeds == UNLABELLED, prior, seeds).astype(np.float64)
    free = np.flatnonzero(seeds == UNLABELLED)
    if len(free) == 0 or len(free) == n:
        return values
    fixed = np.flatnonzero(seeds != UNLABELLED)
    matrix = sparse.csr_matrix(weights, dtype=np.float64)
    degree = np.asarray(matrix.sum(axis=1)).ravel()
    w_uu = matrix[free][:, free]
    diagonal = degree[free] + PRIOR_WEIGHT
    system = sparse.diags(diagonal) - w_uu
    rhs = matrix[free][:, fixed] @ values[fixed] + PRIOR_WEIGHT * prior
    preconditioner = sparse.diags(1.0 / diagonal)
    solution, _ = cg(system, rhs, x0=values[free], rtol=RELATIVE_TOLERANCE, maxiter=MAX_ITERATIONS, M=preconditioner)
    values[free] = np.clip(solution, 0.0, 1.0)
    return values


def class_mass_normalised(values: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """Scores in [0, 1] whose 0.5 threshold is the class-mass-normalised decision; seeds keep theirs."""
    free = seeds == UNLABELLED
    q = seed_prior(seeds)
    content_mass = values[free].sum()
    boilerplate_mass = (1.0 - values[free]).sum()
    if not free.any() or content_mass <= 0 or boilerplate_mass <= 0:
        return values.copy()
    content = q * values / content_mass
    boilerplate = (1.0 - q) * (1.0 - values) / boilerplate_mass
    total = content + boilerplate
    scores = np.divide(content, total, out=np.full_like(values, 0.5), where=total > 0)
    return np.where(free, scores, values)
