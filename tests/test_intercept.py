"""``fit_intercept=True``: a constant feature of value 1 appended to every row, its weight the
bias.  Checked against its definition — the same learner without an intercept on the rows
with a column of ones appended — on every learner that has the parameter, through every path
(dense and CSR fit, partial_fit, stream, learn_one, predict_one), and around it (a change after
the start, saving, growing features, the kernel forms)."""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from onlinear import available, make

RNG = np.random.default_rng(17)
X = RNG.normal(size=(70, 5)) + 1.5  # off the origin: the bias matters
Y = np.where(X[:, 0] - X[:, 1] > 0.2, 1, np.where(X[:, 2] > 1.6, 2, 0))
ONES = np.hstack([X, np.ones((70, 1))])


def _names():
    return [name for name in available(kernel=None) if "fit_intercept" in make(name).get_params()]


NAMES = _names()


def _params(name):
    return {"kernel": "linear"} if name.startswith("kernel") else {}


def _data(name):
    if name in ("multiplicative", "winnow"):
        return np.abs(X), np.hstack([np.abs(X), np.ones((70, 1))])
    return X, ONES


def _labels(name):
    return Y % 2 if not onlinear.describe(name).handles_multiclass else Y


def test_every_learner_has_an_intercept_the_ordinal_model_its_thresholds():
    assert NAMES == list(available(kernel=None))
    assert "fit_intercept" in make("simproj", task="blocks").get_params()
    assert "fit_intercept" not in make("simproj", task="ordinal").get_params()


@pytest.mark.parametrize("name", ["simproj", "simperc", "optimal"])
@pytest.mark.parametrize("form", ["indicator", "sets"])
def test_the_multilabel_intercept_is_the_weight_of_a_constant_feature(name, form):
    indicator = np.column_stack([Y == 0, Y >= 1, X[:, 3] > 1.5]).astype(int)
    y = indicator if form == "indicator" else [tuple(np.flatnonzero(r)) for r in indicator]
    classes = [0, 1, 2]
    model = make(name, fit_intercept=True).fit(X[:40], y[:40])
    model.partial_fit(sp.csr_matrix(X[40:55]), y[40:55])
    reference = make(name).fit(ONES[:40], y[:40])
    reference.partial_fit(sp.csr_matrix(ONES[40:55]), y[40:55])
    for i in range(55, 70):
        given = classes if form == "sets" else None
        np.testing.assert_array_equal(model.learn_one(X[i], y[i], classes=given),
                                      reference.learn_one(ONES[i], y[i], classes=given))
    np.testing.assert_allclose(model.decision_function(X), reference.decision_function(ONES),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.coef_, reference.coef_[:, :5], rtol=1e-12, atol=0)
    np.testing.assert_allclose(model.intercept_, reference.coef_[:, 5], rtol=1e-12, atol=0)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_block_learners_intercept_is_the_weight_of_a_constant_feature(sparse):
    y = np.where(Y == 1, 1, -1)
    wrap = sp.csr_matrix if sparse else np.asarray
    blocks = [0, 3, 4, 9, 20, 40]
    model = make("simproj", task="blocks", fit_intercept=True, n_epochs=2)
    model.fit(wrap(X[:40]), y[:40], block_ptr=blocks)
    model.partial_fit(wrap(X[40:60]), y[40:60])
    reference = make("simproj", task="blocks", n_epochs=2)
    reference.fit(wrap(ONES[:40]), y[:40], block_ptr=blocks)
    reference.partial_fit(wrap(ONES[40:60]), y[40:60])
    for i in range(60, 70):
        assert model.learn_one(X[i], y[i]) == reference.learn_one(ONES[i], y[i])
    np.testing.assert_array_equal(model.predict_one(X[0]), reference.predict_one(ONES[0]))
    np.testing.assert_allclose(model.decision_function(wrap(X)),
                               reference.decision_function(wrap(ONES)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, reference.coef_[:, 5], rtol=1e-12, atol=0)
    assert model.intercept_[0] != 0.0


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("sparse", [False, True])
def test_the_intercept_is_the_weight_of_a_constant_feature(name, sparse):
    data, with_ones = _data(name)
    y = _labels(name)
    wrap = sp.csr_matrix if sparse else np.asarray
    model = make(name, fit_intercept=True, **_params(name)).fit(wrap(data[:40]), y[:40])
    model.partial_fit(wrap(data[40:55]), y[40:55])
    for x, label in zip(data[55:], y[55:]):
        model.learn_one(x, label)
    reference = make(name, **_params(name)).fit(wrap(with_ones[:40]), y[:40])
    reference.partial_fit(wrap(with_ones[40:55]), y[40:55])
    for x, label in zip(with_ones[55:], y[55:]):
        reference.learn_one(x, label)
    np.testing.assert_allclose(model.decision_function(wrap(data)),
                               reference.decision_function(wrap(with_ones)),
                               rtol=1e-12, atol=1e-12)
    assert model.predict(data).tolist() == reference.predict(with_ones).tolist()
    assert [model.predict_one(x) for x in data[:10]] == reference.predict(with_ones[:10]).tolist()
    assert (model.n_mistakes_, model.n_updates_) == (reference.n_mistakes_, reference.n_updates_)
    if hasattr(reference, "coef_") and not name.startswith("kernel"):
        np.testing.assert_allclose(model.coef_, reference.coef_[:, :5], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(model.intercept_, reference.coef_[:, 5], rtol=1e-12,
                                   atol=1e-15)


def test_intercept_is_zero_without_it_and_shaped_as_scikit_learns():
    three = make("pa").fit(X, Y)
    two = make("pa").fit(X, Y % 2)
    assert three.intercept_.tolist() == [0.0, 0.0, 0.0] and two.intercept_.tolist() == [0.0]
    assert make("perceptron", fit_intercept=True).fit(X, Y % 2).intercept_.shape == (1,)
    assert make("pa", fit_intercept=True).fit(X, Y % 2).intercept_.shape == (1,)


def test_an_intercept_makes_the_default_pass_a_good_model():
    """Two blobs on one ray from the origin: no hyperplane through the origin separates them
    (0.5 without a bias); with it the same learner does (1.0)."""
    from sklearn.datasets import make_blobs

    Xb, yb = make_blobs(400, centers=[[3.0, 3.0], [5.0, 5.0]], cluster_std=0.4, random_state=0)
    without = make("pa1", n_epochs=5, shuffle=True, random_state=0).fit(Xb, yb)
    with_bias = make("pa1", fit_intercept=True, n_epochs=5, shuffle=True,
                     random_state=0).fit(Xb, yb)
    assert without.score(Xb, yb) < 0.7 and with_bias.score(Xb, yb) > 0.98


def test_changing_fit_intercept_after_the_start_is_refused_until_fit_restarts():
    model = make("mira").fit(X, Y)
    model.set_params(fit_intercept=True)
    for call in (lambda: model.partial_fit(X[:3], Y[:3]), lambda: model.learn_one(X[0], 1),
                 lambda: model.predict(X[:3]), lambda: model.predict_one(X[0]),
                 lambda: model.grow_features(7)):
        with pytest.raises(ValueError, match="fit_intercept=True was set after the model"):
            call()
    model.fit(X, Y)
    assert model.intercept_.shape == (3,) and np.any(model.intercept_ != 0.0)


def test_an_intercept_model_saves_and_grows_with_the_constant_last(tmp_path):
    model = make("pa", fit_intercept=True).fit(sp.csr_matrix(X[:40]), Y[:40])
    onlinear.save(model, tmp_path / "m.onlinear")
    loaded = onlinear.load(tmp_path / "m.onlinear")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    wide = np.hstack([X, RNG.normal(size=(70, 2))])
    for m in (model, loaded):
        m.grow_features(7)
        m.partial_fit(sp.csr_matrix(wide[40:]), Y[40:])
    np.testing.assert_array_equal(loaded.decision_function(wide), model.decision_function(wide))
    # the same as a model without intercept on [X, 0, 0, 1] then [X, extra, 1]
    reference = make("pa").fit(np.hstack([X[:40], np.zeros((40, 2)), np.ones((40, 1))]), Y[:40])
    reference.partial_fit(np.hstack([wide[40:], np.ones((30, 1))]), Y[40:])
    np.testing.assert_allclose(model.coef_, reference.coef_[:, :7], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(model.intercept_, reference.coef_[:, 7], rtol=1e-12, atol=1e-15)


def test_kernel_forms():
    primal = make("pa1", fit_intercept=True).fit(X, Y)
    dual = make("kernel-pa1", kernel="linear", fit_intercept=True).fit(X, Y)
    np.testing.assert_allclose(dual.decision_function(X), primal.decision_function(X),
                               rtol=1e-9, atol=1e-9)
    assert dual.support_vectors_.shape[1] == 5  # the user's features
    with pytest.raises(ValueError, match="kernel callable"):
        make("kernel-pa", kernel=lambda A, B: A @ B.T, fit_intercept=True).fit(X, Y)
    # gamma="scale" is the data's, not counting the constant
    rbf = make("kernel-pa", gamma="scale", fit_intercept=True).fit(X, Y)
    assert rbf.gamma_ == make("kernel-pa", gamma="scale").fit(X, Y).gamma_
