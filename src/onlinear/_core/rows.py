"""Rows as the compiled loops read them, and the rows they accept.

A row is a pair ``(column indices, values)``: a CSR row is its slices of ``indices`` and
``data``; a dense row is the whole row with ``indices = arange(n_features)`` (its zeros are
skipped where it matters), so every loop has one code path for both storages.  Dense matrices
are passed flattened (C order), which lets one accessor serve both.
"""
import numpy as np
from numba import carray, njit, types
from numba.extending import overload

from .borrowed import pointer_at

#: Every learner accepts a row x only if x = 0 or ``2^-ROW_NORM_EXPONENT ≤ ‖x‖ ≤
#: 2^ROW_NORM_EXPONENT`` (≈ 9.5e-153 … 1.0e152), i.e. ``‖x‖²`` within ``[2^-1010, 2^1010]``.
#: The rules form ``‖x‖²``, ``1/‖x‖²``, scores ``w·x`` with ‖w‖ of the order of ``1/min‖x‖``
#: (PA-type steps) or ``T·max‖x‖`` (Perceptron-type steps), and products of two of these; the
#: bound leaves them all 2^13 of headroom below float64's 2^1024 (and keeps ``‖x‖²`` a normal
#: number: a subnormal one makes ``1/‖x‖²`` infinite, one that underflows to 0 would silently
#: turn x into the zero row).  Data at any scale in ``[1e-150, 1e150]`` times rows of norm
#: ``[0.02, 100]`` is accepted; outside, the estimators raise before learning anything.
ROW_NORM_EXPONENT = 505
_SQNORM_LOW = 2.0 ** (-2 * ROW_NORM_EXPONENT)
_SQNORM_HIGH = 2.0 ** (2 * ROW_NORM_EXPONENT)

#: The same bound for a model with float32 weights (``dtype="float32"``): ``‖x‖`` within
#: ``[2^-32, 2^32]`` (≈ 2.3e-10 … 4.3e9).  Its dense sweeps sum ``‖x‖²`` and the scores in
#: float32, which ends at 2^128 and is normal down to 2^-126: ``‖x‖²`` then stays within
#: ``[2^-64, 2^64]`` and the raw weights (at most the true ones times 2^24, the float32 limit of
#: the lazy scale) leave the scores 2^40 of headroom for weights up to 2^32·‖x‖'s range.
ROW_NORM_EXPONENT_FLOAT32 = 32
_SQNORM_LOW_FLOAT32 = 2.0 ** (-2 * ROW_NORM_EXPONENT_FLOAT32)
_SQNORM_HIGH_FLOAT32 = 2.0 ** (2 * ROW_NORM_EXPONENT_FLOAT32)


@njit(cache=True, inline="always")
def row(dense, n_features, data, indices, indptr, r):
    """Row r as ``(column indices, values)``: of the flattened dense matrix ``data`` (then
    ``indices = arange(n_features)`` and ``indptr`` is unused) or of the CSR matrix
    ``(data, indices, indptr)``."""
    if dense:
        start = r * n_features
        return indices, data[start:start + n_features]
    start = indptr[r]
    stop = indptr[r + 1]
    return indices[start:stop], data[start:stop]


@njit(cache=True)
def strictly_increasing(idx):
    """Whether the column indices ``idx`` are sorted without repeats (a canonical CSR row, or
    a dense row's ``arange``): the per-example fast paths take only such rows, the others are
    summed and sorted first (a repeated column is the sum of its entries, so ‖x‖² is not the
    sum of the squared entries)."""
    ok = True
    for p in range(1, idx.shape[0]):
        ok &= idx[p] > idx[p - 1]  # (no early exit: the sweep vectorizes)
    return ok


def contiguous(values):
    """The 1-D array ``values`` itself if it is C-contiguous, else a C-contiguous copy (in
    compiled code, an array typed in any layout is looked at: a contiguous one is viewed as
    C-contiguous, without a copy, as long as its owner holds it)."""
    return np.ascontiguousarray(values)


@overload(contiguous)
def _contiguous(values):
    if values.layout == "C":
        return lambda values: values
    dtype = values.dtype

    def look(values):
        if values.shape[0] <= 1 or values.strides[0] == values.itemsize:
            return carray(pointer_at(values.ctypes.data), values.shape, dtype)
        return values.copy()  # (copy: a new C-contiguous array)
    return look


#: The largest column index (and number of stored values) the loops take as int32: the indices'
#: dtype of every loop below it (:func:`csr_arrays`, :func:`int32_indices`).
INT32_MAX = np.iinfo(np.int32).max


def read_only_rows(X):
    """The dense rows ``X`` as the compiled loops take them: a read-only view (``X`` itself if
    it is read-only already).  The loops never write their rows; numba compiles a function
    apart for a read-only and a writable array, so the rows always come read-only (a
    read-only memmap and an ordinary array share one compiled loop; see
    :func:`.borrowed.read_only`)."""
    if X.flags.writeable:
        X = X.view()
        X.flags.writeable = False
    return X


def csr_arrays(X):
    """``(data, indices, indptr)`` of the CSR matrix ``X`` as the compiled loops take them:
    read-only (:func:`read_only_rows`), and the indices and row pointers int32 whenever the
    matrix's width and number of stored values fit (scipy's own choice; a matrix built with
    int64 indices, e.g. a ``csr_array`` from int64 arrays, is narrowed by a copy of its
    indices), so that a loop is compiled for int64 indices only where they are needed."""
    indices, indptr = X.indices, X.indptr
    if X.shape[1] <= INT32_MAX and X.nnz <= INT32_MAX:
        indices, indptr = indices.astype(np.int32, copy=False), indptr.astype(np.int32, copy=False)
    return read_only_rows(X.data), read_only_rows(indices), read_only_rows(indptr)


def int32_indices(idx):
    """The column indices ``idx`` as int32 (``idx`` itself if they are), for indices known to
    be below 2^31: the indices' dtype of the loops (:func:`csr_arrays`)."""
    return idx.astype(np.int32, copy=False)


@overload(int32_indices)
def _int32_indices(idx):
    if idx.dtype == types.int32:
        return lambda idx: idx
    return lambda idx: idx.astype(np.int32)


@njit(cache=True, fastmath={"reassoc", "contract"})
def _sum_of_squares(row):
    q = 0.0
    for p in range(row.shape[0]):  # no early exit, so it vectorizes; NaN/inf propagate to q
        v = np.float64(row[p])
        q += v * v
    return q


def row_norm_exponent(W):
    """The exponent of the accepted row norms of weights ``W`` (:data:`ROW_NORM_EXPONENT`, or
    :data:`ROW_NORM_EXPONENT_FLOAT32` for float32 weights)."""
    return ROW_NORM_EXPONENT_FLOAT32 if W.dtype == np.float32 else ROW_NORM_EXPONENT


@overload(row_norm_exponent)
def _row_norm_exponent(W):
    if W.dtype == types.float32:
        return lambda W: ROW_NORM_EXPONENT_FLOAT32
    return lambda W: ROW_NORM_EXPONENT


def _sqnorm_range(W):
    """``(low, high)``: the accepted ``‖x‖²`` of weights ``W``, as constants."""


@overload(_sqnorm_range)
def _sqnorm_range_overload(W):
    if W.dtype == types.float32:
        return lambda W: (_SQNORM_LOW_FLOAT32, _SQNORM_HIGH_FLOAT32)
    return lambda W: (_SQNORM_LOW, _SQNORM_HIGH)


@njit(cache=True, error_model="numpy", inline="always")
def _sqnorm_accepted(q, exponent):
    """Whether ``‖x‖² = q`` is within ``[2^-2e, 2^2e]`` (``e = exponent``; False for NaN)."""
    return 2.0 ** (-2 * exponent) <= q <= 2.0 ** (2 * exponent)


@njit(cache=True, error_model="numpy", inline="always")
def row_accepted(row, q, W):
    """:func:`_row_ok` for a row whose ``‖x‖²`` (``q``) has been summed already (by a dense
    pass's scoring sweep: NaN and inf propagate to it, as here), for the weights ``W``."""
    low, high = _sqnorm_range(W)
    if low <= q <= high:
        return True
    if q != 0.0:
        return False
    for p in range(row.shape[0]):  # ‖x‖² = 0: the zero row, or one that underflowed
        if row[p] != 0.0:
            return False
    return True


@njit(cache=True)
def _row_ok(row, exponent=ROW_NORM_EXPONENT):
    """Whether the 1-D ``row`` is finite and zero or of a norm in ``[2^-e, 2^e]`` (``e`` =
    ``exponent``)."""
    q = _sum_of_squares(row)
    if _sqnorm_accepted(q, exponent):
        return True
    if q != 0.0:
        return False  # NaN, inf, overflowing or subnormal ‖x‖²
    for p in range(row.shape[0]):  # ‖x‖² = 0: the zero row, or one that underflowed
        if row[p] != 0.0:
            return False
    return True


@njit(cache=True)
def first_bad_row_dense(X, exponent=ROW_NORM_EXPONENT):
    """Index of the first row of the 2-D C-contiguous ``X`` that is not finite or whose norm is
    outside the accepted range (``[2^-e, 2^e]``, ``e = exponent``; see
    :data:`ROW_NORM_EXPONENT`), −1 if there is none: the validation pass of every estimator,
    one sweep over X."""
    for i in range(X.shape[0]):
        if not _row_ok(X[i], exponent):
            return i
    return -1


@njit(cache=True)
def first_bad_row_sparse(data, indptr, exponent=ROW_NORM_EXPONENT):
    """:func:`first_bad_row_dense` for the CSR rows ``(data, indptr)``."""
    for i in range(indptr.shape[0] - 1):
        if not _row_ok(data[indptr[i]:indptr[i + 1]], exponent):
            return i
    return -1

