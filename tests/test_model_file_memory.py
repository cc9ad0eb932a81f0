"""What saving and loading a model holds at its peak, measured by ``tracemalloc`` (numpy tells
it every array it allocates): ``save`` one snapshot of the model's arrays (taken under its lock,
written from there to the file, no copy of the file in memory), ``load`` the arrays it reads
(each read into its own memory, the checks summing over them without copies)."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from model_state import model_vars


def _array_bytes(model):
    return sum(value.nbytes for value in model_vars(model).values()
               if isinstance(value, np.ndarray))


def _peak(call):
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name, dtype", [("pa", "float64"), ("pa", "float32"),
                                         ("arow", "auto"), ("adagrad", "auto")])
def test_save_and_load_hold_the_arrays_about_once(name, dtype, tmp_path):
    X = sp.random(40, 400_000, density=1e-4, format="csr", random_state=0)
    y = np.arange(40) % 10
    params = {} if dtype == "auto" else {"dtype": dtype}
    model = onlinear.make(name, **params).fit(X, y)
    size = _array_bytes(model)
    assert size > 15e6  # (the model's arrays dwarf everything else the calls allocate)
    path = tmp_path / "m.onlinear"
    _, saving = _peak(lambda: onlinear.save(model, path))
    loaded, loading = _peak(lambda: onlinear.load(path))
    assert saving < 1.2 * size, (saving, size)
    assert loading < 1.3 * size, (loading, size)
    np.testing.assert_array_equal(loaded.decision_function(X[:5]), model.decision_function(X[:5]))
