"""Step rules of the relaxed-maximum-margin and maximum-cosine learners: ROMMA and aggressive ROMMA
(Li & Long 2002), NAROMMA, CMCP and MCP (Bshouty & Haddad-Zaknoon, "The Maximum Cosine Framework
for Deriving Perceptron Based Linear Classifiers", ALT 2016; aggressive ROMMA as restated in
their Table 1, §3.2).

All are binary (label z = ±1 per output; one-vs-rest on more classes) and *scale-free*: their
predictions depend only on the direction of w (every step is proportional to ‖w‖, so only the
cosine α_i of Bshouty & Haddad-Zaknoon's Eq. 1 matters; our observation, tested).  So the engine
keeps every
output at unit norm after each step (which also keeps long streams finite), and the rule keeps its
scalar certificate in ``state[CERTIFICATE, r]``:
``ρ = 1/ℓ*`` (= 1/‖u‖ for ROMMA) for the ROMMA family, ``ℓ`` for MCP/CMCP.  Working with ρ
instead of ℓ* is our numerically robust rewriting of Lemma 6 / Table 2 (not in the paper,
algebraically identical): ℓ* grows geometrically on noisy data and overflows, ρ only tends to 0.

The first non-zero example of an output initializes it: ``ŵ = z a/‖a‖`` (MCP/NAROMMA's
``w_1 = y_0 a_0``, and ROMMA's ``u_1 = y_0 a_0/‖a_0‖²`` — the same direction), with
``ρ = ‖a_0‖`` or ``ℓ = 1/‖a_0‖``.  The paper does not predict on a_0; the engine does (score 0),
so a_0 can count as a mistake — harmless for the bounds, which have a "+1" to spare (the proof
of Theorem 10, Eq. 44, drops the initial 1/‖a_0‖² from ℓ², so in fact t + 1 ≤ (R/γ)²).

Scale: x → c·x changes nothing but the units of u (1/c) and of the certificates, so the
predictions are the same at every scale the estimators accept (tested from 2^-495 to 2^495).
"""
from libc.stdint cimport int64_t
from libc.math cimport INFINITY, fabs, hypot, sqrt

from .._core._store cimport FIRST_RULE_ROW, squared_norm
from ._rule_params cimport MaximumCosineParams, NarommaParams, RommaParams
from .ultraconservative cimport binary_label

CERTIFICATE = FIRST_RULE_ROW
cdef Py_ssize_t _CERT = FIRST_RULE_ROW

# |cos(w, a)| above 1 − this counts as collinear (our tolerance for the test of step 4 of
# Bshouty & Haddad-Zaknoon's Fig. 1, which the paper states as an exact equality).
cdef double _COLLINEAR = 1e-12
# a quotient beyond this is taken divided through (see romma_steps)
cdef double _HUGE = 1e300


cdef inline void _initialize(Py_ssize_t m, Py_ssize_t r, double z, double *tau, double *state,
                             double certificate) noexcept nogil:
    tau[r] = z
    state[_CERT * m + r] = certificate


cdef inline void _restart_along(Py_ssize_t m, Py_ssize_t r, double z, double q, double *state,
                                double *tau, double *factor) noexcept nogil:
    """Type II of both ROMMA forms: ``w ← z a`` (the old w dropped), ``ρ = ‖a‖``."""
    factor[r] = 0.0
    tau[r] = z
    state[_CERT * m + r] = sqrt(q)


cdef inline double _length(double coef_w, double coef_a, double projection,
                           double gap) noexcept nogil:
    """‖coef_w·ŵ + coef_a·a‖ for a unit ŵ, ``projection = ŵ·a`` and ``gap = ‖a‖² − projection²``,
    as a sum of squares (a = projection·ŵ + a⊥), which does not cancel."""
    cdef double along = coef_w + coef_a * projection
    return sqrt(along * along + coef_a * coef_a * max(gap, 0.0))


cdef void romma_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                      const double *params, double *state, double *tau, double *factor,
                      int64_t *order) noexcept nogil:
    """ROMMA (``kind=MISTAKE_DRIVEN``: updates on mistakes ``z(u·a) ≤ 0``) and aggressive ROMMA
    (``kind=AGGRESSIVE``: updates whenever ``z(u·a) < 1``), Table 1 of Bshouty &
    Haddad-Zaknoon (§3.2), after Li & Long:

    * Type I,   ``z(u·a) ≥ 1``: no change;
    * Type II,  ``1 > z(u·a) ≥ ‖a‖²‖u‖²``: ``u ← z a/‖a‖²``;
    * Type III, otherwise: ``u ← c u + d a`` with (25)–(26)
      ``c = (‖a‖²‖u‖² − z(u·a)) / (‖a‖²‖u‖² − (u·a)²)``,
      ``d = ‖u‖²(z − u·a) / (‖a‖²‖u‖² − (u·a)²)``.

    Evaluated with ``u = ŵ/ρ`` (ρ = 1/‖u‖) and ``ŝ = ŵ·a``: Type I iff ``zŝ ≥ ρ``, Type II iff
    ``zŝρ ≥ ‖a‖²``, and Type III is ``u' ∝ c ŵ + (dρ) a`` with ``c = (A − zŝρ)/(A − ŝ²)``,
    ``dρ = (zρ − ŝ)/(A − ŝ²)`` and ``ρ' = ρ/‖c ŵ + dρ a‖`` — the same algebra, no overflow.
    Anti-parallel examples (``A − ŝ² = 0``, the QP is infeasible and the denominators of
    Eqs. 25–26 vanish) are skipped; the paper does not cover this case.
    """
    cdef int kind = <int>(<const RommaParams *>params).kind
    cdef double z, norm_w, projection, rho, margin, gap, c, d_rho, length
    cdef Py_ssize_t r
    for r in range(m):
        z = binary_label(m, y, r)
        norm_w = sqrt(squared_norm(state, m, r))
        if norm_w == 0.0:
            _initialize(m, r, z, tau, state, sqrt(q))
            continue
        projection = scores[r] / norm_w
        rho = state[_CERT * m + r]
        margin = z * projection
        if kind == MISTAKE_DRIVEN and margin > 0.0:
            continue
        if margin >= rho:
            continue
        if margin * rho >= q:
            _restart_along(m, r, z, q, state, tau, factor)
            continue
        gap = q - projection * projection
        if gap <= _COLLINEAR * q:
            continue
        c = (q - margin * rho) / gap
        along = z * rho - projection  # dρ·gap
        if fabs(along) <= _HUGE * gap:
            d_rho = along / gap
            length = _length(c, d_rho, projection, gap)
            if length > 0.0:
                factor[r] = c / norm_w
                tau[r] = d_rho
                state[_CERT * m + r] = rho / length
        else:
            # dρ overflows (‖a‖ tiny against 1/ρ: rows of extreme ratio): the same direction
            # and certificate divided through by |dρ| = |along|/gap, which is finite
            shrink = gap / fabs(along)
            c = c * shrink
            d_rho = 1.0 if along > 0.0 else -1.0
            length = _length(c, d_rho, projection, gap)
            if length > 0.0:
                factor[r] = c / norm_w
                tau[r] = d_rho
                state[_CERT * m + r] = (rho * shrink) / length


cdef void naromma_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                        const double *params, double *state, double *tau, double *factor,
                        int64_t *order) noexcept nogil:
    """NAROMMA (Bshouty & Haddad-Zaknoon §3.1, Lemma 6, Eqs. 21–22, Table 2 and Fig. 1) in our
    ρ = 1/ℓ* form (algebraically identical; not in the paper).

    With ``g = z(ŵ·a)`` (γ_i of (7)):
    * Type I,   ``g ≥ ρ``: no change;
    * Type II,  ``gρ ≥ ‖a‖²``: ``w ← z a``, ``ρ ← ‖a‖``;
    * Type III: ``w ← w + ((ρ − g)/(A − gρ))‖w‖ z a`` and ``ρ ← ρ/sqrt(1 + (g − ρ)²/(A − g²))``
      (the square root of Table 2's ℓ*², the corrected entry).
    Collinear examples: ``skip=SKIP_ANTIPARALLEL`` (default) skips only ``z a ∥ −w`` (a true
    division by zero), which keeps Theorem 7's equivalence with aggressive ROMMA exact;
    ``skip=SKIP_COLLINEAR`` skips both directions as step 4 of the paper's Fig. 1 does (skipping
    a parallel example breaks Theorem 7's ‖u_i‖ = ℓ*_i; our finding, a regression test).
    """
    cdef int skip = <int>(<const NarommaParams *>params).skip
    cdef double z, norm_w, projection, g, rho, gap
    cdef Py_ssize_t r
    for r in range(m):
        z = binary_label(m, y, r)
        norm_w = sqrt(squared_norm(state, m, r))
        if norm_w == 0.0:
            _initialize(m, r, z, tau, state, sqrt(q))
            continue
        projection = scores[r] / norm_w
        g = z * projection
        if fabs(projection) >= (1.0 - _COLLINEAR) * sqrt(q):
            if skip == SKIP_COLLINEAR or g < 0.0:
                continue
        rho = state[_CERT * m + r]
        if g >= rho:
            continue
        if g * rho >= q:
            _restart_along(m, r, z, q, state, tau, factor)
            continue
        gap = q - g * g
        if gap <= 0.0:
            continue
        tau[r] = z * norm_w * (rho - g) / (q - g * rho)  # (inf: the engine takes the row)
        grown = (g - rho) * (g - rho) / gap
        if grown < INFINITY:
            state[_CERT * m + r] = rho / sqrt(1.0 + grown)
        else:  # (rows of extreme ratio: the same value without the overflowing square)
            state[_CERT * m + r] = rho / hypot(1.0, (g - rho) / sqrt(gap))


cdef void maximum_cosine_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                               const double *params, double *state, double *tau,
                               double *factor, int64_t *order) noexcept nogil:
    """MCP (Bshouty & Haddad-Zaknoon §4, Eqs. 41–43, Fig. 2) and, with ``conservative``, CMCP
    (§4, Lemma 8, Eqs. 38–40).

    Update iff ``z(w·a) ≤ ‖w‖/(2ℓ)`` (MCP) or ``z(w·a) ≤ 0`` (CMCP):
    ``w ← w + (‖w‖/(ℓ‖a‖²)) z a`` and ``ℓ ← sqrt(ℓ² + (1 − 2η)/‖a‖²)`` with ``η = 0`` on a mistake
    and ``η = z(w·a)ℓ/‖w‖ ∈ (0, ½]`` on a margin violation.  Certificate: cos(w*, w) ≥ γℓ.
    """
    cdef bint conservative = (<const MaximumCosineParams *>params).conservative != 0.0
    cdef double z, norm_w, margin, ell, threshold, eta
    cdef Py_ssize_t r
    for r in range(m):
        z = binary_label(m, y, r)
        norm_w = sqrt(squared_norm(state, m, r))
        if norm_w == 0.0:
            _initialize(m, r, z, tau, state, 1.0 / sqrt(q))
            continue
        margin = z * scores[r]
        ell = state[_CERT * m + r]
        threshold = 0.0 if conservative else norm_w / (2.0 * ell)
        if margin > threshold:
            continue
        eta = 0.0 if margin <= 0.0 else margin * ell / norm_w
        tau[r] = z * norm_w / (ell * q)
        state[_CERT * m + r] = sqrt(ell * ell + (1.0 - 2.0 * eta) / q)
