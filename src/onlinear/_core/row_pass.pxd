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
cdef Py_ssize_t play_row(row_round play, void *model, indices, values, Py_ssize_t y,
                         Py_ssize_t n_features, Py_ssize_t n_classes,
                         bint *updated) except -2


cdef inline void feature_major_scores(const double *W, Py_ssize_t K, const int64_t *idx,
                                      const double *vals, Py_ssize_t nnz,
                                      double *scores) noexcept nogil:
    """``scores[k] = Σ_p W[idx_p, k]·vals_p`` for a feature-major W (d, K), the non-zeros
    taken four at a time (each class's partial sum is read and written once per four: the
    compiler cannot keep K sums in registers for a K it does not know), in a fixed order: a
    row gives the same scores however it came (dense or CSR)."""
    cdef const double *r0
    cdef const double *r1
    cdef const double *r2
    cdef const double *r3
    cdef double x0, x1, x2, x3
    cdef Py_ssize_t p, k, whole = nnz - nnz % 4
    for k in range(K):
        scores[k] = 0.0
    for p in range(0, whole, 4):
        r0 = W + idx[p] * K
        r1 = W + idx[p + 1] * K
        r2 = W + idx[p + 2] * K
        r3 = W + idx[p + 3] * K
        x0, x1, x2, x3 = vals[p], vals[p + 1], vals[p + 2], vals[p + 3]
        for k in range(K):
            scores[k] += (r0[k] * x0 + r1[k] * x1) + (r2[k] * x2 + r3[k] * x3)
    for p in range(whole, nnz):
        r0 = W + idx[p] * K
        x0 = vals[p]
        for k in range(K):
            scores[k] += r0[k] * x0
