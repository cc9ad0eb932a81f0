# cython: language_level=3
# One row of ``learn_one`` (a dense row, or a one-row CSR matrix's arrays), checked for the
# compiled per-example rounds (row_pass.RowRound, blocks.LabelSetRound and BlockRowRound,
# kernel.DualRowRound): each takes the row only if it is of the kind they read.
from libc.stdint cimport int32_t

from ._store cimport row_ok


cdef inline Py_ssize_t csr_row_size(object indptr, object indices, object data, Py_ssize_t d,
                                    int exponent) except -2:
    """The number of stored values of a one-row canonical CSR matrix (``indptr``, ``indices``,
    ``data``: int32 column indices, increasing, within ``d`` columns; float64 values, finite,
    of a norm 0 or in ``[2^-e, 2^e]``, ``e = exponent``), or −1 for any other row (the
    caller's general path takes it and names what is wrong)."""
    cdef const int32_t[::1] columns
    cdef const double[::1] values
    cdef Py_ssize_t n, p
    # (dtype characters: "d" float64, "i" int32; no numpy C API needed in the including module)
    if (data.dtype.char != "d" or indices.dtype.char != "i" or indptr.shape[0] != 2
            or indptr[0] != 0):
        return -1
    columns, values = indices, data
    n = values.shape[0]
    if columns.shape[0] != n or indptr[1] != n or n > d:
        return -1
    if n and not row_ok(&values[0], n, exponent):
        return -1
    for p in range(n):
        if not 0 <= columns[p] < d or (p and columns[p] <= columns[p - 1]):
            return -1
    return n


cdef inline bint dense_row_ok(object x, Py_ssize_t d, int exponent) except -1:
    """Whether the numpy array ``x`` is a row the rounds read as it is: 1-D, C-contiguous,
    float64, of ``d > 0`` values, finite and of a norm 0 or in ``[2^-e, 2^e]``."""
    cdef const double[::1] row
    if (x.dtype.char != "d" or x.ndim != 1 or x.shape[0] != d or d == 0
            or not x.flags.c_contiguous):
        return False
    row = x
    return row_ok(&row[0], d, exponent)
