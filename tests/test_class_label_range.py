"""New classes of a model whose labels are integers or booleans must fit the labels' dtype:
cast to it unchecked, a label out of range wrapped around (300 became class 44 of a uint8
model, 200 became -56 of an int8 one, 2**63 a negative int64) or collapsed (2 added nothing to
a bool model), silently; 2**70 failed in a bare OverflowError.  Each is refused by name, by
every call that adds classes, and the model is left as it was."""

import numpy as np
import pytest

import onlinear
from model_state import model_vars

X = np.random.default_rng(0).normal(size=(12, 3))
CASES = [  # (the labels' dtype, a label that does not fit, one that does)
    (np.uint8, 300, 7), (np.uint8, -1, 255), (np.int8, 200, -100), (np.int16, 2**15, -2**15),
    (np.int64, 2**63, -2**63), (np.int64, 2**70, 2**62), (np.uint64, -1, 2**64 - 1),
    (bool, 2, None),
]


def _fitted(dtype):
    y = (np.arange(12) % 2).astype(dtype)
    return onlinear.make("pa").fit(X, y)


def _state(model):
    return {k: (v.tobytes() if isinstance(v, np.ndarray) else v)
            for k, v in model_vars(model).items() if k not in ("_lock", "_fast", "_task")}


@pytest.mark.parametrize("call", ["add_classes", "partial_fit", "learn_one", "learn_many"])
@pytest.mark.parametrize("dtype, outside, inside", CASES)
def test_a_label_outside_the_classes_dtype_is_refused(dtype, outside, inside, call):
    model = _fitted(dtype)
    before = _state(model)
    classes = [*model.classes_.tolist(), outside]
    with pytest.raises(ValueError, match=f"classes are {np.dtype(dtype)} .*does not fit"):
        if call == "add_classes":
            model.add_classes([outside])
        elif call == "partial_fit":
            model.partial_fit(X[:2], model.classes_[:2], classes=classes)
        elif call == "learn_one":
            model.learn_one(X[0], model.classes_[0], classes=classes)
        else:
            model.learn_many(X[:2], model.classes_[:2], classes=classes)
    assert _state(model) == before


@pytest.mark.parametrize("dtype, outside, inside", [case for case in CASES if case[2] is not None])
def test_a_label_inside_the_range_is_added_exactly(dtype, outside, inside):
    model = _fitted(dtype)
    model.add_classes([inside])
    assert model.classes_.dtype == np.dtype(dtype)
    assert inside in model.classes_.tolist() and model.classes_.shape == (3,)
