"""``class_weight`` reaches every pass built on :meth:`stream` — the stream's own ``learn``, the
experiment harness and ``onlinear run`` (which measure learning curves through it), and
iterative parameter mixing (whose shards learn through it) — as it reaches :meth:`fit`: each
row's rounds weighted by its class's weight, ``"balanced"`` computed from the stream's labels."""

import numpy as np
import pytest

import onlinear
from onlinear import harness
from onlinear.distributed import ParameterMixing
from model_state import model_vars

NAMES = ["pa1", "arow", "adagrad", "kernel-pa1"]
WEIGHTS = [{0: 0.25, 2: 3.0}, "balanced"]


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] > 0.7, 2, np.where(X[:, 1] > 0.0, 1, 0))  # (unbalanced classes)
    return X, y


def _make(name, **params):
    if name.startswith("kernel"):
        params["gamma"] = 0.5
    if name in ("pa1", "kernel-pa1"):
        params.setdefault("C", 0.1)  # (a step capped at C·w: the weights tell)
    return onlinear.make(name, **params)


def _same_model(a, b):
    va, vb = model_vars(a), model_vars(b)
    assert va.keys() == vb.keys()
    for key in va:
        if isinstance(va[key], np.ndarray):
            np.testing.assert_array_equal(va[key], vb[key], err_msg=key)


@pytest.mark.parametrize("class_weight", WEIGHTS, ids=["dict", "balanced"])
@pytest.mark.parametrize("name", NAMES)
def test_a_stream_weighs_its_rows_as_fit_does(name, class_weight):
    X, y = _data()
    fitted = _make(name, class_weight=class_weight).fit(X, y)
    streamed = _make(name, class_weight=class_weight)
    stream = streamed.stream(X, y, classes=fitted.classes_)
    stream.learn(np.arange(25))
    stream.learn(np.arange(25, 60))
    _same_model(streamed, fitted)
    unweighted = _make(name).fit(X, y)
    assert not np.array_equal(streamed.decision_function(X), unweighted.decision_function(X))


@pytest.mark.parametrize("class_weight", WEIGHTS, ids=["dict", "balanced"])
def test_the_harness_counts_the_weighted_learner(class_weight):
    X, y = _data()
    fitted = _make("pa1", class_weight=class_weight).fit(X, y)
    run = harness.evaluate("pa1", X, y, params={"class_weight": class_weight, "C": 0.1}).runs[0]
    assert (int(run.mistakes[-1]), int(run.updates[-1])) == (fitted.n_mistakes_,
                                                              fitted.n_updates_)
    plain = _make("pa1").fit(X, y)
    assert (fitted.n_mistakes_, fitted.n_updates_) != (plain.n_mistakes_, plain.n_updates_)


@pytest.mark.parametrize("class_weight", WEIGHTS, ids=["dict", "balanced"])
def test_one_shard_of_parameter_mixing_is_the_weighted_serial_learner(class_weight):
    X, y = _data()
    mixed = ParameterMixing(_make("pa1", class_weight=class_weight)).fit([(X, y)]).estimator_
    serial = _make("pa1", class_weight=class_weight).fit(X, y)
    np.testing.assert_array_equal(mixed.coef_, serial.coef_)
    np.testing.assert_array_equal(mixed.intercept_, serial.intercept_)


def test_a_stream_refuses_a_class_weight_changed_after_it_was_made():
    X, y = _data()
    model = _make("pa1", class_weight={0: 0.25})
    stream = model.stream(X, y, classes=[0, 1, 2])
    stream.learn(np.arange(10))
    before = {k: (v.copy() if isinstance(v, np.ndarray) else v)
              for k, v in model_vars(model).items()}
    model.set_params(class_weight={0: 4.0})
    with pytest.raises(ValueError, match="class_weight"):
        stream.learn(np.arange(10, 20))
    after = model_vars(model)
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value, err_msg=key)
    model.stream(X, y).learn(np.arange(10, 20))  # (a new stream takes the new weights)
    assert model.n_seen_ == 20


@pytest.mark.parametrize("weight", [1e300, 1.7e308])
def test_a_weight_too_large_for_the_data_is_refused_and_nothing_learned(weight):
    X, y = _data()
    model = _make("adagrad", class_weight={0: weight})
    start = np.flatnonzero(y != 0)[:5]  # (rows of weight 1)
    model.partial_fit(X[start], y[start], classes=[0, 1, 2])
    before = {k: (v.copy() if isinstance(v, np.ndarray) else v)
              for k, v in model_vars(model).items()}
    stream = model.stream(X, y)
    with pytest.raises(ValueError, match="weight"):
        stream.learn(np.arange(60))
    after = model_vars(model)
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value, err_msg=key)
