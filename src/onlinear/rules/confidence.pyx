# cython: language_level=3
"""Step rules of the Gaussian (confidence-weighted) learners: CW in its variance and
standard-deviation forms, SCW-I and SCW-II, AROW and NHERD, and the shared-covariance
multiclass forms (exact, and LIBOL's code as ``libol_*``).

Each learner keeps N(μ, Σ) over weight vectors and, on a round with margin m and margin
variance V (binary: m = y μ·x, V = xᵀΣx; multiclass: m = s_y − s_{s*} and V the variance of
that difference in the engine's layout), applies

    μ ← μ + α·y·Σx,    Σ ← Σ − β·(Σx)(Σx)ᵀ    ⇔    Σ⁻¹ ← Σ⁻¹ + c·xxᵀ,   β = c/(1 + c·V)

so a rule is a function ``(m, V, params) → (α, β, c)`` (one signature, ``confidence.pxd``),
reading its parameters through its struct (``_gaussian_params.pxd``, generated from
:mod:`onlinear.rules.confidence_table`).  α > 0 iff the round updates; every step returns
(0, 0, 0) when ``not (V > 0)`` (a zero row: the closed forms would divide 0 by 0).  φ = Φ⁻¹(η)
and ψ = 1 + φ²/2, ζ = 1 + φ² below.

The closed forms are those the LIBOL manual v0.3.0 prints (Hoi, Wang & Zhao, "LIBOL: A Library
for Online Learning Algorithms", JMLR 15:495–499, 2014; its Algorithms 8, 10, 12, 13), each the
solution of the optimisation problem its paper states.  The papers' own equation numbers are
not cited: they were not checked against the papers' text (UNCHECKED); each docstring names the
paper, its section where known, and the problem.
"""
from libc.math cimport sqrt

from ._gaussian_params cimport (ArowParams, CwStdParams, CwVarianceParams,
                                LibolSharedArowParams, LibolSharedCwParams,
                                LibolSharedScwIiParams, LibolSharedScwIParams, NherdParams,
                                ScwIiParams, ScwIiLibolParams, ScwIParams, SharedArowParams,
                                SharedCwParams, SharedScwIiParams, SharedScwIParams)

cdef GaussianStep NO_STEP = GaussianStep(0.0, 0.0, 0.0)


cdef inline GaussianStep _std_form(double alpha, double v, double phi,
                                   double paired) noexcept nogil:
    """(α, β, c) of the standard-deviation constraint after a mean step α: with
    √U = ½(√(a² + 4pv) − a), a = αvφ (U the post-update margin variance; p = 2 for the shared
    problem, whose margin variance is 2v), β = αφ/(√U + a), c = αφ/√U.  √U is computed as
    2pv/(√(a² + 4pv) + a): the printed difference cancels to 0 once αφ√v ≫ 1 (then c = ∞ and a
    diagonal σ collapses to 0)."""
    cdef double a, sqrt_u
    if not (alpha > 0.0):
        return NO_STEP
    a = alpha * v * phi
    sqrt_u = 2.0 * paired * v / (sqrt(a * a + 4.0 * paired * v) + a)
    return GaussianStep(alpha, alpha * phi / (sqrt_u + a), alpha * phi / sqrt_u)


cdef inline double _cw_std_alpha(double m, double v, double phi) noexcept nogil:
    """α of CW's standard-deviation form (LIBOL manual Algorithm 8):
    max{0, [−mψ + √(m²φ⁴/4 + vφ²ζ)]/(vζ)}; 0 when m ≥ φ√v."""
    cdef double psi = 1.0 + phi * phi / 2.0, zeta = 1.0 + phi * phi, alpha
    if not (v > 0.0) or m >= phi * sqrt(v):
        return 0.0
    alpha = (-m * psi + sqrt(m * m * phi ** 4 / 4.0 + v * phi * phi * zeta)) / (v * zeta)
    return alpha if alpha > 0.0 else 0.0


cdef GaussianStep cw_variance_step(double m, double v, const double *params) noexcept nogil:
    """CW, variance form (Dredze, Crammer & Pereira, "Confidence-Weighted Linear
    Classification", ICML 2008, §3): the KKT point of min KL(N(μ,Σ) ‖ N(μ_t,Σ_t)) subject to
    y μ·x ≥ φ xᵀΣx.  α is the positive root of 2φv²α² + v(1 + 2φm)α + (m − φv) = 0, computed
    as 2(φv − m)/(v(b + √disc)) when b = 1 + 2φm > 0 (no cancellation) and as the printed
    (−b + √disc)/(4φv) otherwise; β = 2αφ/(1 + 2αφv), c = 2αφ.  Updates iff m < φv."""
    cdef double phi = (<const CwVarianceParams *>params).phi, b, root, gamma
    if not (v > 0.0) or m >= phi * v:
        return NO_STEP
    b = 1.0 + 2.0 * phi * m
    root = sqrt(b * b - 8.0 * phi * (m - phi * v))
    if b > 0.0:
        gamma = 2.0 * (phi * v - m) / (v * (b + root))
    else:
        gamma = (-b + root) / (4.0 * phi * v)
    if not (gamma > 0.0):
        return NO_STEP
    return GaussianStep(gamma, 2.0 * gamma * phi / (1.0 + 2.0 * gamma * phi * v),
                        2.0 * gamma * phi)


cdef GaussianStep cw_std_step(double m, double v, const double *params) noexcept nogil:
    """CW, exact standard-deviation form (Crammer, Dredze & Pereira, "Exact Convex
    Confidence-Weighted Learning", NIPS 2008): min KL(N(μ,Σ) ‖ N(μ_t,Σ_t)) subject to
    y μ·x ≥ φ√(xᵀΣx).  α = max{0, [−mψ + √(m²φ⁴/4 + vφ²ζ)]/(vζ)}, u = ¼(−αvφ + √(α²v²φ² +
    4v))², β = αφ/(√u + vαφ), c = αφ/√u (LIBOL manual Algorithm 8).  Updates iff m < φ√v."""
    cdef double phi = (<const CwStdParams *>params).phi
    return _std_form(_cw_std_alpha(m, v, phi), v, phi, 1.0)


cdef GaussianStep scw_i_step(double m, double v, const double *params) noexcept nogil:
    """SCW-I (Wang, Zhao & Hoi, "Exact Soft Confidence-Weighted Learning", ICML 2012):
    min KL + C·ℓ^φ with ℓ^φ = max(0, φ√(xᵀΣx) − y μ·x); α = min{C, α_CW-std}, β and c as
    CW-std's (LIBOL manual Algorithm 13).  Updates iff m < φ√v."""
    cdef const ScwIParams *p = <const ScwIParams *>params
    cdef double alpha = _cw_std_alpha(m, v, p.phi)
    return _std_form(alpha if alpha < p.C else p.C, v, p.phi, 1.0)


cdef inline double _scw_ii_alpha(double m, double v, double phi, double C, double n_scale,
                                 bint libol) noexcept nogil:
    """SCW-II's α: n = pv + 1/(2C), γ = φ√(φ²m²v² + 4pnv(n + vφ²)),
    α = max{0, [−(2mn + φ²mv) + γ]/(2(n² + nvφ²))} (p = ``n_scale``: 1 binary, 2 shared);
    ``libol``: LIBOL's SCW2.m radicand, v·2 for v² and φ·2 for φ² (binary only)."""
    cdef double n = n_scale * v + 1.0 / (2.0 * C), gamma, alpha, r, mu
    if libol:
        gamma = sqrt(phi ** 4 * m * m * v * 2.0 + 4.0 * n * v * phi * phi * (n + v * phi * 2.0))
        alpha = (-(2.0 * m * n + phi * phi * m * v) + gamma) / (2.0 * (n * n + n * v * phi * phi))
    else:
        # numerator and denominator divided by n² (r = v/n ≤ 1/p, μ = m/n): the printed form
        # squares and cubes v, which overflows from v ≈ 1e102 (rows of norm ≈ 1e51 at a = 1)
        r = v / n
        mu = m / n
        gamma = phi * sqrt(phi * phi * mu * mu * r * r
                           + 4.0 * n_scale * r * (1.0 + r * phi * phi) / n)
        alpha = (-mu * (2.0 + phi * phi * r) + gamma) / (2.0 * (1.0 + r * phi * phi))
    return alpha if alpha > 0.0 else 0.0


cdef GaussianStep scw_ii_step(double m, double v, const double *params) noexcept nogil:
    """SCW-II (Wang, Zhao & Hoi, ICML 2012): min KL + C·(ℓ^φ)²; n = v + 1/(2C),
    γ = φ√(φ²m²v² + 4nv(n + vφ²)), α = max{0, [−(2mn + φ²mv) + γ]/(2(n² + nvφ²))}, β and c as
    CW-std's (LIBOL manual Algorithm 13).  Updates iff m < φ√v."""
    cdef const ScwIiParams *p = <const ScwIiParams *>params
    if not (v > 0.0) or m >= p.phi * sqrt(v):
        return NO_STEP
    return _std_form(_scw_ii_alpha(m, v, p.phi, p.C, 1.0, False), v, p.phi, 1.0)


cdef GaussianStep scw_ii_libol_step(double m, double v, const double *params) noexcept nogil:
    """LIBOL's binary SCW-II as coded (``SCW2.m``, whose radicand reads v·2 for v² and φ·2 for
    φ²): not the SCW-II optimum; for reproducing LIBOL's numbers only."""
    cdef const ScwIiLibolParams *p = <const ScwIiLibolParams *>params
    if not (v > 0.0) or m >= p.phi * sqrt(v):
        return NO_STEP
    return _std_form(_scw_ii_alpha(m, v, p.phi, p.C, 1.0, True), v, p.phi, 1.0)


cdef GaussianStep arow_step(double m, double v, const double *params) noexcept nogil:
    """AROW (Crammer, Kulesza & Dredze, "Adaptive Regularization of Weight Vectors", NIPS
    2009): min KL + (1/2r)·max(0, 1 − y μ·x)² + (1/2r)·xᵀΣx, whose minimiser on a round with
    m < 1 is β = 1/(v + r), α = (1 − m)β, c = 1/r (LIBOL manual Algorithm 10; on rounds with
    m ≥ 1 the algorithm does not update, which is not the objective's minimiser: its Σ term
    still pulls)."""
    cdef double r = (<const ArowParams *>params).r, beta
    if not (v > 0.0) or m >= 1.0:
        return NO_STEP
    beta = 1.0 / (v + r)
    return GaussianStep((1.0 - m) * beta, beta, 1.0 / r)


cdef GaussianStep nherd_step(double m, double v, const double *params) noexcept nogil:
    """NHERD, Normal Herd (Crammer & Lee, "Learning via Gaussian Herding", NIPS 2010; LIBOL
    manual Algorithm 12 with γ = 1/C): α = (1 − m)/(v + 1/C); Σ' = AΣAᵀ with
    A = (I + CΣxxᵀ)⁻¹, i.e. c = 2C + C²v, β = (C²v + 2C)/(1 + Cv)².  Updates iff m < 1."""
    cdef double C = (<const NherdParams *>params).C
    if not (v > 0.0) or m >= 1.0:
        return NO_STEP
    return GaussianStep((1.0 - m) / (v + 1.0 / C), (C * C * v + 2.0 * C) / ((1.0 + C * v) ** 2),
                        2.0 * C + C * C * v)


# ------------------------------------------------------------ one covariance shared by classes
# The LIBOL manual's multiclass problem (§3.2.3): w_y and w_{s*} independent with one Σ, so the
# margin m = s_y − s_{s*} has variance 2v with v = xᵀΣx (the engine passes v).


cdef inline double _shared_cw_alpha(double m, double v, double phi) noexcept nogil:
    cdef double psi = 1.0 + phi * phi / 2.0, alpha
    alpha = (-m * (psi + 1.0) + sqrt(m * m * phi ** 4 / 4.0 + 8.0 * v * psi * phi * phi)) \
        / (4.0 * v * psi)
    return alpha if alpha > 0.0 else 0.0


cdef GaussianStep shared_cw_step(double m, double v, const double *params) noexcept nogil:
    """Shared-Σ CW (the LIBOL manual's multiclass problem, §3.2.3, with the hard constraint
    m' ≥ φ√(2v')): its exact solution α = max{0, [−m(ψ+1) + √(m²φ⁴/4 + 8vψφ²)]/(4vψ)},
    √U = √(2v') as in CW-std with 2v.  Updates iff m < φ√(2v)."""
    cdef double phi = (<const SharedCwParams *>params).phi
    if not (v > 0.0) or m >= phi * sqrt(2.0 * v):
        return NO_STEP
    return _std_form(_shared_cw_alpha(m, v, phi), v, phi, 2.0)


cdef GaussianStep shared_scw_i_step(double m, double v, const double *params) noexcept nogil:
    """Shared-Σ SCW-I (LIBOL manual §3.2.3, exact solution): α = min{C, α_shared-CW}."""
    cdef const SharedScwIParams *p = <const SharedScwIParams *>params
    cdef double alpha
    if not (v > 0.0) or m >= p.phi * sqrt(2.0 * v):
        return NO_STEP
    alpha = _shared_cw_alpha(m, v, p.phi)
    return _std_form(alpha if alpha < p.C else p.C, v, p.phi, 2.0)


cdef GaussianStep shared_scw_ii_step(double m, double v, const double *params) noexcept nogil:
    """Shared-Σ SCW-II (LIBOL manual §3.2.3, exact solution; the formula of LIBOL's
    ``M_SCW2``): n = 2v + 1/(2C), α = max{0, [−(2mn + φ²mv) + φ√(φ²m²v² + 8nv(n + vφ²))]
    /(2(n² + nvφ²))}.  Updates iff m < φ√(2v)."""
    cdef const SharedScwIiParams *p = <const SharedScwIiParams *>params
    if not (v > 0.0) or m >= p.phi * sqrt(2.0 * v):
        return NO_STEP
    return _std_form(_scw_ii_alpha(m, v, p.phi, p.C, 2.0, False), v, p.phi, 2.0)


cdef GaussianStep shared_arow_step(double m, double v, const double *params) noexcept nogil:
    """Shared-Σ AROW: the minimiser of KL_y + KL_{s*} + (1/2r)ℓ_h² + (1/2r)·2xᵀΣx on a round
    with m < 1: α = (1 − m)/(2v + r), β = 1/(v + r), c = 1/r."""
    cdef double r = (<const SharedArowParams *>params).r
    if not (v > 0.0) or m >= 1.0:
        return NO_STEP
    return GaussianStep((1.0 - m) / (2.0 * v + r), 1.0 / (v + r), 1.0 / r)


cdef inline double _libol_cw_alpha(double m, double v, double phi) noexcept nogil:
    cdef double psi = 1.0 + phi * phi / 2.0, alpha
    alpha = (-m * psi + sqrt(m * m * psi * psi - m * m * psi + 2.0 * v * phi * phi * psi)) \
        / (2.0 * v * psi)
    return alpha if alpha > 0.0 else 0.0


cdef GaussianStep libol_shared_cw_step(double m, double v, const double *params) noexcept nogil:
    """LIBOL's ``M_CW`` as coded: trigger m < φ√v and the binary CW-std α with v → 2v, ζ → ψ
    (not the shared problem's solution, :func:`shared_cw_step`); β from the shared U given
    that α.  For reproducing LIBOL's numbers only."""
    cdef double phi = (<const LibolSharedCwParams *>params).phi
    if not (v > 0.0) or m >= phi * sqrt(v):
        return NO_STEP
    return _std_form(_libol_cw_alpha(m, v, phi), v, phi, 2.0)


cdef GaussianStep libol_shared_scw_i_step(double m, double v,
                                          const double *params) noexcept nogil:
    """LIBOL's ``M_SCW1`` as coded: min{C, the ``M_CW`` α}, trigger m < φ√v."""
    cdef const LibolSharedScwIParams *p = <const LibolSharedScwIParams *>params
    cdef double alpha
    if not (v > 0.0) or m >= p.phi * sqrt(v):
        return NO_STEP
    alpha = _libol_cw_alpha(m, v, p.phi)
    return _std_form(alpha if alpha < p.C else p.C, v, p.phi, 2.0)


cdef GaussianStep libol_shared_scw_ii_step(double m, double v,
                                           const double *params) noexcept nogil:
    """LIBOL's ``M_SCW2`` as coded: the exact shared SCW-II α behind the trigger m < φ√v."""
    cdef const LibolSharedScwIiParams *p = <const LibolSharedScwIiParams *>params
    if not (v > 0.0) or m >= p.phi * sqrt(v):
        return NO_STEP
    return _std_form(_scw_ii_alpha(m, v, p.phi, p.C, 2.0, False), v, p.phi, 2.0)


cdef GaussianStep libol_shared_arow_step(double m, double v, const double *params) noexcept nogil:
    """LIBOL's ``M_AROW`` as coded: α = (1 − m)/(v + r) (the shared problem's is
    (1 − m)/(2v + r)), β = 1/(v + r)."""
    cdef double r = (<const LibolSharedArowParams *>params).r, beta
    if not (v > 0.0) or m >= 1.0:
        return NO_STEP
    beta = 1.0 / (v + r)
    return GaussianStep((1.0 - m) * beta, beta, 1.0 / r)
