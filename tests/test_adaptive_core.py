"""The compiled adaptive first-order learners (``onlinear._core.adaptive``: diagonal AdaGrad in
the mirror form, FTRL-Proximal) against the numpy transcription ``second_order_reference`` and
against the properties their papers and derivations state.

* every pass equals the transcription's rounds (rtol 1e-10): both losses, binary and multiclass,
  with and without ℓ1/ℓ2 (AdaGrad's deferred regularisation caught up in closed form);
* dense ≡ CSR exactly (float64 and float32 rows, int32 and int64 indices); the row entries ≡
  the pass; a round touches no state of a feature absent from its row (FTRL; AdaGrad without
  a regulariser);
* FTRL(λ1 = λ2 = 0; α, β) ≡ AdaGrad-MD(η = α, δ = β); FTRL's ℓ1 gives exact zeros, exactly
  where |z| ≤ λ1 (counted); AdaGrad's regret bound in simulation; per-coordinate rates never
  increase; softmax probabilities; zero, NaN and huge rows; bad input.
"""
import numpy as np
import pytest
import scipy.sparse as sp
import second_order_reference as R

from onlinear._core import adaptive as A


def stream(seed, T, d, K, density=0.5):
    """Gaussian rows (a share ``density`` of values kept), labelled by a random linear model
    with noise over max(K, 2) classes (label indices)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d)) * (rng.random((T, d)) < density)
    classes = max(K, 2)
    y = np.argmax(X @ rng.normal(size=(d, classes)) + 0.3 * rng.normal(size=(T, classes)), 1)
    return X, y.astype(np.int64)


def reference_labels(y, K):
    return 2 * y - 1 if K == 1 else y


def adagrad_run(X, y, K, order=None, **params):
    W, G, last, clock = A.adagrad_state(X.shape[1], K)
    order = np.arange(X.shape[0]) if order is None else order
    predictions = np.full(order.size, -1, np.int64)
    result = A.adagrad_pass(X, y, order, W, G, last, clock, predictions, **params)
    A.adagrad_catch_up(W, G, last, clock, **{k: v for k, v in params.items() if k != "loss"})
    return (W, G, last, clock), predictions, result


def ftrl_run(X, y, K, order=None, **params):
    W, Z, N = A.ftrl_state(X.shape[1], K)
    order = np.arange(X.shape[0]) if order is None else order
    predictions = np.full(order.size, -1, np.int64)
    result = A.ftrl_pass(X, y, order, W, Z, N, predictions, **params)
    return (W, Z, N), predictions, result


PENALTIES = [(0.0, 0.0), (0.02, 0.0), (0.0, 0.05), (0.02, 0.05)]


@pytest.mark.parametrize("loss", ["hinge", "log"])
@pytest.mark.parametrize("K", [1, 4])
@pytest.mark.parametrize("l1, l2", PENALTIES)
def test_adagrad_is_the_transcription(loss, K, l1, l2):
    X, y = stream(K + 10 * PENALTIES.index((l1, l2)), 300, 7, K)
    params = dict(loss=loss, eta=0.3, delta=0.05, l1=l1, l2=l2)
    (W, G, _, clock), predictions, (mistakes, updates) = adagrad_run(X, y, K, **params)
    state, ref_pred, infos = R.run(zip(X, reference_labels(y, K)), "adagrad",
                                   R.adagrad_init(K, 7), **params)
    np.testing.assert_array_equal(reference_labels(predictions, K), ref_pred)
    assert mistakes == int(np.sum(ref_pred != reference_labels(y, K)))
    assert updates == sum(i.updated for i in infos) and updates >= 50
    assert clock[0] == 300
    np.testing.assert_allclose(W, state.W.T, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(G, state.G.T, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("loss", ["hinge", "log"])
@pytest.mark.parametrize("K", [1, 4])
@pytest.mark.parametrize("l1, l2", [(0.0, 0.0), (0.3, 0.1)])
def test_ftrl_is_the_transcription(loss, K, l1, l2):
    X, y = stream(20 + K, 300, 7, K)
    params = dict(loss=loss, alpha=0.4, beta=0.8, l1=l1, l2=l2)
    (W, Z, N), predictions, (mistakes, updates) = ftrl_run(X, y, K, **params)
    state, ref_pred, infos = R.run(zip(X, reference_labels(y, K)), "ftrl", R.ftrl_init(K, 7),
                                   **params)
    np.testing.assert_array_equal(reference_labels(predictions, K), ref_pred)
    assert updates == sum(i.updated for i in infos) and updates >= 50
    np.testing.assert_allclose(Z, state.z.T, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(N, state.n.T, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(W, R.ftrl_weights(state, 0.4, 0.8, l1, l2).T, rtol=1e-10,
                               atol=1e-13)


@pytest.mark.parametrize("method", ["adagrad", "ftrl"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dense_and_csr_rows_give_identical_states(method, dtype):
    X, y = stream(30, 250, 12, 5, density=0.2)
    X = X.astype(dtype)
    order = np.random.default_rng(31).integers(250, size=400)
    run = adagrad_run if method == "adagrad" else ftrl_run
    params = dict(loss="log", l1=0.01, l2=0.02) if method == "adagrad" else dict(
        loss="hinge", l1=0.05, l2=0.01)
    dense = run(X, y, 5, order, **params)
    for index_dtype in (np.int32, np.int64):
        csr = sp.csr_matrix(X)
        csr.indices, csr.indptr = csr.indices.astype(index_dtype), csr.indptr.astype(index_dtype)
        sparse = run(csr, y, 5, order, **params)
        for a, b in zip(dense[0], sparse[0]):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(dense[1], sparse[1])
        assert dense[2] == sparse[2]
    if dtype == np.float32:
        wide = run(X.astype(np.float64), y, 5, order, **params)
        for a, b in zip(dense[0], wide[0]):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("method, params", [
    ("adagrad", dict(loss="hinge", l1=0.01, l2=0.03)),
    ("adagrad", dict(loss="log", l1=0.01)),  # (the deferred ℓ1 steps' kernel)
    ("adagrad", dict(loss="hinge", l2=0.03)),
    ("ftrl", dict(loss="hinge", l1=0.01, l2=0.03))])
def test_row_entries_are_rounds_of_the_pass(method, params):
    """A pass (which keeps √G, or FTRL's √n, beside its state) gives the bits of its rounds one
    by one (which compute the roots where they read them)."""
    X, y = stream(40, 150, 6, 3)
    run = adagrad_run if method == "adagrad" else ftrl_run
    state, predictions, (_, updates) = run(X, y, 3, **params)
    fresh = A.adagrad_state(6, 3) if method == "adagrad" else A.ftrl_state(6, 3)
    row = A.adagrad_row if method == "adagrad" else A.ftrl_row
    counted = 0
    for i in range(X.shape[0]):
        idx = np.flatnonzero(X[i])
        predicted, updated = row(idx, X[i, idx], int(y[i]), *fresh, **params)
        assert predicted == predictions[i]
        counted += updated
    assert counted == updates
    if method == "adagrad":
        A.adagrad_catch_up(*fresh, **{k: v for k, v in params.items() if k != "loss"})
    for a, b in zip(fresh, state):
        np.testing.assert_array_equal(a, b)


def test_a_round_leaves_absent_features_alone():
    """FTRL (any penalty) and AdaGrad without one: the (z, n, w) or (W, G) of a feature absent
    from the row do not change.  With a penalty AdaGrad defers their regularisation (``last``
    stays), which the catch-up then applies."""
    X, y = stream(50, 80, 8, 3, density=0.4)
    for method in ("adagrad", "ftrl"):
        state = A.adagrad_state(8, 3) if method == "adagrad" else A.ftrl_state(8, 3)
        row = A.adagrad_row if method == "adagrad" else A.ftrl_row
        params = dict(loss="log") if method == "adagrad" else dict(loss="log", l1=0.1, l2=0.1)
        for i in range(X.shape[0]):
            absent = X[i] == 0
            before = [a.copy() for a in state]
            idx = np.flatnonzero(X[i])
            row(idx, X[i, idx], int(y[i]), *state, **params)
            for a, b in zip(state[:3 if method == "ftrl" else 2], before):
                np.testing.assert_array_equal(a[absent], b[absent])
    state = A.adagrad_state(8, 3)
    A.adagrad_row([0, 1], [1.0, -2.0], 1, *state, loss="log", l1=0.01)
    A.adagrad_row([0], [1.0], 2, *state, loss="log", l1=0.01)
    assert list(state[2][:2]) == [2, 1] and state[3][0] == 2
    w_before = state[0][1].copy()
    A.adagrad_catch_up(*state, l1=0.01)
    assert list(state[2][:2]) == [2, 2]
    assert np.all(np.abs(state[0][1]) < np.abs(w_before))


@pytest.mark.parametrize("loss", ["hinge", "log"])
@pytest.mark.parametrize("K", [1, 3])
def test_ftrl_without_penalties_is_adagrad_mirror_descent(loss, K):
    """FTRL-Proximal with λ1 = λ2 = 0 (McMahan et al.'s Algorithm 1) takes the iterates of
    AdaGrad's mirror descent with η = α, δ = β and no regulariser."""
    X, y = stream(60 + K, 300, 6, K)
    (W_ftrl, _, _), p_ftrl, r_ftrl = ftrl_run(X, y, K, loss=loss, alpha=0.3, beta=0.7)
    (W_ada, *_), p_ada, r_ada = adagrad_run(X, y, K, loss=loss, eta=0.3, delta=0.7)
    np.testing.assert_array_equal(p_ftrl, p_ada)
    assert r_ftrl == r_ada
    np.testing.assert_allclose(W_ftrl, W_ada, rtol=1e-12, atol=1e-14)
    assert np.abs(W_ada).max() > 0.1


def test_ftrl_l1_gives_exact_zeros_where_z_is_small():
    """T14: w = 0 exactly iff |z| ≤ λ1 (or n = 0); a larger λ1 gives more zeros, on a sparse
    stream whose labels depend on 3 of 40 features."""
    rng = np.random.default_rng(70)
    T, d, K = 2000, 40, 3
    X = rng.normal(size=(T, d)) * (rng.random((T, d)) < 0.3)
    y = np.argmax(X[:, :3] @ rng.normal(size=(3, K)), axis=1).astype(np.int64)
    zeros = []
    for l1 in (0.0, 1.0, 5.0):
        (W, Z, N), _, _ = ftrl_run(sp.csr_matrix(X), y, K, loss="log", l1=l1, l2=0.1)
        expected_zero = (np.abs(Z) <= l1) | (N == 0)
        np.testing.assert_array_equal(W == 0.0, expected_zero)
        zeros.append(int(np.sum(W == 0.0)))
    assert zeros[0] == 0 and zeros[0] < zeros[1] < zeros[2], zeros
    assert zeros[2] >= d * K // 2
    (W, _, _), _, _ = ftrl_run(sp.csr_matrix(X), y, K, loss="log", l1=5.0, l2=0.1)
    assert np.all(np.any(W[:3] != 0.0, axis=1))  # the informative features survive


def test_adagrad_l1_gives_exact_zeros():
    rng = np.random.default_rng(71)
    X = rng.normal(size=(1000, 30)) * (rng.random((1000, 30)) < 0.3)
    y = (X[:, 0] - X[:, 1] > 0).astype(np.int64)
    (W, *_), _, _ = adagrad_run(X, y, 1, loss="log", eta=0.5, delta=1e-8, l1=0.08)
    (W0, *_), _, _ = adagrad_run(X, y, 1, loss="log", eta=0.5, delta=1e-8)
    assert np.sum(W == 0.0) >= 10 and np.sum(W0 == 0.0) == 0
    assert W[0, 0] > 0 and W[1, 0] < 0


def test_adagrad_regret_bound_on_the_engine():
    """The diagonal mirror-descent bound of Duchi, Hazan & Singer 2011 (statement UNCHECKED;
    this form verified in simulation), δ = 0, no regulariser:
    Σ_t ℓ_t(W_t) − ℓ_t(W*) ≤ (1/2η)·max_t‖W* − W_t‖²_∞·Σ_{c,i}‖g_{1:T,(c,i)}‖ + η·Σ‖g_{1:T}‖,
    with W_t, the losses and Σg² read from the engine (``G``) round by round."""
    ratios = []
    for seed in range(4):
        rng = np.random.default_rng(seed + 80)
        K, d, T = 4, int(rng.integers(3, 12)), 400
        X, y = stream(seed + 80, T, d, K, density=1.0)
        W_gen = rng.normal(size=(d, K))
        for eta in (0.1, 1.0):
            state = A.adagrad_state(d, K)
            iterates, losses = [], []
            for x, label in zip(X, y):
                W = state[0].copy()
                iterates.append(W)
                s = x @ W
                losses.append(max(0.0, 1 - s[label] + np.max(np.delete(s, label))))
                A.adagrad_row(np.arange(d), x, int(label), *state, loss="hinge", eta=eta,
                              delta=0.0)
            grad_norms = np.sqrt(state[1]).sum()
            for W_star in (W_gen / np.abs(W_gen).max(), iterates[-1], np.zeros((d, K)),
                           3 * W_gen / np.abs(W_gen).max()):
                S = X @ W_star
                star = np.maximum(0.0, 1 - S[np.arange(T), y] + np.max(
                    np.where(np.eye(K, dtype=bool)[y], -np.inf, S), axis=1))
                regret = sum(losses) - star.sum()
                D_inf = max(np.abs(W_star - W).max() for W in iterates)
                ratios.append(regret / (D_inf**2 * grad_norms / (2 * eta) + eta * grad_norms))
    assert 0.01 < max(ratios) < 1.0, max(ratios)


def test_adagrad_rates_never_increase():
    X, y = stream(90, 200, 6, 3, density=0.3)
    state = A.adagrad_state(6, 3)
    rates = np.full((6, 3), np.inf)
    for x, label in zip(X, y):
        idx = np.flatnonzero(x)
        A.adagrad_row(idx, x[idx], int(label), *state, loss="log", eta=0.5, delta=1e-8)
        now = 0.5 / (1e-8 + np.sqrt(state[1]))
        assert np.all(now <= rates)
        rates = now


def test_predict_proba():
    """Rows sum to 1, the argmax is the engine's prediction, adding one vector to every class
    column changes nothing; one output gives [σ(−s), σ(s)]; huge scores stay finite."""
    X, y = stream(100, 200, 5, 4)
    (W, _, _), _, _ = ftrl_run(X, y, 4, loss="log")
    P = A.predict_proba(W, X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    scores = X @ W
    clear = np.sort(scores, axis=1)[:, -1] - np.sort(scores, axis=1)[:, -2] > 1e-9
    np.testing.assert_array_equal(np.argmax(P, axis=1)[clear], np.argmax(scores, axis=1)[clear])
    shift = np.random.default_rng(101).normal(size=(5, 1))
    np.testing.assert_allclose(A.predict_proba(W + shift, X), P, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(A.predict_proba(W, sp.csr_matrix(X)), P, rtol=1e-14)
    w = np.random.default_rng(102).normal(size=(5, 1))
    P1 = A.predict_proba(w, X)
    np.testing.assert_allclose(P1[:, 1], 1 / (1 + np.exp(-(X @ w)[:, 0])), rtol=1e-12)
    big = A.predict_proba(1e3 * W, X)
    assert np.all(np.isfinite(big)) and np.allclose(big.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="not finite"):
        A.predict_proba(W, np.full((1, 5), np.nan))


@pytest.mark.parametrize("method", ["adagrad", "ftrl"])
def test_zero_rows_have_no_gradient(method):
    X = np.zeros((4, 5))
    y = np.array([0, 1, 2, 1])
    run = adagrad_run if method == "adagrad" else ftrl_run
    state, predictions, (mistakes, updates) = run(X, y, 3, loss="log")
    assert updates == 0 and list(predictions) == [0] * 4 and mistakes == 3
    for a in state[:2]:
        assert not a.any()


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e308])
@pytest.mark.parametrize("method", ["adagrad", "ftrl"])
def test_non_finite_scores_raise_and_change_nothing(bad, method):
    X, y = stream(110, 20, 4, 3, density=1.0)
    X[5, 1] = bad
    X[5, 2] = bad
    run = adagrad_run if method == "adagrad" else ftrl_run
    with pytest.raises(ValueError, match="row 5 .*not finite"):
        run(X, y, 3, loss="log")
    state = A.adagrad_state(4, 3) if method == "adagrad" else A.ftrl_state(4, 3)
    entry = A.adagrad_pass if method == "adagrad" else A.ftrl_pass
    entry(X[:5], y[:5], np.arange(5), *state, loss="log")
    before = [a.copy() for a in state]
    row = A.adagrad_row if method == "adagrad" else A.ftrl_row
    with pytest.raises(ValueError, match="not finite"):
        row(np.arange(4), X[5], int(y[5]), *state, loss="log")
    for a, b in zip(state, before):
        np.testing.assert_array_equal(a, b)


def test_bad_arguments_are_refused_by_name():
    X, y = stream(120, 10, 4, 3)
    order = np.arange(10)
    W, G, last, clock = A.adagrad_state(4, 3)
    cases = [
        (lambda: A.adagrad_pass(X, y, order, W, G, last, clock, loss="square"), "unknown loss"),
        (lambda: A.adagrad_pass(X, y, order, W, G, last, clock, eta=0.0), "eta must be"),
        (lambda: A.adagrad_pass(X, y, order, W, G, last, clock, l1=-1.0), "l1 must be"),
        (lambda: A.adagrad_pass(X, y, order, W.astype(np.float32), G, last, clock), "W must be"),
        (lambda: A.adagrad_pass(X, y, order, W, G[:2].copy(), last, clock), "G has shape"),
        (lambda: A.adagrad_pass(X, y, order, W, G, last[:2].copy(), clock), "last has shape"),
        (lambda: A.ftrl_pass(X, y, order, *A.ftrl_state(4, 3), alpha=-1.0), "alpha must be"),
        (lambda: A.ftrl_pass(X[:, :3].copy(), y, order, *A.ftrl_state(4, 3)), "3 features"),
        (lambda: A.ftrl_pass(X, np.full(10, 5), order, *A.ftrl_state(4, 3)), "label index 5"),
        (lambda: A.ftrl_row([0, 0], [1.0, 2.0], 0, *A.ftrl_state(4, 3)), "repeat"),
        (lambda: A.ftrl_row([0, 9], [1.0, 2.0], 0, *A.ftrl_state(4, 3)), "column index"),
        (lambda: A.ftrl_pass(sp.coo_matrix(X), y, order, *A.ftrl_state(4, 3)), "must be CSR"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()
    assert not W.any() and not G.any() and not last.any() and clock[0] == 0
