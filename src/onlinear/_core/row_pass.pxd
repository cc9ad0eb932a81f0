# cython: language_level=3
# The online pass shared by the engines whose round runs on a row's non-zeros as (int64 column
# indices, float64 values): the Gaussian learners (confidence.pyx) and the adaptive first-order
# ones (adaptive.pyx).  See row_pass.pyx.
from libc.stdint cimport int64_t

ctypedef Py_ssize_t (*row_round)(void *model, const int64_t *idx, const double *vals,
                                 Py_ssize_t nnz, Py_ssize_t y, bint *updated) noexcept nogil

cdef tuple run_rows(row_round play, void *model, X, const int64_t[::1] y,
                    const int64_t[::1] order, int64_t[::1] predictions)
cpdef check_pass(X, const int64_t[::1] y, const int64_t[::1] order, predictions,
                 Py_ssize_t n_features, Py_ssize_t n_classes)
cpdef tuple row_arrays(indices, values, Py_ssize_t y, Py_ssize_t n_features,
                       Py_ssize_t n_classes)
