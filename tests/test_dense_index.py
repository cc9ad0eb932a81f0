"""The column indices of a dense row (``arange`` of the model's width, as large as one output's
weights) are made by the first dense row a model learns or predicts one at a time, not by its
start or by :func:`onlinear.load`: a model learned from CSR rows never holds them, and a width
change makes them again."""

import numpy as np
import pytest
import scipy.sparse as sp

import onlinear

NAMES = ["pa", "arow", "adagrad", "kernel-pa", "simproj"]


def _data(n_features=7):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, n_features))
    y = np.arange(40) % 3
    return X, y


def _index_width(model):
    """The width of the model's dense-row indices, None if it holds none (a started pa
    without an intercept learns dense rows through its per-example context instead)."""
    index = vars(model).get("_dense_index")
    if index is None:
        return None
    np.testing.assert_array_equal(index, np.arange(index.shape[0]))
    return index.shape[0]


@pytest.mark.parametrize("name, fit_intercept",
                         [(name, True) for name in NAMES if name != "kernel-pa"]
                         + [(name, False) for name in NAMES])
def test_made_by_the_first_dense_row_and_again_after_a_width_change(name, fit_intercept, tmp_path):
    X, y = _data()
    params = {"fit_intercept": fit_intercept}
    if name == "kernel-pa":
        params = {"gamma": 0.5}  # (no fit_intercept: the kernel has its own constant)
    model = onlinear.make(name, **params).fit(sp.csr_matrix(X), y)
    assert "_dense_index" not in vars(model)
    path = tmp_path / "m.onlinear"
    onlinear.save(model, path)
    loaded = onlinear.load(path)
    assert "_dense_index" not in vars(loaded)
    by_pass = onlinear.load(path)

    width = X.shape[1] + int(fit_intercept)
    loaded.learn_one(X[0], y[0])
    assert _index_width(loaded) in ({width} if fit_intercept else {width, None})
    by_pass.partial_fit(X[:1], y[:1])  # (a dense row, as a pass plays it: the same bits)
    np.testing.assert_array_equal(loaded.decision_function(X), by_pass.decision_function(X))

    if name == "kernel-pa":
        return  # (a kernel learner keeps no weights over the width: nothing to grow here)
    loaded.grow_features(X.shape[1] + 3)
    assert "_dense_index" not in vars(loaded)
    by_pass.grow_features(X.shape[1] + 3)
    wider = np.hstack([X, np.ones((X.shape[0], 3))])
    loaded.learn_one(wider[2], y[2])
    assert _index_width(loaded) in ({width + 3} if fit_intercept else {width + 3, None})
    by_pass.partial_fit(wider[2:3], y[2:3])
    np.testing.assert_array_equal(loaded.decision_function(wider),
                                  by_pass.decision_function(wider))


def test_a_refit_on_another_width_makes_them_for_the_new_width():
    X, y = _data()
    model = onlinear.make("pa", fit_intercept=True)  # (learn_one's general path)
    model.learn_one(X[0], y[0], classes=[0, 1, 2])
    assert _index_width(model) == 8
    narrow, _ = _data(4)
    model.fit(narrow, y)
    assert "_dense_index" not in vars(model)
    model.learn_one(narrow[0], y[0])
    assert _index_width(model) == 5
    reference = onlinear.make("pa", fit_intercept=True).fit(narrow, y)
    reference.partial_fit(narrow[:1], y[:1])
    np.testing.assert_array_equal(model.coef_, reference.coef_)
    np.testing.assert_array_equal(model.intercept_, reference.intercept_)
