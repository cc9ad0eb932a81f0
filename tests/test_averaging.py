"""The averaged hypothesis (``average=True``): the mean of the hypotheses after every round.

Checked against its definition — a model without averaging learning the same rounds one at a
time, its ``coef_`` recorded after each — on every learner that has an averaged form, dense and
CSR, across ``fit`` epochs, ``partial_fit`` and ``learn_one``; the kernel form with the linear
kernel against the primal; and the contract around it (refusals, changes after the start,
saving).
"""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from onlinear import available, make

RNG = np.random.default_rng(11)
X = RNG.normal(size=(90, 7)) * RNG.uniform(0.2, 3.0, size=(90, 1))
Y3 = RNG.integers(0, 3, size=90)
Y2 = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 4, 9)  # two classes, not 0/1


def _averaging_names(accepted):
    """The learners that take ``average``, whose defaults accept it (or refuse it)."""
    names = []
    for name in available(kernel=False):
        model = make(name)
        if "average" in model.get_params() and model._has_averaged_form() == accepted:
            names.append(name)
    return names


NAMES = _averaging_names(accepted=True)


def _brute_force_mean(name, X, y, classes):
    model = make(name)
    history = []
    for x, label in zip(X, y):
        model.learn_one(x, label, classes=classes)
        history.append(model.coef_)
    return np.mean(history, axis=0)


def test_the_learners_with_an_averaged_form():
    assert {"pa", "pa1", "pa2", "perceptron", "mira", "mc-romma"} <= set(NAMES)
    assert not {"romma", "naromma", "mcp", "iellip", "simproj"} & set(NAMES)
    # the held learners whose model keeps the averaging sums
    assert {"cw", "arow", "scw1", "scw2", "nherd", "narow", "adagrad", "ftrl"} <= set(NAMES)


def test_every_learner_that_takes_average_averages_with_its_defaults():
    # (AdaGrad's dual form was the last to refuse: it now keeps sums of its own)
    assert _averaging_names(accepted=False) == []
    assert make("adagrad-rda")._has_averaged_form()


class _Refusing(onlinear.AdaGrad):
    """A family whose hyperparameters leave no averaged form (none registered now does)."""

    def _held_averaging_refusal(self):
        return "its test reason"


def test_a_refused_average_says_why_and_learns_nothing():
    with pytest.raises(ValueError, match="has no averaged form.*its test reason"):
        _Refusing(average=True).fit(X, Y3)
    model = _Refusing().fit(X, Y3)
    before = {key: array.copy() for key, array in model.model_.arrays().items()}
    with pytest.raises(ValueError, match="has no averaged form.*its test reason"):
        model.set_params(average=True)
        model.partial_fit(X, Y3)
    for key, array in model.model_.arrays().items():
        np.testing.assert_array_equal(array, before[key])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("labels", ["two", "three"])
@pytest.mark.parametrize("sparse", [False, True])
def test_average_is_the_mean_of_the_hypotheses_after_each_round(name, labels, sparse):
    y = Y2 if labels == "two" else Y3
    classes = np.unique(y)
    data = sp.csr_matrix(X) if sparse else X
    model = make(name, average=True, n_epochs=2).fit(data, y)
    expected = _brute_force_mean(name, np.vstack([X, X]), np.concatenate([y, y]), classes)
    scale = max(np.abs(expected).max(), 1e-12)
    np.testing.assert_allclose(model.coef_, expected, rtol=1e-8, atol=1e-10 * scale)
    # it is what predicts
    scores = X[:5] @ model.coef_.T
    np.testing.assert_allclose(model.decision_function(X[:5]),
                               scores[:, 0] if labels == "two" else scores,
                               rtol=1e-9, atol=1e-9 * scale)
    assert [model.predict_one(x) for x in X[:20]] == model.predict(X[:20]).tolist()
    # partial_fit and learn_one continue the same average
    model.partial_fit(data[:30], y[:30])
    for x, label in zip(X[30:40], y[30:40]):
        model.learn_one(x, label)
    expected = _brute_force_mean(name, np.vstack([X, X, X[:40]]), np.concatenate([y, y, y[:40]]),
                                 classes)
    np.testing.assert_allclose(model.coef_, expected, rtol=1e-8, atol=1e-10 * scale)
    assert model.n_seen_ == 220


def test_the_online_counts_and_learn_one_stay_those_of_the_online_hypothesis():
    plain, averaged = make("pa"), make("pa", average=True)
    for x, label in zip(X, Y3):
        assert plain.learn_one(x, label, classes=[0, 1, 2]) == \
            averaged.learn_one(x, label, classes=[0, 1, 2])
    assert (plain.n_mistakes_, plain.n_updates_) == (averaged.n_mistakes_, averaged.n_updates_)
    assert not np.allclose(plain.coef_, averaged.coef_)


def test_kernel_form_with_the_linear_kernel_averages_as_the_primal():
    primal = make("pa", average=True).fit(X, Y3)
    dual = make("kernel-pa", kernel="linear", average=True).fit(X, Y3)
    weights = dual.support_vectors_.T @ dual.average_dual_coef_
    np.testing.assert_allclose(weights.T, primal.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dual.decision_function(X), primal.decision_function(X),
                               rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["romma", "mcp", "multiplicative"])
def test_learners_without_an_averaged_form_have_no_average_parameter(name):
    assert "average" not in make(name).get_params()
    with pytest.raises(ValueError, match=r"has no hyperparameter\(s\) \['average'\]"):
        make(name, average=True)


def test_changing_average_after_the_start_is_refused_until_fit_restarts():
    model = make("perceptron").fit(X, Y3)
    model.set_params(average=True)
    weights = model.model_.weights.copy()
    for call in (lambda: model.partial_fit(X[:3], Y3[:3]), lambda: model.learn_one(X[0], 1),
                 lambda: model.predict(X[:3])):
        with pytest.raises(ValueError, match="average=True was set after the model started"):
            call()
    np.testing.assert_array_equal(model.model_.weights, weights)
    model.fit(X, Y3)  # restarts with averaging
    np.testing.assert_allclose(model.coef_, _brute_force_mean("perceptron", X, Y3, [0, 1, 2]),
                               rtol=1e-9, atol=1e-12)


def test_an_averaged_model_saves_grows_and_resumes(tmp_path):
    model = make("mira", average=True).fit(sp.csr_matrix(X[:60]), Y3[:60])
    onlinear.save(model, tmp_path / "m.onlinear")
    loaded = onlinear.load(tmp_path / "m.onlinear")
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    wide = np.hstack([X[60:], np.zeros((30, 2))])
    for m in (model, loaded):
        m.grow_features(9)
        m.partial_fit(sp.csr_matrix(wide), Y3[60:])
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    expected = _brute_force_mean("mira", np.hstack([X, np.zeros((90, 2))]), Y3, [0, 1, 2])
    np.testing.assert_allclose(model.coef_, expected, rtol=1e-8, atol=1e-12)
