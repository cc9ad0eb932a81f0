# cython: language_level=3
# The exact per-trial solver of the simultaneous projections (block_dual.pyx documents it), as
# the block engine calls it: a problem of k variables on raw pointers, with its scratch given
# (DualScratch), so that a trial allocates nothing but the KKT polish's dense system.
from libc.stdint cimport int64_t

from ..rules.simultaneous cimport SortScratch

# The Gram matrix of a block, explicit or implicit (see block_dual.pyx)
cpdef enum:
    DENSE_GRAM = 0
    KESLER_GRAM = 1
    ORDINAL_GRAM = 2


cdef struct DualScratch:
    # for a problem of at most k variables, n_sets sets and (Kesler) n_classes classes:
    int64_t *set_start    # n_sets + 1
    int64_t *set_members  # k
    int64_t *fill         # n_sets
    double *g_alpha       # k each
    double *point
    double *trial
    double *previous
    double *candidate
    double *tau           # n_classes
    int64_t *support      # k
    int64_t *active       # n_sets
    int64_t *part_of      # k
    SortScratch sort      # k


cdef void group_sets(const int64_t *parts, Py_ssize_t k, Py_ssize_t n_sets, int64_t *start,
                     int64_t *members, int64_t *fill) noexcept nogil
cdef double solve_structured_c(const double *G, int structure, const int64_t *pairs, double q,
                               const double *signs, const double *gain, Py_ssize_t k,
                               const int64_t *parts, const double *coupling, const double *caps,
                               Py_ssize_t n_sets, double tol, double max_iter, double *alpha,
                               DualScratch *s) noexcept nogil


cdef inline Py_ssize_t dual_reals(Py_ssize_t k, Py_ssize_t n_classes) noexcept nogil:
    """The float64 entries of a DualScratch for k variables and n_classes classes."""
    return 6 * max(k, 1) + max(n_classes, 1)


cdef inline Py_ssize_t dual_ints(Py_ssize_t k, Py_ssize_t n_sets) noexcept nogil:
    """The int64 entries of a DualScratch for k variables and n_sets sets."""
    return 6 * max(k, 1) + 3 * max(n_sets, 1) + 1


cdef inline void carve_dual_scratch(DualScratch *s, double *r, int64_t *i, Py_ssize_t k,
                                    Py_ssize_t n_sets) noexcept nogil:
    """Point ``s`` into ``dual_reals(k, n_classes)`` float64 entries at ``r`` and
    ``dual_ints(k, n_sets)`` int64 entries at ``i``."""
    k = max(k, 1)
    n_sets = max(n_sets, 1)
    s.g_alpha = r
    s.point = r + k
    s.trial = r + 2 * k
    s.previous = r + 3 * k
    s.candidate = r + 4 * k
    s.sort.keys = r + 5 * k
    s.tau = r + 6 * k
    s.set_members = i
    s.support = i + k
    s.part_of = i + 2 * k
    s.sort.members = i + 3 * k
    s.sort.order = i + 4 * k
    s.sort.tmp = i + 5 * k
    s.set_start = i + 6 * k
    s.fill = s.set_start + n_sets + 1
    s.active = s.fill + n_sets
