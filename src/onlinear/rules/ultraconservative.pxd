# cython: language_level=3
cpdef enum:
    UNIFORM = 0
    MAX_SCORE = 1
    PROPORTIONAL = 2

from libc.stdint cimport int64_t

cdef double binary_label(Py_ssize_t m, Py_ssize_t y, Py_ssize_t r) noexcept nogil
cdef void additive_family(const double *scores, Py_ssize_t m, Py_ssize_t y, double beta,
                          int scheme, double *tau) noexcept nogil

cdef void perceptron_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                           const double *params, double *state, double *tau, double *factor,
                           int64_t *order) noexcept nogil
cdef void binary_mira_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                            const double *params, double *state, double *tau, double *factor,
                            int64_t *order) noexcept nogil
cdef void additive_family_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                                const double *params, double *state, double *tau,
                                double *factor, int64_t *order) noexcept nogil
cdef void kesler_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                       const double *params, double *state, double *tau, double *factor,
                       int64_t *order) noexcept nogil
cdef void mira_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                     const double *params, double *state, double *tau, double *factor,
                     int64_t *order) noexcept nogil
cdef void mc_romma_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                         const double *params, double *state, double *tau, double *factor,
                         int64_t *order) noexcept nogil
cdef void multiplicative_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                               const double *params, double *state, double *tau,
                               double *factor, int64_t *order) noexcept nogil
