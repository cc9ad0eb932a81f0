"""``learn_many``: a batch of examples per call, with the prediction made before each update.

* **The rounds of partial_fit.**  For every registered single-label learner, a kernel learner
  and the ellipsoid methods, ``learn_many`` in uneven batches leaves the model ``partial_fit``
  leaves, bit for bit, on dense and CSR rows, through its fast path (a started model, arrays it
  takes as they are) and its general one (lists, int32 CSR indices, sample weights).
* **The predictions of learn_one.**  On CSR rows (the storage ``learn_one`` and the batch pass
  score alike) the returned labels are ``learn_one``'s, one by one.  On dense rows (scored with
  vectorized sums) each returned label is the argmax of the scores of the model that had learned
  the rows before it, wherever the two best scores are apart by more than rounding; and the
  mistakes counted are the returned labels that differ from y.
* **Label sets and ranks.**  The simultaneous learners learn a batch row by row: their
  ``learn_many`` equals ``learn_one`` on each row (labels, indicator rows, label sets, ranks).
* **Bad input.**  A NaN, an unknown label, a wrong width, a missing ``classes`` or a y of the
  wrong length raise a ``ValueError`` naming it, and the model is left exactly as it was —
  also when the bad row is the last of a batch learned row by row.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from test_atomic_and_threads import _assert_same_state, _state

LABELS = np.array([2, 5, 9])
SINGLE_LABEL = [name for name in onlinear.available()
                if name not in ("simperc", "conproj", "simproj", "simopt", "maxpa", "optimal",
                                "sopopo", "winnow", "binary-mira")]
SPLITS = (0, 7, 8, 30, 61, 90)  # uneven batches, one of a single row


def _data(n=90, d=6, seed=3):
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((3, d)) * 1.5
    y_index = rng.integers(0, 3, n)
    X = centers[y_index] + rng.standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True).max(), LABELS[y_index]


def _make(name):
    model = onlinear.make(name)
    if name.startswith("kernel"):
        model.set_params(gamma=0.5)
    return model


def _batches(model, X, y, **kw):
    predicted = []
    for start, stop in zip(SPLITS[:-1], SPLITS[1:]):
        extra = {"classes": LABELS} if start == 0 else {}
        if "sample_weight" in kw:
            extra["sample_weight"] = kw["sample_weight"][start:stop]
        predicted.append(model.learn_many(X[start:stop], y[start:stop], **extra))
    return np.concatenate(predicted)


def _partial_fits(model, X, y, **kw):
    for start, stop in zip(SPLITS[:-1], SPLITS[1:]):
        extra = {"classes": LABELS} if start == 0 else {}
        if "sample_weight" in kw:
            extra["sample_weight"] = kw["sample_weight"][start:stop]
        model.partial_fit(X[start:stop], y[start:stop], **extra)
    return model


# (learn_many plays partial_fit's rounds for every registered learner: tests/test_one_protocol.py)


@pytest.mark.parametrize("name", ["pa", "mira", "perceptron-max", "spa2", "aromma", "mcp",
                                  "multiplicative", "iellip", "kernel-pa"])
def test_learn_many_on_csr_rows_returns_the_predictions_of_learn_one(name):
    X, y = _data()
    X = sp.csr_matrix(X)
    model, twin = _make(name), _make(name)
    predicted = _batches(model, X, y)
    one_by_one = [twin.learn_one(X[i], y[i], classes=LABELS) for i in range(X.shape[0])]
    np.testing.assert_array_equal(predicted, one_by_one)
    assert model.n_mistakes_ == twin.n_mistakes_


@pytest.mark.parametrize("name", ["pa", "mira", "spa2", "aromma", "mcp", "iellip"])
def test_learn_many_on_dense_rows_predicts_with_the_model_of_the_rows_before(name):
    X, y = _data(n=40)
    predicted = _make(name).learn_many(X, y, classes=LABELS)
    checked = 0
    for t in range(1, X.shape[0]):
        before = _make(name).partial_fit(X[:t], y[:t], classes=LABELS)
        scores = np.sort(before.decision_function(X[t:t + 1])[0])
        if scores[-1] - scores[-2] > 1e-9 * max(1.0, abs(scores[-1])):  # away from a tie
            assert predicted[t] == before.predict(X[t:t + 1])[0], t
            checked += 1
    assert checked >= 30


def test_the_fast_path_and_the_general_path_agree():
    X, y = _data()
    fast, general = _make("pa"), _make("pa")
    fast.learn_many(X[:10], y[:10], classes=LABELS)
    general.learn_many(X[:10], y[:10], classes=LABELS)
    # the general path: a list, float32 (then widened as partial_fit widens it) and int32-indexed
    # CSR rows, labels as a list
    a = fast.learn_many(X[10:50], y[10:50])
    b = general.learn_many(X[10:50].tolist(), y[10:50].tolist())
    np.testing.assert_array_equal(a, b)
    assert _state(fast) == _state(general)
    c = fast.learn_many(X[50:].astype(np.float32), y[50:])
    d = general.learn_many(np.asfortranarray(X[50:].astype(np.float32)), list(y[50:]))
    np.testing.assert_array_equal(c, d)
    assert _state(fast) == _state(general)


def test_sample_weight_and_class_weight_take_the_rounds_of_partial_fit():
    X, y = _data()
    weights = np.random.default_rng(1).uniform(0.0, 3.0, X.shape[0])
    model = _make("pa1")
    _batches(model, X, y, sample_weight=weights)
    assert _state(model) == _state(_partial_fits(_make("pa1"), X, y, sample_weight=weights))
    weighted = onlinear.make("pa1", class_weight={2: 0.5, 9: 3.0})
    _batches(weighted, X, y)
    reference = _partial_fits(onlinear.make("pa1", class_weight={2: 0.5, 9: 3.0}), X, y)
    assert _state(weighted) == _state(reference)


def test_learn_many_with_intercept_and_averaging():
    X, y = _data()
    for params in ({"fit_intercept": True}, {"average": True}):
        model = onlinear.make("pa", **params)
        _batches(model, X, y)
        assert _state(model) == _state(_partial_fits(onlinear.make("pa", **params), X, y))


def test_learn_many_grows_with_new_classes():
    X, y = _data()
    model = _make("pa")
    model.learn_many(X[:20], y[:20], classes=LABELS)
    y_new = y[20:40].copy()
    y_new[::4] = 13
    model.learn_many(X[20:40], y_new, classes=np.r_[LABELS, 13])
    assert model.classes_.tolist() == [2, 5, 9, 13]


# ----------------------------------------------------------------------------- label sets, ranks
def test_simultaneous_learners_learn_a_batch_row_by_row():
    X, y = _data(n=30)
    for make, target in [
        (lambda: onlinear.make("simproj"), y),
        (lambda: onlinear.SimultaneousProjectionClassifier(),
         (np.random.default_rng(0).random((30, 3)) < 0.4).astype(int)),
        (lambda: onlinear.SimultaneousProjectionOrdinal(), np.searchsorted(LABELS, y)),
    ]:
        model, twin = make(), make()
        classes = None if target.ndim == 2 else np.unique(target)
        predicted = model.learn_many(X, target, classes=classes)
        one_by_one = [twin.learn_one(X[i], target[i], classes=classes if i == 0 else None)
                      for i in range(X.shape[0])]
        np.testing.assert_array_equal(predicted, np.asarray(one_by_one))
        assert _state(model) == _state(twin)


def test_a_bad_last_row_leaves_a_simultaneous_learner_as_it_was():
    X, y = _data(n=30)
    model = onlinear.make("simproj")
    model.learn_many(X[:10], y[:10], classes=LABELS)
    before = _state(model)
    bad = X[10:20].copy()
    bad[-1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.learn_many(bad, y[10:20])
    _assert_same_state(before, model)
    with pytest.raises(ValueError, match="no rows"):
        model.learn_many(X[:0], y[:0])
    with pytest.raises(TypeError, match="sample_weight"):
        model.learn_many(X[10:20], y[10:20], sample_weight=np.ones(10))
    _assert_same_state(before, model)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("name", ["pa", "iellip", "kernel-pa"])
@pytest.mark.parametrize("storage", ["dense", "csr"])
def test_bad_batches_are_refused_with_nothing_learned(name, storage):
    X, y = _data()
    convert = sp.csr_matrix if storage == "csr" else np.asarray
    model = _make(name)
    with pytest.raises(ValueError, match="classes must be passed"):
        model.learn_many(convert(X[:5]), y[:5])
    assert not hasattr(model, "classes_")
    model.learn_many(convert(X[:20]), y[:20], classes=LABELS)
    before = _state(model)
    nan = X[20:30].copy()
    nan[-1, 2] = np.nan
    unknown = y[20:30].copy()
    unknown[-1] = 4
    cases = [
        (convert(nan), y[20:30], "NaN"),
        (convert(X[20:30]), unknown, r"not in classes_.*\[4\]"),
        (convert(X[20:30, :5]), y[20:30], "features"),
        (convert(X[20:30]), y[20:29], "inconsistent numbers of samples"),
        (convert(X[20:30] * 1e160), y[20:30], "norm"),
        (convert(X[20:20]), y[20:20], "0 sample"),  # an empty batch, as partial_fit
    ]
    for rows, labels, message in cases:
        with pytest.raises(ValueError, match=message):
            model.learn_many(rows, labels)
        _assert_same_state(before, model)


def test_verbose_prints_one_line_per_call(capsys):
    X, y = _data()
    model = onlinear.make("pa", verbose=1)
    model.learn_many(X[:30], y[:30], classes=LABELS)
    model.learn_many(X[30:], y[30:])
    lines = [line for line in capsys.readouterr().out.splitlines() if "learn_many" in line]
    assert len(lines) == 2 and "30 rows" in lines[0] and "60 rows" in lines[1]
