"""NAROW (Orabona & Crammer, NIPS 2010; the LIBOL manual's Algorithm 11): the estimator against
the numpy transcription of ``second_order_reference`` (full A⁻¹) and a diagonal one written
here, its one-vs-rest multiclass form, and what it refuses."""
import numpy as np
import pytest
import scipy.sparse as sp

import second_order_reference as R
from onlinear import NAROW


def _binary_stream(seed, T=200, d=5, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    X[:, 0] += 0.5  # (no zero row)
    labels = np.where(X @ rng.normal(size=d) > 0, 1, -1)
    labels[rng.random(T) < noise] *= -1
    return X, labels


@pytest.mark.parametrize("b", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("storage", ["dense", "csr"])
def test_full_narow_is_algorithm_11(b, storage):
    X, labels = _binary_stream(int(b * 10))
    state, predictions, infos = R.run(zip(X, labels), "narow", R.initial_state("narow", 5), b=b)
    rows = sp.csr_matrix(X) if storage == "csr" else X
    model = NAROW(b=b, matrix="per-class")
    recorded = model.learn_many(rows, (labels + 1) // 2, classes=[0, 1])
    np.testing.assert_array_equal(recorded, (predictions + 1) // 2)
    assert model.n_updates_ == sum(i.updated for i in infos)
    assert 0 < model.n_updates_ < X.shape[0]
    theta, Ainv, w = state
    np.testing.assert_allclose(model.model_.theta[:, 0], theta, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.covariance_[0], Ainv, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-9, atol=1e-11)


def _diagonal_narow(X, labels, b, a=1.0):
    """Algorithm 11 with A⁻¹ = diag(σ): σ_j ← 1/(1/σ_j + x_j²/r), w = σ∘θ."""
    theta, sigma = np.zeros(X.shape[1]), np.full(X.shape[1], a)
    updates = 0
    for x, y in zip(X, labels):
        w = sigma * theta
        chi = x @ (sigma * x)
        r = chi / (b * chi - 1) if chi > 1 / b else np.inf
        f = (w @ x) * (r / (chi + r) if np.isfinite(r) else 1.0)
        if y * f < 1:
            updates += 1
            theta = theta + y * x
            if np.isfinite(r):
                sigma = 1 / (1 / sigma + x * x / r)
    return theta, sigma, sigma * theta, updates


@pytest.mark.parametrize("b", [0.5, 2.0])
def test_diagonal_narow_keeps_the_diagonal_of_a(b):
    X, labels = _binary_stream(7)
    X[np.abs(X) < 0.3] = 0.0  # (sparse rows: untouched coordinates keep their σ)
    X[:, 0] = 1.0
    theta, sigma, w, updates = _diagonal_narow(X, labels, b)
    model = NAROW(b=b, matrix="diagonal").fit(sp.csr_matrix(X), (labels + 1) // 2)
    assert model.n_updates_ == updates
    np.testing.assert_allclose(model.model_.theta[:, 0], theta, rtol=1e-12)
    np.testing.assert_allclose(model.covariance_[:, 0], sigma, rtol=1e-12)
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-12)


@pytest.mark.parametrize("matrix", ["per-class", "diagonal"])
def test_multiclass_narow_is_one_vs_rest(matrix):
    """On three classes each output is the binary learner of its class against the rest."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(150, 4))
    X[:, 0] += 1.0
    y = np.argmax(X @ rng.normal(size=(4, 3)), axis=1)
    model = NAROW(b=1.5, matrix=matrix).fit(X, y)
    for k in range(3):
        single = NAROW(b=1.5, matrix=matrix).fit(X, (y == k).astype(int))
        np.testing.assert_allclose(model.coef_[k], single.coef_[0], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(model.predict(X), np.argmax(X @ model.coef_.T, axis=1))


def test_narow_takes_no_weights():
    X, labels = _binary_stream(3)
    with pytest.raises(TypeError):
        NAROW().fit(X, labels, sample_weight=np.ones(X.shape[0]))
    with pytest.raises(TypeError):
        NAROW(class_weight={0: 2.0})


def test_a_row_too_large_leaves_the_model_as_it_was():
    X, labels = _binary_stream(4)
    model = NAROW().fit(X[:50], labels[:50])
    before = {name: array.copy() for name, array in model.model_.arrays().items()}
    bad = X[50:60].copy()
    bad[5] *= 1e160
    with pytest.raises(ValueError, match="row 5"):
        model.partial_fit(bad, labels[50:60])
    for name, array in model.model_.arrays().items():
        np.testing.assert_array_equal(array, before[name], err_msg=name)


def test_float32_rows_learn_as_float64_rows():
    X, labels = _binary_stream(5)
    X32 = X.astype(np.float32)
    single = NAROW(matrix="per-class").fit(X32, labels)
    double = NAROW(matrix="per-class").fit(X32.astype(np.float64), labels)
    for name, array in single.model_.arrays().items():
        np.testing.assert_array_equal(array, double.model_.arrays()[name], err_msg=name)
    assert single.coef_.dtype == np.float64


@pytest.mark.parametrize("b", [0.5, 2.0])
def test_libol_variant_is_libols_narow_m(b):
    """``variant="libol"``: LIBOL's NAROW.m (the reference's ``narow_libol_round``)."""
    X, labels = _binary_stream(12)
    state, _, infos = R.run(zip(X, labels), "narow-libol", R.initial_state("binary-full", 5),
                            b=b)
    model = NAROW(b=b, variant="libol").fit(X, (labels + 1) // 2)
    assert model.n_updates_ == sum(i.updated for i in infos) > 0
    np.testing.assert_allclose(model.coef_[0], state[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.covariance_[0], state[1], rtol=1e-10, atol=1e-12)
    dogma = NAROW(b=b).fit(X, (labels + 1) // 2)
    assert not np.allclose(dogma.coef_, model.coef_, rtol=1e-3)


def test_libol_variant_needs_a_full_matrix():
    X, labels = _binary_stream(13)
    with pytest.raises(ValueError, match="full"):
        NAROW(variant="libol", matrix="diagonal").fit(X, labels)
