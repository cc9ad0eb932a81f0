"""The shared pieces of the compiled core: the lazy weight store, the row accessor and the
counter layout (``onlinear._core``), against plain numpy."""
import math

import numpy as np
import scipy.sparse as sp

from onlinear._core import counters, rows, weights
from onlinear.rules.layout import FIRST_RULE_ROW, RAW_SQNORM, SCALE, SIZE_ANCHOR


NO_ACC, NO_AVG = np.zeros((0, 0)), np.zeros(0)


def _state(m):
    state = np.zeros((FIRST_RULE_ROW, m))
    state[SCALE] = 1.0
    return state


def test_the_rows_the_loops_accept():
    """A row is accepted if it is zero, or finite with a norm in [2^-e, 2^e]: the same verdict
    dense and CSR, float64 and float32, row by row (the first refused row's index)."""
    e = rows.ROW_NORM_EXPONENT
    good = [np.zeros(3), np.array([3.0, 0.0, 4.0]), np.array([2.0 ** (e - 1), 0.0, 0.0]),
            np.array([2.0 ** (1 - e), 0.0, 0.0])]
    bad = [np.array([np.nan, 0.0, 0.0]), np.array([0.0, np.inf, 1.0]),
           np.array([2.0 ** (e + 1), 0.0, 0.0]), np.array([2.0 ** (-e - 1), 0.0, 0.0]),
           np.array([5e-324, 0.0, 0.0])]  # (a subnormal: ‖x‖² underflows to 0, x is not 0)
    for row in good:
        assert rows._row_ok(row, e)
    for row in bad:
        assert not rows._row_ok(row, e)
    for position, row in enumerate(bad):
        X = np.vstack(good + [row] + good)
        assert rows.first_bad_row_dense(X, e) == len(good)
        A = sp.csr_matrix(X)
        assert rows.first_bad_row_sparse(A.data, A.indptr, e) == len(good)
    assert rows.first_bad_row_dense(np.vstack(good), e) == -1
    single = np.array([[0.0, 2.0 ** 31], [0.0, 2.0 ** 33]], np.float32)
    assert rows.first_bad_row_dense(single, rows.ROW_NORM_EXPONENT_FLOAT32) == 1
    assert rows.first_bad_row_dense(single, e) == -1


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
    weights.add_to_column(idx, vals, W, state, 1, 2.0, NO_ACC, NO_AVG)
    weights.rescale_column(W, state, 1, 0.5, NO_ACC, NO_AVG)
    true = state[SCALE, 1] * W[:, 1]
    assert true.tolist() == [3.0, 0.0, 4.0]
    assert state[SCALE, 1] ** 2 * state[RAW_SQNORM, 1] == 25.0
    weights.rescale_column(W, state, 1, 1e-120, NO_ACC, NO_AVG)  # leaves the safe range: folded
    assert state[SCALE, 1] == 1.0
    np.testing.assert_allclose(W[:, 1], [3e-120, 0.0, 4e-120], rtol=1e-15)
    assert math.isclose(state[RAW_SQNORM, 1], 25e-240, rel_tol=1e-14)
    assert state[SIZE_ANCHOR, 1] == 0.0


def test_a_running_size_is_recomputed_once_it_has_halved():
    W = np.zeros((2, 1))
    state = _state(1)
    weights.add_to_column(np.arange(2), np.array([1.0, 0.5]), W, state, 0, 4.0, NO_ACC,
                          NO_AVG)
    assert state[RAW_SQNORM, 0] == 20.0 and state[SIZE_ANCHOR, 0] == 20.0
    assert not weights.must_reanchor(state, 0, RAW_SQNORM, 10.0)
    assert weights.must_reanchor(state, 0, RAW_SQNORM, 9.9)
    # the step that brings the size below half: recomputed exactly, the anchor reset
    weights.add_to_column(np.arange(2), np.array([1.0, 0.0]), W, state, 0, -3.5, NO_ACC,
                          NO_AVG)
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
    predictions = np.full(2, -1, np.int64)
    counters.count_round(counts, predictions, 0, 3, 1, False)  # a mistake, no update
    counters.count_round(counts, predictions, 1, 2, 2, True)  # right, and an update
    assert counts.tolist() == [2, 1, 1] and predictions.tolist() == [3, 2]
    counters.count_round(counts, np.empty(0, np.int64), 0, 0, 1, True)  # none kept
    assert counts.tolist() == [3, 2, 2]
    trial = np.zeros(counters.N_TRIAL_COUNTS, np.int64)
    counters.count_trial(trial, np.empty(0, np.int8), 0, 4, 2, True)
    assert trial[counters.TRIALS] == trial[counters.SEEN] == 1
    assert trial[counters.IMPERFECT] == trial[counters.MISTAKES] == 1
    assert (trial[counters.CONSTRAINTS], trial[counters.CONSTRAINT_MISTAKES]) == (4, 2)
    assert trial[counters.TRIAL_UPDATES] == 1


def test_the_averaging_sums_follow_every_store_operation():
    """A random sequence of steps, rescalings (some leaving the safe range: folds), clearings and
    round ends on a lazy 2-column store with averaging: the store's averaged values equal the
    mean of the true values after each round, tracked naively."""
    rng = np.random.default_rng(5)
    n, m = 6, 2
    W, state = np.zeros((n, m)), _state(m)
    acc, avg = np.zeros((n, m)), np.zeros(m)
    true = np.zeros((n, m))
    total = np.zeros((n, m))
    rounds = 0
    for _ in range(400):
        r = int(rng.integers(m))
        op = rng.random()
        if op < 0.55:
            idx = np.sort(rng.choice(n, size=3, replace=False))
            vals = rng.normal(size=3)
            tau = float(rng.normal())
            weights.add_to_column(idx, vals, W, state, r, tau, acc, avg)
            true[idx, r] += tau * vals
        elif op < 0.8:
            c = float(rng.choice([0.5, 2.0]))
            if rng.random() < 0.3:  # extreme factors force folds; kept within float range
                c = 1e-60 if np.abs(true[:, r]).max() > 1e-80 else 1e60
            weights.rescale_column(W, state, r, c, acc, avg)
            true[:, r] *= c
        elif op < 0.85:
            weights.clear_column(W, state, r, acc, avg)
            true[:, r] = 0.0
        else:
            weights.average_close_round(state, avg)
            total += true
            rounds += 1
        np.testing.assert_allclose(W * state[SCALE], true, rtol=1e-9, atol=1e-300)
    assert rounds > 20
    np.testing.assert_allclose(weights.averaged(W, acc, avg, rounds), total / rounds,
                               rtol=1e-9, atol=1e-12 * np.abs(total).max() / rounds)
    assert weights.averaged(W, acc, avg, 0).tolist() == np.zeros((n, m)).tolist()


def test_a_dense_step_returns_the_new_squared_norms_summed_afresh():
    """add_dense_row(_pair) return Σ_j W[j, r]² of the new values, in the weights' precision
    (float32 weights: to float32's rounding of a sum of squares)."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=300)
    for dtype, rtol in ((np.float64, 1e-13), (np.float32, 1e-5)):
        W = np.asfortranarray(rng.normal(size=(300, 4)).astype(dtype))
        size = weights.add_dense_row(x, W, 1, 0.25)
        size_r, size_s = weights.add_dense_row_pair(x, W, 0, -0.5, 3, 2.0)
        exact = (W.astype(np.float64) ** 2).sum(axis=0)
        np.testing.assert_allclose([size_r, size, size_s], exact[[0, 1, 3]], rtol=rtol)


def test_the_norms_a_dense_pass_keeps_do_not_drift():
    """The rules that read ‖w_r‖ get each stepped column's squared norm summed afresh by the
    dense sweep: after thousands of rounds the kept norm is that of the weights, to their
    rounding, in either precision."""
    import onlinear

    rng = np.random.default_rng(11)
    X = rng.normal(size=(4000, 6))
    y = np.argmax(X @ rng.normal(size=(6, 4)) + rng.normal(size=(4000, 4)), axis=1)
    for name in ("romma", "aromma", "naromma", "mcp", "cmcp", "mc-romma"):
        classes = 2 if name in ("romma", "aromma", "naromma", "mcp", "cmcp") and \
            not onlinear.describe(name).handles_multiclass else 4
        target = y if classes == 4 else (y > 1).astype(int)
        for dtype, rtol in (("float64", 1e-12), ("float32", 2e-5)):
            model = onlinear.make(name, dtype=dtype).fit(X.astype(dtype), target)
            assert model.model_.config["exact_norms"] and model.n_updates_ > 100, name
            exact = (model.model_.weights.astype(np.float64) ** 2).sum(axis=0)
            np.testing.assert_allclose(model.model_.state[RAW_SQNORM], exact, rtol=rtol,
                                       err_msg=f"{name} {dtype}")


def test_equal_columns_keep_bit_equal_norms_alone_or_in_a_pair():
    """A dense step sums the stepped columns' norms with the same instructions whether the
    column is stepped alone or with another: two equal columns stepped alike keep bit-equal
    norms, so exact ties between them stay exact (a single-column sweep summed in another
    order on a CPU without AVX, and the Perceptron family's and ROMMA's ties broke)."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=301)
    for dtype in (np.float64, np.float32):
        W = np.asfortranarray(rng.normal(size=(301, 4)).astype(dtype))
        W[:, 3] = W[:, 1]
        before = W[:, 0].copy()
        state = np.zeros((FIRST_RULE_ROW, 4))
        state[SCALE] = 1.0
        no_acc, no_avg = np.empty((0, 0), dtype), np.empty(0)
        idx = np.arange(301)
        weights.add_to_column_pair(idx, x, W, state, 2, 0.5, 1, -0.3, no_acc, no_avg, True,
                                   0.0, 0.0, 0.0)
        weights.add_to_dense_column(idx, x, W, state, 3, -0.3, no_acc, no_avg, True, 0.0, 0.0)
        np.testing.assert_array_equal(W[:, 3], W[:, 1])
        assert state[RAW_SQNORM, 3] == state[RAW_SQNORM, 1]
        np.testing.assert_array_equal(W[:, 0], before)  # (the zero step's partner)
        exact = (W.astype(np.float64) ** 2).sum(axis=0)
        np.testing.assert_allclose(state[RAW_SQNORM, [1, 2, 3]], exact[[1, 2, 3]], rtol=1e-5)
