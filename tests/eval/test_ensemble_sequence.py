"""The alternative combiner ``train ensemble --compare-sequence`` scores: out of fold, per page, in [0, 1].

Needs TensorFlow (the ``train`` extra): ``make test-train`` runs it; plain ``make test`` skips it.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from service.training.block_models import UnitRows

pytestmark = [pytest.mark.train, pytest.mark.timeout(600)]
pytest.importorskip("tensorflow", reason="the train extra (tensorflow) is not installed")

from service.training.ensemble import FOLDS, sequence_out_of_fold  # noqa: E402 - after the importorskip on purpose


def test_the_sequence_model_learns_a_neighbour_signal_out_of_fold() -> None:
    rng = np.random.default_rng(0)
    sizes = [int(n) for n in rng.integers(20, 60, size=4 * FOLDS)] + [0]  # and a page without blocks
    noise = rng.random(sum(sizes)).astype(np.float32)
    # a block is content where its successor's first feature is high: only a sequence can see that
    labels = np.zeros(sum(sizes), dtype=bool)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    for start, stop in pairwise(offsets):
        labels[start : stop - 1] = noise[start + 1 : stop] > 0.5
    features = np.stack([noise, rng.random(len(noise)).astype(np.float32)], axis=1)
    rows = UnitRows(features, labels, offsets, [np.arange(n, dtype=np.int32) for n in sizes])
    groups = np.repeat(np.arange(len(sizes)) % (FOLDS + 1), sizes)  # whole pages per domain
    probabilities = sequence_out_of_fold(rows, groups, seed=1)
    assert probabilities.shape == labels.shape
    assert ((probabilities >= 0) & (probabilities <= 1)).all()
    accuracy = ((probabilities >= 0.5) == labels).mean()
    assert accuracy > 0.8, accuracy  # chance is about 0.5
