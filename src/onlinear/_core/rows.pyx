"""Rows as the compiled loops take them, and the rows they accept.

A row is a pair ``(column indices, values)``: a CSR row is its slices of ``indices`` and
``data``; a dense row is the whole row (its zeros skipped where it matters).  The loops take
dense rows C-contiguous and CSR rows canonical (sorted column indices, no repeats), their
values float64 or float32 and their indices int32 where they fit (:func:`csr_arrays`).
"""
import numpy as np

from libc.math cimport ldexp
from libc.stdint cimport int32_t, int64_t

from ._store cimport index_t, real_x, row_ok

#: Every learner accepts a row x only if x = 0 or ``2^-ROW_NORM_EXPONENT ≤ ‖x‖ ≤
#: 2^ROW_NORM_EXPONENT`` (≈ 9.5e-153 … 1.0e152), i.e. ``‖x‖²`` within ``[2^-1010, 2^1010]``.
#: The rules form ``‖x‖²``, ``1/‖x‖²``, scores ``w·x`` with ‖w‖ of the order of ``1/min‖x‖``
#: (PA-type steps) or ``T·max‖x‖`` (Perceptron-type steps), and products of two of these; the
#: bound leaves them all 2^13 of headroom below float64's 2^1024 (and keeps ``‖x‖²`` a normal
#: number: a subnormal one makes ``1/‖x‖²`` infinite, one that underflows to 0 would silently
#: turn x into the zero row).  Data at any scale in ``[1e-150, 1e150]`` times rows of norm
#: ``[0.02, 100]`` is accepted; outside, the estimators raise before learning anything.
ROW_NORM_EXPONENT = 505

#: The same bound for a model with float32 weights (``dtype="float32"``): ``‖x‖`` within
#: ``[2^-32, 2^32]`` (≈ 2.3e-10 … 4.3e9).  Its dense sweeps sum ``‖x‖²`` and the scores in
#: float32, which ends at 2^128 and is normal down to 2^-126: ``‖x‖²`` then stays within
#: ``[2^-64, 2^64]`` and the raw weights (at most the true ones times 2^24, the float32 limit of
#: the lazy scale) leave the scores 2^40 of headroom for weights up to 2^32·‖x‖'s range.
ROW_NORM_EXPONENT_FLOAT32 = 32


#: The largest column index (and number of stored values) the loops take as int32: the indices'
#: dtype of every loop below it (:func:`csr_arrays`, :func:`int32_indices`).
INT32_MAX = np.iinfo(np.int32).max


def read_only_rows(X):
    """The dense rows ``X`` as the compiled loops take them: a read-only view (``X`` itself if
    it is read-only already): the loops never write their rows."""
    if X.flags.writeable:
        X = X.view()
        X.flags.writeable = False
    return X


def csr_arrays(X):
    """``(data, indices, indptr)`` of the CSR matrix ``X`` as the compiled loops take them:
    read-only (:func:`read_only_rows`), and the indices and row pointers int32 whenever the
    matrix's width and number of stored values fit (scipy's own choice; a matrix built with
    int64 indices, e.g. a ``csr_array`` from int64 arrays, is narrowed by a copy of its
    indices): half the bytes a pass reads for its indices."""
    indices, indptr = X.indices, X.indptr
    if X.shape[1] <= INT32_MAX and X.nnz <= INT32_MAX:
        indices, indptr = indices.astype(np.int32, copy=False), indptr.astype(np.int32, copy=False)
    return read_only_rows(X.data), read_only_rows(indices), read_only_rows(indptr)


def check_csr_structure(X):
    """Raise ValueError unless the CSR matrix ``X``'s arrays describe its rows: row pointers
    ``indptr`` of ``n_rows + 1`` entries from 0, never decreasing, ending within the stored
    indices and values, and every stored column index in ``[0, n_columns)``.  scipy checks
    none of this for arrays handed to its constructor (nor after they are changed in place),
    and the compiled loops index the model's state by these numbers unchecked: a column index
    past the width would read and write outside it."""
    indptr, indices = X.indptr, X.indices
    n_rows, n_columns = X.shape
    if indptr.ndim != 1 or indptr.shape[0] != n_rows + 1:
        raise ValueError(f"malformed CSR rows: {indptr.shape[0]} row pointers (indptr) for "
                         f"{n_rows} rows, expected {n_rows + 1}")
    if indptr[0] != 0 or (n_rows and (np.diff(indptr) < 0).any()):
        raise ValueError("malformed CSR rows: the row pointers (indptr) must start at 0 and "
                         "never decrease")
    end = int(indptr[-1])
    if end > indices.shape[0] or end > X.data.shape[0]:
        raise ValueError(f"malformed CSR rows: the row pointers (indptr) end at {end}, past "
                         f"the {min(indices.shape[0], X.data.shape[0])} stored values")
    if end:
        stored = indices[:end]
        low, high = int(stored.min()), int(stored.max())
        if low < 0 or high >= n_columns:
            bad = low if low < 0 else high
            raise ValueError(f"CSR column index {bad} outside the rows' {n_columns} columns "
                             f"(every index must lie in [0, {n_columns}))")


def int32_indices(idx):
    """The column indices ``idx`` as int32 (``idx`` itself if they are), for indices known to
    be below 2^31: the indices' dtype of the loops (:func:`csr_arrays`)."""
    return idx.astype(np.int32, copy=False)


def row_norm_exponent(weights):
    """The exponent of the accepted row norms of ``weights`` (:data:`ROW_NORM_EXPONENT`, or
    :data:`ROW_NORM_EXPONENT_FLOAT32` for float32 weights)."""
    return ROW_NORM_EXPONENT_FLOAT32 if weights.dtype == np.float32 else ROW_NORM_EXPONENT


def _row_ok(values, int exponent=ROW_NORM_EXPONENT):
    """Whether the 1-D ``values`` are finite and zero or of a norm in ``[2^-e, 2^e]`` (``e`` =
    ``exponent``): one compiled sweep."""
    cdef const float[::1] single
    cdef const double[::1] double_
    values = np.ascontiguousarray(values)
    if values.dtype == np.float32:
        single = values
        return row_ok(&single[0] if single.shape[0] else <const float *>NULL, single.shape[0],
                      exponent)
    double_ = np.ascontiguousarray(values, np.float64)
    return row_ok(&double_[0] if double_.shape[0] else <const double *>NULL,
                  double_.shape[0], exponent)


def first_bad_row_dense(X, int exponent=ROW_NORM_EXPONENT):
    """Index of the first row of the 2-D C-contiguous ``X`` that is not finite or whose norm is
    outside the accepted range (``[2^-e, 2^e]``, ``e = exponent``; see
    :data:`ROW_NORM_EXPONENT`), −1 if there is none: the validation pass of every estimator,
    one sweep over X."""
    cdef const float[:, ::1] single
    cdef const double[:, ::1] double_
    X = np.ascontiguousarray(X)
    if X.ndim != 2:
        raise ValueError("X must be 2-D")
    if X.dtype == np.float32:
        single = X
        return _first_bad_dense(single, exponent)
    double_ = np.ascontiguousarray(X, np.float64)
    return _first_bad_dense(double_, exponent)


cdef Py_ssize_t _first_bad_dense(const real_x[:, ::1] X, int exponent) noexcept:
    cdef Py_ssize_t i, n = X.shape[0], d = X.shape[1]
    with nogil:
        for i in range(n):
            if not row_ok(&X[i, 0] if d else <const real_x *>NULL, d, exponent):
                return i
    return -1


def first_bad_row_sparse(data, indptr, int exponent=ROW_NORM_EXPONENT):
    """:func:`first_bad_row_dense` for the CSR rows ``(data, indptr)``."""
    cdef const float[::1] single
    cdef const double[::1] double_
    cdef const int64_t[::1] pointers
    data = np.ascontiguousarray(data)
    indptr = np.ascontiguousarray(indptr, np.int64)
    if indptr.ndim != 1 or indptr.shape[0] < 1 or indptr[0] < 0 or indptr[indptr.shape[0] - 1] > data.shape[0] \
            or (indptr.shape[0] > 1 and np.any(np.diff(indptr) < 0)):
        raise ValueError("malformed CSR row pointers")
    if data.dtype == np.float32:
        single = data
        pointers = indptr
        return _first_bad_sparse(single, pointers, exponent)
    double_ = np.ascontiguousarray(data, np.float64)
    pointers = indptr
    return _first_bad_sparse(double_, pointers, exponent)


cdef Py_ssize_t _first_bad_sparse(const real_x[::1] data, const int64_t[::1] indptr,
                                  int exponent) noexcept:
    cdef Py_ssize_t i, start
    with nogil:
        for i in range(indptr.shape[0] - 1):
            start = indptr[i]
            if not row_ok(&data[start] if indptr[i + 1] > start else <const real_x *>NULL,
                          indptr[i + 1] - start, exponent):
                return i
    return -1
