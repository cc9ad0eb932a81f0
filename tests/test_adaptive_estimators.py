"""The adaptive first-order estimators (AdaGrad, FTRL-Proximal) against the plain-numpy
transcription of their rounds (``second_order_reference``), dense and CSR, through every entry
point; their probabilities (logistic loss only), their sparsity under ℓ1, and growing.

The compiled loops themselves (lazy regularization, regret bound, FTRL ≡ AdaGrad-MD, edge
cases) are tested in ``test_adaptive_core.py``; here the estimators' wiring is."""
import copy

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import softmax
from sklearn.calibration import CalibratedClassifierCV

import onlinear
import second_order_reference as ref
from onlinear import AdaGrad, FTRLProximal


def _data(n=150, d=6, k=3, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 1.0, (k, d))
    y = rng.integers(0, k, n)
    X = centres[y] + rng.normal(0.0, 1.0, (n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    return X, y


def _reference(name, params, X, y, k):
    labels = 2 * y - 1 if k == 2 else y
    rows = 1 if k == 2 else k
    if name == "adagrad":
        state = ref.adagrad_init(rows, X.shape[1])
        for x, label in zip(X, labels):
            state, _ = ref.adagrad_round(state, x, label, **params)
        return state.W
    state = ref.ftrl_init(rows, X.shape[1])
    for x, label in zip(X, labels):
        state, _ = ref.ftrl_round(state, x, label, **params)
    return ref.ftrl_weights(state, params["alpha"], params["beta"], params["l1"], params["l2"])


CASES = {
    "adagrad-hinge": (AdaGrad, "adagrad", {"loss": "hinge", "eta": 0.3, "delta": 1e-8,
                                           "l1": 0.0, "l2": 0.0}),
    "adagrad-log-l1-l2": (AdaGrad, "adagrad", {"loss": "log", "eta": 0.3, "delta": 0.5,
                                               "l1": 0.01, "l2": 0.1}),
    "adagrad-rda-hinge": (AdaGrad, "adagrad", {"form": "dual", "loss": "hinge", "eta": 0.3,
                                               "delta": 1e-8, "l1": 0.0, "l2": 0.0}),
    "adagrad-rda-log-l1-l2": (AdaGrad, "adagrad", {"form": "dual", "loss": "log", "eta": 0.3,
                                                   "delta": 0.5, "l1": 0.01, "l2": 0.1}),
    "ftrl-log": (FTRLProximal, "ftrl", {"loss": "log", "alpha": 0.4, "beta": 1.0, "l1": 0.0,
                                        "l2": 0.0}),
    "ftrl-hinge-l1": (FTRLProximal, "ftrl", {"loss": "hinge", "alpha": 0.4, "beta": 1.0,
                                             "l1": 0.5, "l2": 0.2}),
}


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_fit_is_the_reference(case, sparse, k):
    cls, name, params = CASES[case]
    X, y = _data(k=k, seed=k)
    model = cls(**params).fit(sp.csr_matrix(X) if sparse else X, y)
    expected = _reference(name, params, X, y, k)
    np.testing.assert_allclose(model.coef_, expected, rtol=1e-9, atol=1e-12)
    assert model.n_seen_ == X.shape[0] and 0 < model.n_updates_ <= X.shape[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_entry_point_plays_the_same_rounds(case):
    cls, _, params = CASES[case]
    X, y = _data(seed=4)
    whole = cls(**params).fit(X, y)
    chunks = cls(**params)
    for start in range(0, X.shape[0], 23):
        chunks.partial_fit(X[start:start + 23], y[start:start + 23], classes=[0, 1, 2])
    ones = cls(**params)
    predicted = [ones.learn_one(x, label, classes=[0, 1, 2]) for x, label in zip(X, y)]
    csr = cls(**params).fit(sp.csr_matrix(X), y)
    for other in (chunks, ones, csr):
        np.testing.assert_allclose(other.coef_, whole.coef_, rtol=1e-12, atol=1e-14)
        assert (other.n_seen_, other.n_mistakes_, other.n_updates_) == (
            whole.n_seen_, whole.n_mistakes_, whole.n_updates_)
    assert sum(p != label for p, label in zip(predicted, y)) == whole.n_mistakes_


@pytest.mark.parametrize("cls", [AdaGrad, FTRLProximal])
@pytest.mark.parametrize("k", [2, 3])
def test_the_logistic_loss_gives_the_softmax_of_its_scores(cls, k):
    X, y = _data(k=k, seed=5)
    model = cls(loss="log").fit(X, y)
    proba = model.predict_proba(X)
    scores = X @ model.coef_.T
    if k == 2:
        scores = np.hstack([np.zeros_like(scores), scores])
    np.testing.assert_allclose(proba, softmax(scores, axis=1), rtol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(model.classes_[np.argmax(proba, axis=1)], model.predict(X))
    one = model.predict_proba_one(X[0])
    assert list(one) == model.classes_.tolist()
    np.testing.assert_allclose(list(one.values()), proba[0], rtol=1e-12)
    np.testing.assert_allclose(model.predict_proba(sp.csr_matrix(X)), proba, rtol=1e-12)


@pytest.mark.parametrize("cls", [AdaGrad, FTRLProximal])
def test_the_hinge_loss_has_no_probabilities_but_calibrates(cls):
    X, y = _data(n=300, seed=6)
    model = cls(loss="hinge").fit(X, y)
    assert not hasattr(model, "predict_proba")
    with pytest.raises(AttributeError) as refused:
        model.predict_proba(X)
    assert "calibrate" in str(refused.value.__cause__)  # (the reason, chained by scikit-learn)
    calibrated = CalibratedClassifierCV(cls(loss="hinge"), cv=3).fit(X, y)
    np.testing.assert_allclose(calibrated.predict_proba(X).sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("cls", [AdaGrad, FTRLProximal])
def test_l1_gives_exact_zeros(cls):
    X, y = _data(n=400, d=30, seed=7)
    X[:, 10:] *= 0.05  # weak features: l1 keeps them at zero
    dense = cls(loss="log").fit(X, y)
    sparse = cls(loss="log", l1=2.0 if cls is FTRLProximal else 0.05).fit(X, y)
    assert dense.n_nonzero_ == dense.coef_.size
    assert 0 < sparse.n_nonzero_ < dense.n_nonzero_
    assert sparse.n_nonzero_ == np.count_nonzero(sparse.coef_)
    assert np.sum(sparse.coef_ == 0.0) == sparse.coef_.size - sparse.n_nonzero_


@pytest.mark.parametrize("case", sorted(CASES))
def test_grown_features_are_a_model_started_wide(case):
    cls, _, params = CASES[case]
    X, y = _data(d=7, seed=8)
    X[:70, 5:] = 0.0
    wide = cls(**params).partial_fit(sp.csr_matrix(X[:70]), y[:70], classes=[0, 1, 2])
    narrow = cls(**params).partial_fit(sp.csr_matrix(X[:70, :5]), y[:70], classes=[0, 1, 2])
    narrow.grow_features(7)
    for part in (slice(70, 110), slice(110, None)):
        wide.partial_fit(sp.csr_matrix(X[part]), y[part])
        narrow.partial_fit(sp.csr_matrix(X[part]), y[part])
    np.testing.assert_array_equal(narrow.coef_, wide.coef_)


@pytest.mark.parametrize("case", sorted(CASES))
def test_saved_and_loaded_it_goes_on_bit_for_bit(tmp_path, case):
    cls, _, params = CASES[case]
    X, y = _data(seed=9)
    model = cls(**params, fit_intercept=True).fit(X[:90], y[:90])
    onlinear.save(model, tmp_path / "m.onlinear")
    loaded = onlinear.load(tmp_path / "m.onlinear")
    model.partial_fit(X[90:], y[90:])
    loaded.partial_fit(X[90:], y[90:])
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    np.testing.assert_array_equal(loaded.intercept_, model.intercept_)


def test_the_registry_makes_them():
    assert type(onlinear.make("adagrad")) is AdaGrad
    assert type(onlinear.make("ftrl")) is FTRLProximal
    assert onlinear.make("ftrl").loss == "log" and onlinear.make("adagrad").loss == "hinge"


@pytest.mark.parametrize("case", sorted(CASES))
def test_learn_one_takes_the_compiled_round_and_follows_every_change_of_the_model(case):
    cls, _, params = CASES[case]
    X, y = _data(d=6, seed=12)
    ones, chunks = cls(**params), cls(**params)
    ones.learn_one(X[0], y[0], classes=[0, 1, 2])
    chunks.partial_fit(X[:1], y[:1], classes=[0, 1, 2])

    def both(start, stop):
        for i in range(start, stop):
            ones.learn_one(X[i], y[i])
        chunks.partial_fit(X[start:stop], y[start:stop])

    both(1, 50)
    assert "_fast" in vars(ones)
    ones.set_params(l2=0.3)
    chunks.set_params(l2=0.3)
    both(50, 90)
    ones.grow_features(8)
    chunks.grow_features(8)
    X = np.hstack([X, np.ones((X.shape[0], 2))])
    both(90, X.shape[0])
    np.testing.assert_array_equal(ones.coef_, chunks.coef_)
    assert (ones.n_seen_, ones.n_mistakes_, ones.n_updates_) == (
        chunks.n_seen_, chunks.n_mistakes_, chunks.n_updates_)


@pytest.mark.parametrize("average", [False, True])
def test_l1_or_l2_set_on_a_started_adagrad_applies_from_the_next_round(average):
    """An unregularized pass leaves the lazy clocks at 0: setting ``l1`` then made the first
    read (a predict) regularize every round since, in place, and setting it back did not undo
    it.  A change of l1 or l2 now applies from the next round: the steps deferred so far are
    taken under the old values and every feature's clock starts at the change, so reads
    change nothing."""
    X, y = _data()
    model = AdaGrad(average=average).fit(X[:100], y[:100])
    before = model.coef_.copy()
    model.set_params(l1=0.1)
    model.predict(X[:1])
    model.set_params(l1=0.0)
    np.testing.assert_array_equal(model.coef_, before)
    model.set_params(l1=0.05, l2=0.01).partial_fit(X[100:130], y[100:130])
    deferred = model.model_.clock[0] - model.model_.last
    assert deferred.max() > 0  # (some feature absent from the last rows: steps deferred)
    expected = copy.deepcopy(model).coef_  # (the deferred steps under l1=0.05, l2=0.01)
    model.set_params(l1=0.2)  # (the old values' deferred steps are taken now ...)
    assert np.all(model.model_.last == model.model_.clock[0])
    np.testing.assert_array_equal(model.set_params(l1=0.05).coef_, expected)
