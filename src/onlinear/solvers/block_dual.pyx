"""The exact per-trial solver of the simultaneous-projection learners ("optimal", the OptSolv
baseline of Amit, Shalev-Shwartz & Singer, §9): the projection of Eq. 3 (with §7's per-set
budgets and §10's coupling weights) through its dual

    max_α  Σ_j α_j g_j − ½ αᵀGα   s.t.  α ≥ 0,  Σ_{j ∈ S_l} c_j α_j ≤ C_l  for every set S_l,

by a dedicated solver rather than a generic optimizer: accelerated projected gradient (FISTA)
that stops on the duality gap relative to the trial's primal, finished by an exact KKT solve on
the support (``_polish``).  Label-set (Kesler) and ordinal blocks pass their Gram matrix
implicitly (O(k) per product instead of O(k²)).  Certified against a generic solver's points and
by the KKT conditions in ``tests/test_simultaneous_optimality.py``.

Compiled ahead of time (Cython): the block engine calls :func:`solve_structured_c` on raw
pointers with its scratch (``block_dual.pxd``); :func:`solve_block_dual` and
:func:`solve_structured_dual` give it to Python.  The polish's least-squares solve is LAPACK's
``dgelsd`` (minimum norm, ``rcond = −1``, the optimal workspace) through SciPy's
``cython_lapack``: the call ``np.linalg.lstsq`` makes in compiled numpy code, so the polished
points are those of the solver's first, numba version, bit for bit.
"""
import numpy as np

from cpython.pycapsule cimport PyCapsule_GetName, PyCapsule_GetPointer
from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from ..rules.simultaneous cimport SortScratch, py_max, py_min, stable_argsort

# Largest support for which the solver tries the exact KKT solve during its iterations.
_POLISH_IN_LOOP = 96
cdef Py_ssize_t POLISH_IN_LOOP = 96


# ------------------------------------------------------------------------ LAPACK's dgelsd
ctypedef void (*dgelsd_t)(int *m, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb,
                          double *s, double *rcond, int *rank, double *work, int *lwork,
                          int *iwork, int *info) noexcept nogil
ctypedef void (*dgelsd64_t)(int64_t *m, int64_t *n, int64_t *nrhs, double *a, int64_t *lda,
                            double *b, int64_t *ldb, double *s, double *rcond, int64_t *rank,
                            double *work, int64_t *lwork, int64_t *iwork,
                            int64_t *info) noexcept nogil
cdef dgelsd_t _dgelsd = NULL
cdef dgelsd64_t _dgelsd64 = NULL


cdef int _load_lapack() except -1:
    """SciPy's ``dgelsd`` (LP64, or ILP64 where SciPy was built so)."""
    global _dgelsd, _dgelsd64
    from scipy.linalg import cython_lapack
    capsule = cython_lapack.__pyx_capi__["dgelsd"]
    cdef const char *name = PyCapsule_GetName(capsule)
    signature = (<bytes>name).decode()
    if signature.startswith("void (int *, int *, int *,"):
        _dgelsd = <dgelsd_t>PyCapsule_GetPointer(capsule, name)
    else:
        _dgelsd64 = <dgelsd64_t>PyCapsule_GetPointer(capsule, name)
    return 0


_load_lapack()


cdef bint least_squares(double *A, double *b, Py_ssize_t size) noexcept nogil:
    """``b`` ← the minimum-norm least-squares solution of the square system ``A x = b``
    (``A`` column-major, destroyed), as ``np.linalg.lstsq(A, b, rcond=-1)`` computes it:
    ``dgelsd`` with its optimal workspace.  False (``b`` undefined) when the system is not
    finite, memory is short, or the SVD does not converge — where ``lstsq`` would raise; the
    solver then keeps its iterate."""
    cdef Py_ssize_t i
    cdef double rcond = -1.0, query = 0.0
    cdef double *singular
    cdef double *work
    cdef int n = <int>size, one = 1, rank = 0, lwork = -1, info = 0, iquery = 0
    cdef int *iwork
    cdef int64_t n64 = size, one64 = 1, rank64 = 0, lwork64 = -1, info64 = 0, iquery64 = 0
    cdef int64_t *iwork64
    for i in range(size * size):
        if not (A[i] - A[i] == 0.0):
            return False
    for i in range(size):
        if not (b[i] - b[i] == 0.0):
            return False
    singular = <double *>malloc(size * sizeof(double))
    if singular == NULL:
        return False
    if _dgelsd != NULL:
        _dgelsd(&n, &n, &one, A, &n, b, &n, singular, &rcond, &rank, &query, &lwork, &iquery,
                &info)
        lwork = <int>query
        work = <double *>malloc(max(lwork, 1) * sizeof(double))
        iwork = <int *>malloc(max(iquery, 1) * sizeof(int))
        if work != NULL and iwork != NULL and info == 0:
            _dgelsd(&n, &n, &one, A, &n, b, &n, singular, &rcond, &rank, work, &lwork, iwork,
                    &info)
        else:
            info = -1
        free(iwork)
    else:
        _dgelsd64(&n64, &n64, &one64, A, &n64, b, &n64, singular, &rcond, &rank64, &query,
                  &lwork64, &iquery64, &info64)
        lwork64 = <int64_t>query
        work = <double *>malloc(max(lwork64, 1) * sizeof(double))
        iwork64 = <int64_t *>malloc(max(iquery64, 1) * sizeof(int64_t))
        if work != NULL and iwork64 != NULL and info64 == 0:
            _dgelsd64(&n64, &n64, &one64, A, &n64, b, &n64, singular, &rcond, &rank64, work,
                      &lwork64, iwork64, &info64)
        else:
            info64 = -1
        info = <int>info64
        free(iwork64)
    free(work)
    free(singular)
    return info == 0


# ------------------------------------------------------------------------------ projections
cdef void _project_set(const double *a, const int64_t *members, Py_ssize_t n,
                       const double *coupling, double cap, double *out,
                       SortScratch *s) noexcept nogil:
    """Euclidean projection of ``a[members]`` onto {α ≥ 0, Σ c_j α_j ≤ cap} into ``out``:
    ``[a_j]_+`` if that is feasible, else ``[a_j − θ c_j]_+`` with θ > 0 making the constraint
    tight (breakpoints a_j/c_j, one sort)."""
    cdef double used = 0.0, c, cn, s_ca = 0.0, s_cc = 0.0, theta = 0.0
    cdef Py_ssize_t i, j, nxt
    for i in range(n):
        j = members[i]
        out[j] = py_max(0.0, a[j])
        used += coupling[j] * out[j]
    if used <= cap:
        return
    for i in range(n):
        j = members[i]
        c = coupling[j]
        s.keys[i] = -a[j] / c if c > 0.0 else INFINITY
    stable_argsort(s.keys, n, s.order, s.tmp)
    for i in range(n):
        j = members[s.order[i]]
        c = coupling[j]
        if c <= 0.0 or a[j] <= 0.0:
            break
        s_ca += c * a[j]
        s_cc += c * c
        theta = (s_ca - cap) / s_cc
        if i == n - 1:
            break
        nxt = members[s.order[i + 1]]
        cn = coupling[nxt]
        if cn <= 0.0 or a[nxt] / cn <= theta:
            break
    theta = py_max(theta, 0.0)
    for i in range(n):
        j = members[i]
        out[j] = py_max(0.0, a[j] - theta * coupling[j])


cdef inline void _project(const double *a, const int64_t *set_start, const int64_t *set_members,
                          const double *coupling, const double *caps, Py_ssize_t n_sets,
                          double *out, SortScratch *s) noexcept nogil:
    cdef Py_ssize_t l
    for l in range(n_sets):
        _project_set(a, set_members + set_start[l], set_start[l + 1] - set_start[l], coupling,
                     caps[l], out, s)


# The Gram matrix of a block, explicit or implicit.  Label-set (Kesler) and ordinal blocks have
# Gram matrices with a structure that makes G·α cost O(k) instead of O(k²) (Amit et al. §3.1–3.2
# with our Kesler form of the multi-prototype setting of §9.2):
#   KESLER:  pair p = a·n_irr + b (relevant a, irrelevant b), G = q([a = a'] + [b = b']);
#   ORDINAL: G_ij = y_i y_j (q + [i = j]).
# DENSE_GRAM, KESLER_GRAM, ORDINAL_GRAM: block_dual.pxd.  Pairs are (k, 2), row-major.
cdef struct Problem:
    const double *G
    int structure
    const int64_t *pairs
    double q
    const double *signs
    const double *gain
    Py_ssize_t k
    const double *coupling
    const double *caps
    Py_ssize_t n_sets
    Py_ssize_t n_classes


cdef inline Py_ssize_t _n_classes(const int64_t *pairs, Py_ssize_t k) noexcept nogil:
    """The number of classes a Kesler block's pairs name (the largest index + 1)."""
    cdef Py_ssize_t n_classes = 0, p
    for p in range(k):
        n_classes = max(n_classes, pairs[2 * p] + 1, pairs[2 * p + 1] + 1)
    return n_classes


cdef inline void _class_sums(const Problem *P, const double *x, double *tau) noexcept nogil:
    """τ_c = Σ_{p: r_p = c} x_p − Σ_{p: s_p = c} x_p: the class coefficients of Σ_p x_p z_p."""
    cdef Py_ssize_t p
    for p in range(P.n_classes):
        tau[p] = 0.0
    for p in range(P.k):
        tau[P.pairs[2 * p]] += x[p]
        tau[P.pairs[2 * p + 1]] -= x[p]


cdef void _gram_times(const Problem *P, const double *x, double *out,
                      double *tau) noexcept nogil:
    cdef Py_ssize_t k = P.k, i, j, p
    cdef double s, total
    if P.structure == DENSE_GRAM:
        for i in range(k):
            s = 0.0
            for j in range(k):
                s += P.G[i * k + j] * x[j]
            out[i] = s
    elif P.structure == KESLER_GRAM:
        # z_p·Σ_p' x_p' z_p' = q(τ_r − τ_s) with τ the class coefficients
        _class_sums(P, x, tau)
        for p in range(k):
            out[p] = P.q * (tau[P.pairs[2 * p]] - tau[P.pairs[2 * p + 1]])
    else:
        total = 0.0
        for j in range(k):
            total += P.signs[j] * x[j]
        for i in range(k):
            out[i] = P.signs[i] * P.q * total + x[i]


cdef inline double _gram_entry(const Problem *P, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    cdef int64_t r, s, r2, s2
    if P.structure == DENSE_GRAM:
        return P.G[i * P.k + j]
    if P.structure == KESLER_GRAM:
        r, s = P.pairs[2 * i], P.pairs[2 * i + 1]
        r2, s2 = P.pairs[2 * j], P.pairs[2 * j + 1]
        return P.q * ((1.0 if r == r2 else 0.0) + (1.0 if s == s2 else 0.0)
                      - (1.0 if r == s2 else 0.0) - (1.0 if s == r2 else 0.0))
    return P.signs[i] * P.signs[j] * P.q + (1.0 if i == j else 0.0)


cdef double _lipschitz(const Problem *P, double *degree) noexcept nogil:
    """An upper bound on λ_max(G).  Kesler: G = q·BBᵀ with B the pair–class incidence matrix, and
    λ_max(BᵀB) (a graph Laplacian) ≤ max over pairs of deg(r) + deg(s) (Anderson & Morley) —
    exact, n_rel + n_irr, for the complete bipartite pairs.  Ordinal: qk + 1 (exact).  Explicit:
    min(trace, max row sum of |G|)."""
    cdef Py_ssize_t k = P.k, p, i, j
    cdef double bound = 0.0, trace = 0.0, row_max = 0.0, row
    if P.structure == KESLER_GRAM:
        for p in range(P.n_classes):
            degree[p] = 0.0
        for p in range(k):
            degree[P.pairs[2 * p]] += 1.0
            degree[P.pairs[2 * p + 1]] += 1.0
        for p in range(k):
            bound = py_max(bound, degree[P.pairs[2 * p]] + degree[P.pairs[2 * p + 1]])
        return P.q * bound
    if P.structure == ORDINAL_GRAM:
        return P.q * k + 1.0
    for i in range(k):
        trace += P.G[i * k + i]
        row = 0.0
        for j in range(k):
            row += abs(P.G[i * k + j])
        row_max = py_max(row_max, row)
    return py_min(trace, row_max)


cdef double _duality_gap(const Problem *P, const double *alpha, const int64_t *set_start,
                         const int64_t *set_members, double *g_alpha, double *tau,
                         double *primal_out) noexcept nogil:
    """``P(ω(α)) − D(α)`` with ``D = αᵀgain − ½αᵀGα`` and
    ``P = ½αᵀGα + Σ_l cap_l · max_{j∈S_l} [gain_j − (Gα)_j]_+ / c_j`` (the primal of Eq. 2 / 18
    at ω(α) = ω + Σ_j α_j z_j: 1 − z_j·ω(α) = gain_j − (Gα)_j).  Returns the gap; P into
    ``primal_out``."""
    cdef Py_ssize_t i, l, p, j
    cdef double quad = 0.0, lin = 0.0, slack = 0.0, worst, c, residual, primal
    _gram_times(P, alpha, g_alpha, tau)
    for i in range(P.k):
        quad += alpha[i] * g_alpha[i]
        lin += alpha[i] * P.gain[i]
    for l in range(P.n_sets):
        worst = 0.0
        for p in range(set_start[l], set_start[l + 1]):
            j = set_members[p]
            c = P.coupling[j]
            residual = P.gain[j] - g_alpha[j]
            if residual > 0.0:
                worst = py_max(worst, residual / c if c > 0.0 else INFINITY)
        slack += P.caps[l] * worst
    primal = 0.5 * quad + slack
    primal_out[0] = primal
    return primal - (lin - 0.5 * quad)


cdef void group_sets(const int64_t *parts, Py_ssize_t k, Py_ssize_t n_sets, int64_t *start,
                     int64_t *members, int64_t *fill) noexcept nogil:
    """Members of each set, grouped (counting sort): ``start`` (n_sets + 1) and ``members``
    (k); ``fill``: n_sets of scratch.  Every part must be in ``0 … n_sets − 1``."""
    cdef Py_ssize_t j, l
    for l in range(n_sets + 1):
        start[l] = 0
    for j in range(k):
        start[parts[j] + 1] += 1
    for l in range(n_sets):
        start[l + 1] += start[l]
    for l in range(n_sets):
        fill[l] = start[l]
    for j in range(k):
        members[fill[parts[j]]] = j
        fill[parts[j]] += 1


cdef bint _polish(const Problem *P, const double *alpha, const int64_t *set_start,
                  const int64_t *set_members, double *candidate, DualScratch *s) noexcept nogil:
    """Solve the KKT system on the support of ``alpha`` exactly (a least-squares solve, since G may
    be singular): ``G_SS α_S + Σ_{active l} θ_l c_S = gain_S``, ``Σ_{S_l} c_j α_j = cap_l`` for the
    sets whose budget is (numerically) used up.  Writes the candidate; returns False when the
    support is empty (or the solve fails: see :func:`least_squares`)."""
    cdef Py_ssize_t k = P.k, j, n_s = 0, n_a = 0, l, p, size, a, b, e, i
    cdef double scale = 0.0, used
    cdef double *A
    cdef double *rhs
    cdef bint solved
    for j in range(k):
        scale = py_max(scale, alpha[j])
    if scale == 0.0:
        return False
    for j in range(k):
        if alpha[j] > 1e-9 * scale:
            s.support[n_s] = j
            n_s += 1
    for l in range(P.n_sets):
        used = 0.0
        for p in range(set_start[l], set_start[l + 1]):
            used += P.coupling[set_members[p]] * alpha[set_members[p]]
        if used >= P.caps[l] * (1.0 - 1e-7):
            s.active[n_a] = l
            n_a += 1
    size = n_s + n_a
    A = <double *>malloc(size * size * sizeof(double))  # column-major (Fortran), for LAPACK
    rhs = <double *>malloc(size * sizeof(double))
    if A == NULL or rhs == NULL:
        free(A)
        free(rhs)
        return False
    for i in range(size * size):
        A[i] = 0.0
    for i in range(size):
        rhs[i] = 0.0
    for l in range(P.n_sets):
        for p in range(set_start[l], set_start[l + 1]):
            s.part_of[set_members[p]] = l
    for a in range(n_s):
        i = s.support[a]
        for b in range(n_s):
            A[a + b * size] = _gram_entry(P, i, s.support[b])
        rhs[a] = P.gain[i]
        for e in range(n_a):
            if s.part_of[i] == s.active[e]:
                A[a + (n_s + e) * size] = P.coupling[i]
                A[(n_s + e) + a * size] = P.coupling[i]
    for e in range(n_a):
        rhs[n_s + e] = P.caps[s.active[e]]
    solved = least_squares(A, rhs, size)
    if solved:
        for j in range(k):
            candidate[j] = 0.0
        for a in range(n_s):
            candidate[s.support[a]] = py_max(0.0, rhs[a])
    free(A)
    free(rhs)
    return solved


cdef double _polished_gap(const Problem *P, double *alpha, const int64_t *set_start,
                          const int64_t *set_members, double gap, DualScratch *s) noexcept nogil:
    """Replace α by its KKT polish when that is feasible with a smaller gap; returns the gap."""
    cdef Py_ssize_t l, p, j
    cdef double used, other, primal
    if not _polish(P, alpha, set_start, set_members, s.candidate, s):
        return gap
    for l in range(P.n_sets):
        used = 0.0
        for p in range(set_start[l], set_start[l + 1]):
            used += P.coupling[set_members[p]] * s.candidate[set_members[p]]
        if used > P.caps[l] * (1.0 + 1e-12):
            return gap
    other = _duality_gap(P, s.candidate, set_start, set_members, s.g_alpha, s.tau, &primal)
    if other < gap:
        for j in range(P.k):
            alpha[j] = s.candidate[j]
        return other
    return gap


cdef inline int64_t _iterations(double max_iter) noexcept nogil:
    """``int(max_iter)`` (toward zero), 0 for NaN, bounded."""
    if not max_iter >= 1.0:
        return 0
    if max_iter >= 9.0e18:
        return <int64_t>9000000000000000000
    return <int64_t>max_iter


cdef double solve_structured_c(const double *G, int structure, const int64_t *pairs, double q,
                               const double *signs, const double *gain, Py_ssize_t k,
                               const int64_t *parts, const double *coupling, const double *caps,
                               Py_ssize_t n_sets, double tol, double max_iter, double *alpha,
                               DualScratch *s) noexcept nogil:
    """The compiled :func:`solve_structured_dual`: ``G`` (k × k, row-major) for
    ``DENSE_GRAM``, ``pairs`` (k × 2, row-major) for ``KESLER_GRAM``, ``signs`` for
    ``ORDINAL_GRAM``; every part in ``0 … n_sets − 1``; ``s`` sized for the problem (the Kesler
    ``tau`` for the classes its pairs name)."""
    cdef Problem P
    cdef Py_ssize_t j, i, n_support
    cdef int64_t it, iterations = _iterations(max_iter), next_polish = 64
    cdef double lipschitz, step, momentum = 1.0, gap, primal, unit, nxt, direction, beta
    P.G = G
    P.structure = structure
    P.pairs = pairs
    P.q = q
    P.signs = signs
    P.gain = gain
    P.k = k
    P.coupling = coupling
    P.caps = caps
    P.n_sets = n_sets
    P.n_classes = _n_classes(pairs, k) if structure == KESLER_GRAM else 0
    group_sets(parts, k, n_sets, s.set_start, s.set_members, s.fill)
    for j in range(k):
        alpha[j] = 0.0
    if k == 0:
        return 0.0
    lipschitz = _lipschitz(&P, s.tau)
    if lipschitz <= 0.0:
        return 0.0  # all rows zero: no step can move ω
    step = 1.0 / lipschitz
    for j in range(k):
        s.point[j] = 0.0
        s.previous[j] = 0.0
    gap = _duality_gap(&P, alpha, s.set_start, s.set_members, s.g_alpha, s.tau, &primal)
    # The gap is measured against the primal before the step, P(ω) ≥ P*: an absolute floor
    # (the former max(1, P)) is not scale-invariant — with x scaled by c and C by 1/c², P
    # scales by 1/c², and for large c any iterate passed the test.
    unit = primal
    for it in range(iterations):
        # gradient step of the dual at the extrapolated point: gain − G·point
        _gram_times(&P, s.point, s.trial, s.tau)
        for i in range(k):
            s.trial[i] = s.point[i] + step * (gain[i] - s.trial[i])
        for i in range(k):
            s.previous[i] = alpha[i]
        _project(s.trial, s.set_start, s.set_members, coupling, caps, n_sets, alpha, &s.sort)
        nxt = 0.5 * (1.0 + sqrt(1.0 + 4.0 * momentum * momentum))
        # adaptive restart (O'Donoghue & Candès): drop the momentum when it points uphill
        direction = 0.0
        for i in range(k):
            direction += (s.point[i] - alpha[i]) * (alpha[i] - s.previous[i])
        if direction > 0.0:
            nxt = 1.0
            for i in range(k):
                s.point[i] = alpha[i]
        else:
            beta = (momentum - 1.0) / nxt
            for i in range(k):
                s.point[i] = alpha[i] + beta * (alpha[i] - s.previous[i])
        momentum = nxt
        if it % 10 == 9:
            gap = _duality_gap(&P, alpha, s.set_start, s.set_members, s.g_alpha, s.tau,
                               &primal)
            if gap <= tol * py_max(unit, primal):
                break
        if it == next_polish:
            # once the support is identified the KKT solve is exact: try it at doubling intervals
            next_polish *= 2
            gap = _duality_gap(&P, alpha, s.set_start, s.set_members, s.g_alpha, s.tau,
                               &primal)
            if gap <= tol * py_max(unit, primal):
                break
            n_support = 0
            for i in range(k):
                if alpha[i] > 0.0:
                    n_support += 1
            if n_support > POLISH_IN_LOOP:
                continue  # a large dense solve costs more than many O(k) iterations
            gap = _polished_gap(&P, alpha, s.set_start, s.set_members, gap, s)
            if gap <= tol * py_max(unit, primal):
                return gap
            for i in range(k):
                s.point[i] = alpha[i]
            momentum = 1.0
    gap = _duality_gap(&P, alpha, s.set_start, s.set_members, s.g_alpha, s.tau, &primal)
    if gap <= tol * py_max(unit, primal):
        return gap
    return _polished_gap(&P, alpha, s.set_start, s.set_members, gap, s)


# ---------------------------------------------------------------------------- Python entries
def solve_structured_dual(G, int structure, pairs, double q, signs, gain, parts, coupling,
                          caps, double tol, double max_iter, double[::1] alpha):
    """:func:`solve_block_dual` with the Gram matrix given explicitly (``structure = DENSE_GRAM``)
    or implicitly: ``KESLER_GRAM`` (label-set pairs ``pairs[p] = (r, s)``, q = ‖x‖²) or
    ``ORDINAL_GRAM`` (``signs`` the ±1 labels, q = ‖x‖²); then each iteration costs O(k)."""
    cdef const double[::1] g = np.ascontiguousarray(gain, dtype=np.float64)
    cdef Py_ssize_t k = g.shape[0]
    cdef const double[::1] c = np.ascontiguousarray(coupling, dtype=np.float64)
    cdef const double[::1] cap = np.ascontiguousarray(caps, dtype=np.float64)
    cdef Py_ssize_t n_sets = cap.shape[0], n_classes = 0, j
    cdef const int64_t[::1] p = np.ascontiguousarray(parts, dtype=np.int64)
    cdef const double[:, ::1] gram
    cdef const int64_t[:, ::1] pair
    cdef const double[::1] sign
    cdef const double *G_p = NULL
    cdef const int64_t *pairs_p = NULL
    cdef const double *signs_p = NULL
    if c.shape[0] != k or p.shape[0] != k or alpha.shape[0] != k:
        raise ValueError(f"{k} variables: gain, parts, coupling and alpha must match")
    for j in range(k):
        if not 0 <= p[j] < n_sets:
            raise ValueError(f"part {p[j]} of a problem of {n_sets} sets")
    if structure == DENSE_GRAM:
        gram = np.ascontiguousarray(G, dtype=np.float64)
        if gram.shape[0] != k or gram.shape[1] != k:
            raise ValueError(f"a Gram matrix of shape {np.shape(G)} for {k} variables")
        G_p = &gram[0, 0] if k else NULL
    elif structure == KESLER_GRAM:
        pair = np.ascontiguousarray(pairs, dtype=np.int64)
        if pair.shape[0] != k or pair.shape[1] != 2 or (k and np.min(pair) < 0):
            raise ValueError(f"{k} pairs of class indices (r, s) expected")
        pairs_p = &pair[0, 0] if k else NULL
        n_classes = _n_classes(pairs_p, k)
    elif structure == ORDINAL_GRAM:
        sign = np.ascontiguousarray(signs, dtype=np.float64)
        if sign.shape[0] != k:
            raise ValueError(f"{k} signs expected")
        signs_p = &sign[0] if k else NULL
    else:
        raise ValueError(f"unknown Gram structure {structure}")
    cdef DualScratch s
    cdef double[::1] reals = np.empty(dual_reals(k, n_classes))
    cdef int64_t[::1] ints = np.empty(dual_ints(k, n_sets), np.int64)
    carve_dual_scratch(&s, &reals[0], &ints[0], k, n_sets)
    return solve_structured_c(G_p, structure, pairs_p, q, signs_p, &g[0] if k else NULL, k,
                              &p[0] if k else NULL, &c[0] if k else NULL,
                              &cap[0] if n_sets else NULL, n_sets, tol, max_iter,
                              &alpha[0] if k else NULL, &s)


def solve_block_dual(G, gain, parts, coupling, caps, double tol, double max_iter,
                     double[::1] alpha):
    """Exact maximiser of the block dual (Eq. 3; per-set budgets of the decomposed loss, Eq. 18;
    weights c_j of §10):

        max_α  Σ_j α_j gain_j − ½ αᵀGα   s.t.  α ≥ 0,  Σ_{j∈S_l} c_j α_j ≤ caps[l]  ∀l,

    with ``gain_j = 1 − m_j`` and ``G_ij = z_i·z_j`` the block's Gram matrix.  A dedicated solver,
    not a generic optimizer (the paper used Pegasos and gives no details): accelerated projected
    gradient (FISTA
    with adaptive restart, step 1/L with L ≥ λ_max(G)), the projection onto each capped simplex
    being one sort; stopped when the duality gap ``P(ω(α)) − D(α) ≤ tol·max(P(ω), P(ω(α)))``
    (relative to the primal before the step, so the same at every scale of the data).  At doubling
    iteration counts (and at the end) an exact KKT solve on the current support
    (:func:`_polish`) replaces α whenever it is feasible with a smaller gap: once the support is
    identified this gives the solution to machine precision and stops early.

    ``parts`` gives each variable's set (ids 0..len(caps)−1, every set non-empty); coupling
    weights must be > 0.  Writes α and returns the final duality gap.
    """
    return solve_structured_dual(G, DENSE_GRAM, None, 0.0, None, gain, parts, coupling, caps,
                                 tol, max_iter, alpha)
