"""scikit-learn's conventions beyond the estimator checks: ``class_weight``, ``warm_start`` and
``verbose``, each tested against its definition (a class weight is the sample weight of its
rows; a warm start is the partial fits it stands for)."""
import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.class_weight import compute_class_weight

import onlinear
from model_state import model_vars

WEIGHTED = ["perceptron-uniform", "perceptron-max", "kesler", "mira", "pa", "pa1", "pa2",
            "spa1", "multiplicative"]
ALL_KINDS = ["pa", "romma", "kernel-pa", "iellip", "mc-romma"]


def _data(seed=0, n=120, d=6, k=3):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=3.0, size=(k, d))
    y = rng.integers(k, size=n)
    X = centers[y] + rng.normal(size=(n, d))
    return X, np.array(["a", "b", "c"])[y]


def _model_state(model):
    return {name: np.array(value, copy=True) for name, value in model_vars(model).items()
            if isinstance(value, np.ndarray)}


def _same(first, second, rtol=0.0):
    a, b = _model_state(first), _model_state(second)
    assert a.keys() == b.keys()
    for name in a:
        if rtol and a[name].dtype.kind == "f":
            np.testing.assert_allclose(a[name], b[name], rtol=rtol, atol=0.0, err_msg=name)
        else:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


# ---------------------------------------------------------------------------------- class_weight
@pytest.mark.parametrize("name", WEIGHTED)
@pytest.mark.parametrize("sparse", [False, True])
def test_class_weight_is_the_sample_weight_of_its_rows(name, sparse):
    X, y = _data()
    X = sp.csr_matrix(X) if sparse else X
    class_weight = {"a": 0.5, "c": 3.0}  # "b" is not named: weight 1
    by_class = onlinear.make(name, class_weight=class_weight, n_epochs=2).fit(X, y)
    rows = np.array([class_weight.get(label, 1.0) for label in y])
    by_row = onlinear.make(name, n_epochs=2).fit(X, y, sample_weight=rows)
    _same(by_class, by_row)
    assert by_class.n_updates_ > 0
    # the two multiply
    extra = np.linspace(0.5, 2.0, len(y))
    both = onlinear.make(name, class_weight=class_weight).fit(X, y, sample_weight=extra)
    _same(both, onlinear.make(name).fit(X, y, sample_weight=rows * extra))


@pytest.mark.parametrize("name", ["pa1", "perceptron-max"])
def test_balanced_class_weight_follows_scikit_learn(name):
    X, y = _data(1)
    y = y.copy()
    y[:80] = "a"  # unbalanced: "a" dominates
    balanced = onlinear.make(name, class_weight="balanced").fit(X, y)
    weights = compute_class_weight("balanced", classes=np.unique(y), y=y)
    rows = weights[np.searchsorted(np.unique(y), y)]
    _same(balanced, onlinear.make(name).fit(X, y, sample_weight=rows))
    assert not np.allclose(rows, 1.0)


@pytest.mark.parametrize("name", ["pa1", "mira"])
def test_class_weight_in_partial_fit_and_learn_one_is_the_same_rounds(name):
    X, y = _data(2)
    class_weight = {"a": 2.0, "b": 0.25}
    whole = onlinear.make(name, class_weight=class_weight).fit(X, y)
    chunks = onlinear.make(name, class_weight=class_weight)
    chunks.partial_fit(X[:50], y[:50], classes=["a", "b", "c"]).partial_fit(X[50:], y[50:])
    _same(whole, chunks)
    one = onlinear.make(name, class_weight=class_weight)
    for i in range(len(y)):
        one.learn_one(X[i], y[i], classes=["a", "b", "c"])
    # (the per-example path sums a row's products in another order than the dense pass)
    _same(whole, one, rtol=1e-12)


def test_a_class_of_weight_zero_is_only_predicted():
    X, y = _data(3)
    model = onlinear.make("pa", class_weight={"a": 0.0}).fit(X, y)
    weights = model.coef_.copy()
    assert model.n_updates_ > 0
    seen, updates = model.n_seen_, model.n_updates_
    model.partial_fit(X[y == "a"], y[y == "a"])
    np.testing.assert_array_equal(model.coef_, weights)
    assert (model.n_seen_, model.n_updates_) == (seen + np.sum(y == "a"), updates)


@pytest.mark.parametrize("call", ["partial_fit", "learn_one"])
def test_balanced_needs_the_whole_training_set(call):
    X, y = _data(4)
    model = onlinear.make("pa", class_weight={"a": 2.0}).fit(X, y)
    before = _model_state(model)
    model.set_params(class_weight="balanced")
    with pytest.raises(ValueError, match="balanced.*whole training set"):
        if call == "partial_fit":
            model.partial_fit(X[:5], y[:5])
        else:
            model.learn_one(X[0], y[0])
    after = _model_state(model)
    for name in before:
        np.testing.assert_array_equal(before[name], after[name])
    fresh = onlinear.make("pa", class_weight="balanced")
    with pytest.raises(ValueError, match="balanced"):
        fresh.partial_fit(X, y, classes=["a", "b", "c"])
    assert not hasattr(fresh, "classes_")


@pytest.mark.parametrize("class_weight, message", [
    ({"z": 1.0}, r"not classes of the model: \['z'\]"),
    ({"a": -1.0}, "finite, non-negative"),
    ({"a": np.nan}, "finite, non-negative"),
    ("heavy", "class_weight"),
])
def test_bad_class_weight_is_refused_and_changes_nothing(class_weight, message):
    X, y = _data(5)
    model = onlinear.make("pa1").fit(X, y)
    before = _model_state(model)
    with pytest.raises(ValueError, match=message):
        model.set_params(class_weight=class_weight).partial_fit(X[:10], y[:10])
    after = _model_state(model)
    for name in before:
        np.testing.assert_array_equal(before[name], after[name])


def test_learners_without_weighted_rounds_take_no_class_weight():
    for name in ["romma", "mc-romma", "iellip", "kernel-mc-romma"]:
        assert "class_weight" not in onlinear.make(name).get_params(), name
    for name in WEIGHTED:
        assert onlinear.make(name).get_params()["class_weight"] is None, name


# ---------------------------------------------------------------------------------- warm_start
@pytest.mark.parametrize("name", ALL_KINDS)
def test_warm_start_fit_is_the_partial_fits_it_stands_for(name):
    X, y = _data(6)
    X = X / np.linalg.norm(X, axis=1).max()  # the ellipsoid assumes ‖x‖ ≤ 1
    params = {"gamma": 0.5} if name.startswith("kernel") else {}
    warm = onlinear.make(name, n_epochs=2, warm_start=True, **params).fit(X[:60], y[:60])
    warm.fit(X[60:], y[60:])
    # the definition: the epochs over the new data continue the model (a kernel learner's
    # row met again in a later epoch is the same support pattern, as in fit: hence stream)
    steps = onlinear.make(name, n_epochs=2, **params).fit(X[:60], y[:60])
    stream = steps.stream(X[60:], y[60:])
    stream.learn(np.arange(60))
    stream.learn(np.arange(60))
    _same(warm, steps)
    assert warm.n_seen_ == 240
    cold = onlinear.make(name, n_epochs=2, **params).fit(X[:60], y[:60]).fit(X[60:], y[60:])
    assert cold.n_seen_ == 120


@pytest.mark.parametrize("name", ["pa", "kernel-pa", "arow", "simproj"])
def test_a_stream_refuses_a_model_changed_under_it(name):
    """A stream keeps its rows' encoded labels (and a kernel learner's support slot of every
    row): after a refit, grown classes or features they no longer fit the model.  The old
    stream segfaulted a kernel learner refit on other data, and learned every row of a model
    whose classes grew under the wrong class; it now refuses, changing nothing."""
    X, y = _data(8)
    params = {"gamma": 0.5} if name.startswith("kernel") else {}
    changes = {"fit": lambda m: m.fit(X[:30], y[:30]),
               "add_classes": lambda m: m.add_classes(["0"]),
               "grow_features": lambda m: m.grow_features(X.shape[1] + 2)}
    for change, apply in changes.items():
        model = onlinear.make(name, **params)
        stream = model.stream(X, y, classes=["a", "b", "c"])
        stream.learn(np.arange(60))
        try:
            apply(model)
        except ValueError:  # (a learner that cannot grow: nothing to refuse)
            continue
        before = _model_state(model)
        with pytest.raises(ValueError, match="Make a new one: model.stream"):
            stream.learn(np.arange(60, 120))
        after = _model_state(model)
        assert before.keys() == after.keys()
        for key in before:
            np.testing.assert_array_equal(before[key], after[key])
        wide = np.hstack([X, np.zeros((X.shape[0], model.n_features_in_ - X.shape[1]))])
        model.stream(wide, y).learn(np.arange(60, 120))  # (a new stream learns)


def test_a_refused_call_or_a_pickle_keeps_a_stream_going():
    """A refused call restores the model as a copy, and a pickle copies the estimator: the
    stream is still the model's (its start, classes and width unchanged), and learns on."""
    import pickle

    X, y = _data(11)
    model = onlinear.make("pa1")
    stream = model.stream(X, y, classes=["a", "b", "c"])
    stream.learn(range(50))
    bad = X.copy()
    bad[0, 0] = np.nan
    for refused in (lambda: model.partial_fit(bad, y), lambda: model.stream(bad, y)):
        with pytest.raises(ValueError, match="NaN"):
            refused()
    stream.learn(range(50, 100))
    assert model.n_seen_ == 100
    copy = pickle.loads(pickle.dumps(stream))
    copy.learn(range(100, 120))
    assert copy.estimator.n_seen_ == 120 and model.n_seen_ == 100


def test_a_stream_takes_integer_rows_only_and_the_model_as_started():
    """A boolean mask was taken as rows 0 and 1, fractional rows were truncated and text
    parsed; a stream learned a model whose fit_intercept was set after it started, which
    partial_fit refuses."""
    X, y = _data(9)
    model = onlinear.make("pa")
    stream = model.stream(X, y, classes=["a", "b", "c"])
    for rows, match in [(np.arange(120) < 10, "boolean mask"), ([0.0, 1.5], "float64"),
                        (["12"], "<U2")]:
        with pytest.raises(TypeError, match=re.escape(match)):
            stream.learn(rows)
    assert not hasattr(model, "n_seen_") or model.n_seen_ == 0
    stream.learn([])  # (nothing: an empty list has no integer dtype, and is no error)
    stream.learn(range(10))
    model.set_params(fit_intercept=True)
    with pytest.raises(ValueError, match="fit_intercept=True was set after the model started"):
        stream.learn(range(10, 20))
    assert model.n_seen_ == 10
    with pytest.raises(ValueError, match="fit_intercept=True was set after the model started"):
        model.intercept_  # (it read the last feature's weights as the intercept)


def test_warm_start_shuffles_each_epoch_as_fit_does():
    X, y = _data(7)
    warm = onlinear.make("pa", n_epochs=3, shuffle=True, random_state=5, warm_start=True)
    warm.fit(X[:30], y[:30]).fit(X, y)
    steps = onlinear.make("pa", n_epochs=3, shuffle=True, random_state=5).fit(X[:30], y[:30])
    rng = np.random.RandomState(5)
    for _ in range(3):
        order = rng.permutation(len(y))
        steps.partial_fit(X[order], y[order])
    _same(warm, steps)


@pytest.mark.parametrize("task", ["multilabel", "ordinal"])
def test_warm_start_for_label_sets_and_ranks(task):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(80, 5))
    y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5])
    if task == "multilabel":
        y = np.column_stack([y == 0, y >= 1, y == 2]).astype(int)
    task = {"task": "ordinal"} if task == "ordinal" else {}
    warm = onlinear.make("simproj", warm_start=True, **task).fit(X[:40], y[:40])
    warm.fit(X[40:], y[40:])
    steps = onlinear.make("simproj", **task).fit(X[:40], y[:40]).partial_fit(X[40:], y[40:])
    _same(warm, steps)


def test_warm_start_with_an_unknown_label_changes_nothing():
    X, y = _data(9)
    model = onlinear.make("pa", warm_start=True).fit(X[y != "c"], y[y != "c"])
    before = _model_state(model)
    with pytest.raises(ValueError, match="c"):
        model.fit(X, y)
    after = _model_state(model)
    for name in before:
        np.testing.assert_array_equal(before[name], after[name])
    model.add_classes(["c"]).fit(X, y)  # after growing, the warm start goes on
    assert list(model.classes_) == ["a", "b", "c"]


def test_warm_start_for_blocks():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    warm = onlinear.make("simproj", task="blocks", warm_start=True).fit(X[:30], y[:30])
    warm.fit(X[30:], y[30:])
    steps = onlinear.make("simproj", task="blocks").fit(X[:30], y[:30]).partial_fit(X[30:], y[30:])
    _same(warm, steps)


# ---------------------------------------------------------------------------------- verbose
def test_verbose_prints_one_line_per_pass(capsys):
    X, y = _data(11)
    model = onlinear.make("pa", n_epochs=3, verbose=1).fit(X, y)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3
    numbers = [re.search(r"epoch (\d)/3: 120 rows, (\d+) mistakes, (\d+) updates, [\d.]+ s",
                         line) for line in lines]
    assert all(numbers), lines
    assert sum(int(m.group(2)) for m in numbers) == model.n_mistakes_
    assert sum(int(m.group(3)) for m in numbers) == model.n_updates_
    model.partial_fit(X[:7], y[:7])
    assert "partial_fit: 7 rows" in capsys.readouterr().out
    onlinear.make("pa").fit(X, y)
    assert capsys.readouterr().out == ""


# ---------------------------------------------------------------- weights of the projections
@pytest.mark.parametrize("task", ["multiclass", "multilabel", "ordinal"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("params", [{"scheme": "simproj"}, {"scheme": "optimal"},
                                    {"scheme": "maxpa", "update": "multiplicative"}])
def test_a_weight_scales_the_trials_budget(task, sparse, params):
    """The definition (Amit et al. Eq. 2 with C·w for C): the trial of a row of weight w is the
    trial of the unweighted learner whose C is C·w; weight 0 predicts only."""
    if task == "ordinal":  # the ordinal model has an additive update only
        params = {key: value for key, value in params.items() if key != "update"}
    rng = np.random.default_rng(12)
    X = rng.normal(size=(60, 5))
    if params.get("update") == "multiplicative":
        X = np.sign(X)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    kw = {"task": "ordinal"} if task == "ordinal" else {}
    if task == "multilabel":
        y = np.column_stack([y == 0, y >= 1, X[:, 2] > 0]).astype(int)
    wrap = sp.csr_matrix if sparse else np.asarray
    weights = rng.uniform(0.0, 2.0, size=60)
    weights[::7] = 0.0
    weighted = onlinear.make(params["scheme"], C=0.5, **kw, **{k: v for k, v in params.items()
                                                               if k != "scheme"})
    weighted.fit(wrap(X), y, sample_weight=weights)
    steps = onlinear.make(params["scheme"], C=0.5, **kw, **{k: v for k, v in params.items()
                                                            if k != "scheme"})
    classes = None if task == "multilabel" else [0, 1, 2]
    for i in range(60):
        if weights[i] == 0.0:
            steps.partial_fit(wrap(X[i:i + 1]), y[i:i + 1], classes=classes, sample_weight=[0.0])
            continue
        steps.set_params(C=0.5 * weights[i])
        steps.partial_fit(wrap(X[i:i + 1]), y[i:i + 1], classes=classes)
    np.testing.assert_array_equal(weighted.coef_, steps.coef_)
    assert weighted.n_updates_ == steps.n_updates_ > 0
    unit = onlinear.make(params["scheme"], **kw, **{k: v for k, v in params.items()
                                                   if k != "scheme"})
    _same(unit.fit(wrap(X), y, sample_weight=np.ones(60)),
          onlinear.make(params["scheme"], **kw, **{k: v for k, v in params.items()
                                                    if k != "scheme"}).fit(wrap(X), y))


# ------------------------------------------------------------------- weights of the kernel forms
@pytest.mark.parametrize("name", ["pa1", "pa2", "mira", "perceptron-max", "spa1"])
def test_a_kernel_forms_weights_are_its_primal_forms(name):
    """With the linear kernel the dual learner is its primal learner: with weights too (the
    weight enters the dual step as the primal's: C·w or the step times w)."""
    X, y = _data(13)
    weights = np.random.default_rng(13).uniform(0.0, 3.0, size=len(y))
    weights[::9] = 0.0
    dual = onlinear.make(f"kernel-{name}", kernel="linear", n_epochs=2)
    dual.fit(X, y, sample_weight=weights)
    primal = onlinear.make(name, n_epochs=2).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(dual.decision_function(X), primal.decision_function(X),
                               rtol=1e-9, atol=1e-9)
    assert dual.n_updates_ == primal.n_updates_ > 0
    # class weights are the sample weights of their rows, in fit and in learn_one
    class_weight = {"a": 2.0, "c": 0.5}
    rows = np.array([class_weight.get(label, 1.0) for label in y])
    by_class = onlinear.make(f"kernel-{name}", kernel="rbf", gamma=0.2, class_weight=class_weight)
    by_class.fit(X, y)
    by_row = onlinear.make(f"kernel-{name}", kernel="rbf", gamma=0.2).fit(X, y, sample_weight=rows)
    np.testing.assert_array_equal(by_class.dual_coef_, by_row.dual_coef_)
    one = onlinear.make(f"kernel-{name}", kernel="rbf", gamma=0.2, class_weight=class_weight)
    for i in range(len(y)):
        one.learn_one(X[i], y[i], classes=["a", "b", "c"])
    np.testing.assert_allclose(one.decision_function(X), by_class.decision_function(X),
                               rtol=1e-10, atol=1e-12)


def test_the_kernel_mc_romma_takes_no_weights():
    assert "class_weight" not in onlinear.make("kernel-mc-romma").get_params()
    import inspect
    assert "sample_weight" not in inspect.signature(
        type(onlinear.make("kernel-mc-romma")).fit).parameters


def test_one_example_calls_check_the_feature_names_of_a_pandas_row():
    """A model fit on a DataFrame refuses a DataFrame with its columns reordered (scikit-
    learn's check); learn_one and predict_one read a Series or a one-row DataFrame by
    position, so a reordered row was another example, learned or predicted silently."""
    pd = pytest.importorskip("pandas")
    X, y = _data(10)
    frame = pd.DataFrame(X[:, :3], columns=["a", "b", "c"])
    model = onlinear.make("pa").fit(frame, y)
    state = _model_state(model)
    swapped = frame[["c", "b", "a"]]
    renamed = frame.rename(columns={"c": "z"})
    for row, match in [(swapped.iloc[0], "another order"), (swapped.iloc[:1], "another order"),
                       (renamed.iloc[0], r"unseen \['z'\]; missing \['c'\]")]:
        with pytest.raises(ValueError, match=match):
            model.predict_one(row)
        with pytest.raises(ValueError, match=match):
            model.learn_one(row, y[0])
    for name, array in state.items():
        np.testing.assert_array_equal(array, _model_state(model)[name])
    assert model.predict_one(frame.iloc[0]) == model.predict(frame.iloc[:1])[0]
    model.learn_one(frame.iloc[1], y[1])
    model.learn_one(X[2, :3], y[2])  # (a plain array: by position, as ever)
