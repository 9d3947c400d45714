"""Windows for long sequences tile every block exactly once and stitch back in order."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from service.runtime.windows import pad_batch, stitch, windows


@pytest.mark.parametrize("length", [0, 1, 100, 2048, 2049, 5000, 20_000])
def test_kept_ranges_tile_the_sequence(length: int) -> None:
    parts = windows(length, size=2048, overlap=256)
    assert parts[0].keep_start == 0
    assert parts[-1].keep_stop == length
    for before, after in itertools.pairwise(parts):
        assert before.keep_stop == after.keep_start
    for w in parts:
        assert w.stop - w.start <= 2048
        assert w.start <= w.keep_start <= w.keep_stop <= w.stop


def test_every_kept_block_has_context_on_both_sides() -> None:
    for w in windows(10_000, size=1000, overlap=200)[1:-1]:
        assert w.keep_start - w.start >= 100
        assert w.stop - w.keep_stop >= 100


def test_stitching_takes_each_block_from_its_own_window() -> None:
    length = 5000
    parts = windows(length, size=1024, overlap=128)
    truth = np.arange(length, dtype=np.float32)
    outputs = [(w, truth[w.start : w.stop]) for w in parts]
    np.testing.assert_array_equal(stitch(length, outputs), truth)


def test_bad_overlap_is_refused() -> None:
    with pytest.raises(ValueError, match="overlap"):
        windows(10, size=4, overlap=4)


def test_pad_batch_zero_pads_and_reports_lengths() -> None:
    batch, lengths = pad_batch([np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)], 3)
    assert batch.shape == (2, 4, 3)
    assert lengths.tolist() == [2, 4]
    assert batch[0, 2:].sum() == 0
