"""``sample_weight`` in ``fit`` and ``partial_fit``: each example's weight scales its part in
its round — the C of PA-I/PA-II and their support-class forms (the weighted loss C·w·ξ), the
step of the others — checked against those definitions."""
import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.validation import has_fit_parameter

import onlinear
from onlinear import available, make

RNG = np.random.default_rng(31)
X = RNG.normal(size=(60, 5))
Y = RNG.integers(0, 3, size=60)
W = RNG.uniform(0.2, 3.0, size=60)


def _weighted_names():
    return [n for n in available(kernel=None)
            if "sample_weight" in inspect.signature(type(make(n)).fit).parameters]


WEIGHTED = _weighted_names()
#: rules whose step does not depend on ‖x‖ (nor the margin on the scale of x): a weight w is
#: then exactly the row w·x
SCALE_FREE_STEPS = ["perceptron", "ovr-perceptron", "perceptron-uniform", "perceptron-max",
                    "perceptron-prop"]
C_RULES = ["pa1", "pa2", "spa1", "spa2"]


def _labels(name):
    return Y % 2 if name in ("perceptron", "binary-mira", "winnow") else Y


def test_which_learners_take_weights():
    assert set(SCALE_FREE_STEPS + C_RULES + ["kesler", "mira", "pa", "spa", "multiplicative"]) \
        <= set(WEIGHTED)
    # (the simultaneous projections take weights: tests/test_conventions.py)
    for name in ("romma", "mcp", "mc-romma", "iellip", "kernel-mc-romma", "cw", "narow"):
        model = make(name) if not name.startswith("kernel") else make(name, kernel="linear")
        assert "sample_weight" not in inspect.signature(type(model).fit).parameters
        assert not has_fit_parameter(model, "sample_weight")  # (what scikit-learn reads)
        with pytest.raises(TypeError):
            model.fit(X, Y, sample_weight=W)


@pytest.mark.parametrize("name", [n for n in available(kernel=None) if n not in WEIGHTED])
def test_a_learner_without_weights_says_so_by_its_own_name_and_changes_nothing(name):
    """Not Python's message for the shared base whose method it is ("_Unweighted.fit() got an
    unexpected keyword argument"): the estimator's own class, and why it takes none."""
    model = make(name, **({"kernel": "linear"} if name.startswith("kernel") else {}))
    model.fit(X, _labels(name))
    before = model.decision_function(X)
    cls = type(model).__name__
    for method, args in (("fit", ()), ("partial_fit", ())):
        with pytest.raises(TypeError, match=rf"^{cls}\.{method}\(\) got an unexpected keyword "
                                            rf"argument 'sample_weight': {cls} takes no "
                                            r"example weights, as \w"):
            getattr(model, method)(X, _labels(name), *args, sample_weight=W)
    with pytest.raises(TypeError, match=rf"^{cls}\.partial_fit\(\) got an unexpected keyword "
                                        r"argument 'weights'$"):
        model.partial_fit(X, _labels(name), weights=W)
    np.testing.assert_array_equal(model.decision_function(X), before)


@pytest.mark.parametrize("name", SCALE_FREE_STEPS + ["multiplicative"])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_weight_is_a_step_that_many_times_as_long(name, sparse):
    """For these rules a step w times as long is the step of the row w·x."""
    data = np.abs(X) if name == "multiplicative" else X
    wrap = sp.csr_matrix if sparse else np.asarray
    y = _labels(name)
    weighted = make(name).fit(wrap(data), y, sample_weight=W)
    scaled = make(name).fit(wrap(data * W[:, None]), y)
    np.testing.assert_allclose(weighted.decision_function(data),
                               scaled.decision_function(data), rtol=1e-10, atol=1e-12)
    assert weighted.n_mistakes_ == scaled.n_mistakes_


@pytest.mark.parametrize("name", C_RULES)
def test_a_weight_scales_the_aggressiveness_c(name):
    model = make(name, C=0.3).fit(X, Y, sample_weight=W)
    reference = make(name, C=0.3)
    for x, label, w in zip(X, Y, W):
        reference.set_params(C=0.3 * w)
        reference.partial_fit(x[None, :], [label], classes=[0, 1, 2])
    np.testing.assert_array_equal(model.decision_function(X), reference.decision_function(X))


@pytest.mark.parametrize("name", ["mira", "binary-mira", "pa", "spa", "kesler"]
                         + SCALE_FREE_STEPS)
def test_the_other_rules_scale_their_step(name):
    """The round's step, as the rule computed it from the scores, w times as long (for the
    hard-margin rules a weight other than 1 misses or overshoots the margin: documented)."""
    y = _labels(name)
    start = make(name).fit(X[:20], y[:20])
    before = start.decision_function(X)
    row = next(i for i in range(20, 60)  # a row the model gets wrong: a round that updates
               if start.predict(X[i:i + 1])[0] != y[i])
    plain = make(name).fit(X[:20], y[:20])
    plain.partial_fit(X[row:row + 1], y[row:row + 1])
    weighted = make(name).fit(X[:20], y[:20])
    weighted.partial_fit(X[row:row + 1], y[row:row + 1], sample_weight=[2.5])
    step = plain.decision_function(X) - before
    assert np.abs(step).max() > 1e-6  # the round updated
    np.testing.assert_allclose(weighted.decision_function(X) - before, 2.5 * step,
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", WEIGHTED)
def test_unit_weights_change_nothing_and_zero_weights_only_predict(name):
    data = np.abs(X) if name in ("multiplicative", "winnow") else X
    y = _labels(name)
    plain = make(name).fit(data, y)
    ones = make(name).fit(data, y, sample_weight=np.ones(60))
    np.testing.assert_array_equal(ones.decision_function(data), plain.decision_function(data))
    start = make(name).fit(data[:30], y[:30])
    before = start.decision_function(data)
    start.partial_fit(data[30:], y[30:], sample_weight=np.zeros(30))
    np.testing.assert_array_equal(start.decision_function(data), before)
    assert start.n_seen_ == 60


@pytest.mark.parametrize("bad, message", [
    (-np.ones(60), "(?i)negative"), (np.full(60, np.nan), "NaN"), (np.ones(59), "59"),
])
def test_bad_weights_are_refused_and_change_nothing(bad, message):
    model = make("pa1").fit(X, Y)
    before = model.decision_function(X)
    with pytest.raises(ValueError, match=message):
        model.partial_fit(X, Y, sample_weight=bad)
    with pytest.raises(ValueError, match=message):
        model.fit(X, Y, sample_weight=bad)
    np.testing.assert_array_equal(model.decision_function(X), before)
    assert model.n_seen_ == 60


@pytest.mark.parametrize("scheme", ["simperc", "conproj", "simproj", "simopt", "maxpa",
                                    "optimal", "sopopo"])
def test_an_ordinal_example_of_weight_zero_only_predicts(scheme):
    # (its trial's budget C·0: no step, whatever the scheme; SimOpt's θ left rounding residues)
    from onlinear.estimators import SimultaneousProjectionOrdinal

    ranks = np.digitize(X @ RNG.normal(size=5), [-1.0, 0.0, 1.0])
    start = SimultaneousProjectionOrdinal(scheme=scheme, classes=[0, 1, 2, 3]).fit(X[:30],
                                                                                 ranks[:30])
    before = (start.coef_.copy(), start.thresholds_.copy(), start.n_updates_)
    start.partial_fit(X[30:], ranks[30:], sample_weight=np.zeros(30))
    np.testing.assert_array_equal(start.coef_, before[0])
    np.testing.assert_array_equal(start.thresholds_, before[1])
    assert start.n_seen_ == 60 and start.n_updates_ == before[2]


@pytest.mark.parametrize("name", WEIGHTED)
@pytest.mark.parametrize("weight", [1e300, 1.7e308])
def test_weights_that_overflow_the_steps_are_undone_never_learned_as_nan(name, weight):
    """An example's weight scales its step, beyond what the rows' norm check bounds: a weight
    of 1e300 filled the weights (or their tracked norm) with infinities and NaN, silently, and
    the saved file could not be loaded back.  Now a pass either learns finite arrays or is
    undone with an error saying why."""
    model = make(name, **({"kernel": "linear"} if name.startswith("kernel") else {}))
    model.fit(X, _labels(name))
    before = {key: np.copy(model._saved_array(key)) for key in model._model_arrays()}
    try:
        model.partial_fit(X, _labels(name), sample_weight=np.full(60, weight))
    except ValueError as error:
        # (ours after the pass, or an engine's own stop before the round: either names it)
        assert any(words in str(error) for words in ("overflowed the model", "not finite",
                                                     "weight"))
        for key, array in before.items():
            np.testing.assert_array_equal(model._saved_array(key), array, err_msg=key)
        return
    for key in model._model_arrays():
        array = model._saved_array(key)
        assert array.dtype.kind not in "fc" or np.isfinite(array).all(), key


@pytest.mark.parametrize("name, params", [("simperc", {"C": 1e300}), ("iellip", {"a": 1.7e308}),
                                          ("iellip", {"gamma": 1e300})])
def test_a_fit_whose_model_a_file_could_not_hold_is_undone(tmp_path, name, params):
    """Finite weights whose norm overflows: fit kept them, and onlinear.load refused the file
    save wrote ("the weights' norm overflows").  A fit's model passes load's checks."""
    model = make(name).fit(X, Y)
    before = model.decision_function(X)
    with pytest.raises(ValueError, match="does not hold together .*norm overflows"):
        model.set_params(**params).fit(X, Y)
    np.testing.assert_array_equal(model.decision_function(X), before)
    onlinear.save(model, tmp_path / "m.onlinear")
    onlinear.load(tmp_path / "m.onlinear")


def test_a_fit_whose_hyperparameters_overflow_every_step_is_undone():
    model = make("simperc", C=1.0).fit(X, Y)
    before = model.decision_function(X)
    with pytest.raises(ValueError, match=r"overflowed the model .*hyperparameters .*C=1\.7e\+308"):
        model.set_params(C=1.7e308).fit(X, Y)
    np.testing.assert_array_equal(model.decision_function(X), before)
