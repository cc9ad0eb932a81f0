# cython: language_level=3
# The dual steps of the simultaneous projections (simultaneous.pyx documents them): the scheme
# ids and the params layout (exported to Python), and the compiled steps the block engine
# (onlinear._core.blocks) calls on raw pointers.  Arrays of one set of k constraints; mistakes
# as bytes (0/1); the sorts run in a SortScratch of k entries, so that a trial allocates nothing.
from libc.stdint cimport int64_t

cpdef enum:
    SIMPERC = 0
    CONPROJ = 1
    SIMPROJ = 2
    SIMOPT = 3
    MAXPA = 4
    OPTIMAL = 5
    SOPOPO = 6

cpdef enum:
    UPDATE_ADDITIVE = 0
    UPDATE_MULTIPLICATIVE = 1

cpdef enum:
    MAX_HINGE = 0
    MAX_DISTANCE = 1

# params vector layout
cpdef enum:
    P_C = 0
    P_GAMMA = 1
    P_MAX_RULE = 2
    P_TOL = 3
    P_MAX_ITER = 4
    P_DECOMPOSE = 5
    N_PARAMS = 6

cpdef enum:
    WHOLE = 0
    PER_LABEL = 1
    SINGLETONS = 2


cdef struct SortScratch:
    # k entries each: the keys of a sort, the members they belong to, the order, a merge buffer
    double *keys
    int64_t *members
    int64_t *order
    int64_t *tmp


cdef inline bint sorts_before(double a, double b) noexcept nogil:
    """numpy's order of floats (its sorts): NaN after every number."""
    return a < b or (b != b and a == a)


cdef inline void stable_argsort(const double *keys, Py_ssize_t n, int64_t *order,
                                int64_t *tmp) noexcept nogil:
    """``order`` ← ``np.argsort(keys[:n], kind="mergesort")``: the stable order (equal keys in
    the order of their indices), which is unique, so any stable sort gives it; here a bottom-up
    merge sort, runs of 16 sorted by insertion first.  ``tmp``: n entries of scratch."""
    cdef Py_ssize_t i, j, width, lo, mid, hi, a, b, out
    cdef int64_t item
    cdef int64_t *src = order
    cdef int64_t *dst = tmp
    cdef int64_t *swap
    for i in range(n):
        order[i] = i
    lo = 0
    while lo < n:
        hi = min(lo + 16, n)
        for i in range(lo + 1, hi):
            item = order[i]
            j = i
            while j > lo and sorts_before(keys[item], keys[order[j - 1]]):
                order[j] = order[j - 1]
                j -= 1
            order[j] = item
        lo += 16
    width = 16
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            a = lo
            b = mid
            out = lo
            while a < mid and b < hi:
                if sorts_before(keys[src[b]], keys[src[a]]):
                    dst[out] = src[b]
                    b += 1
                else:
                    dst[out] = src[a]
                    a += 1
                out += 1
            while a < mid:
                dst[out] = src[a]
                a += 1
                out += 1
            while b < hi:
                dst[out] = src[b]
                b += 1
                out += 1
            lo += 2 * width
        swap = src
        src = dst
        dst = swap
        width *= 2
    if src != order:
        for i in range(n):
            order[i] = src[i]


cdef inline double py_max(double a, double b) noexcept nogil:
    """Python's ``max(a, b)``: b only if ``b > a`` (NaN keeps a)."""
    return b if b > a else a


cdef inline double py_min(double a, double b) noexcept nogil:
    """Python's ``min(a, b)``: b only if ``b < a``."""
    return b if b < a else a


cdef void set_lambda_c(int scheme, const double *loss, const double *sqnorm,
                       const unsigned char *mistake, const double *coupling, Py_ssize_t k,
                       double cap, int max_rule, double *lam, SortScratch *s) noexcept nogil
cdef void simopt_lambda_c(const double *loss, const double *sqnorm, const double *coupling,
                          Py_ssize_t k, double cap, double *lam, SortScratch *s) noexcept nogil
cdef void sopopo_steps_c(const double *qloss, Py_ssize_t k, double v, double C, double *alpha,
                         SortScratch *s) noexcept nogil
cdef double mult_alpha_closed_form_c(double wplus, double wminus, double gamma,
                                     double C) noexcept nogil
cdef double mult_objective_slope_c(double alpha, const double *weights, const double *values,
                                   Py_ssize_t n, double rest, double gamma) noexcept nogil
cdef double mult_alpha_numeric_c(const double *weights, const double *values, Py_ssize_t n,
                                 double rest, double gamma, double C) noexcept nogil
cdef void mult_set_lambda_c(int scheme, const double *loss, const double *alpha,
                            const unsigned char *mistake, const double *sqnorm_inf,
                            const double *ones, Py_ssize_t k, double cap, int max_rule,
                            double *lam, SortScratch *s) noexcept nogil
