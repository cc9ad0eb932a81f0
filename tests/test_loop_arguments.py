"""The arrays the compiled loops are given.

Rows reach the loops read-only (the loops never write them; a read-only memmap is learned as an
ordinary array) and CSR indices as int32 whenever they fit, half the bytes of int64
(:func:`onlinear._core.rows.read_only_rows`, :func:`~onlinear._core.rows.csr_arrays`).  The
user's arrays are never changed, and the models are those of the rows as given.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from onlinear._core.rows import csr_arrays, read_only_rows


def _data(n=120, d=7, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[X < 0.3] = 0.0
    y = np.argmax(X @ rng.normal(size=(d, k)), axis=1)
    return X, y


def test_read_only_rows_is_a_view_and_leaves_the_array_writable():
    X, _ = _data()
    view = read_only_rows(X)
    assert not view.flags.writeable and np.shares_memory(view, X)
    assert X.flags.writeable  # the caller's array keeps its flags
    assert read_only_rows(view) is view
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 1.0


def test_csr_arrays_narrows_indices_that_fit_and_keeps_the_matrix():
    X, _ = _data()
    csr = sp.csr_matrix(X)
    csr.indices, csr.indptr = csr.indices.astype(np.int64), csr.indptr.astype(np.int64)
    data, indices, indptr = csr_arrays(csr)
    assert (indices.dtype, indptr.dtype) == (np.int32, np.int32)
    assert not (data.flags.writeable or indices.flags.writeable or indptr.flags.writeable)
    np.testing.assert_array_equal(indices, csr.indices)
    np.testing.assert_array_equal(indptr, csr.indptr)
    assert csr.indices.dtype == np.int64 and csr.data.flags.writeable  # the user's matrix


def test_csr_arrays_keeps_int64_indices_of_a_matrix_wider_than_int32():
    width = 2**31 + 5  # (no dense array of that width is ever made)
    wide = sp.csr_matrix((np.array([1.0, 2.0]), np.array([3, width - 1], np.int64),
                          np.array([0, 2], np.int64)), shape=(1, width))
    _, indices, indptr = csr_arrays(wide)
    assert indices.dtype == np.int64 and indptr.dtype == np.int64
    assert indices[-1] == width - 1


@pytest.mark.parametrize("name", ["pa", "mira"])
def test_a_read_only_matrix_gives_the_model_of_a_writable_one(name, tmp_path):
    X, y = _data()
    path = tmp_path / "X.npy"
    np.save(path, X)
    mapped = np.load(path, mmap_mode="r")  # a read-only memmap, as scikit-learn's checks make
    assert not mapped.flags.writeable
    from_writable = onlinear.make(name).fit(X, y)
    from_mapped = onlinear.make(name).fit(mapped, y)
    np.testing.assert_array_equal(from_mapped.coef_, from_writable.coef_)
    assert from_mapped.n_mistakes_ == from_writable.n_mistakes_
    # one example at a time, from rows of the read-only matrix
    one = onlinear.make(name)
    for i in range(len(y)):
        one.learn_one(mapped[i], y[i], classes=np.arange(3))
    assert one.n_mistakes_ == from_writable.n_mistakes_


def test_no_call_changes_the_users_rows_or_their_flags():
    X, y = _data()
    path_rows = [X, X.astype(np.float32), np.asfortranarray(X)]
    csr = sp.csr_matrix(X)
    wide = csr.copy()
    wide.indices, wide.indptr = wide.indices.astype(np.int64), wide.indptr.astype(np.int64)
    for rows in path_rows + [csr, wide]:
        before = rows.copy()
        arrays = (rows.data, rows.indices, rows.indptr) if sp.issparse(rows) else (rows,)
        flags = [(a.flags.writeable, a.dtype) for a in arrays]
        model = onlinear.make("pa").fit(rows, y)
        model.partial_fit(rows[:5], y[:5])
        model.learn_many(rows[:4], y[:4])
        for i in range(3):
            model.learn_one(rows[i], y[i])
            model.predict_one(rows[i])
        if sp.issparse(rows):
            assert (rows != before).nnz == 0
        else:
            np.testing.assert_array_equal(rows, before)
        assert [(a.flags.writeable, a.dtype) for a in arrays] == flags
