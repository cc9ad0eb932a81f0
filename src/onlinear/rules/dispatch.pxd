# cython: language_level=3
from ._step cimport step_function

from libc.stdint cimport int64_t

cdef step_function step_of(int rule) noexcept nogil
cdef void compute_steps_c(step_function step, const double *scores, Py_ssize_t m, Py_ssize_t y,
                          double q, const double *params, double *state, double *tau,
                          double *factor, int64_t *order) noexcept nogil
