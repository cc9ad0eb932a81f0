# cython: language_level=3
cpdef enum:
    MISTAKE_DRIVEN = 0
    AGGRESSIVE = 1  # (kinds of ROMMA: updates on mistakes, or whenever z(u·a) < 1)

from libc.stdint cimport int64_t

cpdef enum:
    SKIP_ANTIPARALLEL = 0
    SKIP_COLLINEAR = 1

cdef void romma_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                      const double *params, double *state, double *tau, double *factor,
                      int64_t *order) noexcept nogil
cdef void naromma_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                        const double *params, double *state, double *tau, double *factor,
                        int64_t *order) noexcept nogil
cdef void maximum_cosine_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                               const double *params, double *state, double *tau,
                               double *factor, int64_t *order) noexcept nogil
