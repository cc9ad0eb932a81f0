# The dense sweeps of simd.h (see there): one table of functions per pair of types (rows'
# values, weights), filled for the CPU's instruction set when a module that uses them loads.

from libc.stdint cimport int32_t, int64_t

cdef extern from "simd.h" nogil:
    int SCORE_BLOCK

    ctypedef struct sweeps_ff:
        double (*score_dense)(const float *, const float *, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                              const double *, double *) noexcept nogil
        double (*add_dense)(const float *, float *, Py_ssize_t, double) noexcept nogil
        void (*add_dense_untracked)(const float *, float *, Py_ssize_t, double) noexcept nogil
        void (*add_dense_pair)(const float *, float *, double, float *, double, Py_ssize_t,
                               double *) noexcept nogil
        void (*add_dense_pair_untracked)(const float *, float *, double, float *, double,
                                         Py_ssize_t) noexcept nogil
        double (*score_sparse_i32)(const int32_t *, const float *, Py_ssize_t, const float *,
                                   Py_ssize_t, Py_ssize_t, double *) noexcept nogil
        double (*score_sparse_i64)(const int64_t *, const float *, Py_ssize_t, const float *,
                                   Py_ssize_t, Py_ssize_t, double *) noexcept nogil
        Py_ssize_t (*nonzeros)(const float *, Py_ssize_t, int64_t *, float *) noexcept nogil
        void (*add_outer_i32)(const int32_t *, const float *, Py_ssize_t, float *, Py_ssize_t,
                              Py_ssize_t, const double *) noexcept nogil
        void (*add_outer_i64)(const int64_t *, const float *, Py_ssize_t, float *, Py_ssize_t,
                              Py_ssize_t, const double *) noexcept nogil

    ctypedef struct sweeps_dd:
        double (*score_dense)(const double *, const double *, Py_ssize_t, Py_ssize_t,
                              Py_ssize_t, const double *, double *) noexcept nogil
        double (*add_dense)(const double *, double *, Py_ssize_t, double) noexcept nogil
        void (*add_dense_untracked)(const double *, double *, Py_ssize_t, double) noexcept nogil
        void (*add_dense_pair)(const double *, double *, double, double *, double, Py_ssize_t,
                               double *) noexcept nogil
        void (*add_dense_pair_untracked)(const double *, double *, double, double *, double,
                                         Py_ssize_t) noexcept nogil
        double (*score_sparse_i32)(const int32_t *, const double *, Py_ssize_t, const double *,
                                   Py_ssize_t, Py_ssize_t, double *) noexcept nogil
        double (*score_sparse_i64)(const int64_t *, const double *, Py_ssize_t, const double *,
                                   Py_ssize_t, Py_ssize_t, double *) noexcept nogil
        Py_ssize_t (*nonzeros)(const double *, Py_ssize_t, int64_t *, double *) noexcept nogil
        void (*add_outer_i32)(const int32_t *, const double *, Py_ssize_t, double *, Py_ssize_t,
                              Py_ssize_t, const double *) noexcept nogil
        void (*add_outer_i64)(const int64_t *, const double *, Py_ssize_t, double *, Py_ssize_t,
                              Py_ssize_t, const double *) noexcept nogil

    ctypedef struct sweeps_fd:
        double (*score_dense)(const float *, const double *, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                              const double *, double *) noexcept nogil
        double (*add_dense)(const float *, double *, Py_ssize_t, double) noexcept nogil
        void (*add_dense_untracked)(const float *, double *, Py_ssize_t, double) noexcept nogil
        void (*add_dense_pair)(const float *, double *, double, double *, double, Py_ssize_t,
                               double *) noexcept nogil
        void (*add_dense_pair_untracked)(const float *, double *, double, double *, double,
                                         Py_ssize_t) noexcept nogil
        double (*score_sparse_i32)(const int32_t *, const float *, Py_ssize_t, const double *,
                                   Py_ssize_t, Py_ssize_t, double *) noexcept nogil
        double (*score_sparse_i64)(const int64_t *, const float *, Py_ssize_t, const double *,
                                   Py_ssize_t, Py_ssize_t, double *) noexcept nogil
        Py_ssize_t (*nonzeros)(const float *, Py_ssize_t, int64_t *, float *) noexcept nogil
        void (*add_outer_i32)(const int32_t *, const float *, Py_ssize_t, double *, Py_ssize_t,
                              Py_ssize_t, const double *) noexcept nogil
        void (*add_outer_i64)(const int64_t *, const float *, Py_ssize_t, double *, Py_ssize_t,
                              Py_ssize_t, const double *) noexcept nogil

    ctypedef struct sweeps_df:
        double (*score_dense)(const double *, const float *, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                              const double *, double *) noexcept nogil
        double (*add_dense)(const double *, float *, Py_ssize_t, double) noexcept nogil
        void (*add_dense_untracked)(const double *, float *, Py_ssize_t, double) noexcept nogil
        void (*add_dense_pair)(const double *, float *, double, float *, double, Py_ssize_t,
                               double *) noexcept nogil
        void (*add_dense_pair_untracked)(const double *, float *, double, float *, double,
                                         Py_ssize_t) noexcept nogil
        double (*score_sparse_i32)(const int32_t *, const double *, Py_ssize_t, const float *,
                                   Py_ssize_t, Py_ssize_t, double *) noexcept nogil
        double (*score_sparse_i64)(const int64_t *, const double *, Py_ssize_t, const float *,
                                   Py_ssize_t, Py_ssize_t, double *) noexcept nogil
        Py_ssize_t (*nonzeros)(const double *, Py_ssize_t, int64_t *, double *) noexcept nogil
        void (*add_outer_i32)(const int32_t *, const double *, Py_ssize_t, float *, Py_ssize_t,
                              Py_ssize_t, const double *) noexcept nogil
        void (*add_outer_i64)(const int64_t *, const double *, Py_ssize_t, float *, Py_ssize_t,
                              Py_ssize_t, const double *) noexcept nogil

    sweeps_ff onlinear_sweeps_ff
    sweeps_dd onlinear_sweeps_dd
    sweeps_fd onlinear_sweeps_fd
    sweeps_df onlinear_sweeps_df

    void onlinear_simd_init()
    const char *onlinear_simd_isa()
