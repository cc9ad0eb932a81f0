"""A stream in which new class labels appear: ``add_classes`` and ``classes=`` naming more
labels than the model holds (partial_fit, learn_one, stream)."""
import re

import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from onlinear import make

RNG = np.random.default_rng(21)
X = RNG.normal(size=(80, 5))
Y = RNG.integers(0, 3, size=80)
LATE = np.where(np.arange(80) >= 40, np.where(Y == 2, 9, Y), Y)  # label 9 from row 40 on
GROWABLE = [("pa", {}), ("perceptron-max", {}), ("kesler", {}), ("mira", {}),
            ("spa2", {}), ("kernel-pa", {"kernel": "linear"}), ("simproj", {}),
            ("pa", {"average": True}), ("ovr-perceptron", {})]


def _output_arrays(model):
    """Copies of the arrays whose last axis is the outputs (one column per class)."""
    skip = {"counts", "support", "support_sq", "scale"}  # (not per output)
    return {name: array.copy() for name, array in model.model_.arrays().items()
            if name not in skip}


@pytest.mark.parametrize("name, params", GROWABLE)
def test_growing_keeps_every_old_class_bit_for_bit(name, params):
    model = make(name, **params).fit(X[:40], Y[:40])
    before = model.decision_function(X)
    arrays = _output_arrays(model)
    assert arrays
    model.add_classes([9, -1])
    assert model.classes_.tolist() == [-1, 0, 1, 2, 9]
    for key, array in _output_arrays(model).items():  # the old classes' columns, bit for bit
        np.testing.assert_array_equal(array[..., 1:4], arrays[key])
    after = model.decision_function(X)  # (a matrix product of another width: to rounding)
    np.testing.assert_allclose(after[:, 1:4], before, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(after[:, [0, 4]], 0.0)  # the new ones: zero prototypes
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(after, axis=1)])


@pytest.mark.parametrize("name, params", GROWABLE)
@pytest.mark.parametrize("path", ["partial_fit", "learn_one", "stream"])
def test_a_label_that_appears_mid_stream_grows_the_model(name, params, path):
    grown = make(name, **params).fit(X[:40], LATE[:40])
    classes = [0, 1, 2, 9]
    if path == "partial_fit":
        grown.partial_fit(X[40:], LATE[40:], classes=classes)
    elif path == "learn_one":
        for x, label in zip(X[40:], LATE[40:]):
            grown.learn_one(x, label, classes=classes)
    else:
        grown.stream(X[40:], LATE[40:], classes=classes).learn(range(40))
    # the same as growing by hand, then learning on
    by_hand = make(name, **params).fit(X[:40], LATE[:40]).add_classes([9])
    by_hand.partial_fit(X[40:], LATE[40:])
    assert grown.classes_.tolist() == classes and grown.n_seen_ == 80
    np.testing.assert_allclose(grown.decision_function(X), by_hand.decision_function(X),
                               rtol=1e-12, atol=1e-12)
    assert grown.score(X[40:], LATE[40:]) > 0.2


def test_the_kernel_form_grows_as_the_primal():
    primal = make("pa").fit(X[:40], LATE[:40])
    dual = make("kernel-pa", kernel="linear").fit(X[:40], LATE[:40])
    for model in (primal, dual):
        model.partial_fit(sp.csr_matrix(X[40:]), LATE[40:], classes=[0, 1, 2, 9])
    np.testing.assert_allclose(dual.decision_function(X), primal.decision_function(X),
                               rtol=1e-9, atol=1e-9)


def test_the_averaged_hypothesis_counts_a_new_class_as_zero_before_it_appears():
    model = make("pa", average=True).fit(X[:40], LATE[:40])
    reference = make("pa")
    history = []
    for i, (x, label) in enumerate(zip(X, LATE)):
        reference.learn_one(x, label, classes=[0, 1, 2] if i < 40 else [0, 1, 2, 9])
        coef = reference.coef_
        history.append(coef if coef.shape[0] == 4 else np.vstack([coef, np.zeros((1, 5))]))
    model.partial_fit(X[40:], LATE[40:], classes=[0, 1, 2, 9])
    np.testing.assert_allclose(model.coef_, np.mean(history, axis=0), rtol=1e-9, atol=1e-12)


def test_a_label_set_stream_learns_new_labels():
    model = make("simproj").fit(X[:20], [frozenset({int(v)}) for v in Y[:20]])
    predicted = model.learn_one(X[20], frozenset({1, 7}), classes=[0, 1, 2, 7])
    assert isinstance(predicted, tuple) and set(predicted) <= {0, 1, 2, 7}
    assert model.classes_.tolist() == [0, 1, 2, 7]
    assert set(model.predict_label_sets(X[:3])[0]) <= {0, 1, 2, 7}


@pytest.mark.parametrize("name, params, message", [
    ("iellip", {}, "ellipsoid"), ("multiplicative", {}, "normalized"),
    ("romma", {}, "record of its run"), ("perceptron", {}, "binary rule"),
    ("simproj", {"task": "ordinal"}, "rank order"),
    ("simproj", {"update": "multiplicative"}, "normalized"),
])
def test_learners_that_cannot_grow_say_why_and_stay_as_they_were(name, params, message):
    labels = Y if name != "perceptron" else Y % 2
    model = make(name, **params).fit(np.abs(X), labels)
    before = (model.classes_.copy(), model.decision_function(X).copy())
    with pytest.raises(ValueError, match=message):
        if params.get("task") == "ordinal":
            model.partial_fit(np.abs(X), labels, classes=[0, 1, 2, 9])
        else:
            model.add_classes([9])
    np.testing.assert_array_equal(model.classes_, before[0])
    np.testing.assert_array_equal(model.decision_function(X), before[1])


def test_growing_is_atomic_and_classes_may_only_grow(tmp_path):
    model = make("pa").fit(X[:40], Y[:40])
    image = (model.classes_.copy(), model.model_.weights.copy(), model.n_seen_)
    bad = X[41].copy()
    bad[2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.learn_one(bad, 9, classes=[0, 1, 2, 9])
    with pytest.raises(ValueError, match="lacks \\[2\\]"):
        model.partial_fit(X[40:], Y[40:] % 2, classes=[0, 1])
    with pytest.raises(ValueError, match="not one of classes_"):
        model.learn_one(X[41], 9)  # a new label without classes=: scikit-learn's contract
    np.testing.assert_array_equal(model.classes_, image[0])
    np.testing.assert_array_equal(model.model_.weights, image[1])
    assert model.n_seen_ == image[2]
    model.add_classes([9])
    onlinear.save(model, tmp_path / "grown.onlinear")
    loaded = onlinear.load(tmp_path / "grown.onlinear")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("labels, match", [
    (["x"], "the model's classes are numbers"), ([b"x"], "the model's classes are numbers"),
    ([3.5], "whole numbers; 3.5 is not"), ([(1, 2)], "not a tuple"), ({4}, "not a set"),
    ([4, "x"], "all numbers or all strings")])
def test_new_classes_keep_the_kind_and_type_of_the_models_labels(labels, match):
    """add_classes(["x"]) on an int model turned its classes into the strings ['0', '1', '2',
    'x'] and predict then returned strings; [3.5] made them floats, [b"x"] bytes, and [(1, 2)]
    did nothing.  Each is now refused, the model unchanged; a whole float is taken as an int."""
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(60, 4)), rng.integers(0, 3, 60)
    model = onlinear.make("pa").fit(X, y)
    before = (model.classes_.copy(), model.coef_.copy())
    with pytest.raises(ValueError, match=re.escape(match)):
        model.add_classes(labels)
    np.testing.assert_array_equal(model.classes_, before[0])
    np.testing.assert_array_equal(model.coef_, before[1])
    assert model.predict(X[:3]).dtype == before[0].dtype
    model.add_classes([3.0])
    assert model.classes_.tolist() == [0, 1, 2, 3] and model.classes_.dtype.kind == "i"
    with pytest.raises(ValueError, match="not a set"):
        onlinear.make("pa").partial_fit(X, y, classes={0, 1, 2})
