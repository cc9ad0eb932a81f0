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
cpdef check_state(str name, array, tuple shape, dtype=*)
cpdef tuple row_arrays(indices, values, Py_ssize_t y, Py_ssize_t n_features,
                       Py_ssize_t n_classes)


cdef inline void feature_major_scores(const double *W, Py_ssize_t K, const int64_t *idx,
                                      const double *vals, Py_ssize_t nnz,
                                      double *scores) noexcept nogil:
    """``scores[k] = Σ_p W[idx_p, k]·vals_p`` for a feature-major W (d, K), summed in the order
    of the row; up to 16 classes the sums are kept in a local array (the compiler cannot
    prove that ``scores`` does not alias W, and would store every partial sum)."""
    cdef double local[16]
    cdef double *acc = scores
    cdef const double *row
    cdef double x
    cdef Py_ssize_t p, k
    if K <= 16:
        acc = &local[0]
    for k in range(K):
        acc[k] = 0.0
    for p in range(nnz):
        row = W + idx[p] * K
        x = vals[p]
        for k in range(K):
            acc[k] += row[k] * x
    if K <= 16:
        for k in range(K):
            scores[k] = local[k]
