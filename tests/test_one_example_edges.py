"""Edges of the one-example calls found by a hostile-input review: a row of no features, labels
``fit`` would refuse, and what a pickle or a file of a model carries.

* ``learn_one`` of a row of length 0 crashed (a ``ZeroDivisionError`` in the kernel and
  multiplicative learners), contradicted itself (the additive ones: "x has norm 0; the
  learners accept rows of norm 0") or started a model of no features that no file could hold
  (the ellipsoids): every learner refuses it by name, as ``fit`` refuses an X of no features.
* Fractional labels (0.5) started a model through ``learn_one`` and were added by
  ``add_classes``, while ``fit``, ``partial_fit`` and ``stream`` refuse them as continuous
  targets: such a model could not go on with ``partial_fit`` nor be scored.  Every path
  refuses them; label sets (multilabel) still take any labels.
* A pickle carried the column indices of a dense row (as large as one output's weights), and a
  refused ``learn_one`` that made them changed the model's pickle.
* An array of the other byte order, set by hand on a model, was saved and then refused by
  ``load``: the file holds native byte order."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import onlinear

NAMES = onlinear.available(kernel=None)
X = np.random.default_rng(0).normal(size=(8, 3))


@pytest.mark.parametrize("row", [np.zeros(0), sp.csr_matrix((1, 0))], ids=["dense", "csr"])
@pytest.mark.parametrize("name", NAMES)
def test_a_row_of_no_features_is_refused_by_name(name, row):
    model = onlinear.make(name)
    with pytest.raises(ValueError, match="x has no features"):
        model.learn_one(row, 0, classes=[0, 1])
    assert "classes_" not in vars(model)


@pytest.mark.parametrize("call", ["learn_one", "learn_many", "partial_fit", "stream"])
def test_fractional_labels_are_refused_on_every_first_call(call):
    y = np.array([0.5, 1.5] * 4)
    model = onlinear.make("pa")
    with pytest.raises(ValueError, match="continuous"):
        if call == "learn_one":
            model.learn_one(X[0], 0.5, classes=[0.5, 1.5])
        elif call == "learn_many":
            model.learn_many(X, y, classes=[0.5, 1.5])
        elif call == "partial_fit":
            model.partial_fit(X, y, classes=[0.5, 1.5])
        else:
            model.stream(X, y, classes=[0.5, 1.5])
    assert "classes_" not in vars(model)


def test_a_fractional_class_is_not_added_to_whole_float_classes():
    model = onlinear.make("pa").fit(X, np.array([1.0, 2.0] * 4))
    with pytest.raises(ValueError, match="whole numbers or strings: 0.5"):
        model.add_classes([0.5])
    assert model.classes_.tolist() == [1.0, 2.0]
    model.add_classes([3.0])  # (a whole float is a class, as fit takes it)
    assert model.classes_.tolist() == [1.0, 2.0, 3.0]


def test_label_sets_still_take_fractional_labels():
    model = onlinear.make("simproj", task="multilabel")
    model.fit(X, [[0.5], [1.5], [0.5, 2.5], [1.5]] * 2)
    assert model.classes_.tolist() == [0.5, 1.5, 2.5]
    model.add_classes([3.5])
    assert model.classes_.tolist() == [0.5, 1.5, 2.5, 3.5]


def test_a_pickle_carries_no_dense_row_indices_and_a_refused_call_does_not_change_it():
    rng = np.random.default_rng(1)
    model = onlinear.make("pa", fit_intercept=True).fit(rng.normal(size=(20, 500)),
                                                         np.arange(20) % 3)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="not one of classes_"):
        model.learn_one(rng.normal(size=500), 9)
    assert "_dense_index" in vars(model)  # (made by the refused call's row, kept as a cache)
    assert pickle.dumps(model) == before
    model.learn_one(rng.normal(size=500), 1)
    copy = pickle.loads(pickle.dumps(model))
    assert "_dense_index" not in vars(copy)
    np.testing.assert_array_equal(copy.coef_, model.coef_)


def test_an_array_of_the_other_byte_order_is_saved_in_native_order(tmp_path):
    model = onlinear.make("pa").fit(X, np.arange(8) % 2)
    held = model.model_
    held.counts = held.counts.astype(held.counts.dtype.newbyteorder())  # (by hand)
    onlinear.save(model, tmp_path / "m.onlinear")
    loaded = onlinear.load(tmp_path / "m.onlinear")
    assert loaded.model_.counts.dtype.isnative
    assert loaded.n_seen_ == model.n_seen_ == 8
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
