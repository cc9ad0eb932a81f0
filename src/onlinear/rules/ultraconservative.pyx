"""Step rules of Crammer & Singer, "Ultraconservative Online Algorithms for Multiclass Problems"
(JMLR 3, 2003).

Every rule has the same contract (see :mod:`onlinear.rules.dispatch`): from the round's scores
``s`` (one per output), the true class index ``y``, ``q = ‖x‖² > 0`` and the hyperparameters it
writes the step coefficients ``tau`` (the model adds ``tau[r]·x`` to output ``r``); MC-ROMMA also
writes ``factor`` (output ``r`` is first rescaled by ``factor[r]``).

Outputs: a multiclass rule has one output per class.  A *binary* rule (Perceptron, binary MIRA)
has one output when there are two classes (``y == 1`` is the positive label) and one output per
class otherwise, each output then being an independent one-vs-rest binary learner.

Scale.  Scaling every x by c and the margin β by c² leaves every τ unchanged and scales the
weights by c (scores and β both carry the units of ‖x‖²); with β = 0 the Perceptrons, Kesler and
the multiplicative family's τ need no change at all (the multiplicative exponent η τ x_j needs
η → η/c).  MC-ROMMA is scale-free (M → M/c).  These are exact for c a power of two, and tested
from 2^-495 to 2^495; rows outside the accepted norm range (:data:`onlinear._core.rows.
ROW_NORM_EXPONENT`) are refused by the estimators before anything is learned.
"""
from libc.math cimport sqrt
from libc.stdint cimport int64_t

from .._core._store cimport FIRST_RULE_ROW, squared_norm
from ._rule_params cimport (AdditiveFamilyParams, BinaryMiraParams, KeslerParams,
                           McRommaParams, MiraParams, MultiplicativeParams, PerceptronParams)
from .passive_aggressive cimport PA_I, EXACT, support_steps

RHO = FIRST_RULE_ROW  # MC-ROMMA's 1/‖M‖ (column 0)
cdef Py_ssize_t _RHO = FIRST_RULE_ROW


cdef double binary_label(Py_ssize_t m, Py_ssize_t y, Py_ssize_t r) noexcept nogil:
    """The ±1 label of output ``r``: a single output is positive for class 1; one-vs-rest
    output ``r`` is positive for class ``r``."""
    if m == 1:
        return 1.0 if y == 1 else -1.0
    return 1.0 if r == y else -1.0


cdef void perceptron_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                           const double *params, double *state, double *tau, double *factor,
                           int64_t *order) noexcept nogil:
    """Rosenblatt's Perceptron, binary (Crammer & Singer §3) or one-vs-rest (the baseline of
    their §8).

    Output r with binary label z_r ∈ {−1, +1} updates iff ``z_r (w_r·x) ≤ β``; then
    ``w_r ← w_r + z_r x``.  We use ``≤`` (not the strict step function S of §5.2) so that w = 0
    learns, as the error set E of §2 does; β > 0 is the "aggressive" variant of the experiments
    (§8; how β enters the one-vs-rest Perceptron is our reading, the paper does not say).
    """
    cdef double beta = (<const PerceptronParams *>params).beta, z
    cdef Py_ssize_t r
    for r in range(m):
        z = binary_label(m, y, r)
        tau[r] = z if z * scores[r] <= beta else 0.0


cdef void binary_mira_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                            const double *params, double *state, double *tau, double *factor,
                            int64_t *order) noexcept nogil:
    """Binary MIRA (Figure 4, Eq. 17–18), binary or one-vs-rest.

    ``τ = G(−(z (w·x) − β/2)/‖x‖²)`` with ``G`` the clip to [0, 1]; ``w ← w + τ z x``.
    β/2 because the two-prototype margin M_1·x − M_2·x equals 2 w·x (Crammer & Singer, the
    aggressive binary MIRA at the end of §5.3).
    """
    cdef double beta = (<const BinaryMiraParams *>params).beta, z, g
    cdef Py_ssize_t r
    for r in range(m):
        z = binary_label(m, y, r)
        g = -(z * scores[r] - 0.5 * beta) / q
        if g <= 0.0:
            tau[r] = 0.0
        else:
            tau[r] = z * min(g, 1.0)


cdef void additive_family(const double *scores, Py_ssize_t m, Py_ssize_t y, double beta,
                          int scheme, double *tau) noexcept nogil:
    """The additive ultraconservative family (Figure 2) with aggressive margin β (§8).

    With ``B̃_y = s_y − β``, the error set is ``E = {r ≠ y : s_r ≥ B̃_y}`` (ties count: E is
    defined with ≥, §2).
    If E ≠ ∅: ``τ_y = 1`` and the −1 is shared over E by the scheme
      * uniform:  ``τ_r = −1/|E|`` on E;
      * max:      ``τ_r = −1`` for ``r = argmax_{s≠y} s_s`` (over wrong labels only, lowest
        index on ties — the printed argmax over all s could return y);
      * prop:     ``τ_r = −[s_r − B̃_y]_+ / Σ_{s≠y} [s_s − B̃_y]_+`` (the denominator excludes y,
        which matters when β > 0); when every excess is 0 (0/0, e.g. M = 0) fall back to uniform.
    All satisfy C1–C4 of Figure 2, hence Lemma 2 and Theorems 3–4.
    """
    cdef double threshold = scores[y] - beta, excess_total = 0.0
    cdef Py_ssize_t n_errors = 0, best = -1, r
    for r in range(m):
        tau[r] = 0.0
        if r == y:
            continue
        if scores[r] >= threshold:
            n_errors += 1
            excess_total += scores[r] - threshold
        if best < 0 or scores[r] > scores[best]:
            best = r
    if n_errors == 0:
        return
    tau[y] = 1.0
    if scheme == MAX_SCORE:
        tau[best] = -1.0
    elif scheme == PROPORTIONAL and excess_total > 0.0:
        for r in range(m):
            if r != y and scores[r] > threshold:
                tau[r] = -(scores[r] - threshold) / excess_total
    else:
        for r in range(m):
            if r != y and scores[r] >= threshold:
                tau[r] = -1.0 / n_errors


cdef void additive_family_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                                const double *params, double *state, double *tau,
                                double *factor, int64_t *order) noexcept nogil:
    """:func:`additive_family` with ``params = (beta, scheme)``."""
    cdef const AdditiveFamilyParams *p = <const AdditiveFamilyParams *>params
    additive_family(scores, m, y, p.beta, <int>p.scheme, tau)


cdef void kesler_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                       const double *params, double *state, double *tau, double *factor,
                       int64_t *order) noexcept nogil:
    """Kesler's construction unravelled (Crammer & Singer §4.2; the step-by-step algorithm is our
    reconstruction from its text): a binary Perceptron in R^{nk}.

    For r ≠ y in ascending order, if ``s_r ≥ s_y − β`` (``≥`` so that M = 0 learns) apply the
    max-type sub-update ``M_y += x, M_r −= x``; the score of y is kept current (``s_y += ‖x‖²``)
    so later comparisons see the earlier sub-updates.  Net step: ``τ_y`` = number of sub-updates,
    ``τ_r = −1`` for each corrected r.
    """
    cdef double beta = (<const KeslerParams *>params).beta, s_y = scores[y]
    cdef Py_ssize_t r
    for r in range(m):
        tau[r] = 0.0
    for r in range(m):
        if r != y and scores[r] >= s_y - beta:
            tau[y] += 1.0
            tau[r] = -1.0
            s_y += q


cdef void mira_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                     const double *params, double *state, double *tau, double *factor,
                     int64_t *order) noexcept nogil:
    """MIRA (Figure 3): ``τ = argmin ½ Σ_r ‖M_r + τ_r x‖²`` s.t. ``τ_r ≤ δ_{r,y}``, ``Σ_r τ_r = 0``,
    with the margin β of §5.3 (``B̃_y = B_y − β``).

    Reduced QP (Eq. 12–14): ``min ½ A‖τ‖² + B̃·τ``, A = ‖x‖²; its solution (Eq. 15) is
    ``τ_r = min(θ* − B̃_r/A, δ_{r,y})``.  Writing ``σ_r = −τ_r ≥ 0`` for r ≠ y (so τ_y = Σσ ≤ 1)
    and ``e_r = B̃_r − B̃_y = β − (s_y − s_r)``, it is
    ``min ½(Σσ)² + ½‖σ‖² − Σ_r (e_r/A) σ_r``  s.t.  ``σ ≥ 0, Σσ ≤ 1`` — Matsushima et al.'s SPA-I
    problem with C = 1 and margin β: ``σ_r = [e_r − θ]_+/A`` on the support prefix of the sorted
    excesses, ``θ = max{Σ_S e/(|S|+1), (Σ_S e − A)/|S|}`` (the second when τ_y = 1 binds).
    Computed in those units (:func:`~onlinear.rules.passive_aggressive.support_steps`): solving
    in score units (``D_y = B̃_y + A``, then subtracting A back) loses β and the score
    differences to cancellation once A ≫ β/ε — no update ever again at large ‖x‖² or K(x, x).
    Corollary 6: τ = 0 exactly when ``max_{r≠y} B̃_r ≤ B̃_y`` (every e_r ≤ 0).

    Invariance: scaling every x by c and β by c² gives the same τ on every round and c·M;
    with β fixed, the predictions do not change with c as long as no round's cap τ_y ≤ 1 binds
    (the QP is then homogeneous in (β, M)).
    """
    support_steps(scores, m, y, q, (<const MiraParams *>params).beta, PA_I, 1.0, EXACT, tau,
                  order)


cdef void mc_romma_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                         const double *params, double *state, double *tau, double *factor,
                         int64_t *order) noexcept nogil:
    """Multiclass ROMMA (Figure 6, §7; the printed constraint (1) uses M^t where the variable M
    belongs): on a round with E ≠ ∅, with τ from the additive family (``scheme``),
    ``M' = argmin ½‖M‖²  s.t.  Σ_r τ_r (M_r·x) ≥ 1  and  M·M^t ≥ ‖M^t‖²``.

    Closed form (our reconstruction from Theorem 15, Lemmas 12–13 and Li & Long's closed form,
    checked against a generic QP solver): with ``z_r = τ_r x``, ``N = ‖M‖²``,
    ``s = Σ_r τ_r B_r`` and ``ZZ = ‖x‖² Σ_r τ_r²``: if N = 0, ``M' = z/ZZ``; else
    ``det = N·ZZ − s²``, ``c = (N·ZZ − s)/det``, ``d = N(1 − s)/det`` and ``M' = c M + d z``
    (Eq. 27).

    On non-separable streams ‖M‖ grows geometrically and overflows, so — as for aggressive
    ROMMA — the model stores the unit direction ``M̂`` and ``ρ = 1/‖M‖`` (in
    ``state[FIRST_RULE_ROW, 0]``); with ``ŝ = Σ_r τ_r M̂_r·x`` the same step reads
    ``M' ∝ c M̂ + (dρ) z`` with ``c = (ZZ − ŝρ)/(ZZ − ŝ²)``, ``dρ = (ρ − ŝ)/(ZZ − ŝ²)`` and
    ``ρ' = ρ/‖c M̂ + dρ z‖``.  ``ZZ − ŝ² ≈ 0`` (M anti-parallel to z: the problem is infeasible,
    possible only on non-separable data) restarts from ``z/ZZ``.
    """
    additive_family(scores, m, y, 0.0, <int>(<const McRommaParams *>params).scheme,
                    tau)
    cdef double norm2 = 0.0, s = 0.0, tau2 = 0.0, zz, norm, projection, gap, rho, c, d_rho
    cdef double along, length, root
    cdef Py_ssize_t r
    for r in range(m):
        norm2 += squared_norm(state, m, r)
        s += tau[r] * scores[r]
        tau2 += tau[r] * tau[r]
    if tau2 == 0.0:
        return
    zz = q * tau2
    norm = sqrt(norm2)
    projection = s / norm if norm > 0.0 else 0.0
    gap = zz - projection * projection
    if norm == 0.0 or gap <= 1e-12 * zz:
        # first update, or restart: M' = z/ZZ, stored as z/sqrt(ZZ) with ρ = sqrt(ZZ)
        root = sqrt(zz)
        for r in range(m):
            factor[r] = 0.0 if norm > 0.0 else 1.0
            tau[r] /= root
        state[_RHO * m] = root
        return
    rho = state[_RHO * m]
    c = (zz - projection * rho) / gap
    d_rho = (rho - projection) / gap
    along = c + d_rho * projection  # ‖c M̂ + dρ z‖² as a sum of squares (z = ŝM̂ + z⊥)
    length = sqrt(along * along + d_rho * d_rho * gap)
    for r in range(m):
        factor[r] = c / (norm * length)
        tau[r] *= d_rho / length
    state[_RHO * m] = rho / length


cdef void multiplicative_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                               const double *params, double *state, double *tau,
                               double *factor, int64_t *order) noexcept nogil:
    """The multiplicative ultraconservative family (Figure 5, §6): τ from the additive family
    (C1–C4, ``scheme``) and ``M_{r,i} ← M_{r,i} exp(η τ_r x_i)/Z`` — this rule writes the
    exponent coefficients ``η τ_r``; the engine's multiplicative step applies them and
    renormalizes each row (version 1) or the whole matrix (version 2) to unit l1 mass."""
    cdef double eta = (<const MultiplicativeParams *>params).eta
    cdef Py_ssize_t r
    additive_family(scores, m, y, 0.0, <int>(<const MultiplicativeParams *>params).scheme,
                    tau)
    for r in range(m):
        tau[r] *= eta
