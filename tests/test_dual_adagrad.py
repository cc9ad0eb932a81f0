"""AdaGrad's primal-dual (RDA) form, ``AdaGrad(form="dual")``: the estimator against the numpy
transcription of ``second_order_reference`` (Duchi, Hazan & Singer 2011, Algorithm 1 with the
dual-averaging update), dense and CSR, both losses, with and without ℓ1/ℓ2."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import second_order_reference as R
from onlinear import AdaGrad


def _stream(K, seed, T=150, d=7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d)) * (rng.random((T, d)) < 0.6)
    X[:, 0] += 1.0  # (no zero row)
    y = np.argmax(X @ rng.normal(size=(d, max(K, 2))) + 0.3 * rng.normal(size=(T, max(K, 2))),
                  axis=1)
    return X, y


@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("loss", ["hinge", "log"])
@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("l1, l2", [(0.0, 0.0), (0.02, 0.0), (0.01, 0.1)])
def test_dual_adagrad_is_algorithm_1_with_dual_averaging(storage, loss, K, l1, l2):
    X, y = _stream(K, seed=K + int(100 * l1) + int(10 * l2))
    params = dict(loss=loss, eta=0.4, delta=0.3, l1=l1, l2=l2)
    labels = np.where(y == 1, 1, -1) if K == 2 else y  # (binary: one weight row, y = ±1)
    state, predictions, infos = R.run(zip(X, labels), "adagrad", R.adagrad_init(
        1 if K == 2 else K, X.shape[1]), form="dual", **params)
    rows = sp.csr_matrix(X) if storage == "csr" else X
    model = AdaGrad(form="dual", **params)
    recorded = model.learn_many(rows, y, classes=np.arange(K))
    expected = (predictions + 1) // 2 if K == 2 else predictions
    np.testing.assert_array_equal(recorded, expected)
    np.testing.assert_allclose(model.coef_, state.W, rtol=1e-10, atol=1e-13)
    assert model.n_updates_ == sum(i.updated for i in infos)
    if l1 > 0.01:
        assert model.n_nonzero_ < model.coef_.size  # (ℓ1: exact zeros)


def test_dual_adagrad_probabilities_and_form_fixed_once_started():
    X, y = _stream(3, seed=9)
    model = AdaGrad(form="dual", loss="log", eta=0.5).fit(X, y)
    proba = model.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(np.argmax(proba, axis=1), model.predict(X[:5]))
    before = model.coef_.copy()
    with pytest.raises(ValueError, match="form"):
        model.set_params(form="mirror")
    assert model.form == "dual"
    np.testing.assert_array_equal(model.coef_, before)
    assert AdaGrad(form="mirror").fit(X, y).coef_.shape == before.shape


def test_dual_and_mirror_forms_differ():
    """Without regularization the dual form's weights are −η·u/H, the mirror form's the sum of
    −η·g_t/H_t: other weights on the same stream."""
    X, y = _stream(3, seed=10)
    dual = AdaGrad(form="dual", eta=0.4).fit(X, y)
    mirror = AdaGrad(form="mirror", eta=0.4).fit(X, y)
    assert not np.allclose(dual.coef_, mirror.coef_, rtol=1e-3)


def _numpy_rda_round(state, idx, vals, label, weight, loss, eta, delta, l1, l2):
    """The round as numpy computes it, one row at a time (the model's rounds before they were
    compiled): scores under the weights of (u, G) at t rounds, then u += w·g, G += (w·g)², t += 1;
    ``(predicted, updated)``."""
    sums, squares, clock = state
    t = float(clock[0])
    scale = delta + np.sqrt(squares[idx]) + eta * l2 * t
    shrunk = np.sign(sums[idx]) * np.maximum(np.abs(sums[idx]) - l1 * t, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = np.where(scale > 0.0, -eta * shrunk / scale, 0.0)
    scores = np.sum(vals[:, None] * weights, axis=0)  # (in the row's order, as compiled: the
    K = scores.shape[0]                                  # classes tied at t = 1 stay tied)
    gamma = np.zeros(K)
    if K == 1:
        z = 1.0 if label == 1 else -1.0
        if loss == "hinge":
            gamma[0] = -z if 1.0 - z * scores[0] > 0.0 else 0.0
        else:
            gamma[0] = -z * np.exp(-np.logaddexp(0.0, z * scores[0]))
        predicted = int(scores[0] > 0.0)
    else:
        predicted = int(np.argmax(scores))
        if loss == "hinge":
            wrong = scores.copy()
            wrong[label] = -np.inf
            support = int(np.argmax(wrong))
            if 1.0 - scores[label] + scores[support] > 0.0:
                gamma[label], gamma[support] = -1.0, 1.0
        else:
            # (the C library's exp, as the engine's: numpy's own vectorized exp, which it
            # takes on CPUs with AVX-512, may differ from it in the last bit)
            exponentials = np.array([math.exp(v) for v in scores - scores[predicted]])
            gamma = exponentials / exponentials.sum()
            gamma[label] -= 1.0
    gamma = gamma * weight
    clock[0] += 1
    updated = bool(np.any(gamma != 0.0) and np.any(vals != 0.0))
    if updated:
        gradient = np.outer(vals, gamma)
        sums[idx] += gradient
        squares[idx] += gradient * gradient
    return predicted, updated


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("loss", ["hinge", "log"])
@pytest.mark.parametrize("K", [1, 5])
@pytest.mark.parametrize("l1, l2", [(0.0, 0.0), (0.03, 0.0), (0.0, 0.2), (0.01, 0.1)])
def test_the_compiled_rounds_are_the_numpy_rounds(dtype, storage, loss, K, l1, l2):
    """The compiled pass (with an example weight) and the compiled one-row rounds leave the
    states of the numpy rounds, with the same predictions and updates."""
    from onlinear._core import adaptive

    X, y = _stream(max(K, 2), seed=31 + K, T=120, d=9)
    X = X.astype(dtype)
    y = y.astype(np.int64)
    rows = sp.csr_matrix(X) if storage == "csr" else X
    params = dict(loss=loss, eta=0.4, delta=0.2, l1=l1, l2=l2)
    for weight in (1.0, 0.35):
        expected = (np.zeros((9, K)), np.zeros((9, K)), np.zeros(1, np.int64))
        outcomes = [_numpy_rda_round(expected, np.flatnonzero(x), x[x != 0].astype(np.float64),
                                     label, weight, **params) for x, label in zip(X, y)]
        state = (np.zeros((9, K)), np.zeros((9, K)), np.zeros(1, np.int64))
        predictions = np.empty(X.shape[0], np.int64)
        mistakes, updates = adaptive.rda_pass(rows, y, np.arange(X.shape[0]), *state,
                                              predictions, weight=weight, **params)
        np.testing.assert_array_equal(predictions, [p for p, _ in outcomes])
        assert updates == sum(u for _, u in outcomes) > 0
        assert mistakes == int(np.sum(predictions != y))
        for got, want in zip(state, expected):  # (bit for bit but the binary logistic loss's
            if K == 1 and loss == "log":         # γ: numpy's logaddexp, the engine's log1p)
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
            else:
                np.testing.assert_array_equal(got, want)
        one_by_one = (np.zeros((9, K)), np.zeros((9, K)), np.zeros(1, np.int64))
        for x, label, outcome in zip(X, y, outcomes):
            nonzero = np.flatnonzero(x)
            assert adaptive.rda_row(nonzero, x[nonzero].astype(np.float64), int(label),
                                    *one_by_one, weight=weight, **params) == outcome
        for got, want in zip(one_by_one, state):
            np.testing.assert_array_equal(got, want)


def test_a_score_that_is_not_finite_stops_the_pass_with_the_rounds_before_it_taken():
    from onlinear._core import adaptive

    X, y = _stream(3, seed=5, T=20)
    X[12, 2] = np.inf
    state = (np.zeros((7, 3)), np.zeros((7, 3)), np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="row 12.*not finite"):
        adaptive.rda_pass(X, y.astype(np.int64), np.arange(20), *state)
    assert state[2][0] == 12
    before = tuple(a.copy() for a in state)
    with pytest.raises(ValueError, match="not finite"):
        adaptive.rda_row(np.arange(7), X[12], int(y[12]), *state)
    for got, want in zip(state, before):
        np.testing.assert_array_equal(got, want)
