# cython: language_level=3
cpdef enum:
    PA = 0
    PA_I = 1
    PA_II = 2

from libc.stdint cimport int64_t

cpdef enum:
    EXACT = 0
    PRINTED = 1

cdef void support_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                        double margin, int kind, double c, int variant, double *tau,
                        int64_t *order) noexcept nogil
cdef void pa_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                   const double *params, double *state, double *tau, double *factor,
                   int64_t *order) noexcept nogil
cdef void support_class_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                              const double *params, double *state, double *tau,
                              double *factor, int64_t *order) noexcept nogil
