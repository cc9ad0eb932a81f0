# cython: language_level=3
"""The compiled rounds of multiclass CW with k constraints (``ConfidenceWeighted(form="variance",
constraints=k)``): the true class against the k highest-scoring wrong classes at once.

The problem.  Crammer, Dredze & Kulesza ("Multi-Class Confidence Weighted Algorithms", EMNLP
2009, §3, the "k constraints" update beside the single max-score one) state multiclass CW over
the stacked weight vector, the features of class c in block c, with Δ_j = f(x, y) − f(x, j)
(x in class y's block, −x in class j's block).  In the variance form of Dredze, Crammer &
Pereira ("Confidence-Weighted Linear Classification", ICML 2008, §3: Pr[correct] ≥ η
linearized to m ≥ φ·V, φ = Φ⁻¹(η)) each constraint is linear in (μ, Σ)::

    min_{μ,Σ} D_KL(N(μ, Σ) ‖ N(μ0, Σ0))  s.t.  μ·Δ_j − φ·Δ_jᵀΣΔ_j ≥ 0   for j ∈ S

S the k highest-scoring wrong classes under μ0 (ties: the lowest index).  The problem is convex;
its KKT conditions (unrestricted Σ) are μ = μ0 + Σ0 Σ_j α_j Δ_j, Σ⁻¹ = Σ0⁻¹ + 2φ Σ_j α_j Δ_jΔ_jᵀ,
α_j ≥ 0, α_j·(constraint j) = 0 — the mean moves from Σ0, the covariance of the round's start,
so k single-constraint steps taken one after the other are not the solution.

The layouts.  Σ is restricted to one block per class: a full d×d matrix (``"per-class"``) or
a diagonal (``"diagonal"``).  Minimising the KL over the restricted set, stationarity holds on
the restricted entries only (the derivative of KL in Σ_c is ½(Σ0_c⁻¹ − Σ_c⁻¹), of the
constraints' term φ Σ_j α_j (Δ_j)_c(Δ_j)_cᵀ), which with A_y = Σ_{j∈S} α_j, A_j = α_j (j ∈ S)
and A_c = 0 for the other classes gives

* per-class: Σ_c⁻¹ = Σ0_c⁻¹ + 2φA_c xxᵀ, i.e. Σ_c = Σ0_c − b_c (Σ0_c x)(Σ0_c x)ᵀ with
  b_c = 2φA_c/(1 + 2φA_c v0_c), v0_c = xᵀΣ0_c x, so v_c(A_c) = xᵀΣ_c x = v0_c/(1 + 2φA_c v0_c);
* diagonal: 1/σ_{c,i} = 1/σ0_{c,i} + 2φA_c x_i² (the diagonal of Σ⁻¹ kept: ``diagonal="project"``,
  the only form that solves the restricted problem), v_c(A) = Σ_i x_i²σ0_{c,i}/(1 + 2φAσ0_{c,i}x_i²);
* both: μ_y += A_y Σ0_y x, μ_j −= α_j Σ0_j x (the mean reads Σ0).

So the dual lives in scalars: with s_c = μ0_c·x, constraint j reads
f_j(α) = (s_y − s_j) + A_y v0_y + α_j v0_j − φ(v_y(A_y) + v_j(α_j)) ≥ 0.

The solver: Hildreth's coordinate ascent on the dual (Censor & Zenios, "Parallel Optimization",
§6.3).  α ← 0; sweeps over j ∈ S until max |Δα| < 1e-12·(1 + max α) or 100 sweeps, α measured
in units of 1/v0_y (α·v0_y is the share of the margin a step moves, and it stays the same when
rows x → c·x meet a prior a → a/c²; on rows of unit norm under a = 1 it is α itself); a step on
constraint j sets α_j to the root of f_j(α_j) = 0 (the other α fixed; α_j itself is the
unknown, so that its resolution near 0 is kept): f_j is increasing and concave in α_j (its mean
term linear with slope v0_y + v0_j > 0, each v decreasing and convex), so Newton's method
started at α_j = 0, where f_j < 0, climbs to the root from below; the root lies in [0,
−f_j(0)/(v0_y + v0_j)] (there f_j ≥ 0, each v being at most its value at 0), and a step that
leaves that bracket or is not finite is replaced by bisection (from 0: by twenty decades at a
time, as where v0² overflows), and one that only doubles α_j
(f_j ≈ −c/α_j, where v0 dwarfs the margin) by bisection of log α_j; it stops once a step is
within 4ε of the α_j it reaches.  If f_j(0) ≥ 0, α_j ← 0.  A round whose
constraints all hold at α = 0 takes no step (and is not counted as an update).

Numerics, as :mod:`onlinear._core.confidence`: a score or a v0 that is not finite, or an α that
is not, stops the pass before that round changes anything (the rounds before it stay); a zero
row predicts and never updates, and a non-zero row with a v0 ≤ 0 (only round-off gives one) is
counted as skipped; a diagonal σ is floored at max(``min_variance``, DBL_MIN) after its update
and a full matrix's variance along x held at max(√ε·max_i Σ_ii, ``min_variance``,
a·√DBL_MIN/ε)·‖x‖² (the mean still takes the exact step), each counted as a repair.  A full
matrix takes its rank-one step as the congruence Σ ← AΣAᵀ, A = I − γ(Σx)xᵀ, γ = b/(1 + √(1 −
bv)), as the Gaussian engine takes it (:mod:`onlinear._core.confidence`, the sweeps of
``_full_covariance.pxd``): within a call the rounds read and write each matrix's upper triangle
only, and the lower triangle of each matrix that moved is copied from it when the call ends (a
held ``learn_one`` round defers that copy to its ``mirror``, which the model's ``covariance``
calls when read), so the state is symmetric bit for bit.

Dense rows run on their non-zeros, so dense and CSR rows give identical states; averaging
(``avg_acc``, ``avg_rounds``) runs the rounds through :func:`onlinear._core.row_pass.averaged_round`.
Two classes (one output) have one constraint: the model runs the binary learner then.
"""
import numpy as np

from libc.float cimport DBL_EPSILON, DBL_MIN
from libc.math cimport fabs, isfinite, sqrt
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free

from ._full_covariance cimport (full_floor, full_times, held_congruence, mirror_upper,
                               onlinear_gaussian_init)
from ._sweeps cimport onlinear_simd_init
from .row_pass cimport (Averaging, RowRound, averaged_round, check_pass, check_state,
                       feature_major_scores, play_row_of, run_rows_of, start_averaging,
                       stop_averaging)

from .confidence import NotFiniteRound

onlinear_simd_init()  # (the scores: simd.h's score_sparse, through row_pass.pxd)
onlinear_gaussian_init()  # (the full matrices' sweeps: gaussian_simd.h)

#: the layouts this engine serves
LAYOUTS = ("diagonal", "per-class")
#: the sweeps' stop: max |Δα| < TOLERANCE·(1 + max α), or MAX_SWEEPS sweeps
TOLERANCE = 1e-12
MAX_SWEEPS = 100
cdef double _TOLERANCE = TOLERANCE
cdef int _MAX_SWEEPS = MAX_SWEEPS
cdef int MAX_NEWTON = 200


cdef struct Model:
    Py_ssize_t d
    Py_ssize_t K
    Py_ssize_t k            # the constraints asked for (clipped to K − 1 on a round)
    Py_ssize_t n            # the round's: min(k, K − 1)
    bint full               # per-class matrices (else diagonals)
    double phi
    double min_variance     # diagonal floor: max(min_variance, DBL_MIN)
    double full_floor       # full floor: max(min_variance, a·√DBL_MIN/ε)
    double *mu
    double *cov
    double *scores          # K
    double *alpha           # K by position: 1… the classes of S, 0 their sum A_y
    double *v0              # K (position 0: y, 1…: S)
    double *u               # full: K·d, Σ0_c x of each position
    double *w               # full: d
    double *x               # full: the round's row scattered to d values (zeros elsewhere)
    unsigned char *moved    # full: K, the matrices whose lower triangle is behind
    Py_ssize_t *cls         # K: the class at each position
    unsigned char *chosen   # K
    const int64_t *idx      # the round's row
    const double *vals
    Py_ssize_t nnz
    int64_t repaired
    int64_t skipped


cdef inline double _v(Model *M, Py_ssize_t pos, double A, double *slope) noexcept nogil:
    """v_c(A) of the class at position ``pos`` (module doc) and its derivative in A."""
    cdef double t, g, v = 0.0, dv = 0.0, tp = 2.0 * M.phi
    cdef Py_ssize_t p, c
    if M.full:
        t = M.v0[pos]
        g = t / (1.0 + tp * A * t)
        slope[0] = -tp * g * g
        return g
    c = M.cls[pos]
    for p in range(M.nnz):
        t = M.vals[p] * M.vals[p] * M.cov[M.idx[p] * M.K + c]
        g = t / (1.0 + tp * A * t)
        v += g
        dv += g * g
    slope[0] = -tp * dv
    return v


cdef inline double _f(Model *M, Py_ssize_t j, double gap, double B, double a,
                      double *slope) noexcept nogil:
    """f_j at α_j = a, the other multipliers summing to B (``gap`` = s_y − s_j), and its
    derivative in a."""
    cdef double dy, dj, value
    value = (gap + (B + a) * M.v0[0] + a * M.v0[j]
             - M.phi * (_v(M, 0, B + a, &dy) + _v(M, j, a, &dj)))
    slope[0] = M.v0[0] + M.v0[j] - M.phi * (dy + dj)
    return value


cdef double _coordinate(Model *M, Py_ssize_t j) noexcept nogil:
    """The new α_j of the coordinate step on constraint j (module doc), solved in α_j itself
    (its resolution near 0 kept): Newton's method from the bracket's low end 0 (where f_j < 0);
    bisection where a step leaves the bracket, and bisection of log α_j where Newton's steps only
    double α_j (f_j ≈ −c/α_j, rows whose v0 dwarfs their margin: there Newton alone would take
    some log2 of that ratio steps)."""
    cdef double gap = M.scores[M.cls[0]] - M.scores[M.cls[j]], B = 0.0
    cdef double lo = 0.0, hi, value, slope, low_value, low_slope, step, nxt
    cdef bint newton, slow = False
    cdef Py_ssize_t i
    cdef int n
    for i in range(1, j):
        B += M.alpha[i]
    for i in range(j + 1, M.n + 1):
        B += M.alpha[i]
    low_value = _f(M, j, gap, B, 0.0, &low_slope)
    if low_value >= 0.0:
        return 0.0
    hi = -low_value / (M.v0[0] + M.v0[j])
    for n in range(MAX_NEWTON):
        newton = not (slow and lo > 0.0)
        if newton:
            step = -low_value / low_slope
            nxt = lo + step
            if isfinite(low_slope) and isfinite(nxt) and step <= 4.0 * DBL_EPSILON * nxt:
                break  # (at the root within float64's resolution)
            newton = isfinite(nxt) and lo < nxt < hi
            if not newton:  # (an infinite slope, or a step out of the bracket)
                nxt = 0.5 * (lo + hi) if lo > 0.0 else 1e-20 * hi  # (from 0: by decades)
        else:
            nxt = sqrt(lo) * sqrt(hi)
        if not (lo < nxt < hi):
            break  # (the bracket resolves no further in float64)
        value = _f(M, j, gap, B, nxt, &slope)
        if value < 0.0:
            slow = newton and value < 0.25 * low_value
            lo, low_value, low_slope = nxt, value, slope
        elif newton:  # (Newton from below stays below the root but for rounding: it is here)
            lo = nxt
            break
        else:
            hi = nxt
            slow = False
    return lo


cdef inline double _floored(Model *M, double sig) noexcept nogil:
    if sig < M.min_variance:
        M.repaired += 1
        return M.min_variance
    return sig


cdef Py_ssize_t _round(void *model, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                       Py_ssize_t y, bint *updated) noexcept nogil:
    """One round: the class predicted before it, or −1 when a score, a v0 or an α is not
    finite (nothing changed).  With full matrices the row is scattered to ``M.x`` around it
    (the sweeps take the whole row)."""
    cdef Model *M = <Model *>model
    cdef Py_ssize_t p, predicted
    if not M.full:
        return _round_on(M, idx, vals, nnz, y, updated)
    for p in range(nnz):
        M.x[idx[p]] = vals[p]
    predicted = _round_on(M, idx, vals, nnz, y, updated)
    for p in range(nnz):
        M.x[idx[p]] = 0.0
    return predicted


cdef void _mirror(Model *M) noexcept nogil:
    """Copy the upper triangle of every matrix the rounds moved to its lower triangle."""
    cdef Py_ssize_t c
    if not M.full:
        return
    for c in range(M.K):
        if M.moved[c]:
            mirror_upper(M.cov + c * M.d * M.d, M.d)
            M.moved[c] = False


cdef Py_ssize_t _round_on(Model *M, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                          Py_ssize_t y, bint *updated) noexcept nogil:
    """:func:`_round`'s round (``M.x`` holding the row, with full matrices)."""
    cdef Py_ssize_t K = M.K, d = M.d, c, j, n, p, i, predicted = 0, best, sweep, at
    cdef double q, t, Ay, new, change, top, coefficient, grow, sig, x2 = 0.0, tp = 2.0 * M.phi
    cdef bint violated = False, moved
    updated[0] = False
    M.idx, M.vals, M.nnz = idx, vals, nnz
    q = feature_major_scores(M.mu, K, idx, vals, nnz, M.scores)
    for c in range(K):
        if not isfinite(M.scores[c]):
            return -1
    for c in range(1, K):
        if M.scores[c] > M.scores[predicted]:
            predicted = c
    # S: the k highest-scoring wrong classes, lowest index first among equal scores
    n = M.n = min(M.k, K - 1)
    for c in range(K):
        M.chosen[c] = c == y
    M.cls[0] = y
    for j in range(1, n + 1):
        best = -1
        for c in range(K):
            if not M.chosen[c] and (best < 0 or M.scores[c] > M.scores[best]):
                best = c
        M.chosen[best] = True
        M.cls[j] = best
    # v0 of y and of each class of S
    for j in range(n + 1):
        c = M.cls[j]
        if M.full:  # Σ0_c x from the upper triangle of Σ0_c
            t = full_times(M.cov + c * d * d, d, M.x, idx, vals, nnz, M.u + j * d)
        else:
            t = 0.0
            for p in range(nnz):
                t += vals[p] * vals[p] * M.cov[idx[p] * K + c]
        if not isfinite(t):
            return -1
        M.v0[j] = t
    if nnz == 0 or not (q > 0.0):
        return predicted
    for j in range(n + 1):
        if not (M.v0[j] > 0.0):
            M.skipped += 1
            return predicted
    for j in range(1, n + 1):
        M.alpha[j] = 0.0
        if M.scores[y] - M.scores[M.cls[j]] - M.phi * (M.v0[0] + M.v0[j]) < 0.0:
            violated = True
    if not violated:
        return predicted
    # Hildreth's sweeps
    for sweep in range(_MAX_SWEEPS):
        change = 0.0
        top = 0.0
        for j in range(1, n + 1):
            new = _coordinate(M, j)
            change = max(change, fabs(new - M.alpha[j]))
            M.alpha[j] = new
            top = max(top, new)
        if not isfinite(change):
            return -1
        if change * M.v0[0] < _TOLERANCE * (1.0 + top * M.v0[0]):  # (α in units of 1/v0_y)
            break
    Ay = 0.0
    for j in range(1, n + 1):
        Ay += M.alpha[j]
    if not (isfinite(Ay) and isfinite(tp * Ay)):
        return -1
    if not (Ay > 0.0):
        return predicted
    updated[0] = True
    M.alpha[0] = Ay
    if M.full:
        for p in range(nnz):
            x2 += vals[p] * vals[p]
    for j in range(n + 1):
        c = M.cls[j]
        if not (M.alpha[j] > 0.0):
            continue
        coefficient = M.alpha[j] if j == 0 else -M.alpha[j]
        if M.full:
            for i in range(d):
                M.mu[i * K + c] += coefficient * M.u[j * d + i]
            grow = tp * M.alpha[j] * M.v0[j]
            # Σ ← Σ − b·uuᵀ with b = 2φα/(1 + 2φαv0), 1 − bv0 = 1/(1 + 2φαv0) (module doc)
            if isfinite(grow):
                moved = held_congruence(M.cov + c * d * d, d, M.u + j * d,
                                        tp * M.alpha[j] / (1.0 + grow), 1.0 / (1.0 + grow),
                                        M.v0[j], x2, M.full_floor, M.x, M.w, &M.repaired)
            else:  # (its limit: Σx → 0 along x, held at the floor)
                moved = held_congruence(M.cov + c * d * d, d, M.u + j * d, 1.0 / M.v0[j], 0.0,
                                        M.v0[j], x2, M.full_floor, M.x, M.w, &M.repaired)
            M.moved[c] = M.moved[c] or moved
        else:
            for p in range(nnz):
                at = idx[p] * K + c
                sig = M.cov[at]
                M.mu[at] += coefficient * (sig * vals[p])
                M.cov[at] = _floored(M, sig / (1.0 + tp * M.alpha[j] * sig * vals[p] * vals[p]))
    return predicted


# --------------------------------------------------------------------------- entry points
cdef int _fill(Model *M, mean, covariance, double phi, Py_ssize_t constraints, str layout,
               double min_variance, double prior, int64_t[::1] counts=None) except -1:
    """Check the arrays and options (no index is checked in the rounds) and point ``M`` at
    them."""
    cdef double[:, ::1] mu_v
    cdef double[::1] cov_v
    if layout not in LAYOUTS:
        raise ValueError(f"the k-constraint rounds serve the layouts {list(LAYOUTS)}, not "
                         f"{layout!r}")
    if not (phi > 0.0 and isfinite(phi)):
        raise ValueError(f"φ must be positive and finite (η > 0.5), got {phi!r}")
    if constraints < 1:
        raise ValueError(f"constraints must be ≥ 1, got {constraints}")
    if not min_variance >= 0.0:
        raise ValueError(f"min_variance must be ≥ 0, got {min_variance!r}")
    if not (prior > 0.0 and isfinite(prior)):
        raise ValueError(f"the prior variance must be positive and finite, got {prior!r}")
    if counts is not None and counts.shape[0] < 2:
        raise ValueError("counts must have 2 entries")
    if not isinstance(mean, np.ndarray) or mean.ndim != 2:
        raise ValueError("mean must be a 2-D float64 array of shape (n_features, n_classes)")
    d, K = mean.shape
    if K < 2:
        raise ValueError(f"the k-constraint rounds need 2 or more outputs (one per class), "
                         f"got {K}: two classes are the binary learner's")
    check_state("mean", mean, (d, K))
    M.full = layout == "per-class"
    check_state("covariance", covariance, (K, d, d) if M.full else (d, K))
    mu_v = mean
    cov_v = covariance.reshape(-1)
    M.d, M.K, M.k, M.phi = d, K, constraints, phi
    M.mu = &mu_v[0, 0] if d > 0 else NULL
    M.cov = &cov_v[0] if cov_v.shape[0] > 0 else NULL
    M.min_variance = max(min_variance, DBL_MIN)
    M.full_floor = full_floor(min_variance, prior)
    M.repaired = M.skipped = 0
    return 0


cdef void *_scratch(Model *M) except NULL:
    """The rounds' buffers in one block, for the caller to free."""
    cdef Py_ssize_t K = M.K, d = M.d
    cdef size_t doubles = 3 * K + ((K + 2) * d if M.full else 0)
    cdef char *block = <char *>calloc(doubles * sizeof(double) + K * sizeof(Py_ssize_t) + 2 * K
                                      + 8, 1)
    if block == NULL:
        raise MemoryError()
    cdef double *buffer = <double *>block
    M.scores = buffer
    M.alpha = buffer + K
    M.v0 = buffer + 2 * K
    M.u = M.w = M.x = NULL
    if M.full:
        M.u = buffer + 3 * K
        M.w = M.u + K * d
        M.x = M.w + d  # (zeros: calloc, and each round puts them back)
    M.cls = <Py_ssize_t *>(block + doubles * sizeof(double))
    M.chosen = <unsigned char *>(block + doubles * sizeof(double) + K * sizeof(Py_ssize_t))
    M.moved = M.chosen + K
    return block


def _not_finite(where, row=None):
    return NotFiniteRound(f"{where}: a score, a margin variance or the step is not finite (NaN "
                          "or infinite values, or a row too large: rescale the input)", row)


def learn_pass(X, const int64_t[::1] y, const int64_t[::1] order, mean, covariance,
               double phi, Py_ssize_t constraints, predictions=None, *,
               str layout="diagonal", double min_variance=0.0, double prior=1.0,
               int64_t[::1] counts=None, avg_acc=None, avg_rounds=None):
    """One online pass of k-constraint CW (variance form, module doc) over the rows
    ``X[order]``.

    Parameters
    ----------
    X, y, order, predictions
        As :func:`onlinear._core.confidence.learn_pass` (label indices 0 … K − 1, K ≥ 2).
    mean, covariance : float64 arrays
        μ (d, K) and Σ: (d, K) diagonals or (K, d, d) matrices, updated in place.
    phi : float
        φ = Φ⁻¹(η) > 0.
    constraints : int
        k ≥ 1: the constraints of a round are its k highest-scoring wrong classes (all K − 1
        of them when k ≥ K − 1).
    layout : {"diagonal", "per-class"}
    min_variance, prior, counts, avg_acc, avg_rounds
        As :func:`onlinear._core.confidence.learn_pass`, whose returns ``(n_mistakes,
        n_updates)`` and errors this pass shares: a round whose score, margin variance or step
        is not finite changes nothing and stops the pass, the rounds before it taken
        (:class:`onlinear._core.row_pass.RefusedRow` for a dense row refused before it).
    """
    cdef Model M
    _fill(&M, mean, covariance, phi, constraints, layout, min_variance, prior, counts)
    check_pass(X, y, order, predictions, M.d, M.K)
    mistakes, updates, failed = _run(&M, (X, y, order, predictions), counts, avg_acc,
                                     avg_rounds)
    if failed >= 0:
        raise _not_finite(f"row {order[failed]} (position {failed} of the pass); the rounds "
                          "before it were taken", int(order[failed]))
    return mistakes, updates


def learn_row(indices, values, Py_ssize_t y, mean, covariance, double phi,
              Py_ssize_t constraints, *, str layout="diagonal", double min_variance=0.0,
              double prior=1.0, int64_t[::1] counts=None, avg_acc=None, avg_rounds=None):
    """One round (``learn_one``) on the row with non-zeros ``values`` at the columns
    ``indices``; the other arguments as :func:`learn_pass`.  Returns ``(prediction,
    updated)``; raises ValueError, changing nothing, when a score, a v0 or the step is not
    finite."""
    cdef Model M
    _fill(&M, mean, covariance, phi, constraints, layout, min_variance, prior, counts)
    predicted, updated = _run(&M, (indices, values, y), counts, avg_acc, avg_rounds)
    if predicted < 0:
        raise _not_finite("the row")
    return predicted, updated


cdef tuple _run(Model *M, tuple rows, int64_t[::1] counts, avg_acc, avg_rounds):
    """On the filled model, with its scratch and (unless ``avg_acc`` is None) averaged: the
    pass over ``rows`` = (X, y, order, predictions), checked, as ``(mistakes, updates,
    failed)`` (:func:`onlinear._core.row_pass.run_rows_of`), or the round on ``rows`` =
    (indices, values, y) as ``(predicted, updated)``; the repairs and skips added to
    ``counts``."""
    cdef Averaging A
    cdef bint updated = False
    A.before = NULL
    cdef void *buffer = _scratch(M)
    try:
        if avg_acc is not None:
            start_averaging(&A, _round, M, M.mu, M.d, M.K, M.full, avg_acc, avg_rounds)
        if len(rows) == 4:
            X, y, order, predictions = rows
            return run_rows_of(_round, M, &A, X, y, order, predictions)
        indices, values, y = rows
        predicted = play_row_of(_round, M, &A, indices, values, y, M.d, M.K, &updated)
        return predicted, bool(updated)
    finally:
        _mirror(M)
        free(buffer)
        stop_averaging(&A)
        if counts is not None:
            counts[0] += M.repaired
            counts[1] += M.skipped


cdef class MultiConstraintRound(RowRound):
    """``learn_one``'s k-constraint round in one compiled call
    (:class:`onlinear._core.row_pass.RowRound`): the arrays and options of :func:`learn_row`,
    checked once; ``counts`` (seen, mistakes, updates) and ``repairs`` kept here;
    ``exponent``: the accepted row norms ``[2^-e, 2^e]``."""

    cdef Model M
    cdef Averaging A
    cdef void *buffer
    cdef int64_t[::1] repairs

    def __cinit__(self, *args, **kwargs):
        self.buffer = NULL
        self.A.before = NULL

    def __init__(self, mean, covariance, double phi, Py_ssize_t constraints,
                 int64_t[::1] counts, int64_t[::1] repairs, *, str layout="diagonal",
                 double min_variance=0.0, double prior=1.0, int exponent=505, avg_acc=None,
                 avg_rounds=None):
        _fill(&self.M, mean, covariance, phi, constraints, layout, min_variance, prior)
        if repairs is None or repairs.shape[0] < 2:
            raise ValueError("repairs must have 2 entries")
        self.buffer = _scratch(&self.M)
        self.repairs = repairs
        self.play = _round
        self.model = &self.M
        if avg_acc is not None:
            start_averaging(&self.A, _round, &self.M, self.M.mu, self.M.d, self.M.K,
                            self.M.full, avg_acc, avg_rounds)
            self.play = averaged_round
            self.model = &self.A
        self.start(self.M.d, self.M.K, exponent, counts,
                   (mean, covariance, repairs, avg_acc, avg_rounds))

    def __dealloc__(self):
        free(self.buffer)
        stop_averaging(&self.A)

    cdef void after(self):
        self.repairs[0] += self.M.repaired
        self.repairs[1] += self.M.skipped
        self.M.repaired = 0
        self.M.skipped = 0

    def mirror(self):
        """Copy the upper triangle of each matrix the rounds since the last call moved to its
        lower triangle (the model calls it before its covariance is read)."""
        _mirror(&self.M)
