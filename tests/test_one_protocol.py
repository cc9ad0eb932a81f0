"""Every registered learner, dense and CSR: ``fit``, ``partial_fit`` in chunks, ``learn_one``
row by row and ``learn_many`` in blocks play the same rounds — the same model to the bit, the
same counters, and the per-example calls return the predictions made before each update (what
``predict_one`` and ``predict`` say of the row just before it is learned).

(One matrix over the registry instead of the checks each family's test file used to repeat.)"""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear

NAMES = onlinear.available(kernel=None)
SPLITS = (0, 7, 30, 31, 64, 90)  # uneven chunks, one of a single row


def _make(name):
    return onlinear.make(name)  # (the defaults: every one of them works on a stream)


def _data(name, storage):
    rng = np.random.default_rng(3)
    X = rng.random((SPLITS[-1], 8))
    X[X < 0.35] = 0.0
    X[:, 0] += 0.1  # (no zero row)
    k = 3 if onlinear.describe(name).handles_multiclass else 2
    y = np.argmax(X @ rng.normal(size=(8, k)), axis=1)
    y[:k] = np.arange(k)  # every class early (ties away: continuous random scores)
    return (sp.csr_matrix(X) if storage == "csr" else X), y, np.arange(k)


def _same(a, b, X):
    """The same model: every array the model file holds (``_model_arrays``), bit for bit, and
    so the same scores and counters."""
    for name in b._model_arrays():
        np.testing.assert_array_equal(a._saved_array(name), b._saved_array(name), err_msg=name)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert (a.n_seen_, a.n_mistakes_, a.n_updates_) == (b.n_seen_, b.n_mistakes_, b.n_updates_)


def _near_tie(scores):
    """Whether a row's two top scores are equal up to rounding: ``predict``'s BLAS product may
    order a sum differently from the compiled per-example scores (even for two equal weight
    columns — the multiplicative learners' first rounds make such ties), so only the
    per-example path's own answers are compared there."""
    row = np.sort(np.atleast_1d(np.asarray(scores)[0]))
    return row.size > 1 and row[-1] - row[-2] <= 1e-9 * max(1.0, float(np.abs(row).max()))


def _learn_one_by_one(model, X, y, classes):
    """``learn_one`` row by row; each returns the prediction made before its round, which is
    what ``predict_one`` and ``predict`` say of the row just before."""
    predictions = []
    for i in range(X.shape[0]):
        if i:
            expected = model.predict_one(X[i])
            if not _near_tie(model.decision_function(X[i:i + 1])):
                np.testing.assert_array_equal(np.asarray(model.predict(X[i:i + 1])[0]),
                                              np.asarray(expected))
        predictions.append(model.learn_one(X[i], y[i], classes=classes))
        if i:
            assert np.array_equal(np.asarray(predictions[-1]), np.asarray(expected)), i
    return predictions


@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("name", NAMES)
def test_every_entry_point_plays_fits_rounds(name, storage):
    X, y, classes = _data(name, storage)
    reference = _make(name).partial_fit(X, y, classes=classes)
    _same(_make(name).fit(X, y), reference, X)

    chunks = _make(name)
    for start, stop in zip(SPLITS[:-1], SPLITS[1:]):
        chunks.partial_fit(X[start:stop], y[start:stop], classes=classes)
    _same(chunks, reference, X)

    one = _make(name)
    predicted_one = np.array(_learn_one_by_one(one, X, y, classes))
    _same(one, reference, X)

    many = _make(name)
    predicted_many = np.concatenate([
        many.learn_many(X[start:stop], y[start:stop], classes=classes)
        for start, stop in zip(SPLITS[:-1], SPLITS[1:])])
    _same(many, reference, X)

    np.testing.assert_array_equal(predicted_one, predicted_many)
    errors = int(np.sum(predicted_one != y))
    if isinstance(reference, onlinear.SimultaneousProjectionClassifier):
        assert errors <= reference.n_mistakes_  # (an imperfect trial: a tie counts too)
    else:
        assert errors == reference.n_mistakes_


SIMULTANEOUS = [name for name in NAMES if "ordinal" in onlinear.describe(name).tasks]


@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("task", ["ordinal", "multilabel"])
@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_every_entry_point_plays_fits_rounds_on_the_other_tasks(name, task, storage):
    X, ranks, classes = _data(name, storage)
    if task == "multilabel":  # an indicator matrix: the rank's label and its parity's
        y = np.zeros((ranks.shape[0], 3), dtype=int)
        y[np.arange(ranks.shape[0]), ranks] = 1
        y[:, 2] |= ranks % 2
    else:
        y = ranks
    make = lambda: onlinear.make(name, task=task)  # noqa: E731
    reference = make().fit(X, y)
    chunks = make()
    for start, stop in zip(SPLITS[:-1], SPLITS[1:]):
        chunks.partial_fit(X[start:stop], y[start:stop], classes=classes)
    _same(chunks, reference, X)
    one = make()
    predicted_one = _learn_one_by_one(one, X, y, classes)
    _same(one, reference, X)
    many = make()
    predicted_many = [p for start, stop in zip(SPLITS[:-1], SPLITS[1:])
                      for p in many.learn_many(X[start:stop], y[start:stop], classes=classes)]
    _same(many, reference, X)
    np.testing.assert_array_equal(np.asarray(predicted_one), np.asarray(predicted_many))
