"""Bad input never half-trains a model.

For every estimator class (one registered name each: validation, atomicity and pickling live in
the class and its bases, while the names of one class differ only in a fixed hyperparameter),
with two and three classes (one output or one-vs-rest / two or three prototypes): NaN/inf, a wrong number of features, labels outside ``classes``,
a missing ``classes``, a single class and invalid hyperparameters each raise a ``ValueError``
(scikit-learn's ``InvalidParameterError`` is one) whose message names the problem, and the model is
left exactly as it was:

* its state — ``coef_``, ``classes_``, ``n_seen_``, ``n_mistakes_``, ``n_updates_``,
  ``n_features_in_`` and the set of fitted attributes — is bitwise identical before and after;
* it then predicts and goes on learning exactly like an untouched ``copy.deepcopy`` taken before
  the bad call (both are fed the same good data and compared bitwise).

A fitted model also survives a pickle round trip and keeps learning after unpickling.
"""
import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

import onlinear
from onlinear.tasks.labels import Labels


def _make(name, **params):
    """``onlinear.make`` (a kernel learner's default gamma works on every entry point, so
    these tests start models in every way)."""
    return onlinear.make(name, **params)

def _one_name_per_class():
    """The first registered name of every estimator class, primal and kernel."""
    names = {}
    for name in onlinear.available(kernel=None):
        names.setdefault(onlinear.describe(name).estimator, name)
    return list(names.values())


NAMES = _one_name_per_class()
#: (name, number of classes): two classes for every learner, three for those that take them
#: (the binary learners one-vs-rest); balanced Winnow is binary only.
MODELS = [pytest.param(name, k, id=f"{name}-{k}classes") for name in NAMES for k in (2, 3)
          if k == 2 or onlinear.describe(name).handles_multiclass]
N_FEATURES = 5
LABELS = {2: np.array([3, 7]), 3: np.array([3, 7, 11])}
UNKNOWN = 99  # a label in no ``classes``


# ---------------------------------------------------------------------------- data and models
def _data(n_classes, n=40, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, N_FEATURES)
    y = LABELS[n_classes][rng.randint(n_classes, size=n)]
    return X, y


def _fitted(name, n_classes):
    """A model trained by all three paths: ``fit``, ``partial_fit`` and ``learn_one``."""
    X, y = _data(n_classes, seed=1)
    model = _make(name).fit(X[:20], y[:20])
    model.partial_fit(X[20:35], y[20:35])
    for x, label in zip(X[35:], y[35:]):
        model.learn_one(x, label)
    assert model.n_seen_ == 40 and model.n_updates_ > 0
    return model


def _public_attributes(model):
    return sorted(k for k in vars(model) if k.endswith("_") and not k.startswith("_"))


def _fitted_properties(model):
    """Names of the fitted attributes that are properties (coef_, n_seen_, ..., and the extra
    ones of some learners such as cosine_bound_ or weight_norm_)."""
    return sorted(k for k in dir(type(model)) if k.endswith("_") and not k.startswith("_")
                  and isinstance(getattr(type(model), k), property))


def _bits(value):
    if isinstance(value, Labels):  # a task (task_): a value, compared by what it holds
        return type(value).__name__, repr(value)
    value = np.asarray(value)
    return value.dtype.str, value.shape, value.tobytes()


def _state(model):
    """Everything a failed call must not change, in a bitwise-comparable form."""
    state = {"attributes": _public_attributes(model), "params": model.get_params()}
    if hasattr(model, "classes_"):
        state.update(
            classes=(model.classes_.dtype.str, model.classes_.tolist()),
            n_features_in=model.n_features_in_,
            **{k: _bits(getattr(model, k)) for k in _fitted_properties(model)},
        )
    return state


def test_the_state_covers_the_documented_attributes():
    model = _fitted("mc-romma", 3)
    assert {"coef_", "n_seen_", "n_mistakes_", "n_updates_", "weight_norm_"} <= \
        set(_fitted_properties(model))
    assert {"classes", "n_features_in"} <= set(_state(model))
    assert "cosine_bound_" in _fitted_properties(onlinear.make("romma"))


def _assert_same_predictions(model, reference, X):
    assert np.array_equal(model.predict(X), reference.predict(X))
    assert model.decision_function(X).tobytes() == reference.decision_function(X).tobytes()
    assert [model.predict_one(x) for x in X] == [reference.predict_one(x) for x in X]


def _assert_behaves_like(model, reference, n_classes):
    """``model`` (after a failed call) and ``reference`` (an untouched copy) are the same model:
    same state, same predictions, and the same model again after the same good data."""
    assert _state(model) == _state(reference)
    X, y = _data(n_classes, seed=2)
    if hasattr(reference, "classes_"):
        _assert_same_predictions(model, reference, X)
        before = reference.n_seen_
        model.partial_fit(X[:20], y[:20])
        reference.partial_fit(X[:20], y[:20])
        assert _state(model) == _state(reference)
        assert [model.learn_one(x, t) for x, t in zip(X[20:], y[20:])] == \
            [reference.learn_one(x, t) for x, t in zip(X[20:], y[20:])]
        assert reference.n_seen_ == before + X.shape[0]
    else:
        for unfitted in (model, reference):
            with pytest.raises(NotFittedError):
                unfitted.predict(X)
        model.partial_fit(X[:20], y[:20], classes=LABELS[n_classes])
        reference.partial_fit(X[:20], y[:20], classes=LABELS[n_classes])
        assert _state(model) == _state(reference)
        assert [model.learn_one(x, t) for x, t in zip(X[20:], y[20:])] == \
            [reference.learn_one(x, t) for x, t in zip(X[20:], y[20:])]
    assert _state(model) == _state(reference)
    _assert_same_predictions(model, reference, X)


def _with(X, value, row=-1, column=2):
    """``X`` with one entry (by default in its last row) replaced by ``value``."""
    X = np.array(X, dtype=np.float64)
    X[row, column] = value
    return X


NAN = "Input X contains NaN"
INF = "Input X contains infinity"
NAN_ONE = "x contains NaN or infinity"
FEATURES = rf"X has {{}} features, but \w+ is expecting {N_FEATURES} features"
FEATURES_ONE = rf"x has {{}} features, but the model expects {N_FEATURES}"
TWO_CLASSES = r"needs at least two classes; got 1 class"


# ---------------------------------------------------------------------------- a fitted model
def _fitted_cases():
    """(id, bad call on a fitted model, regex its ValueError message must match)."""
    cases = []
    for tag, value, msg in [("nan", np.nan, NAN), ("inf", np.inf, INF), ("-inf", -np.inf, INF)]:
        cases += [
            (f"fit-{tag}", lambda m, X, y, v=value: m.fit(_with(X, v), y), msg),
            (f"partial_fit-{tag}", lambda m, X, y, v=value: m.partial_fit(_with(X, v), y), msg),
            (f"partial_fit-sparse-{tag}",
             lambda m, X, y, v=value: m.partial_fit(sp.csr_matrix(_with(X, v)), y), msg),
            (f"predict-{tag}", lambda m, X, y, v=value: m.predict(_with(X, v)), msg),
            (f"learn_one-{tag}", lambda m, X, y, v=value: m.learn_one(_with(X, v)[-1], y[-1]),
             NAN_ONE),
            (f"predict_one-{tag}", lambda m, X, y, v=value: m.predict_one(_with(X, v)[-1]),
             NAN_ONE),
        ]
    for n in (N_FEATURES - 1, N_FEATURES + 1):
        cases += [
            (f"partial_fit-{n}-features",
             lambda m, X, y, n=n: m.partial_fit(_resize(X, n), y), FEATURES.format(n)),
            (f"partial_fit-sparse-{n}-features",
             lambda m, X, y, n=n: m.partial_fit(sp.csr_matrix(_resize(X, n)), y),
             FEATURES.format(n)),
            (f"predict-{n}-features",
             lambda m, X, y, n=n: m.predict(_resize(X, n)), FEATURES.format(n)),
            (f"decision_function-{n}-features",
             lambda m, X, y, n=n: m.decision_function(_resize(X, n)), FEATURES.format(n)),
            (f"learn_one-{n}-features",
             lambda m, X, y, n=n: m.learn_one(_resize(X, n)[0], y[0]), FEATURES_ONE.format(n)),
            (f"learn_one-row-{n}-features",
             lambda m, X, y, n=n: m.learn_one(_resize(X, n)[:1], y[0]), FEATURES_ONE.format(n)),
            (f"predict_one-{n}-features",
             lambda m, X, y, n=n: m.predict_one(_resize(X, n)[0]), FEATURES_ONE.format(n)),
        ]
    cases += [
        # the unknown label comes last: no row before it may be learned
        ("partial_fit-unknown-label",
         lambda m, X, y: m.partial_fit(X, np.r_[y[:-1], UNKNOWN]),
         rf"y contains labels that are not in classes_ .*: \[{UNKNOWN}\]"),
        ("partial_fit-string-label",
         lambda m, X, y: m.partial_fit(X, np.append(y[:-1].astype(str), "seven")),
         r"y contains labels that are not in classes_ .*'seven'"),
        # a later ``classes`` may add labels (the model grows: test_growing_classes.py) but
        # must hold the model's own
        ("partial_fit-other-classes",
         lambda m, X, y: m.partial_fit(X, y, classes=np.r_[np.unique(y)[1:], UNKNOWN]),
         r"differs from the classes the model was started with.*lacks"),
        ("learn_one-other-classes",
         lambda m, X, y: m.learn_one(X[0], y[0], classes=np.r_[np.unique(y)[1:], UNKNOWN]),
         r"differs from the classes the model was started with.*lacks"),
        ("learn_one-unknown-label",
         lambda m, X, y: m.learn_one(X[0], UNKNOWN), rf"y={UNKNOWN} is not one of classes_"),
        ("learn_one-string-label",
         lambda m, X, y: m.learn_one(X[0], "seven"), r"y='seven' is not one of classes_"),
        ("fit-single-class", lambda m, X, y: m.fit(X, np.full(len(y), y[0])), TWO_CLASSES),
        # A failed fit must not keep the width of the rejected X either.
        ("fit-single-class-other-width",
         lambda m, X, y: m.fit(_resize(X, N_FEATURES + 1), np.full(len(y), y[0])), TWO_CLASSES),
    ]
    return cases


def _resize(X, n):
    """``X`` with ``n`` columns (the first ones, or padded with ones)."""
    if n <= X.shape[1]:
        return np.ascontiguousarray(X[:, :n])
    return np.hstack([X, np.ones((X.shape[0], n - X.shape[1]))])


FITTED_CASES = _fitted_cases()


@pytest.mark.parametrize("case", FITTED_CASES, ids=[c[0] for c in FITTED_CASES])
@pytest.mark.parametrize(("name", "n_classes"), MODELS)
def test_bad_input_leaves_a_fitted_model_unchanged(name, case, n_classes):
    _, call, match = case
    model = _fitted(name, n_classes)
    reference = copy.deepcopy(model)
    X, y = _data(n_classes, n=10, seed=3)
    with pytest.raises(ValueError, match=match):
        call(model, X, y)
    _assert_behaves_like(model, reference, n_classes)


# ---------------------------------------------------------------------------- a fresh model
def _fresh_cases():
    """(id, bad first call on a fresh model, regex its ValueError message must match)."""
    cases = []
    for tag, value, msg in [("nan", np.nan, NAN), ("inf", np.inf, INF)]:
        cases += [
            (f"fit-{tag}", lambda m, X, y, c, v=value: m.fit(_with(X, v), y), msg),
            (f"partial_fit-{tag}",
             lambda m, X, y, c, v=value: m.partial_fit(_with(X, v), y, classes=c), msg),
            (f"learn_one-{tag}",
             lambda m, X, y, c, v=value: m.learn_one(_with(X, v)[-1], y[-1], classes=c),
             NAN_ONE),
        ]
    cases += [
        ("partial_fit-without-classes", lambda m, X, y, c: m.partial_fit(X, y),
         r"classes must be passed on the first call to partial_fit"),
        ("learn_one-without-classes", lambda m, X, y, c: m.learn_one(X[0], y[0]),
         r"classes must be passed on the first call to learn_one"),
        ("fit-single-class", lambda m, X, y, c: m.fit(X, np.full(len(y), y[0])), TWO_CLASSES),
        ("partial_fit-single-class",
         lambda m, X, y, c: m.partial_fit(X, np.full(len(y), y[0]), classes=[y[0]]),
         TWO_CLASSES),
        ("learn_one-single-class",
         lambda m, X, y, c: m.learn_one(X[0], y[0], classes=[y[0]]), TWO_CLASSES),
        ("partial_fit-label-outside-classes",
         lambda m, X, y, c: m.partial_fit(X, np.r_[y[:-1], UNKNOWN], classes=c),
         rf"y contains labels that are not in classes_ .*: \[{UNKNOWN}\]"),
        ("learn_one-label-outside-classes",
         lambda m, X, y, c: m.learn_one(X[0], UNKNOWN, classes=c),
         rf"y={UNKNOWN} is not one of classes_"),
        ("predict", lambda m, X, y, c: m.predict(X), r"not fitted yet"),
        ("predict_one", lambda m, X, y, c: m.predict_one(X[0]), r"not fitted yet"),
    ]
    return cases


FRESH_CASES = _fresh_cases()


@pytest.mark.parametrize("case", FRESH_CASES, ids=[c[0] for c in FRESH_CASES])
@pytest.mark.parametrize(("name", "n_classes"), MODELS)
def test_bad_first_call_leaves_a_fresh_model_unfitted(name, case, n_classes):
    _, call, match = case
    model = _make(name)
    reference = copy.deepcopy(model)
    X, y = _data(n_classes, n=10, seed=3)
    with pytest.raises(ValueError, match=match):
        call(model, X, y, LABELS[n_classes])
    assert _public_attributes(model) == []
    _assert_behaves_like(model, reference, n_classes)


BINARY_ONLY = [name for name in NAMES if not onlinear.describe(name).handles_multiclass]
BINARY_ONLY_MATCH = r"binary learner; got 3 classes|Only binary classification is supported"
THREE_CLASS_CALLS = {
    "fit": lambda m, X, y: m.fit(X, y),
    "fit-other-width": lambda m, X, y: m.fit(_resize(X, N_FEATURES + 1), y),
    "partial_fit": lambda m, X, y: m.partial_fit(X, y, classes=LABELS[3]),
    "learn_one": lambda m, X, y: m.learn_one(X[0], y[0], classes=LABELS[3]),
}


@pytest.mark.parametrize(("fitted", "call"), [
    (False, "fit"), (False, "partial_fit"), (False, "learn_one"),
    (True, "fit"), (True, "fit-other-width"),  # a fitted model's partial_fit: other classes
], ids=["fresh-fit", "fresh-partial_fit", "fresh-learn_one", "fitted-fit",
        "fitted-fit-other-width"])
@pytest.mark.parametrize("name", BINARY_ONLY)
def test_binary_only_learner_rejects_three_classes(name, fitted, call):
    model = _fitted(name, 2) if fitted else _make(name)
    reference = copy.deepcopy(model)
    X, y = _data(3, n=10, seed=3)
    with pytest.raises(ValueError, match=BINARY_ONLY_MATCH):
        THREE_CLASS_CALLS[call](model, X, y)
    if not fitted:
        assert _public_attributes(model) == []
    _assert_behaves_like(model, reference, 2)


def test_there_is_a_binary_only_learner():
    assert BINARY_ONLY  # otherwise the test above checks nothing


# ---------------------------------------------------------------------------- hyperparameters
BAD_VALUES = {
    "beta": [-1.0, -1e-12, np.nan],
    "C": [0, 0.0, -1.0, np.nan],
    "eta": [0, 0.0, -0.1, np.nan],
    "slack": ["bogus", "Linear"],
    "scheme": ["bogus", "Uniform"],
    "variant": ["bogus"],
    "normalize": ["bogus"],
    "skip_collinear": ["bogus"],
    "gamma": [0, 0.0, -0.1, np.nan],
    "a": [-0.5, np.nan],
    "b": [-0.1, np.nan],
    "c": [-0.1, 1.0, np.nan],
    "scale": [0, -1.0, np.nan],
    "init": ["bogus"],
    "on_infeasible": ["bogus"],
    "matrix": ["bogus", "Stacked"],
    "step": ["bogus"],
    "decay": ["bogus", "Rounds"],
    "p_update": ["bogus", "unnormalized"],
    "w_init": ["bogus", "normal"],
    "w_scale": [0, -1e-3, np.nan],
    "n_epochs": [0, -1, 1.5],
    "shuffle": ["yes"],
    "random_state": ["seed"],
    # kernel learners
    "kernel": ["bogus", "RBF"],
    "degree": [-1, 2.5],
    "coef0": [np.nan, np.inf],
    "average": ["yes"],
    "fit_intercept": ["yes", 1],
    "class_weight": ["heavy", [1.0, 2.0]],
    "warm_start": ["yes"],
    "verbose": ["loud", -1],
    "dtype": ["float16", "Float32", np.float32],
}
# the confidence-weighted and adaptive learners
BAD_VALUES.update({"form": ["bogus", "Std"], "diagonal": ["bogus", "Project"],
                   "libol_compat": ["yes"], "min_variance": [-1.0, np.nan],
                   "constraints": [0, -1, 2.5, "bogus"],
                   "r": [0, -1.0, np.nan], "loss": ["bogus", "squared"],
                   "delta": [-1.0, np.nan], "l1": [-0.1, np.nan], "l2": [-0.1, np.nan],
                   "alpha": [0, -0.5, np.nan]})
# simultaneous projections
BAD_VALUES.update({"update": ["bogus", "Additive"], "max_rule": ["bogus"],
                   "threshold": ["bogus", None, np.nan], "decompose": ["bogus", "per-label"]})


def _n_classes(name):
    return 3 if onlinear.describe(name).handles_multiclass else 2


#: values bad for one learner only (IELLIP's b lies in [0, 1]; NAROW's b is any b > 0)
BAD_FOR = {("iellip", "b"): [1.5]}


def _bad_hyperparameters():
    cases = []
    for name in NAMES:
        params = onlinear.describe(name).estimator().get_params()
        for key, values in BAD_VALUES.items():
            if key in params:
                values = values + BAD_FOR.get((name, key), [])
                cases += [pytest.param(name, key, v, id=f"{name}-{key}={v!r}") for v in values]
    return cases


BAD_HYPERPARAMETERS = _bad_hyperparameters()


def test_one_name_per_estimator_class():
    classes = {onlinear.describe(name).estimator for name in onlinear.available(kernel=None)}
    assert sorted(c.__name__ for c in classes) == \
        sorted(onlinear.describe(name).estimator.__name__ for name in NAMES)


def test_every_hyperparameter_of_every_learner_is_exercised():
    for name in NAMES:
        params = set(onlinear.describe(name).estimator().get_params())
        assert params <= set(BAD_VALUES), (name, params - set(BAD_VALUES))
        assert params == {p.values[1] for p in BAD_HYPERPARAMETERS if p.values[0] == name}


def _bad_model(name, key, value):
    # set_params, not make(): the registry (rightly) refuses to override a fixed slack/scheme.
    return _make(name).set_params(**{key: value})


def _hyperparameter_match(key):
    return rf"The '{key}' parameter of \w+ must be"


@pytest.mark.parametrize("method", ["fit", "partial_fit", "learn_one"])
@pytest.mark.parametrize(("name", "key", "value"), BAD_HYPERPARAMETERS)
def test_bad_hyperparameter_is_rejected_before_training(name, key, value, method):
    model = _bad_model(name, key, value)
    k = _n_classes(name)
    X, y = _data(k)
    with pytest.raises(ValueError, match=_hyperparameter_match(key)):
        if method == "fit":
            model.fit(X, y)
        elif method == "partial_fit":
            model.partial_fit(X, y, classes=LABELS[k])
        else:
            model.learn_one(X[0], y[0], classes=LABELS[k])
    assert _public_attributes(model) == []
    # Fixed, it trains like a model that never saw the bad value.
    model.set_params(**_make(name).get_params())
    _assert_behaves_like(model, _make(name), k)


@pytest.mark.parametrize("together", [False, True], ids=["alone", "with-a-good-one"])
@pytest.mark.parametrize(("name", "key", "value"), BAD_HYPERPARAMETERS)
def test_bad_set_params_on_a_learning_model_changes_nothing(name, key, value, together):
    """On a model already learning, ``set_params`` validates at once (the new values apply from
    the next example): a bad value raises and leaves every parameter — a good one passed with it
    included — and the model as they were; it then goes on like an untouched copy."""
    k = _n_classes(name)
    model = _fitted(name, k)
    reference = copy.deepcopy(model)
    params = {key: value}
    if together:
        good = "n_epochs" if key != "n_epochs" else "shuffle"
        params[good] = {"n_epochs": 7, "shuffle": True}[good]
    with pytest.raises(ValueError, match=_hyperparameter_match(key)):
        model.set_params(**params)
    _assert_behaves_like(model, reference, k)


def test_registry_refuses_to_override_a_fixed_parameter():
    with pytest.raises(ValueError, match=r"pa1 fixes \['slack'\]"):
        onlinear.make("pa1", slack="squared")
    with pytest.raises(ValueError, match=r"perceptron-max fixes \['scheme'\]"):
        onlinear.make("perceptron-max", scheme="uniform")


def test_registry_rejects_an_unknown_name():
    with pytest.raises(ValueError, match=r"unknown algorithm 'percepton'; available: "):
        onlinear.make("percepton")


# ---------------------------------------------------------------------------- pickle
@pytest.mark.parametrize("protocol", [pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL])
@pytest.mark.parametrize(("name", "n_classes"), MODELS)
def test_pickle_round_trip_keeps_predicting_and_learning(name, n_classes, protocol):
    model = _fitted(name, n_classes)
    restored = pickle.loads(pickle.dumps(model, protocol=protocol))
    assert type(restored) is type(model)
    assert _state(restored) == _state(model)
    _assert_behaves_like(restored, model, n_classes)  # predicts and learns on identically
    # ... and a refit from scratch is the same too.
    X, y = _data(n_classes, seed=4)
    assert _state(restored.fit(X, y)) == _state(model.fit(X, y))


@pytest.mark.parametrize("name", NAMES)
def test_pickle_of_a_learn_one_only_model(name):
    k = _n_classes(name)
    X, y = _data(k, seed=5)
    model = _make(name)
    for x, label in zip(X, y):
        model.learn_one(x, label, classes=LABELS[k])
    restored = pickle.loads(pickle.dumps(model))
    _assert_behaves_like(restored, model, k)


@pytest.mark.parametrize("name", NAMES)
def test_pickle_of_a_fresh_model(name):
    model = _make(name, n_epochs=2, shuffle=True, random_state=0)
    restored = pickle.loads(pickle.dumps(model))
    assert restored.get_params() == model.get_params()
    X, y = _data(_n_classes(name), seed=6)
    assert _state(restored.fit(X, y)) == _state(model.fit(X, y))


@pytest.mark.parametrize("x, what", [(None, "None"), (3.0, "float"), (np.int64(2), "int")])
@pytest.mark.parametrize("method", ["learn_one", "predict_one"])
def test_one_example_that_is_none_or_a_scalar_says_what_it_got(x, what, method):
    """Not "x has 1 features" (numpy makes a scalar a row of one): the example is no row."""
    rng = np.random.default_rng(5)
    model = onlinear.make("pa").fit(rng.normal(size=(10, 3)), np.arange(10) % 2)
    before = pickle.dumps(model)
    args = (x, 0) if method == "learn_one" else (x,)
    with pytest.raises(ValueError, match=f"one example .*got {what}"):
        getattr(model, method)(*args)
    assert pickle.dumps(model) == before
