# cython: language_level=3
"""The compiled online loops of the Gaussian (confidence-weighted) learners: CW, SCW, AROW and
NHERD in their covariance layouts.

Every rule of :mod:`onlinear.rules.confidence_table` returns the coefficients (α, β, c) of one
round from its margin m and margin variance V; this engine computes (m, V) in its layout and
applies the coefficients.  State (float64, C-contiguous; K = 1 is the binary learner, whose
label index 1 is the class +1):

* ``mean`` — μ, shape (d, K), feature-major (a CSR row reads and writes K contiguous values
  per non-zero);
* ``covariance`` by layout —

  - ``"diagonal"`` (the default for wide or sparse data): σ, shape (d, K), one diagonal per
    class; V = Σ_j x_j²(σ_{j,y} + σ_{j,s*}); O(K·nnz) per round.  The diagonal is kept by
    ``diagonal="project"`` (σ_j ← 1/(1/σ_j + c·x_j²), the diagonal of the updated Σ⁻¹),
    ``"drop"`` (σ_j ← σ_j − β·σ_j²x_j², the diagonal of the updated Σ) or, for NHERD only,
    ``"exact"`` (σ_j ← σ_j/(1 + C·σ_j·x_j²)², the best diagonal map of its objective);
  - ``"per-class"``: K full d×d matrices, shape (K, d, d); V = xᵀΣ_y x + xᵀΣ_{s*}x, μ_y and
    μ_{s*} move by ±αΣ_k x, and each of the two matrices takes the rank-one step with β
    (``"drop"``: the diagonal blocks of the stacked update) or with c/(1 + c·xᵀΣ_k x)
    (``"project"``: Σ_k⁻¹ += c·xxᵀ);
  - ``"shared"``: one d×d matrix, shape (1, d, d), for the shared-covariance rules (the LIBOL
    manual's multiclass problem, §3.2.3): the rule receives v = xᵀΣx, μ_y += αΣx,
    μ_{s*} −= αΣx, one rank-one step.

Multiclass rounds use the single max-score constraint of Crammer, Dredze & Kulesza ("Multi-Class
Confidence Weighted Algorithms", EMNLP 2009): s* = argmax_{k≠y} s_k; prediction and s* take the
lowest index on ties (binary: +1 on a score > 0, the library's convention: a zero score predicts
the first class, where LIBOL predicts +1).

A full matrix shrinks by the congruence Σ ← AΣAᵀ, A = I − γ(Σx)xᵀ with γ = β/(1 + √(1 − βv))
(equal to Σ − β(Σx)(Σx)ᵀ in exact arithmetic): the plain subtraction loses positive
definiteness in float64 within a few NHERD updates with a large C on rows with one dominant
feature.  It is computed in two sweeps: Σ₁ = Σ − γuuᵀ (u = Σx) with w = Σ₁x as Σ₁ is
written, then Σ ← Σ₁ − (γ/2)(wuᵀ + uwᵀ).  Within a call the rounds read and write only each
matrix's upper triangle (half the memory traffic of u = Σx and of the congruence, O(d²) a round
whatever the row's non-zeros), in the sweeps of ``gaussian_simd.h`` (vectorized where no sum
is reordered: the same bits as a sweep over the whole matrix, on every CPU); the lower triangle of each matrix that moved is copied from
the upper one when the call ends, so the state is symmetric bit for bit (a held ``learn_one``
round, :class:`GaussianRound` or :class:`NarowRound`, defers that copy to its ``mirror``,
which the model's ``covariance`` calls when read).  1 − βv is not computed as written (it
cancels when βv → 1, as NHERD's with a large C does) but from c: 1 − βv = 1/(1 + cv), and
(1 + c·v_other)/(1 + cV) for a per-class ``drop`` step taken with the pair's V.

Numerical edge cases: a zero row (V = 0, or V not > 0 after underflow) predicts and is counted
but never updates (a non-zero row with V ≤ 0, which only round-off can give, is counted as
skipped); a score, V or a coefficient that is not finite (rows of norm beyond ~1e150, or NaN)
stops the pass with a ValueError naming the row, before that round changes anything (the
rounds before it stay).  A diagonal σ that a step takes below the smallest normal float
(DBL_MIN, 2.2e-308; ``"drop"`` rounds it to 0 or below, a ``"project"`` step whose c overflows
gives 0) becomes that smallest normal float: the exact σ is not representable there, and a zero
σ would freeze its coordinate for good (V = 0).  This is a deviation from the papers, whose
steps never leave the reals: CW-std's exact step (Crammer, Dredze & Pereira, NIPS 2008) on a
mistake with a tiny V takes α ≈ |m|/V and c ≈ (mφ/V)², beyond float64 once V ≲ |m|φ·1e-154,
which real data reaches (the hard constraint shrinks σ by orders of magnitude a mistake: on
Letter after some 4,500 rounds).  c = +∞ itself is taken by its limit (Σx → 0 along x: a
diagonal σ' = 0, then DBL_MIN; a full matrix's β = 1/v).  And ``min_variance`` (default 0:
none) is a floor for every diagonal σ after its update (CW-std's hard constraint collapses σ
towards 0 on contradictory repeated rows); both repairs are counted.

A full matrix's step takes xᵀΣx = v to v' = v·(1 − βv), which CW-std's hard constraint on
contradictory rows drives towards 0 (on Letter the exact CW's, checked in 80-digit decimal
arithmetic, falls from 10⁻⁷ to 10⁻⁶¹ between rows 6,600 and 7,200 while its mean grows past
10³⁰: the paper's algorithm itself diverges there).  A dense float64 Σ resolves a variance along
x only down to its rounding (some d²ε·‖x‖²·max_i Σ_ii): below it the congruence leaves Σ
indefinite, and later rounds see V ≤ 0.  So v' is held at max(√ε·max_i Σ_ii, f)·‖x‖²
(√ε ≥ d²ε for d ≤ 8192; f = max(``min_variance``, a·√DBL_MIN/ε), a the prior variance Σ_1 =
a·I: for a = 1, 6.7e-139, where the step's products u_i·u_j of u = Σx keep ε's precision; a
scales it as it scales Σ, so that rows c·x with a/c² take the same steps): β becomes (1 − v'/v)/v, and a matrix already at
or below the floor along x keeps its value (its mean still takes the exact α).  Each held step
is counted as a repair.  This is a deviation from the papers, taken only where float64 cannot
hold the exact Σ: every Σ stays symmetric positive definite and no round is skipped.

NAROW (Orabona & Crammer, "New Adaptive Algorithms for Online Classification", NIPS 2010; the
LIBOL manual's Algorithm 11) shares this state (``mean`` = w, ``covariance`` = A⁻¹ in the
``"diagonal"`` or ``"per-class"`` layout) with a sum ``theta`` (θ, shape (d, K)); its rounds
(:func:`narow_pass`, :func:`narow_row`, :class:`NarowRound`; the math in
:mod:`onlinear.models.narow`) are one-vs-rest: every output k takes its own χ_k = xᵀA_k⁻¹x, r_k
and margin test, and a full A_k⁻¹ its rank-one step as the congruence above (β = 1/(r + χ),
1 − βχ = r/(r + χ), held at the floor a·√DBL_MIN/ε·‖x‖²; LIBOL's variant keeps NAROW.m's plain
subtraction, the congruence's first sweep) and w_k = A_k⁻¹θ_k (u = Σx's sweep).

A diagonal pass of a rule whose update condition leaves V out (AROW, NHERD: m < 1; the
``margin_bound`` of :class:`onlinear.rules.confidence_table.GaussianRow`) does not compute V
on its rounds of m ≥ 1 when a scan of the variances before the pass bounds V there away from
overflow and from 0 (``_bound_margin``): the same results as computing it, the errors and
counts above included.  (A pass too short to pay for the scan, a single round and the full
layouts compute V on every round.)

Averaging (``average=True``): given the sums ``avg_acc`` ((d, K)) and ``avg_rounds`` ((1,)),
a pass or round keeps the averaged mean — the mean of μ after every round — by
:func:`onlinear._core.row_pass.averaged_round` around the same rounds (the diagonal layout's
rounds move μ on the row's non-zeros, the full layouts' and a full NAROW's on every feature);
without them the rounds run as they are.

Dense rows are run on their non-zeros, gathered first, so dense and CSR rows (canonical: sorted,
without duplicates) give identical states.  This module is compiled ahead of time (Cython).
"""
import numpy as np

cimport cython
from libc.float cimport DBL_EPSILON, DBL_MIN
from libc.math cimport INFINITY, isfinite, ldexp, sqrt
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free

from ..rules._gaussian_params cimport NherdParams
from ..rules.confidence cimport GaussianStep, gaussian_step_function
from ..rules.confidence_dispatch cimport gaussian_step_of
from ._full_covariance cimport (full_floor, full_times, held_congruence, mirror_upper,
                               onlinear_gaussian_init, onlinear_gaussian_sweeps)
from ._sweeps cimport onlinear_simd_init
from .row_pass cimport (Averaging, RowRound, averaged_round, check_pass, check_state,
                       feature_major_scores, play_row_of, reaches_every_feature, run_rows_of,
                       start_averaging, stop_averaging)

from ..rules.confidence_table import GAUSSIAN_RULES, SHARED, GaussianRule

cdef enum:
    DIAGONAL = 0
    PER_CLASS = 1
    SHARED_FULL = 2

cdef enum:
    PROJECT = 0
    DROP = 1
    EXACT = 2

#: the covariance layouts, by name
onlinear_simd_init()  # (the scores: simd.h's score_sparse, through row_pass.pxd)
onlinear_gaussian_init()  # (the full layouts' sweeps: gaussian_simd.h)

LAYOUTS = {"diagonal": DIAGONAL, "per-class": PER_CLASS, "shared": SHARED_FULL}
#: the diagonal forms, by name (``"exact"``: NHERD only)
DIAGONAL_FORMS = {"project": PROJECT, "drop": DROP, "exact": EXACT}
#: a diagonal pass skips V on a round the rule cannot update only while ‖x‖²·σ_max stays below
#: HUGE and ‖x‖²·σ_min above nnz·TINY: there V would have been finite (≤ 2.01·‖x‖²·σ_max, a
#: factor 2^23 below overflow for the roundings up of σ's steps) and positive (its largest term
#: ≥ ‖x‖²·σ_min/(1.01·nnz) ≫ the smallest subnormal), so the skip changes neither the
#: ValueError nor the count of skipped rounds (module doc)
cdef double HUGE = ldexp(1.0, 1000)
cdef double TINY = ldexp(1.0, -1000)
#: entries of the optional ``counts`` array
REPAIRED, SKIPPED = 0, 1


cdef struct Model:
    Py_ssize_t d
    Py_ssize_t K
    int layout
    int form
    gaussian_step_function step
    const double *params
    double nherd_C
    double min_variance
    double full_floor        # full layouts: the smallest variance along a row (module doc)
    double rule_bound        # the rule's margin bound (``GaussianRow.margin_bound``; else +∞)
    double margin_bound      # a long diagonal pass: rule_bound, V skipped on rounds of m ≥ it
    double sigma_low         #   while σ_min and σ_max over the pass keep V sound (else +∞)
    double sigma_high
    double *mu
    double *cov
    double *scores
    double *u
    double *w
    double *x                # full layouts: the row scattered to d values (zeros elsewhere)
    unsigned char *moved     # full layouts: the matrices whose lower triangle is behind
    Py_ssize_t n_matrices
    int64_t repaired
    int64_t skipped
    bint narow               # NAROW's rounds (module doc), with:
    bint libol               #   LIBOL's NAROW.m step
    double narow_b           #   its b
    double *theta            #   θ, (d, K)
    double *chis             #   χ_k of the round's outputs (K)
    double *steps            #   full layout: A_k⁻¹x of each output (K·d)


# ------------------------------------------------------------------------------ the round
cdef inline double _shrunk(Model *M, double sig, double x2, GaussianStep s) noexcept nogil:
    """A diagonal σ_j after the round's step (x2 = x_j²), repaired as the module doc says."""
    cdef double grow
    if M.form == PROJECT:
        grow = s.c * sig * x2
        if grow == grow:  # (NaN only from c = ∞ on an x_j² that underflowed to 0: no step)
            sig = sig / (1.0 + grow)  # = 1/(1/σ + c·x²), one division
    elif M.form == DROP:
        sig = sig - s.beta * sig * sig * x2
        if not (sig > 0.0):
            sig = DBL_MIN
            M.repaired += 1
    else:
        sig = sig / ((1.0 + M.nherd_C * sig * x2) ** 2)
    return _floored(M, sig)


cdef inline double _floored(Model *M, double sig) noexcept nogil:
    """σ raised to ``min_variance``, or to the smallest normal float when that is larger
    (counted as a repair): M.min_variance is their maximum (module doc)."""
    if sig < M.min_variance:
        M.repaired += 1
        return M.min_variance
    return sig


cdef inline void _diagonal_move(Model *M, Py_ssize_t k, double sign, Py_ssize_t other,
                                GaussianStep s, const int64_t *idx, const double *vals,
                                Py_ssize_t nnz) noexcept nogil:
    """μ_k += sign·α·σ_k∘x and σ_k shrunk on x's non-zeros, and the same with −sign for the
    class ``other`` (−1: none) in the same sweep (its values share the feature's row)."""
    cdef Py_ssize_t p, at
    cdef double t, x
    if M.form == PROJECT and other >= 0 and isfinite(s.c):
        # both classes' σ/(1 + cσx²) from one division (1/(growth_k·growth_o)): a division
        # costs several multiplications, and it is most of this sweep (two or three roundings
        # more per σ, far below the tests' 1e-10); the non-zeros side by side (gaussian_simd.h)
        onlinear_gaussian_sweeps.diagonal_pair(idx, vals, nnz, M.mu, M.cov, M.K, k, other,
                                               sign * s.alpha, s.c, M.min_variance,
                                               &M.repaired)
        return
    for p in range(nnz):
        at = idx[p] * M.K
        x = vals[p]
        t = M.cov[at + k] * x
        M.mu[at + k] += sign * s.alpha * t
        M.cov[at + k] = _shrunk(M, M.cov[at + k], x * x, s)
        if other >= 0:
            t = M.cov[at + other] * x
            M.mu[at + other] += -sign * s.alpha * t
            M.cov[at + other] = _shrunk(M, M.cov[at + other], x * x, s)


cdef inline double _pair_variance(const double *sigma, Py_ssize_t K, Py_ssize_t y,
                                 Py_ssize_t support, const int64_t *idx, const double *vals,
                                 Py_ssize_t nnz) noexcept nogil:
    """V = Σ_j x_j²(σ_{j,y} + σ_{j,s}) of a diagonal layout, in four partial sums over the
    non-zeros p mod 4 (one chain waits an addition's latency a term: most of the sweep)."""
    cdef Py_ssize_t p = 0
    cdef double v0 = 0.0, v1 = 0.0, v2 = 0.0, v3 = 0.0
    while p + 4 <= nnz:
        v0 += vals[p] * vals[p] * (sigma[idx[p] * K + y] + sigma[idx[p] * K + support])
        v1 += vals[p + 1] * vals[p + 1] * (sigma[idx[p + 1] * K + y]
                                           + sigma[idx[p + 1] * K + support])
        v2 += vals[p + 2] * vals[p + 2] * (sigma[idx[p + 2] * K + y]
                                           + sigma[idx[p + 2] * K + support])
        v3 += vals[p + 3] * vals[p + 3] * (sigma[idx[p + 3] * K + y]
                                           + sigma[idx[p + 3] * K + support])
        p += 4
    while p < nnz:
        v0 += vals[p] * vals[p] * (sigma[idx[p] * K + y] + sigma[idx[p] * K + support])
        p += 1
    return (v0 + v1) + (v2 + v3)


@cython.cdivision(True)
cdef inline void _full_move(Model *M, Py_ssize_t k, double *S, const double *u, double alpha,
                            double beta, double rest, double v, double x2,
                            bint move_matrix) noexcept nogil:
    """μ_k += alpha·u, then (if ``move_matrix``) the congruence of S with ``beta``
    (``rest`` = 1 − β·v, v = xᵀSx, x2 = ‖x‖²), its shrinking along x held where float64 cannot
    resolve it (module doc; ``_full_covariance.held_congruence``); S's lower triangle is left
    behind (:func:`_mirror`)."""
    cdef Py_ssize_t i
    for i in range(M.d):
        M.mu[i * M.K + k] += alpha * u[i]
    if move_matrix and held_congruence(S, M.d, u, beta, rest, v, x2, M.full_floor, M.x, M.w,
                                       &M.repaired):
        M.moved[(S - M.cov) // (M.d * M.d)] = True


cdef void _mirror(Model *M) noexcept nogil:
    """Copy the upper triangle of every full matrix the rounds moved to its lower triangle
    (``_full_covariance.mirror_upper``): the state is symmetric bit for bit again.  It runs
    after every ``learn_one`` round that moved a matrix (once per pass in a pass)."""
    cdef Py_ssize_t k
    if M.layout == DIAGONAL:
        return
    for k in range(M.n_matrices):
        if M.moved[k]:
            mirror_upper(M.cov + k * M.d * M.d, M.d)
            M.moved[k] = False


cdef inline double _project_beta(double c, double v) noexcept nogil:
    """c/(1 + c·v), the β of Σ⁻¹ += c·xxᵀ on a matrix of xᵀΣx = v; 1/v at c = ∞ (its limit:
    Σx → 0)."""
    return c / (1.0 + c * v) if isfinite(c) else 1.0 / v


cdef inline double _pair_rest(double c, double v_other, double V) noexcept nogil:
    """1 − β·v of a per-class ``drop`` step, (1 + c·v_other)/(1 + c·V); v_other/V at c = ∞."""
    return (1.0 + c * v_other) / (1.0 + c * V) if isfinite(c) else v_other / V


cdef Py_ssize_t _round(Model *M, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                       Py_ssize_t y, bint *updated) noexcept nogil:
    """One round on the row (idx, vals): the class predicted before the update (binary: 0 or
    1), or −1 when a score, V or a coefficient is not finite (nothing changed)."""
    cdef Py_ssize_t K = M.K, d = M.d, k, p, predicted = 0, support = 0
    cdef double m, V, z = 1.0, q = 0.0, v_y = 0.0, v_s = 0.0, x, x2 = 0.0
    cdef double *S_y = NULL
    cdef double *S_s = NULL
    cdef GaussianStep s
    updated[0] = False
    q = feature_major_scores(M.mu, K, idx, vals, nnz, M.scores)
    for k in range(K):
        if not isfinite(M.scores[k]):
            return -1
    if K == 1:
        predicted = 1 if M.scores[0] > 0.0 else 0
        z = 1.0 if y == 1 else -1.0
        m = z * M.scores[0]
    else:
        for k in range(1, K):
            if M.scores[k] > M.scores[predicted]:
                predicted = k
        support = 1 if y == 0 else 0
        for k in range(K):
            if k != y and M.scores[k] > M.scores[support]:
                support = k
        m = M.scores[y] - M.scores[support]
    if m >= M.margin_bound and q * M.sigma_high < HUGE and q * M.sigma_low >= nnz * TINY:
        return predicted  # (the rule takes no step whatever V: V is not computed)
    # the margin variance in the layout
    if M.layout == DIAGONAL:
        V = 0.0
        if K == 1:
            for p in range(nnz):
                V += vals[p] * vals[p] * M.cov[idx[p]]
        else:
            V = _pair_variance(M.cov, K, y, support, idx, vals, nnz)
    elif M.layout == PER_CLASS:
        S_y = M.cov + (y if K > 1 else 0) * d * d
        S_s = M.cov + support * d * d
        v_y = full_times(S_y, d, M.x, idx, vals, nnz, M.u)
        V = v_y
        if K > 1:
            v_s = full_times(S_s, d, M.x, idx, vals, nnz, M.u + d)
            V = v_y + v_s
    else:
        v_y = full_times(M.cov, d, M.x, idx, vals, nnz, M.u)
        V = v_y
    if not isfinite(V):
        return -1
    if not (V > 0.0):
        if q > 0.0:
            M.skipped += 1
        return predicted
    s = M.step(m, V, M.params)
    if not (s.alpha > 0.0):
        return predicted
    if not (isfinite(s.alpha) and isfinite(s.beta) and s.c == s.c):
        return -1  # (c = +∞ is taken: the steps below use its limit)
    updated[0] = True
    if M.layout != DIAGONAL:
        for p in range(nnz):
            x2 += vals[p] * vals[p]
    if M.layout == DIAGONAL:
        _diagonal_move(M, 0 if K == 1 else y, z, -1 if K == 1 else support, s, idx, vals, nnz)
    elif M.layout == PER_CLASS and K > 1:
        if M.form == PROJECT:
            _full_move(M, y, S_y, M.u, s.alpha, _project_beta(s.c, v_y),
                       1.0 / (1.0 + s.c * v_y), v_y, x2, True)
            _full_move(M, support, S_s, M.u + d, -s.alpha, _project_beta(s.c, v_s),
                       1.0 / (1.0 + s.c * v_s), v_s, x2, True)
        else:
            _full_move(M, y, S_y, M.u, s.alpha, s.beta, _pair_rest(s.c, v_s, V), v_y, x2, True)
            _full_move(M, support, S_s, M.u + d, -s.alpha, s.beta, _pair_rest(s.c, v_y, V),
                       v_s, x2, True)
    elif M.layout == PER_CLASS:
        _full_move(M, 0, S_y, M.u, z * s.alpha, s.beta, 1.0 / (1.0 + s.c * v_y), v_y, x2, True)
    else:
        _full_move(M, y, M.cov, M.u, s.alpha, s.beta, 1.0, v_y, x2, False)
        _full_move(M, support, M.cov, M.u, -s.alpha, s.beta, 1.0 / (1.0 + s.c * v_y), v_y, x2,
                   True)
    return predicted


@cython.cdivision(True)
cdef Py_ssize_t _narow_round(Model *M, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                             Py_ssize_t y, bint *updated) noexcept nogil:
    """NAROW's round (:mod:`onlinear.models.narow`), one-vs-rest over the K outputs: the class
    predicted (binary: 0 or 1), or −1 when a score or a χ_k is not finite (nothing changed:
    every χ_k is computed before any output moves)."""
    cdef Py_ssize_t K = M.K, d = M.d, k, p, i, at, predicted = 0
    cdef double z, chi, r, margin, loss, beta, coefficient, x, sig, x2
    cdef double *S
    cdef double *step
    cdef bint grows
    updated[0] = False
    feature_major_scores(M.mu, K, idx, vals, nnz, M.scores)
    for k in range(K):
        M.chis[k] = 0.0
    if M.layout == DIAGONAL:
        for p in range(nnz):
            at = idx[p] * K
            x = vals[p]
            for k in range(K):
                M.chis[k] += x * (M.cov[at + k] * x)
    else:
        for k in range(K):
            M.chis[k] = full_times(M.cov + k * d * d, d, M.x, idx, vals, nnz, M.steps + k * d)
    for k in range(K):
        if not (isfinite(M.scores[k]) and isfinite(M.chis[k])):
            return -1
    if K == 1:
        predicted = 1 if M.scores[0] > 0.0 else 0
    else:
        for k in range(1, K):
            if M.scores[k] > M.scores[predicted]:
                predicted = k
    for k in range(K):
        if K == 1:
            z = 1.0 if y == 1 else -1.0
        else:
            z = 1.0 if k == y else -1.0
        chi = M.chis[k]
        if not chi > 0.0:  # a zero row: no step (its θ increment is 0 anyway)
            continue
        grows = chi * M.narow_b > 1.0
        r = chi / (M.narow_b * chi - 1.0) if grows else INFINITY
        S = M.cov + k * d * d
        step = M.steps + k * d
        if M.libol:  # (full layout only)
            loss = max(0.0, 1.0 - z * M.scores[k])
            if not (loss > 0.0 and isfinite(r)):
                continue
            beta = 1.0 / (chi + r)
            coefficient = loss * beta * z
            for i in range(d):
                M.mu[i * K + k] += coefficient * step[i]
            onlinear_gaussian_sweeps.shrink(S, step, beta, M.x, d, M.w)
            M.moved[k] = True
            updated[0] = True
            continue
        margin = z * M.scores[k] * (r / (chi + r) if grows else 1.0)
        if not margin < 1.0:
            continue
        updated[0] = True
        for p in range(nnz):
            M.theta[idx[p] * K + k] += z * vals[p]
        if M.layout == DIAGONAL:
            for p in range(nnz):
                at = idx[p] * K + k
                if grows:
                    sig = M.cov[at]
                    M.cov[at] = sig / (1.0 + sig * vals[p] * vals[p] / r)
                M.mu[at] = M.cov[at] * M.theta[at]
            continue
        # A⁻¹ − (A⁻¹x)(A⁻¹x)ᵀ/(r + χ) on the upper triangle, as the congruence (its 1 − βχ
        # = r/(r + χ) without the cancellation of the subtraction, which took a variance along
        # a row far larger than the rest to exactly 0), held at the full layouts' floor
        if grows:
            x2 = 0.0
            for p in range(nnz):
                x2 += vals[p] * vals[p]
            if held_congruence(S, d, step, 1.0 / (r + chi), r / (r + chi), chi, x2,
                               M.full_floor, M.x, M.w, &M.repaired):
                M.moved[k] = True
        for i in range(d):  # w_k = A_k⁻¹θ_k, from θ_k gathered to u's first half
            M.u[i] = M.theta[i * K + k]
        onlinear_gaussian_sweeps.times(S, M.u, d, M.u + d)
        for i in range(d):
            M.mu[i * K + k] = M.u[d + i]
    return predicted


# --------------------------------------------------------------------------- entry points
def initial_state(str layout, Py_ssize_t n_features, Py_ssize_t n_outputs, double a=1.0):
    """``(mean, covariance)`` of a new learner: μ = 0 and Σ = a·I in the layout's shapes
    (module doc; ``n_outputs`` = 1 for the binary learner, K for K ≥ 2 classes)."""
    if not a > 0.0 or not np.isfinite(a):
        raise ValueError(f"the initial variance a must be positive and finite, got {a!r}")
    _layout_of(layout)
    mean = np.zeros((n_features, n_outputs))
    if layout == "diagonal":
        return mean, np.full((n_features, n_outputs), a)
    count = 1 if layout == "shared" else n_outputs
    return mean, np.repeat(a * np.eye(n_features)[None], count, axis=0)


cdef int _layout_of(str layout) except -1:
    if layout not in LAYOUTS:
        raise ValueError(f"unknown covariance layout {layout!r}; expected one of "
                         f"{sorted(LAYOUTS)}")
    return LAYOUTS[layout]


cdef int _fill_model(Model *M, int rule, str layout, str diagonal, mean, covariance,
                     const double[::1] params, double min_variance, double prior) except -1:
    """Check that the arrays fit each other, the layout and the rule (no index is checked in
    the loops), and point ``M`` at them."""
    try:
        row = GAUSSIAN_RULES[GaussianRule(rule)]
    except ValueError:
        raise ValueError(f"unknown Gaussian rule id {rule}") from None
    M.layout = _layout_of(layout)
    if diagonal not in DIAGONAL_FORMS:
        raise ValueError(f"unknown diagonal form {diagonal!r}; expected one of "
                         f"{sorted(DIAGONAL_FORMS)}")
    if diagonal not in row.diagonal_forms:
        raise ValueError(f"diagonal={diagonal!r} is not a form of {GaussianRule(rule).name} "
                         f"(it allows {list(row.diagonal_forms)})")
    M.form = DIAGONAL_FORMS[diagonal]
    if M.form == EXACT and M.layout != DIAGONAL:
        raise ValueError("diagonal='exact' applies to the diagonal layout only")
    if (layout == "shared") != (row.layouts == SHARED):
        raise ValueError(f"rule {GaussianRule(rule).name} serves the layouts "
                         f"{list(row.layouts)}, not {layout!r}")
    if params.shape[0] < len(row.params):
        raise ValueError(f"{GaussianRule(rule).name} reads {len(row.params)} parameters "
                         f"{row.params}, got {params.shape[0]}")
    if not min_variance >= 0.0:
        raise ValueError(f"min_variance must be ≥ 0, got {min_variance!r}")
    if not (prior > 0.0 and isfinite(prior)):
        raise ValueError(f"the prior variance must be positive and finite, got {prior!r}")
    _point_at(M, layout, mean, covariance)
    M.step = gaussian_step_of(rule)
    M.params = &params[0] if params.shape[0] > 0 else NULL
    M.nherd_C = (<const NherdParams *>&params[0]).C if M.form == EXACT else 0.0
    M.min_variance = max(min_variance, DBL_MIN)
    M.full_floor = full_floor(min_variance, prior)
    M.rule_bound = INFINITY if row.margin_bound is None else row.margin_bound
    return 0


cdef void _bound_margin(Model *M) noexcept nogil:
    """Let a diagonal pass of a rule with a margin bound skip V on the rounds it cannot update
    (``M.margin_bound``), with bounds σ_min, σ_max that every σ keeps through the pass: a step
    of AROW or NHERD (c ≥ 0, β ≥ 0) only shrinks σ (but for a few roundings up), and a σ
    raised is raised to M.min_variance.  None when a σ is NaN."""
    cdef Py_ssize_t i
    cdef double sig, low = M.min_variance, high = M.min_variance
    for i in range(M.d * M.K):
        sig = M.cov[i]
        if sig != sig:
            return
        low = min(low, sig)
        high = max(high, sig)
    M.sigma_low, M.sigma_high = low, high
    M.margin_bound = M.rule_bound


cdef int _point_at(Model *M, str layout, mean, covariance) except -1:
    """Check the mean and covariance against each other and the layout (``M.layout`` set),
    point ``M`` at them and zero its counters."""
    cdef double[:, ::1] mu_v
    cdef double[::1] cov_v
    if not isinstance(mean, np.ndarray) or mean.ndim != 2:
        raise ValueError("mean must be a 2-D float64 array of shape (n_features, n_outputs)")
    d, K = mean.shape
    if K < 1 or (layout == "shared" and K < 2):
        raise ValueError(f"a mean of {K} outputs for the layout {layout!r}")
    check_state("mean", mean, (d, K))
    shape = {DIAGONAL: (d, K), PER_CLASS: (K, d, d), SHARED_FULL: (1, d, d)}[M.layout]
    check_state("covariance", covariance, shape)
    mu_v = mean
    cov_v = covariance.reshape(-1)
    M.d = d
    M.K = K
    M.narow = M.libol = False
    M.theta = M.chis = M.steps = NULL
    M.mu = &mu_v[0, 0] if d > 0 else NULL
    M.cov = &cov_v[0] if cov_v.shape[0] > 0 else NULL
    M.n_matrices = {DIAGONAL: 0, PER_CLASS: K, SHARED_FULL: 1}[M.layout]
    M.repaired = 0
    M.skipped = 0
    M.rule_bound = M.margin_bound = INFINITY  # (V always computed: see _bound_margin)
    M.sigma_low = M.sigma_high = INFINITY
    return 0


cdef double *_scratch(Model *M) except NULL:
    """The rounds' buffers (scores, u, w, the scattered row zeroed, NAROW's χ_k and A_k⁻¹x, the
    moved flags) in one block, for the caller to free."""
    cdef size_t narow = (M.K + (M.K * M.d if M.layout != DIAGONAL else 0)) if M.narow else 0
    cdef size_t n = M.K + 4 * M.d + narow + 1
    cdef double *buffer = <double *>calloc(n * sizeof(double) + M.n_matrices + 1, 1)
    if buffer == NULL:
        raise MemoryError()
    M.scores = buffer
    M.u = buffer + M.K
    M.w = M.u + 2 * M.d
    M.x = M.w + M.d
    if M.narow:
        M.chis = M.x + M.d
        M.steps = M.chis + M.K
    M.moved = <unsigned char *>(buffer + n)
    return buffer


cdef int _check_counts(int64_t[::1] counts) except -1:
    if counts is not None and counts.shape[0] < 2:
        raise ValueError("counts must have 2 entries")
    return 0


cdef Py_ssize_t _play(void *model, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                      Py_ssize_t y, bint *updated) noexcept nogil:
    cdef Model *M = <Model *>model
    cdef Py_ssize_t p, predicted
    if M.layout == DIAGONAL:
        if M.narow:
            return _narow_round(M, idx, vals, nnz, y, updated)
        return _round(M, idx, vals, nnz, y, updated)
    for p in range(nnz):  # (the full layouts' BLAS calls take the whole row)
        M.x[idx[p]] = vals[p]
    if M.narow:
        predicted = _narow_round(M, idx, vals, nnz, y, updated)
    else:
        predicted = _round(M, idx, vals, nnz, y, updated)
    for p in range(nnz):
        M.x[idx[p]] = 0.0
    return predicted


class NotFiniteRound(ValueError):
    """A round whose score, margin variance or step is not finite stopped the pass (that
    round changed nothing, the rounds before it stay): ``row``, the row of X (None: the one
    row of a single round), for a caller that words the error for its own users."""

    def __init__(self, message, row=None):
        super().__init__(message)
        self.row = row


def _not_finite(where, row=None):
    return NotFiniteRound(f"{where}: a score, the margin variance or the step is not finite "
                          "(NaN or infinite values, or a row too large: rescale the input)", row)


def learn_pass(int rule, X, const int64_t[::1] y, const int64_t[::1] order, mean, covariance,
               const double[::1] params, predictions=None, *, str layout="diagonal",
               str diagonal="project", double min_variance=0.0, double prior=1.0,
               int64_t[::1] counts=None, avg_acc=None, avg_rounds=None):
    """One online pass of Gaussian rule ``rule`` over the rows ``X[order]``.

    Parameters
    ----------
    rule : int
        A :class:`onlinear.rules.confidence_table.GaussianRule`.
    X : ndarray or scipy.sparse CSR matrix, shape (n_rows, d)
        float32 or float64; dense C-contiguous, or CSR in canonical format (sorted indices, no
        duplicates: ``X.sum_duplicates()``), int32 or int64 indices.
    y : int64 array, shape (n_rows,)
        Label indices: 0 … K − 1 (binary learner, K = 1: 0 is −1, 1 is +1).
    order : int64 array
        The rows to play, in order (repetitions allowed).
    mean, covariance : float64 arrays
        The state, updated in place (see the module doc; :func:`initial_state`).
    params : float64 array
        :func:`onlinear.rules.confidence_table.parameter_vector` of the rule.
    predictions : int64 array of len(order), optional
        Receives the label index predicted for each round, before its update.
    layout : {"diagonal", "per-class", "shared"}
    diagonal : {"project", "drop", "exact"}
        The diagonal form (``"diagonal"`` layout) or which β a per-class matrix takes
        (``"project"``: c/(1 + c·xᵀΣ_k x); ``"drop"``: β).
    min_variance : float, default=0
        Floor of every diagonal σ after its update, and of a full Σ's xᵀΣx/‖x‖² after a step
        on x (0: none but float64's, module doc).
    prior : float, default=1
        The variance a of the prior Σ_1 = a·I: the scale of float64's floor under a full Σ
        (module doc).
    counts : int64 array of 2 entries, optional
        Incremented by the repairs (``counts[0]``: diagonal σ raised, full steps held) and the
        skipped non-zero rows with V ≤ 0 (``counts[1]``).
    avg_acc, avg_rounds : float64 arrays of shapes (d, K) and (1,), optional
        The averaging sums of the mean (module doc), updated in place; None: not averaging.

    Returns
    -------
    (n_mistakes, n_updates) : tuple of int
        The pass's rounds whose prediction was wrong, and those that updated (α > 0).

    Raises
    ------
    ValueError
        On arguments that do not fit (nothing changed), or on a round whose score, margin
        variance or step is not finite: that round changed nothing, the rounds before it stay.
    """
    cdef Model M
    _fill_model(&M, rule, layout, diagonal, mean, covariance, params, min_variance, prior)
    _check_counts(counts)
    return _run_pass(&M, X, y, order, predictions, counts, avg_acc, avg_rounds)


cdef int _start_averaging(Averaging *A, Model *M, avg_acc, avg_rounds) except -1:
    """Point ``A`` at the rounds of ``M`` and the averaging sums (module doc)."""
    start_averaging(A, _play, M, M.mu, M.d, M.K, M.layout != DIAGONAL, avg_acc, avg_rounds)
    return 0


cdef tuple _run_pass(Model *M, X, const int64_t[::1] y, const int64_t[::1] order, predictions,
                     int64_t[::1] counts, avg_acc, avg_rounds):
    """The pass of :func:`learn_pass` and :func:`narow_pass` on the filled model (averaged
    with the sums ``avg_acc`` and ``avg_rounds``, unless they are None)."""
    cdef Averaging A
    check_pass(X, y, order, predictions, M.d, M.K)
    if (M.rule_bound < INFINITY and M.layout == DIAGONAL and not M.narow
            and reaches_every_feature(X, order, M.d)):
        _bound_margin(M)  # (a long pass: the scan of the d·K variances pays)
    A.before = NULL
    cdef double *buffer = _scratch(M)
    try:
        if avg_acc is not None:  # (checked before any round)
            _start_averaging(&A, M, avg_acc, avg_rounds)
        mistakes, updates, failed = run_rows_of(_play, M, &A, X, y, order, predictions)
    finally:
        _mirror(M)
        free(buffer)
        stop_averaging(&A)
    if counts is not None:
        counts[REPAIRED] += M.repaired
        counts[SKIPPED] += M.skipped
    if failed >= 0:
        raise _not_finite(f"row {order[failed]} (position {failed} of the pass); the rounds "
                          "before it were taken", int(order[failed]))
    return mistakes, updates


def learn_row(int rule, indices, values, Py_ssize_t y, mean, covariance,
              const double[::1] params, *, str layout="diagonal", str diagonal="project",
              double min_variance=0.0, double prior=1.0, int64_t[::1] counts=None,
              avg_acc=None, avg_rounds=None):
    """One round (``learn_one``) on the row with non-zeros ``values`` at the column
    ``indices`` (1-D; no repeated index), of label index ``y``; the other arguments as
    :func:`learn_pass`.  Returns ``(prediction, updated)``: the label index predicted before
    the update and whether the round updated.  Raises ValueError, changing nothing, when a
    score, V or the step is not finite."""
    cdef Model M
    _fill_model(&M, rule, layout, diagonal, mean, covariance, params, min_variance, prior)
    _check_counts(counts)
    return _run_row(&M, indices, values, y, counts, avg_acc, avg_rounds)


cdef tuple _run_row(Model *M, indices, values, Py_ssize_t y, int64_t[::1] counts, avg_acc,
                    avg_rounds):
    """The round of :func:`learn_row` and :func:`narow_row` on the filled model (averaged
    with the sums ``avg_acc`` and ``avg_rounds``, unless they are None)."""
    cdef bint updated
    cdef Py_ssize_t predicted
    cdef Averaging A
    A.before = NULL
    cdef double *buffer = _scratch(M)
    try:
        if avg_acc is not None:  # (checked before the round)
            _start_averaging(&A, M, avg_acc, avg_rounds)
        predicted = play_row_of(_play, M, &A, indices, values, y, M.d, M.K, &updated)
    finally:
        _mirror(M)
        free(buffer)
        stop_averaging(&A)
    if counts is not None:
        counts[REPAIRED] += M.repaired
        counts[SKIPPED] += M.skipped
    if predicted < 0:
        raise _not_finite("the row")
    return predicted, bool(updated)


cdef class _HeldRound(RowRound):
    """A held round on the Gaussian state (:class:`GaussianRound`, :class:`NarowRound`): its
    model and scratch.  Its rounds leave the lower triangle of the full matrices they move
    behind (the moved flags kept from call to call) until :meth:`mirror` (the model calls
    it before any read of its covariance and before it drops the round): copying it after
    every ``learn_one`` cost as much as half of the round itself (USPS, 256 features)."""

    cdef Model M
    cdef Averaging A  # (with the averaging sums: the rounds are A's, on M)
    cdef double *buffer

    def __dealloc__(self):
        free(self.buffer)
        stop_averaging(&self.A)

    cdef int _average(self, avg_acc, avg_rounds) except -1:
        """Play the rounds averaged, with the sums ``avg_acc`` and ``avg_rounds`` (unless
        None)."""
        self.play = _play
        self.model = &self.M
        if avg_acc is not None:
            _start_averaging(&self.A, &self.M, avg_acc, avg_rounds)
            self.play = averaged_round
            self.model = &self.A
        return 0

    def mirror(self):
        """Copy the upper triangle of the full matrices the rounds moved since the last call
        to their lower triangle: the covariance is symmetric bit for bit again."""
        _mirror(&self.M)


cdef class GaussianRound(_HeldRound):
    """``learn_one``'s round of a Gaussian learner in one compiled call (:class:`RowRound`):
    the arrays and options of :func:`learn_row`, checked once; ``counts`` (seen, mistakes,
    updates) and ``repairs`` (the repair and skip counts of :func:`learn_pass`) kept here;
    ``exponent``: the accepted row norms ``[2^-e, 2^e]``; the full matrices' lower triangles
    brought up to date by :meth:`mirror`; ``avg_acc``, ``avg_rounds``: the averaging sums, or
    None."""

    cdef int64_t[::1] repairs

    def __init__(self, int rule, mean, covariance, const double[::1] params,
                 int64_t[::1] counts, int64_t[::1] repairs, *, str layout="diagonal",
                 str diagonal="project", double min_variance=0.0, double prior=1.0,
                 int exponent=505, avg_acc=None, avg_rounds=None):
        _fill_model(&self.M, rule, layout, diagonal, mean, covariance, params, min_variance,
                    prior)
        if repairs is None or repairs.shape[0] < 2:
            raise ValueError("repairs must have 2 entries")
        self.buffer = _scratch(&self.M)
        self.repairs = repairs
        self._average(avg_acc, avg_rounds)
        self.start(self.M.d, self.M.K, exponent, counts,
                   (mean, covariance, params, repairs, avg_acc, avg_rounds))

    cdef void after(self):
        self.repairs[REPAIRED] += self.M.repaired
        self.repairs[SKIPPED] += self.M.skipped
        self.M.repaired = 0
        self.M.skipped = 0


# ---------------------------------------------------------------------------------- NAROW
cdef int _fill_narow(Model *M, str layout, mean, covariance, theta, double b,
                     str variant, double prior) except -1:
    """Check NAROW's arrays and options (module doc) and point ``M`` at them."""
    cdef double[:, ::1] theta_v
    if layout not in ("diagonal", "per-class"):
        raise ValueError(f"NAROW's A⁻¹ is 'diagonal' or 'per-class', not {layout!r}")
    if variant not in ("dogma", "libol"):
        raise ValueError(f"unknown NAROW variant {variant!r}; expected 'dogma' or 'libol'")
    if variant == "libol" and layout != "per-class":
        raise ValueError("NAROW's variant='libol' (LIBOL's NAROW.m) needs a full A⁻¹ "
                         "(layout='per-class')")
    if not (b > 0.0 and isfinite(b)):
        raise ValueError(f"b must be positive and finite, got {b!r}")
    if not (prior > 0.0 and isfinite(prior)):
        raise ValueError(f"the prior variance must be positive and finite, got {prior!r}")
    M.layout = _layout_of(layout)
    M.form = PROJECT
    _point_at(M, layout, mean, covariance)
    check_state("theta", theta, mean.shape)
    theta_v = theta
    M.narow, M.libol, M.narow_b = True, variant == "libol", b
    M.theta = &theta_v[0, 0] if M.d > 0 else NULL
    M.min_variance = 0.0
    M.full_floor = full_floor(0.0, prior)  # (the full layout's hold: _narow_round)
    M.repaired = M.skipped = 0
    return 0


def narow_pass(X, const int64_t[::1] y, const int64_t[::1] order, mean, covariance, theta,
               predictions=None, *, double b=1.0, str layout="diagonal",
               str variant="dogma", double prior=1.0, avg_acc=None, avg_rounds=None):
    """One online pass of NAROW over the rows ``X[order]`` (the module doc; the math in
    :mod:`onlinear.models.narow`).

    Parameters
    ----------
    X, y, order, predictions
        As :func:`learn_pass`.
    mean, covariance : float64 arrays
        w and A⁻¹ in the layout (:func:`initial_state`), updated in place.
    theta : float64 array, shape (d, K)
        The sum θ, updated in place.
    b : float, default=1
        NAROW's b > 0: A grows only while χ = xᵀA⁻¹x > 1/b.
    layout : {"diagonal", "per-class"}
    variant : {"dogma", "libol"}
        The paper's (DOGMA's) rounds, or LIBOL's ``NAROW.m`` (``"per-class"`` only).
    prior : float, default=1
        a, the variance A⁻¹ started from: a full A⁻¹'s variance along a row is held at
        ‖x‖²·a·√DBL_MIN/ε (the Gaussian engine's floor, module doc).
    avg_acc, avg_rounds : float64 arrays of shapes (d, K) and (1,), optional
        The averaging sums of w (module doc), updated in place; None: not averaging.

    Returns
    -------
    (n_mistakes, n_updates) : tuple of int

    Raises
    ------
    ValueError
        On arguments that do not fit (nothing changed), or on a round whose score or χ is not
        finite: that round changed nothing, the rounds before it stay.
    """
    cdef Model M
    _fill_narow(&M, layout, mean, covariance, theta, b, variant, prior)
    return _run_pass(&M, X, y, order, predictions, None, avg_acc, avg_rounds)


def narow_row(indices, values, Py_ssize_t y, mean, covariance, theta, *, double b=1.0,
              str layout="diagonal", str variant="dogma", double prior=1.0, avg_acc=None,
              avg_rounds=None):
    """One NAROW round (``learn_one``) on the row with non-zeros ``values`` at the columns
    ``indices``; the other arguments as :func:`narow_pass`.  Returns ``(prediction,
    updated)``; raises ValueError, changing nothing, when a score or χ is not finite."""
    cdef Model M
    _fill_narow(&M, layout, mean, covariance, theta, b, variant, prior)
    return _run_row(&M, indices, values, y, None, avg_acc, avg_rounds)


cdef class NarowRound(_HeldRound):
    """``learn_one``'s NAROW round in one compiled call (:class:`RowRound`): the arrays and
    options of :func:`narow_row`, checked once; ``counts`` (seen, mistakes, updates) kept
    here; ``exponent``: the accepted row norms ``[2^-e, 2^e]``; the full matrices' lower
    triangles brought up to date by :meth:`mirror`; ``avg_acc``, ``avg_rounds``: the
    averaging sums, or None."""

    def __init__(self, mean, covariance, theta, int64_t[::1] counts, *, double b=1.0,
                 str layout="diagonal", str variant="dogma", double prior=1.0,
                 int exponent=505, avg_acc=None, avg_rounds=None):
        _fill_narow(&self.M, layout, mean, covariance, theta, b, variant, prior)
        self.buffer = _scratch(&self.M)
        self._average(avg_acc, avg_rounds)
        self.start(self.M.d, self.M.K, exponent, counts,
                   (mean, covariance, theta, avg_acc, avg_rounds))
