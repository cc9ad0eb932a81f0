"""The shared pieces of the compiled core: the lazy weight store, the row accessor and the
counter layout (``onlinear._core``), against plain numpy."""
import math

import numpy as np
import scipy.sparse as sp

from onlinear._core import counters, rows, weights
from onlinear.rules.layout import FIRST_RULE_ROW, RAW_SQNORM, SCALE, SIZE_ANCHOR


def _state(m):
    state = np.zeros((FIRST_RULE_ROW, m))
    state[SCALE] = 1.0
    return state


def test_one_row_accessor_for_dense_and_csr():
    X = np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]])
    A = sp.csr_matrix(X)
    for r in range(2):
        idx, vals = rows.row(True, 3, X.reshape(X.size), np.arange(3), np.empty(0, np.int64), r)
        assert idx.tolist() == [0, 1, 2] and vals.tolist() == X[r].tolist()
        idx, vals = rows.row(False, 3, A.data, A.indices, A.indptr, r)
        dense = np.zeros(3)
        dense[idx] = vals
        assert dense.tolist() == X[r].tolist()


def test_add_row_returns_the_change_of_the_squared_norm():
    w = np.array([1.0, -2.0, 0.5, 0.0])
    before = w @ w
    change = weights.add_row(np.array([0, 2, 3]), np.array([2.0, 0.0, -1.0]), w, 0.5)
    assert w.tolist() == [2.0, -2.0, 0.5, -0.5]
    assert math.isclose(before + change, w @ w)


def test_the_lazy_scale_and_the_sizes_of_a_column():
    W = np.zeros((3, 2))
    state = _state(2)
    idx, vals = np.arange(3), np.array([3.0, 0.0, 4.0])
    weights.add_to_column(idx, vals, W, state, 1, 2.0, False)
    weights.rescale_column(W, state, 1, 0.5)
    true = state[SCALE, 1] * W[:, 1]
    assert true.tolist() == [3.0, 0.0, 4.0]
    assert state[SCALE, 1] ** 2 * state[RAW_SQNORM, 1] == 25.0
    weights.rescale_column(W, state, 1, 1e-120)  # leaves the safe range: folded
    assert state[SCALE, 1] == 1.0
    np.testing.assert_allclose(W[:, 1], [3e-120, 0.0, 4e-120], rtol=1e-15)
    assert math.isclose(state[RAW_SQNORM, 1], 25e-240, rel_tol=1e-14)
    assert state[SIZE_ANCHOR, 1] == 0.0


def test_a_running_size_is_recomputed_once_it_has_halved():
    W = np.zeros((2, 1))
    state = _state(1)
    weights.add_to_column(np.arange(2), np.array([1.0, 0.5]), W, state, 0, 4.0, False)
    assert state[RAW_SQNORM, 0] == 20.0 and state[SIZE_ANCHOR, 0] == 20.0
    assert not weights.must_reanchor(state, 0, RAW_SQNORM, 10.0)
    assert weights.must_reanchor(state, 0, RAW_SQNORM, 9.9)
    # the step that brings the size below half: recomputed exactly, the anchor reset
    weights.add_to_column(np.arange(2), np.array([1.0, 0.0]), W, state, 0, -3.5, False)
    assert state[RAW_SQNORM, 0] == 0.25 + 4.0 and state[SIZE_ANCHOR, 0] == 0.0


def test_exponentiated_steps_are_clamped_and_positive():
    w = np.array([1.0, 1.0, 1.0])
    change = weights.exp_row(np.arange(3), np.array([1.0, 1e6, -1e6]), w, 1.0)
    assert w[0] == math.e
    assert w[1] == math.exp(weights.MAX_EXPONENT)
    assert w[2] == max(math.exp(-weights.MAX_EXPONENT), weights.MIN_WEIGHT) > 0.0
    assert math.isclose(3.0 + change, w.sum())
    u = np.array([1e-200, 2.0])
    weights.fold_positive(u, 1e-200)
    assert u.tolist() == [weights.MIN_WEIGHT, 2e-200]
    assert weights.mass(np.array([0.25, 0.5])) == 0.75
    assert weights.dot(np.array([0, 2]), np.array([2.0, 3.0]), np.array([1.0, 9.0, -1.0])) \
        == (-1.0, 13.0)


def test_one_counter_layout():
    counts = np.zeros(counters.N_COUNTS, np.int64)
    flags = np.zeros(2, np.int8)
    counters.count_round(counts, flags, 0, True, False)
    counters.count_round(counts, flags, 1, False, True)
    assert counts.tolist() == [2, 1, 1] and flags.tolist() == [1, 2]
    trial = np.zeros(counters.N_TRIAL_COUNTS, np.int64)
    counters.count_trial(trial, np.empty(0, np.int8), 0, 4, 2, True)
    assert trial[counters.TRIALS] == trial[counters.SEEN] == 1
    assert trial[counters.IMPERFECT] == trial[counters.MISTAKES] == 1
    assert (trial[counters.CONSTRAINTS], trial[counters.CONSTRAINT_MISTAKES]) == (4, 2)
    assert trial[counters.TRIAL_UPDATES] == 1
