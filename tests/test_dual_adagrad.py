"""AdaGrad's primal-dual (RDA) form, ``AdaGrad(form="dual")``: the estimator against the numpy
transcription of ``second_order_reference`` (Duchi, Hazan & Singer 2011, Algorithm 1 with the
dual-averaging update), dense and CSR, both losses, with and without ℓ1/ℓ2."""
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
