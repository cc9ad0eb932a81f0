# A full covariance's rank-one step on its upper triangle: u = Σx, the congruence Σ ← AΣAᵀ
# (A = I − γuxᵀ) held where float64 cannot resolve it, and the copy of the upper triangle to
# the lower one (the Gaussian engine, confidence.pyx, and the k-constraint CW engine,
# multi_constraint.pyx, share them).  The sweeps are gaussian_simd.h's (the same bits on every
# instruction set); a module that cimports this calls onlinear_gaussian_init() once.
from libc.float cimport DBL_EPSILON, DBL_MIN
from libc.math cimport sqrt
from libc.stdint cimport int64_t


cdef extern from "gaussian_simd.h" nogil:
    ctypedef struct gaussian_sweeps:
        void (*times)(const double *, const double *, Py_ssize_t, double *) noexcept nogil
        void (*shrink)(double *, const double *, double, const double *, Py_ssize_t,
                       double *) noexcept nogil
        void (*pair)(double *, const double *, const double *, double, Py_ssize_t) noexcept nogil
        void (*diagonal_pair)(const int64_t *, const double *, Py_ssize_t, double *, double *,
                              Py_ssize_t, Py_ssize_t, Py_ssize_t, double, double, double,
                              int64_t *) noexcept nogil
    gaussian_sweeps onlinear_gaussian_sweeps
    void onlinear_gaussian_init()


cdef enum:
    MIRROR_TILE = 8  # (doubles: one 64-byte cache line)


cdef inline double full_floor(double min_variance, double prior) noexcept nogil:
    """The smallest variance along a row a full Σ of prior a·I (``prior``) is held at, per unit
    of ‖x‖²: a·√DBL_MIN/ε (6.7e-139 for a = 1), where the products of two of its entries in a
    step (u_i·u_j, u = Σx) still keep ε's precision, or ``min_variance`` if larger."""
    return max(min_variance, sqrt(DBL_MIN) / DBL_EPSILON * prior)


cdef inline double full_times(const double *S, Py_ssize_t d, const double *x,
                              const int64_t *idx, const double *vals, Py_ssize_t nnz,
                              double *u) noexcept nogil:
    """u = Sx from S's upper triangle (``x``: the row scattered to d values); returns xᵀSx
    over x's non-zeros (``idx``, ``vals``)."""
    cdef Py_ssize_t p
    cdef double v = 0.0
    onlinear_gaussian_sweeps.times(S, x, d, u)
    for p in range(nnz):
        v += vals[p] * u[idx[p]]
    return v


cdef inline double largest_diagonal(const double *S, Py_ssize_t d) noexcept nogil:
    cdef Py_ssize_t i
    cdef double largest = 0.0
    for i in range(d):
        largest = max(largest, S[i * d + i])
    return largest


cdef inline bint held_congruence(double *S, Py_ssize_t d, const double *u, double beta,
                                 double rest, double v, double x2, double full_floor,
                                 const double *x, double *w, int64_t *repaired) noexcept nogil:
    """Σ ← AΣAᵀ, A = I − γuxᵀ, γ = β/(1 + √rest) (u = Σx, v = xᵀΣx, ``rest`` = 1 − βv computed
    by the caller without cancellation, x2 = ‖x‖², ``x`` the row scattered, ``w`` room for d
    values), in two sweeps of S's upper triangle: Σ₁ = Σ − γuuᵀ with w = Σ₁x as Σ₁ is
    written, then Σ ← Σ₁ − (γ/2)(wuᵀ + uwᵀ).  A dense Σ resolves a variance along x only down
    to its rounding, some d²ε·‖x‖²·max Σ_ii: below √ε of that scale (d ≤ ε^(-1/4) = 8192) the
    exact step would leave Σ indefinite in float64, so xᵀΣ'x = v·rest is held there (β from
    the held rest), and at ‖x‖² times ``full_floor``; each hold is counted in ``repaired``.
    Returns whether S moved (the lower triangle is then behind: :func:`mirror_upper`)."""
    cdef double floor = max(sqrt(DBL_EPSILON) * largest_diagonal(S, d), full_floor) * x2
    cdef double g
    if not (v * rest >= floor):
        repaired[0] += 1
        if not (v > floor):
            return False  # (already at the floor along x: Σ keeps its value)
        rest = floor / v
        beta = (1.0 - rest) / v
    g = beta / (1.0 + sqrt(max(0.0, rest)))
    onlinear_gaussian_sweeps.shrink(S, u, g, x, d, w)
    onlinear_gaussian_sweeps.pair(S, u, w, 0.5 * g, d)
    return True


cdef inline void mirror_upper(double *S, Py_ssize_t d) noexcept nogil:
    """Copy the upper triangle of the d × d matrix S to its lower triangle (S is symmetric bit
    for bit again), in square tiles: a whole column of the upper triangle, read down, takes
    one cache line per entry, d·8 bytes apart (a multiple of 4 KiB at d = 256 and beyond falls
    in a few sets of the L1 cache, evicted before the next column reads them again), while a
    tile reads and writes whole lines."""
    cdef Py_ssize_t i, j, a, b, tile = MIRROR_TILE
    for a in range((d + tile - 1) // tile):
        for b in range(a + 1):  # tile (a, b): rows a·tile…, columns b·tile…; b ≤ a
            for i in range(a * tile, min(a * tile + tile, d)):
                for j in range(b * tile, min(b * tile + tile, i)):
                    S[i * d + j] = S[j * d + i]
