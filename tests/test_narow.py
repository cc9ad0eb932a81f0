"""NAROW (Orabona & Crammer, NIPS 2010; the LIBOL manual's Algorithm 11): the estimator against
the numpy transcription of ``second_order_reference`` (full A⁻¹) and a diagonal one written
here, its one-vs-rest multiclass form, and what it refuses."""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
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


@pytest.mark.parametrize("variant, matrix", [("dogma", "diagonal"), ("dogma", "per-class"),
                                             ("libol", "per-class")])
def test_every_entry_point_plays_the_same_compiled_rounds(variant, matrix):
    """fit, partial_fit in chunks, CSR rows and learn_one (its compiled round) leave the same
    bits, multiclass (one-vs-rest); a full A⁻¹ stays symmetric bit for bit."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 6)) * (rng.random((150, 6)) < 0.7)
    X[:, 0] += 1.0
    y = np.argmax(X @ rng.normal(size=(6, 3)) + 0.4 * rng.normal(size=(150, 3)), axis=1)
    params = dict(b=0.8, matrix=matrix, variant=variant)
    whole = NAROW(**params).fit(X, y)
    csr = NAROW(**params).fit(sp.csr_matrix(X), y)
    chunks = NAROW(**params)
    for start in range(0, 150, 37):
        chunks.partial_fit(X[start:start + 37], y[start:start + 37], classes=[0, 1, 2])
    ones = NAROW(**params)
    predicted = [ones.learn_one(x, label, classes=[0, 1, 2]) for x, label in zip(X, y)]
    assert "_fast" in vars(ones)
    for other in (csr, chunks, ones):
        np.testing.assert_array_equal(other.coef_, whole.coef_)
        np.testing.assert_array_equal(other.covariance_, whole.covariance_)
        assert (other.n_seen_, other.n_mistakes_, other.n_updates_) == (
            whole.n_seen_, whole.n_mistakes_, whole.n_updates_)
    assert sum(p != label for p, label in zip(predicted, y)) == whole.n_mistakes_
    assert 0 < whole.n_updates_ < 150
    if matrix == "per-class":
        np.testing.assert_array_equal(whole.covariance_, np.swapaxes(whole.covariance_, 1, 2))


def _numpy_narow(X, y, K, b, full, a=1.0):
    """The multiclass rounds as numpy computes them (one-vs-rest: every output takes its χ_k, r_k
    and margin test; every χ_k computed before any output moves): ``(w, A⁻¹, θ, updates)``."""
    d = X.shape[1]
    theta, w = np.zeros((d, K)), np.zeros((d, K))
    cov = np.repeat(a * np.eye(d)[None], K, axis=0) if full else np.full((d, K), a)
    updates = 0
    for x, label in zip(X, y):
        steps = np.stack([cov[k] @ x for k in range(K)], axis=1) if full else cov * x[:, None]
        chis, scores = x @ steps, x @ w
        updated = False
        for k in range(K):
            z = 1.0 if k == label else -1.0
            grows = chis[k] * b > 1.0
            r = chis[k] / (b * chis[k] - 1.0) if grows else np.inf
            if not (chis[k] > 0.0 and z * scores[k] * (r / (chis[k] + r) if grows else 1.0) < 1):
                continue
            updated = True
            theta[:, k] += z * x
            if full:
                if grows:
                    cov[k] -= np.outer(steps[:, k], steps[:, k]) / (r + chis[k])
                w[:, k] = cov[k] @ theta[:, k]
            else:
                if grows:
                    cov[:, k] = cov[:, k] / (1.0 + cov[:, k] * x * x / r)
                w[:, k] = cov[:, k] * theta[:, k]
        updates += updated
    return w, cov, theta, updates


@pytest.mark.parametrize("matrix", ["diagonal", "per-class"])
def test_the_compiled_multiclass_rounds_are_the_numpy_rounds(matrix):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(200, 7)) * (rng.random((200, 7)) < 0.8)
    X[:, 0] += 1.0
    y = np.argmax(X @ rng.normal(size=(7, 4)) + 0.5 * rng.normal(size=(200, 4)), axis=1)
    w, cov, theta, updates = _numpy_narow(X, y, 4, 0.7, matrix == "per-class")
    model = NAROW(b=0.7, matrix=matrix).fit(X, y)
    assert model.n_updates_ == updates
    np.testing.assert_allclose(model.model_.theta, theta, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.coef_, w.T, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(model.model_.covariance, cov, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("scale", [9.5e7, 1e12, 1e100])
def test_a_full_inverse_keeps_a_positive_variance_along_a_row_far_larger_than_the_rest(
        tmp_path, scale):
    """A⁻¹ − (A⁻¹x)(A⁻¹x)ᵀ/(r + χ) as a subtraction cancelled to exactly 0 along such a row
    (its exact value a·r/(r + χ), here about 1e-16 of a): the model froze there, and its file
    was refused on load (not positive definite).  The step is now the congruence, held at the
    full layouts' floor, as the Gaussian engine's is."""
    X = np.array([[0.0, 1.0], [1.0, 0.0], [scale, 0.0], [0.5, 0.5]])
    y = np.array([0, 1, 2, 1])
    model = onlinear.make("narow", matrix="per-class").fit(X, y)
    covariance = model.covariance_
    assert np.all(np.linalg.eigvalsh(covariance) > 0.0)
    onlinear.save(model, tmp_path / "m.onlinear")
    again = onlinear.load(tmp_path / "m.onlinear")
    np.testing.assert_array_equal(again.covariance_, covariance)
