"""The per-example path of the primal learners (``onlinear.estimators.fast_path``) and the
weights' layout.

* ``learn_one`` on a started model takes one compiled call through a context kept in ``_fast``
  once it served a call; any attribute set drops it (a refit, grown classes or features, a
  change of hyperparameters, a loaded model), and the model then learns exactly as the general
  path would.
* A dense row is learned on class-major weights, a CSR row on feature-major ones: the weights
  follow the rows' kind, and a switch changes no value.  ``learn_one`` on dense rows plays the
  rounds of a dense ``fit`` (the same predictions and counts, weights equal up to the rounding
  of the vectorized sums); on CSR rows those of a CSR ``fit``, bit for bit.
* ``predict_one`` predicts what ``learn_one`` would for the same row (the same compiled round).
* CSR rows are taken in any form scipy keeps: int32 or int64 indices, float32 values, values on
  a strided array, non-canonical rows (summed first); a row of another width, or with a NaN, is
  refused with nothing changed.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from model_state import model_vars

NAMES = ["pa", "mira", "spa2", "perceptron-max", "aromma", "mcp", "romma", "mc-romma",
         "kesler", "multiplicative"]


def _classes(name):
    return 3 if onlinear.describe(name).handles_multiclass else 2


def _data(k, n=150, d=9, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[X < 0.4] = 0.0
    y = np.argmax(X @ rng.normal(size=(d, k)), axis=1)
    return X, y


def _state(model):
    return {k: (v.tobytes() if isinstance(v, np.ndarray) else v) for k, v in model_vars(model).items()
            if k not in ("_lock", "_fast", "_task")}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", NAMES)
def test_learn_one_plays_the_rounds_of_fit_on_either_kind_of_row(name, dtype):
    k = _classes(name)
    X, y = _data(k)
    params = {} if name == "multiplicative" else {"dtype": dtype}
    classes = np.arange(k)
    for form in (X, sp.csr_matrix(X)):
        batch = onlinear.make(name, **params).fit(form, y)
        one = onlinear.make(name, **params)
        predicted = [one.learn_one(form[i] if sp.issparse(form) else form[i], y[i],
                                   classes=classes) for i in range(len(y))]
        assert one.n_mistakes_ == batch.n_mistakes_ and one.n_updates_ == batch.n_updates_
        assert int(np.sum(np.asarray(predicted) != y)) == batch.n_mistakes_
        # the same compiled sweeps in a pass and in one call: the same bits
        np.testing.assert_array_equal(one.coef_, batch.coef_)
        np.testing.assert_array_equal(one.model_.state, batch.model_.state)
        if sp.issparse(form):
            assert one.model_.weights.flags.c_contiguous
        else:
            assert one.model_.weights.flags.f_contiguous


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["pa", "mira", "aromma", "mcp", "mc-romma"])
def test_predict_one_predicts_what_learn_one_would(name, dtype):
    k = _classes(name)
    X, y = _data(k, n=120)
    for form in (X, X.astype(np.float32), sp.csr_matrix(X)):
        model = onlinear.make(name, dtype=dtype)
        model.learn_one(form[0], y[0], classes=np.arange(k))
        for i in range(1, form.shape[0]):
            expected = model.predict_one(form[i])
            assert model.learn_one(form[i], y[i]) == expected


def test_the_context_serves_started_models_and_is_dropped_when_an_attribute_is_set():
    X, y = _data(3)
    model = onlinear.make("pa")
    model.learn_one(X[0], y[0], classes=[0, 1, 2])  # (the first call starts the model)
    model.learn_one(X[1], y[1])
    assert "_fast" in vars(model) and vars(model)["_fast"].dense
    model.set_params(C=0.5)
    assert "_fast" not in vars(model)
    model.learn_one(sp.csr_matrix(X[2:3]), y[2])
    assert not vars(model)["_fast"].dense and model.model_.weights.flags.c_contiguous
    model.predict_one(X[3])  # a dense row: the weights turn class-major, values unchanged
    assert vars(model)["_fast"].dense
    with_intercept = onlinear.make("pa", fit_intercept=True).fit(X, y)
    with_intercept.learn_one(X[0], y[0])
    assert "_fast" not in vars(with_intercept)  # (the general path appends the constant)


def test_a_failed_call_adds_no_context_and_changes_nothing():
    X, y = _data(3)
    model = onlinear.make("pa").fit(X, y)
    before = _state(model)
    for row in (np.r_[X[0, :-1], np.nan], X[0, :-1], sp.csr_matrix(np.r_[X[0, :-1], np.inf])):
        with pytest.raises(ValueError):
            model.learn_one(row, y[0])
        assert "_fast" not in vars(model)
    with pytest.raises(ValueError, match="not one of classes_"):
        model.learn_one(X[0], 7)
    assert _state(model) == before


@pytest.mark.parametrize("change", ["set_params", "add_classes", "grow_features", "refit",
                                    "load", "set_average"])
def test_after_any_change_the_model_learns_as_the_general_path(change, tmp_path):
    """The fast path (ndarray rows) and the general path (list rows, converted and checked in
    Python) give the same model, bit for bit, before and after the change."""
    X, y = _data(3)

    def changed(model):
        if change == "set_params":
            model.set_params(C=0.25, slack="linear")
        elif change == "add_classes":
            model.add_classes([3])
        elif change == "grow_features":
            model.grow_features(X.shape[1] + 2)
        elif change == "refit":
            model.fit(X[::-1], y[::-1])
        elif change == "load":
            onlinear.save(model, tmp_path / "m.onl")
            model = onlinear.load(tmp_path / "m.onl")
        elif change == "set_average":
            model.set_params(warm_start=True)
        return model

    width = X.shape[1] + (2 if change == "grow_features" else 0)
    rows = np.zeros((len(y), width))
    rows[:, :X.shape[1]] = X
    fast, general = onlinear.make("pa"), onlinear.make("pa")
    for model, as_given in ((fast, lambda r: r), (general, lambda r: r.tolist())):
        for i in range(40):
            model.learn_one(as_given(X[i]), y[i], classes=[0, 1, 2])
    fast, general = changed(fast), changed(general)
    for i in range(40, len(y)):
        assert fast.learn_one(rows[i], y[i]) == general.learn_one(rows[i].tolist(), y[i])
    assert "_fast" in vars(fast) and "_fast" not in vars(general)
    np.testing.assert_array_equal(fast.coef_, general.coef_)
    assert fast.n_mistakes_ == general.n_mistakes_


def test_switching_kinds_of_rows_changes_no_weight():
    X, y = _data(3)
    model = onlinear.make("mira").fit(X, y)
    coef = model.coef_
    for row in (sp.csr_matrix(X[:1]), X[0], sp.csr_array(X[:1]), X[0].astype(np.float32)):
        model.predict_one(row)
        np.testing.assert_array_equal(model.coef_, coef)


def _csr_forms(x):
    """One row as scipy may hold it: int32/int64 indices, float32 values, values on a strided
    array, a non-canonical row (a value split in two entries, columns unsorted)."""
    canonical = sp.csr_matrix(x[None, :])
    columns, values = canonical.indices, canonical.data
    wide = sp.csr_matrix((values, columns.astype(np.int64), np.array([0, values.size])),
                         shape=canonical.shape)
    single = sp.csr_matrix(canonical, dtype=np.float32)
    strided_values = np.repeat(values, 2)[::2]
    strided = sp.csr_matrix((strided_values, columns, canonical.indptr), shape=canonical.shape)
    assert values.size < 2 or not strided.data.flags.c_contiguous
    split = sp.csr_matrix((np.r_[values[::-1] / 2, values[::-1] / 2],
                           np.r_[columns[::-1], columns[::-1]], np.array([0, 2 * values.size])),
                          shape=canonical.shape)
    assert values.size == 0 or not split.has_canonical_format
    return {"canonical": canonical, "int64": wide, "float32": single, "strided": strided,
            "split": split, "array": sp.csr_array(canonical)}


@pytest.mark.parametrize("form", ["int64", "float32", "strided", "split", "array"])
def test_every_form_of_a_csr_row_is_learned_as_the_canonical_row(form):
    X, y = _data(3)
    X = X.astype(np.float32).astype(np.float64)  # (so that the float32 form holds the same)
    # (float64 weights for both: by default a model started on a float32 row has float32 ones)
    reference, model = onlinear.make("pa", dtype="float64"), onlinear.make("pa", dtype="float64")
    for i in range(len(y)):
        forms = _csr_forms(X[i])
        expected = reference.learn_one(forms["canonical"], y[i], classes=[0, 1, 2])
        assert model.learn_one(forms[form], y[i], classes=[0, 1, 2]) == expected
        assert model.predict_one(forms[form]) == reference.predict_one(forms["canonical"])
    np.testing.assert_array_equal(model.coef_, reference.coef_)
    if form != "split":  # (a non-canonical row is summed by the general path)
        assert "_fast" in vars(model)


def test_rows_of_another_width_are_refused_with_nothing_changed():
    X, y = _data(3)
    model = onlinear.make("pa").fit(X, y)
    model.learn_one(X[0], y[0])
    before = _state(model)
    for row in (X[0, :-1], np.r_[X[0], 1.0], sp.csr_matrix(np.r_[X[0], 1.0]),
                sp.csr_matrix(X[0, :-1]), X[:2]):
        with pytest.raises(ValueError):
            model.learn_one(row, y[0])
        with pytest.raises(ValueError):
            model.predict_one(row)
    assert _state(model) == before


def test_a_tampered_csr_row_is_refused_not_read():
    """The compiled entry points read their arrays as the types they were made for, so the
    fast path checks the dimensions of a CSR row's arrays on every call: a matrix whose data
    was reshaped after scipy checked it goes to the general path, which refuses it."""
    X, y = _data(3)
    model = onlinear.make("pa").fit(sp.csr_matrix(X), y)
    model.learn_one(sp.csr_matrix(X[:1]), y[0])  # (the CSR entry point is made)
    before = _state(model)
    tampered = sp.csr_matrix(X[:1] + 1.0)  # (9 stored values, of the model's width)
    tampered.data = tampered.data.reshape(3, 3)
    for call in (lambda: model.learn_one(tampered, y[0]), lambda: model.predict_one(tampered)):
        with pytest.raises(ValueError):
            call()
    assert _state(model) == before


def test_the_compiled_calls_refuse_arrays_they_could_not_read():
    from onlinear._core import primal

    params, state, counts = np.zeros(3), np.ones((4, 3)), np.zeros(3, np.int64)
    acc, avg, index = np.zeros((0, 0)), np.zeros(0), np.arange(5)
    calls = primal.ExampleRound(np.zeros((3, 5)), 5, params, state, 0, False, counts, acc, avg,
                                0, False, index, True, 505)
    assert any(array is state for array in calls.arrays)
    for weights in (np.zeros((5, 3)).T, np.zeros((3, 5), np.int64),
                    np.zeros((3, 5)).view(np.ndarray)[:, ::-1]):
        with pytest.raises(TypeError, match="C-contiguous"):
            primal.ExampleRound(weights, 5, params, state, 0, False, counts, acc, avg, 0, False,
                                index, True, 505)
    with pytest.raises(ValueError, match="column per output"):
        primal.ExampleRound(np.zeros((3, 5)), 5, params, np.ones((4, 2)), 0, False, counts, acc,
                            avg, 0, False, index, True, 505)
    with pytest.raises(ValueError, match="unknown rule"):
        primal.ExampleRound(np.zeros((3, 5)), 99, params, state, 0, False, counts, acc, avg, 0,
                            False, index, True, 505)
    # rows it does not take: another width, dtype, layout or label (nothing changes)
    for x, label in ((np.ones(4), 0), (np.ones(5, np.int64), 0), (np.ones(10)[::2], 0),
                     (np.ones(5), 3), ([1.0] * 5, 0)):
        assert calls.learn_dense(x, label) == -1
    assert counts.tolist() == [0, 0, 0]
    assert calls.learn_dense(np.ones(5), 1) == 0 and counts.tolist() == [1, 1, 1]


def test_a_context_holds_the_arrays_its_table_points_to():
    X, y = _data(3)
    model = onlinear.make("pa").fit(X, y)
    model.learn_one(X[0], y[0])
    fast = model.__dict__["_fast"]
    assert any(array is model.model_.state for array in fast.arrays)
    assert any(array is model.model_.counts for array in fast.arrays)
    before = model.n_seen_
    model.learn_one(X[1], y[1])  # the counters the table points to are the model's own
    assert model.n_seen_ == before + 1


def test_classes_given_again_on_every_call_are_checked_by_the_context(monkeypatch):
    """scikit-learn users pass ``classes=`` on every call: an array of the model's classes
    (a new one each time, the same dtype and values) is recognized by the context without the
    model's own check; anything else goes through that check and is learned as before."""
    X, y = _data(3)
    labels = np.array(["ant", "bee", "cat"])[y]
    model = onlinear.make("pa")
    model.learn_one(X[0], labels[0], classes=np.array(["ant", "bee", "cat"]))
    model.learn_one(X[1], labels[1])
    reference = onlinear.make("pa")
    reference.learn_one(X[0], labels[0], classes=np.array(["ant", "bee", "cat"]))
    reference.learn_one(X[1], labels[1])
    checked = []
    own_check = type(model)._known_classes
    monkeypatch.setattr(type(model), "_known_classes",
                        lambda self, classes: checked.append(classes) or own_check(self, classes))
    for i in range(2, 20):
        assert (model.learn_one(X[i], labels[i], classes=np.array(["ant", "bee", "cat"]))
                == reference.learn_one(X[i], labels[i]))
    assert checked == [] and "_fast" in vars(model)
    # a list, a 2-D array, other values: the model's own check (and the same learning)
    for classes in (["ant", "bee", "cat"], np.array([["ant", "bee", "cat"]]),
                    np.array(["ant", "bee", "cow"])):
        checked.clear()
        try:
            got = model.learn_one(X[20], labels[20], classes=classes)
        except ValueError as error:  # a wrong set of classes is refused, nothing changed
            assert "lacks" in str(error) or "classes" in str(error)
            continue
        assert checked and got == reference.learn_one(X[20], labels[20])
    np.testing.assert_array_equal(model.coef_, reference.coef_)


@pytest.mark.parametrize("kind", ["dense", "csr"])
def test_a_started_model_learns_and_predicts_one_row_through_its_compiled_calls(kind,
                                                                              monkeypatch):
    """A started model's ``learn_one`` and ``predict_one`` take the compiled calls of its
    context, not the general path (which is made to fail here), and learn as ``fit`` does."""
    rng = np.random.default_rng(0)
    X = rng.random((60, 12))
    X[X < 0.5] = 0.0
    y = rng.integers(0, 3, 60)
    rows = [sp.csr_matrix(X[i:i + 1]) for i in range(60)] if kind == "csr" else list(X)
    model = onlinear.make("pa")
    model.learn_one(rows[0], y[0], classes=np.arange(3))

    def refused(*args, **kwargs):
        raise AssertionError("the general path took a call of the fast path")

    monkeypatch.setattr(type(model), "_learn_one_index", refused)
    monkeypatch.setattr(type(model), "_predict_index_one", refused)
    predicted = [model.learn_one(rows[i], y[i]) for i in range(1, 60)]
    assert model.predict_one(rows[5]) in (0, 1, 2)
    reference = onlinear.make("pa").fit(sp.csr_matrix(X) if kind == "csr" else X, y)
    monkeypatch.undo()
    assert model.n_seen_ == 60 and model.n_mistakes_ == reference.n_mistakes_
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-12, atol=1e-12)
    assert len(predicted) == 59
