# cython: language_level=3
# One row of ``learn_one`` (a dense row, or a one-row CSR matrix's arrays), checked for the
# compiled per-example rounds (row_pass.RowRound, blocks.LabelSetRound and BlockRowRound,
# kernel.DualRowRound): each takes the row only if it is of the kind they read.  The checks
# read the arrays through numpy's C API: a Python attribute (``x.flags``, ``x.dtype``) or a
# typed memoryview costs more than the round's own bookkeeping (the including module calls
# ``cnp.import_array()``).
from libc.stdint cimport int32_t, int64_t

cimport numpy as cnp

from ._store cimport row_ok


cdef inline bint _plain(object x, int type_num):
    """Whether ``x`` is a 1-D C-contiguous, aligned, native-order numpy array (not a subclass)
    of ``type_num``."""
    cdef cnp.ndarray a
    if not cnp.PyArray_CheckExact(x):
        return False
    a = <cnp.ndarray>x
    return (cnp.PyArray_TYPE(a) == type_num and cnp.PyArray_NDIM(a) == 1
            and cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_ISALIGNED(a)
            and cnp.PyArray_ISNOTSWAPPED(a))


cdef inline const double *dense_row(object x, Py_ssize_t d, int exponent):
    """The values of ``x`` if it is a row the rounds read as it is — a 1-D C-contiguous
    float64 array of ``d > 0`` values, finite and of a norm 0 or in ``[2^-e, 2^e]`` (``e =
    exponent``) —, else NULL (the caller's general path takes it and names what is wrong)."""
    cdef const double *values
    if d == 0 or not _plain(x, cnp.NPY_DOUBLE) or cnp.PyArray_DIM(<cnp.ndarray>x, 0) != d:
        return NULL
    values = <const double *>cnp.PyArray_DATA(<cnp.ndarray>x)
    return values if row_ok(values, d, exponent) else NULL


cdef inline Py_ssize_t csr_row(object indptr, object indices, object data, Py_ssize_t d,
                               int exponent, const int32_t **columns, const double **values):
    """The number of stored values of a one-row canonical CSR matrix (``indptr``, int32 or
    int64, ``[0, n]``; ``indices``: int32 column indices, increasing, within ``d`` columns;
    ``data``: float64 values, finite, of a norm 0 or in ``[2^-e, 2^e]``, ``e = exponent``),
    its columns and values in ``columns`` and ``values``; or −1 for any other row (the
    caller's general path takes it and names what is wrong)."""
    cdef Py_ssize_t n, p, end
    cdef const int32_t *c
    cdef const double *v
    if not (_plain(data, cnp.NPY_DOUBLE) and _plain(indices, cnp.NPY_INT32)):
        return -1
    if _plain(indptr, cnp.NPY_INT64) and cnp.PyArray_DIM(<cnp.ndarray>indptr, 0) == 2:
        if (<const int64_t *>cnp.PyArray_DATA(<cnp.ndarray>indptr))[0] != 0:
            return -1
        end = (<const int64_t *>cnp.PyArray_DATA(<cnp.ndarray>indptr))[1]
    elif _plain(indptr, cnp.NPY_INT32) and cnp.PyArray_DIM(<cnp.ndarray>indptr, 0) == 2:
        if (<const int32_t *>cnp.PyArray_DATA(<cnp.ndarray>indptr))[0] != 0:
            return -1
        end = (<const int32_t *>cnp.PyArray_DATA(<cnp.ndarray>indptr))[1]
    else:
        return -1
    n = cnp.PyArray_DIM(<cnp.ndarray>data, 0)
    if cnp.PyArray_DIM(<cnp.ndarray>indices, 0) != n or end != n or n > d:
        return -1
    c = <const int32_t *>cnp.PyArray_DATA(<cnp.ndarray>indices)
    v = <const double *>cnp.PyArray_DATA(<cnp.ndarray>data)
    if n and not row_ok(v, n, exponent):
        return -1
    for p in range(n):
        if not 0 <= c[p] < d or (p and c[p] <= c[p - 1]):
            return -1
    columns[0], values[0] = c, v
    return n
