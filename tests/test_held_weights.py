"""Example weights of the held models (the Gaussian and adaptive learners): what a weight means
for each learner (``estimators.confidence_weighted`` and ``estimators.adaptive`` module docs),
the identities that hold exactly, CW's refusal, and bad weights refused with the model as it
was."""
import numpy as np
import pytest
import scipy.sparse as sp

from onlinear import (AROW, AdaGrad, ConfidenceWeighted, FTRLProximal, NormalHerd,
                      SoftConfidenceWeighted)
from onlinear.models import weighted_pass

WEIGHTED = [
    ("arow-diagonal", lambda **kw: AROW(r=0.5, matrix="diagonal", **kw)),
    ("arow-full", lambda **kw: AROW(r=0.5, matrix="per-class", **kw)),
    ("arow-shared", lambda **kw: AROW(r=0.5, matrix="shared", **kw)),
    ("scw1", lambda **kw: SoftConfidenceWeighted(C=0.3, matrix="diagonal", **kw)),
    ("scw2-full", lambda **kw: SoftConfidenceWeighted(C=0.3, variant="II", matrix="per-class",
                                                      **kw)),
    ("nherd-exact", lambda **kw: NormalHerd(C=0.2, matrix="diagonal", diagonal="exact", **kw)),
    ("adagrad-hinge", lambda **kw: AdaGrad(eta=0.3, delta=0.5, **kw)),
    ("adagrad-log", lambda **kw: AdaGrad(loss="log", eta=0.3, **kw)),
    ("adagrad-dual", lambda **kw: AdaGrad(form="dual", eta=0.3, delta=0.5, **kw)),
    ("ftrl-l1", lambda **kw: FTRLProximal(alpha=0.4, l1=0.05, l2=0.1, **kw)),
    ("ftrl-hinge", lambda **kw: FTRLProximal(loss="hinge", **kw)),
]
IDS = [name for name, _ in WEIGHTED]
MAKERS = [make for _, make in WEIGHTED]


def _data(n=150, d=6, k=3, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    X[:, 0] += 2.0  # (no zero row)
    y = np.argmax(X @ rng.normal(size=(d, k)) + 0.5 * rng.normal(size=(n, k)), axis=1)
    return (sp.csr_matrix(X) if sparse else X), y


def _state(model):
    return {name: np.array(array, copy=True) for name, array in model.model_.arrays().items()}


def _assert_same_state(a, b, skip=()):
    for name, array in a.model_.arrays().items():
        if name not in skip + ("counts",):
            np.testing.assert_array_equal(array, b.model_.arrays()[name], err_msg=name)


def _same_without_clock(make):
    """AdaGrad's ``last``/``clock`` count every round, learned or not (the regularizer's)."""
    return ("last", "clock") if make().__class__ is AdaGrad else ()


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("make", MAKERS, ids=IDS)
def test_weight_zero_is_a_prediction_only(make, sparse):
    """A row of weight 0 changes nothing (its round predicts and is counted): the model equals
    the one fitted on the other rows."""
    X, y = _data(sparse=sparse)
    weights = np.ones(X.shape[0])
    zero = np.random.default_rng(1).random(X.shape[0]) < 0.4
    weights[zero] = 0.0
    weighted = make().fit(X, y, sample_weight=weights)
    plain = make().fit(X[~zero], y[~zero])
    _assert_same_state(weighted, plain, skip=_same_without_clock(make))
    assert weighted.n_seen_ == X.shape[0]
    assert weighted.n_updates_ == plain.n_updates_
    assert weighted.n_mistakes_ >= plain.n_mistakes_  # (and the zero rows' mistakes)


@pytest.mark.parametrize("make", MAKERS, ids=IDS)
def test_class_weight_is_the_sample_weight_of_its_class(make):
    X, y = _data(seed=2)
    class_weight = {0: 0.5, 1: 2.0, 2: 1.25}
    by_class = make(class_weight=class_weight).fit(X, y)
    by_row = make().fit(X, y, sample_weight=np.array([class_weight[c] for c in y]))
    _assert_same_state(by_class, by_row)
    assert by_class.n_mistakes_ == by_row.n_mistakes_


@pytest.mark.parametrize("make", MAKERS, ids=IDS)
def test_every_entry_point_weighs_alike(make):
    """``learn_one`` (class weights, row by row), ``partial_fit`` in chunks and ``fit`` take the
    same rounds: runs of equal weight long enough for one compiled pass (≥ LONG_RUN) and short
    ones (row by row) give the model of the rounds one at a time."""
    X, y = _data(n=2 * weighted_pass.LONG_RUN + 20, seed=3)
    class_weight = {0: 0.7, 1: 1.0, 2: 2.5}
    y[:weighted_pass.LONG_RUN + 5] = 1  # one long run of class 1's weight
    y[:3] = [0, 1, 2]
    fitted = make(class_weight=class_weight).fit(X, y)
    one = make(class_weight=class_weight)
    predicted = [one.learn_one(X[i], y[i], classes=[0, 1, 2]) for i in range(X.shape[0])]
    _assert_same_state(fitted, one)
    chunks = make(class_weight=class_weight)
    for start in range(0, X.shape[0], 37):
        chunks.partial_fit(X[start:start + 37], y[start:start + 37], classes=[0, 1, 2])
    _assert_same_state(fitted, chunks)
    recorded = make(class_weight=class_weight).learn_many(X, y, classes=[0, 1, 2])
    np.testing.assert_array_equal(recorded, predicted)
    assert fitted.n_mistakes_ == one.n_mistakes_ == chunks.n_mistakes_


@pytest.mark.parametrize("make, scaled", [
    (lambda **kw: AROW(r=0.6, matrix="diagonal", **kw), lambda w: AROW(r=0.6 / w,
                                                                       matrix="diagonal")),
    (lambda **kw: SoftConfidenceWeighted(C=0.3, **kw),
     lambda w: SoftConfidenceWeighted(C=0.3 * w)),
    (lambda **kw: NormalHerd(C=0.2, matrix="per-class", **kw),
     lambda w: NormalHerd(C=0.2 * w, matrix="per-class")),
], ids=["arow", "scw1", "nherd"])
def test_a_gaussian_weight_weighs_the_loss(make, scaled):
    """A weight w on every row is the learner with w·C (SCW, NHERD) or r/w (AROW)."""
    X, y = _data(seed=4)
    weighted = make().fit(X, y, sample_weight=np.full(X.shape[0], 2.5))
    _assert_same_state(weighted, scaled(2.5).fit(X, y))


@pytest.mark.parametrize("r", [0.1, 1.0, 10.0])
def test_binary_full_arow_integer_weight_is_repetition(r):
    """Binary AROW, full Σ: a row of weight k is k copies of it in a row (module doc)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    y = (X @ rng.normal(size=4) + 0.3 * rng.normal(size=60) > 0).astype(int)
    counts = rng.integers(1, 4, size=60)
    weighted = AROW(r=r, matrix="per-class").fit(X, y, sample_weight=counts.astype(float))
    repeated = AROW(r=r, matrix="per-class").fit(np.repeat(X, counts, axis=0),
                                                 np.repeat(y, counts))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(weighted.covariance_, repeated.covariance_, rtol=1e-9,
                               atol=1e-12)


def test_diagonal_arow_integer_weight_is_not_repetition():
    """The identity needs a full Σ: with a diagonal one the direction Σx turns between the
    copies (the module doc's caveat, not a tolerance problem)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    y = (X @ rng.normal(size=4) > 0).astype(int)
    counts = np.full(60, 3)
    weighted = AROW(matrix="diagonal").fit(X, y, sample_weight=counts.astype(float))
    repeated = AROW(matrix="diagonal").fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
    assert not np.allclose(weighted.coef_, repeated.coef_, rtol=1e-6)


def test_adagrad_weighted_round_scales_the_gradient():
    """One binary hinge round from zero, weight w: G = (w·x)², W = η·w·y·x/(δ + |w·x|)."""
    x = np.array([[0.5, -2.0, 0.0]])
    eta, delta, w = 0.3, 0.7, 2.5
    model = AdaGrad(eta=eta, delta=delta)
    model.partial_fit(x, [1], classes=[0, 1], sample_weight=[w])
    g = -w * x[0]  # label +1: γ = −1
    expected = -eta * g / (delta + np.abs(g))
    np.testing.assert_allclose(model.model_.squares[:, 0], g ** 2, rtol=1e-15)
    np.testing.assert_allclose(model.coef_[0], expected, rtol=1e-14)


def test_confidence_weighted_takes_no_weights():
    X, y = _data()
    with pytest.raises(TypeError):
        ConfidenceWeighted().fit(X, y, sample_weight=np.ones(X.shape[0]))
    with pytest.raises(TypeError):
        ConfidenceWeighted(class_weight={0: 2.0})
    with pytest.raises(ValueError, match="class_weight"):
        ConfidenceWeighted().set_params(class_weight={0: 2.0})
    with pytest.raises(ValueError, match="hard constraint"):  # (the model itself refuses too)
        model = ConfidenceWeighted().fit(X, y)
        model.model_.learn(X, y, np.arange(3), None, np.ones(X.shape[0]))


@pytest.mark.parametrize("make", MAKERS, ids=IDS)
@pytest.mark.parametrize("bad", [[-1.0], [np.nan], [np.inf], "short"])
def test_bad_weights_leave_the_model_as_it_was(make, bad):
    X, y = _data(seed=6)
    model = make().fit(X[:100], y[:100])
    before = _state(model)
    weights = np.ones(50)
    if bad == "short":
        weights = weights[:-1]
    else:
        weights[17] = bad[0]
    with pytest.raises(ValueError):
        model.partial_fit(X[100:], y[100:], sample_weight=weights)
    for name, array in model.model_.arrays().items():
        np.testing.assert_array_equal(array, before[name], err_msg=name)


@pytest.mark.parametrize("make, weight, match", [
    (lambda: SoftConfidenceWeighted(C=1e200), 1e200, "C must be positive and finite"),
    (lambda: AROW(r=1e-200), 1e200, "r must be positive and finite"),
    (lambda: AdaGrad(), 1e160, "overflow"),
    (lambda: FTRLProximal(), 1e160, "overflow"),
], ids=["scw-C", "arow-r", "adagrad", "ftrl"])
def test_a_weight_that_overflows_is_refused_before_any_round(make, weight, match):
    X, y = _data(seed=7)
    model = make().fit(X[:100], y[:100])
    before = _state(model)
    weights = np.ones(50)
    weights[30] = weight
    with pytest.raises(ValueError, match=match):
        model.partial_fit(X[100:], y[100:], sample_weight=weights)
    for name, array in model.model_.arrays().items():
        np.testing.assert_array_equal(array, before[name], err_msg=name)
    assert model.n_seen_ == 100


@pytest.mark.parametrize("make", MAKERS, ids=IDS)
def test_float32_rows_learn_as_float64_rows_of_the_same_values(make):
    """float32 input is accepted; the state stays float64 and the rounds are those of the
    same values in float64."""
    X, y = _data(seed=8)
    X32 = X.astype(np.float32)
    single = make().fit(X32, y)
    double = make().fit(X32.astype(np.float64), y)
    _assert_same_state(single, double)
    assert single.coef_.dtype == np.float64
