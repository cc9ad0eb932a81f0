# cython: language_level=3
# The online pass shared by the engines whose round runs on a row's non-zeros as (int64 column
# indices, float64 values): the Gaussian learners (confidence.pyx) and the adaptive first-order
# ones (adaptive.pyx).  See row_pass.pyx.
from libc.stdint cimport int64_t

from ._store cimport sparse_sweep

ctypedef Py_ssize_t (*row_round)(void *model, const int64_t *idx, const double *vals,
                                 Py_ssize_t nnz, Py_ssize_t y, bint *updated) noexcept nogil

cdef tuple run_rows(row_round play, void *model, X, const int64_t[::1] y,
                    const int64_t[::1] order, int64_t[::1] predictions)
cpdef check_pass(X, const int64_t[::1] y, const int64_t[::1] order, predictions,
                 Py_ssize_t n_features, Py_ssize_t n_classes)
cpdef check_state(str name, array, tuple shape, dtype=*)
cdef bint reaches_every_feature(X, const int64_t[::1] order, Py_ssize_t n_features)
cdef class RowRound:
    cdef row_round play
    cdef void *model
    cdef Py_ssize_t d, K
    cdef int exponent
    cdef int64_t *idx
    cdef double *vals
    cdef int64_t *columns  # 0…d−1 when a dense row is played whole (see every_column)
    cdef bint every_column
    cdef int64_t[::1] counts
    cdef object arrays
    cdef int start(self, Py_ssize_t d, Py_ssize_t K, int exponent, int64_t[::1] counts,
                   object arrays) except -1
    cdef int play_dense_rows_whole(self) except -1
    cdef void after(self)
    cdef Py_ssize_t _play(self, Py_ssize_t kept, Py_ssize_t y)
    cdef Py_ssize_t _play_row(self, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                              Py_ssize_t y)


ctypedef void (*deferred_changes)(void *model, const int64_t *idx, Py_ssize_t nnz,
                                 double *acc) noexcept nogil

cdef struct Averaging:
    # the averaged hypothesis of an engine's rounds (row_pass.pyx, "averaging")
    row_round play          # the engine's round
    void *model             # and its model
    deferred_changes deferred  # an engine whose rounds defer changes off their rows, or NULL
    double *hypothesis      # the weights that predict, (d, K) feature-major: what is averaged
    double *acc             # Σ_t R_t·Δ_t, (d, K)
    double *rounds          # R, one value: the rounds closed since the last rebase
    double *before          # the values a round may move, as they were before it
    Py_ssize_t capacity     # (of ``before``, in values)
    Py_ssize_t d
    Py_ssize_t K
    bint everywhere         # a round may move every value (full matrices), not only its row's
    bint out_of_memory      # a round stopped for want of room for ``before``


cdef int start_averaging(Averaging *A, row_round play, void *model, double *hypothesis,
                         Py_ssize_t d, Py_ssize_t K, bint everywhere, acc,
                         rounds) except -1
cdef void stop_averaging(Averaging *A) noexcept
cdef Py_ssize_t averaged_round(void *averaging, const int64_t *idx, const double *vals,
                               Py_ssize_t nnz, Py_ssize_t y, bint *updated) noexcept nogil
cdef tuple run_rows_of(row_round play, void *model, Averaging *A, X, const int64_t[::1] y,
                       const int64_t[::1] order, int64_t[::1] predictions)
cdef Py_ssize_t play_row_of(row_round play, void *model, Averaging *A, indices, values,
                            Py_ssize_t y, Py_ssize_t n_features, Py_ssize_t n_classes,
                            bint *updated) except -2


cdef Py_ssize_t play_row(row_round play, void *model, indices, values, Py_ssize_t y,
                         Py_ssize_t n_features, Py_ssize_t n_classes,
                         bint *updated) except -2


cdef inline double feature_major_scores(const double *W, Py_ssize_t K, const int64_t *idx,
                                        const double *vals, Py_ssize_t nnz,
                                        double *scores) noexcept nogil:
    """``scores[k] = Σ_p W[idx_p, k]·vals_p`` for a feature-major W (d, K); returns ‖x‖².  The
    sums run across the classes in vector lanes (``_store.sparse_sweep``, simd.h's
    ``score_sparse``, AVX2 or AVX-512 where the CPU has them), each in the row's order: the
    same bits on every instruction set, and for a row however it came (dense or CSR)."""
    return sparse_sweep(idx, vals, nnz, W, K, K, scores)
