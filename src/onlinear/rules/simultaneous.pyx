"""Dual steps of Amit, Shalev-Shwartz & Singer's simultaneous projections ("Online Learning of
Complex Prediction Problems Using Simultaneous Projections").

A trial is a block of k binary constraints; constraint j has the signed margin ``m_j = y_j ω·x_j``,
the hinge loss ``ℓ_j = [1 − m_j]_+`` (``[γ − m_j]_+`` for the multiplicative form), the squared
norm ``v_j = ‖x_j‖²`` and is a *mistake* iff ``m_j ≤ 0`` (ties are mistakes: the paper leaves
the convention implicit, its Lemma 3 needs it).  The exact update is the dual of Eq. 3,

    max_α  Σ_j α_j (1 − m_j) − ½‖Σ_j α_j y_j x_j‖²   s.t.  α ≥ 0,  Σ_j c_j α_j ≤ C,

(c_j = 1 in the paper; the weighted coupling of its Discussion, §10, otherwise), whose single
coupling constraint is what makes it hard.  The schemes solve the k one-constraint problems
(Eq. 4) independently — ``α_j = min{C/c_j, ℓ_j/v_j}``, the PA-I step — and average them with
simplex weights μ: ``λ_j = μ_j α_j`` is then dual-feasible and ``ω ← ω + Σ_j λ_j y_j x_j``.  The
functions here only compute λ from the scalars (ℓ, v, mistake, c, C) of one set of constraints;
the block engine (:mod:`onlinear._core.blocks`) computes those scalars and applies the step, and
the exact solution of the dual ("optimal") is :mod:`onlinear.solvers.block_dual`.

Zero rows (``v_j = 0``) can not be fixed by any step: they get ``λ_j = 0`` and are left out of μ's
normalisation (our choice; the paper does not discuss them); the engine still counts them as
mistakes.

Errata and reconstructions in the paper, and where they live:

* Fig. 3's second "ConProj" row is SimProj (μ uniform on the margin violators Γ, as §5.2 defines
  it): :func:`set_lambda`.
* Fig. 4 (SimOpt) is missing from the text: implemented in an equivalent water-filling form
  derived from §5.4 (:func:`simopt_lambda`); Lemma 1's muddled proof does not affect it.
  Corollary 4's SimOpt claim is not established (our counterexamples, documented there, are
  regression tests).
* Eq. 21 lacks its "max" and Fig. 6's exponent is mis-indexed: the multiplicative step is
  ``ω_i ∝ ω_i exp(Σ_j λ_j y_j x_{j,i})`` (block engine).  SimOpt.M is used but never defined:
  our reconstruction, :func:`mult_set_lambda`.
* Appendix C's quadratic is printed without "= 0", and its "second root is negative" needs
  γ < 1: guarded in :func:`mult_alpha_closed_form`.
* Theorem 6 / Corollary 8's bound misses γ: the correct denominator is γC − ½C²R∞² (the printed
  one is violated; both facts are tests).  The main text's optimised SimPerc bound misses a
  factor 4 and a Σ_t (Appendix B is right; tested).  Eq. 12's Σ_{t=0} is Σ_{t=1}.
* Fig. 5 does not say that each set's budget is C/r_t; it is what the per-set dual constraint
  needs for feasibility (§7, Eq. 18): the block engine's decomposed trials.
* The paper's mistake convention is implicit; the proofs need m_j ≤ 0 ⇒ mistake (ties count).

Scale: the margin 1 is fixed, so x → c·x is the same learner with C → C/c² (ω → ω/c): every
scheme's λ is a quotient of losses by v_j or a box, and the exact solver's stopping test
(:mod:`onlinear.solvers.block_dual`) is relative to the trial's primal (tested from 2^-495 to 2^495 for every multiclass scheme).

The steps are compiled ahead of time (Cython, when the package is installed): the block engine
calls the ``cdef`` functions of ``simultaneous.pxd`` on raw pointers, and the functions of the
same names without ``_c`` give them to Python (tests, diagnostics).
"""
import numpy as np

from libc.math cimport INFINITY, exp, log, sqrt
from libc.stdint cimport int64_t

#: registered name → scheme id
SCHEMES = {"simperc": SIMPERC, "conproj": CONPROJ, "simproj": SIMPROJ, "simopt": SIMOPT,
           "maxpa": MAXPA, "optimal": OPTIMAL, "sopopo": SOPOPO}

# MAX_HINGE: MaxPA's "most violated" (Amit et al. §9) = largest hinge loss ℓ_j (default);
# MAX_DISTANCE: … = largest distance ℓ_j/‖x_j‖ to the constraint's halfspace.

# Decomposed losses (Amit et al. §7) of label-set and ordinal trials, whose constraints come with a
# natural partition (general blocks take their partition explicitly, one id per row): WHOLE, one
# set (the max hinge loss of the paper's Sec. 2); PER_LABEL, label sets: one set per relevant
# label r (its pairs (r, s)), ordinal: singletons; SINGLETONS, every constraint its own set (the
# average hinge loss).
DECOMPOSITIONS = {"none": WHOLE, "per_label": PER_LABEL, "singletons": SINGLETONS}


def make_params(C=1.0, gamma=0.5, max_rule="hinge", tol=1e-12, max_iter=20000,
                decompose="none"):
    """The ``params`` vector of the block engine.

    Parameters
    ----------
    C : float
        Aggressiveness: the dual budget of a trial (Σ_j c_j λ_j ≤ C).
    gamma : float
        Margin of the multiplicative form (loss ``[γ − m_j]_+``); ignored by the additive form.
    max_rule : {"hinge", "distance"}
        MaxPA's notion of the most violated constraint.
    tol, max_iter : float, int
        Stopping rule of the exact solver (``optimal``): relative duality gap and iteration cap.
    decompose : {"none", "per_label", "singletons"}
        Decomposed loss (Amit et al. §7, Fig. 5, Eq. 17; budget C/r_t per set) of label-set and
        ordinal trials:
        one set (the paper's max loss), one set per relevant label (its pairs against the
        irrelevant labels: "failing any pair of a label is as bad as failing all of it"), or one
        set per constraint (the average hinge loss).  General blocks take ``parts`` instead.

    Examples
    --------
    >>> make_params(C=0.5).tolist()
    [0.5, 0.5, 0.0, 1e-12, 20000.0, 0.0]
    """
    if max_rule not in ("hinge", "distance"):
        raise ValueError(f"max_rule must be 'hinge' or 'distance', got {max_rule!r}")
    if decompose not in DECOMPOSITIONS:
        raise ValueError(f"decompose must be one of {sorted(DECOMPOSITIONS)}, got {decompose!r}")
    return np.array([C, gamma, MAX_HINGE if max_rule == "hinge" else MAX_DISTANCE, tol,
                     max_iter, DECOMPOSITIONS[decompose]], dtype=np.float64)


# =============================================================================================
# The simultaneous-projection schemes (Amit et al. §5, Fig. 3) and MaxPA (§9)
# =============================================================================================
cdef inline double _box(const double *coupling, Py_ssize_t j, double cap) noexcept nogil:
    """The per-constraint box C/c_j of the weighted coupling of Amit et al. §10 (c_j = 1 in
    the paper's algorithms)."""
    cdef double c = coupling[j]
    return cap / c if c > 0.0 else INFINITY


cdef inline Py_ssize_t _most_violated(const double *loss, const double *sqnorm, Py_ssize_t k,
                                      int max_rule) noexcept nogil:
    """MaxPA's constraint (Amit et al. §9): the largest hinge loss, or with ``MAX_DISTANCE`` the
    largest distance ``ℓ_j/‖x_j‖`` to its halfspace; rows with x = 0 or no loss never; ties to
    the lowest index; −1 when there is none."""
    cdef Py_ssize_t best = -1, j
    cdef double best_value = 0.0, value
    for j in range(k):
        if sqnorm[j] > 0.0 and loss[j] > 0.0:
            value = loss[j] if max_rule == MAX_HINGE else loss[j] / sqrt(sqnorm[j])
            if best < 0 or value > best_value:
                best = j
                best_value = value
    return best


cdef void set_lambda_c(int scheme, const double *loss, const double *sqnorm,
                       const unsigned char *mistake, const double *coupling, Py_ssize_t k,
                       double cap, int max_rule, double *lam, SortScratch *s) noexcept nogil:
    """The compiled :func:`set_lambda` (``s``: k entries, for SimOpt)."""
    cdef Py_ssize_t j, best, count = 0
    cdef double alpha
    for j in range(k):
        lam[j] = 0.0
    if scheme == SIMOPT:
        simopt_lambda_c(loss, sqnorm, coupling, k, cap, lam, s)
        return
    if scheme == MAXPA:
        best = _most_violated(loss, sqnorm, k, max_rule)
        if best >= 0:
            lam[best] = py_min(_box(coupling, best, cap), loss[best] / sqnorm[best])
        return
    for j in range(k):
        if sqnorm[j] > 0.0 and loss[j] > 0.0 and (scheme == SIMPROJ or mistake[j]):
            count += 1
    if count == 0:
        return
    for j in range(k):
        if sqnorm[j] > 0.0 and loss[j] > 0.0 and (scheme == SIMPROJ or mistake[j]):
            if scheme == SIMPERC:
                alpha = _box(coupling, j, cap)
            else:
                alpha = py_min(_box(coupling, j, cap), loss[j] / sqnorm[j])
            lam[j] = alpha / count


def set_lambda(int scheme, const double[::1] loss, const double[::1] sqnorm, mistake,
               const double[::1] coupling, double cap, int max_rule, double[::1] lam):
    """λ of one set of constraints for the schemes SimPerc, ConProj, SimProj, SimOpt and MaxPA.

    With ``box_j = cap/c_j`` (cap = C, or C/r_t for a set of a decomposed loss, Amit et al. §7)
    and the section numbers of Amit, Shalev-Shwartz & Singer:

    * SimPerc (§5.1): ``λ_j = box_j/|M|`` on the mistakes M (m_j ≤ 0), i.e. α_j = C, μ uniform
      on M;
    * ConProj (§5.3): ``λ_j = min{box_j, ℓ_j/v_j}/|M|`` on M;
    * SimProj (§5.2; printed as a second "ConProj" row of Fig. 3): the same on the violators
      Γ = {j : ℓ_j > 0};
    * SimOpt (§5.4): :func:`simopt_lambda`;
    * MaxPA (§9): ``λ_{j*} = min{box, ℓ_{j*}/v_{j*}}`` for ``j* = argmax_j ℓ_j`` (or
      ``argmax ℓ_j/√v_j`` with ``max_rule = MAX_DISTANCE``), lowest index on ties.

    Since Σ_j μ_j = 1, Σ_j c_j λ_j ≤ cap: the combination is dual-feasible (§4, §10).  SimPerc
    and ConProj do not update when M = ∅ (uniform weights on an empty set are undefined; our
    reading of Fig. 2–3).  ``loss`` is ℓ_j ≥ 0; zero rows are skipped.
    Coupling weights must be > 0 for SimPerc (its step is the box itself).
    """
    cdef Py_ssize_t k = loss.shape[0]
    cdef const unsigned char[::1] flags = _bytes(mistake, k)
    _same_length(k, sqnorm, coupling, lam)
    cdef SortScratch s
    arrays = _sort_scratch(&s, k)
    set_lambda_c(scheme, &loss[0] if k else NULL, &sqnorm[0] if k else NULL,
                 &flags[0] if k else NULL, &coupling[0] if k else NULL, k, cap, max_rule,
                 &lam[0] if k else NULL, &s)


cdef void simopt_lambda_c(const double *loss, const double *sqnorm, const double *coupling,
                          Py_ssize_t k, double cap, double *lam, SortScratch *s) noexcept nogil:
    """The compiled :func:`simopt_lambda` (``s``: k entries)."""
    cdef double total = 0.0, a = 0.0, b = 0.0, theta = 0.0
    cdef Py_ssize_t n_active = 0, i, j, nxt
    for j in range(k):
        lam[j] = 0.0
        if sqnorm[j] > 0.0 and loss[j] > 0.0:
            total += coupling[j] * loss[j] / sqnorm[j]
            if coupling[j] > 0.0:
                n_active += 1
    if total <= cap:
        for j in range(k):
            if sqnorm[j] > 0.0 and loss[j] > 0.0:
                lam[j] = loss[j] / sqnorm[j]
        return
    i = 0
    for j in range(k):
        if sqnorm[j] > 0.0 and loss[j] > 0.0 and coupling[j] > 0.0:
            s.keys[i] = -loss[j] / coupling[j]
            s.members[i] = j
            i += 1
    stable_argsort(s.keys, n_active, s.order, s.tmp)
    for i in range(n_active):
        j = s.members[s.order[i]]
        a += coupling[j] * loss[j] / sqnorm[j]  # Σ_H c_j ℓ_j / v_j
        b += coupling[j] * coupling[j] / sqnorm[j]  # Σ_H c_j² / v_j
        theta = (a - cap) / b
        # τ_i is a weighted mediant of τ_{i−1} and the i-th breakpoint, so the first prefix whose
        # next breakpoint lies at or below θ is the consistent one (our argument; Lemma 1 of
        # Amit et al. gives its uniqueness).
        if i == n_active - 1:
            break
        nxt = s.members[s.order[i + 1]]
        if loss[nxt] / coupling[nxt] <= theta:
            break
    for j in range(k):
        if sqnorm[j] > 0.0 and loss[j] > 0.0:
            lam[j] = py_max(0.0, loss[j] - theta * coupling[j]) / sqnorm[j]


def simopt_lambda(const double[::1] loss, const double[::1] sqnorm, const double[::1] coupling,
                  double cap, double[::1] lam):
    """SimOpt (Amit et al. §5.4) in its water-filling form: the maximiser of the *separable
    surrogate*

        Σ_j (λ_j ℓ_j − ½ v_j λ_j²)   over   {λ ≥ 0, Σ_j c_j λ_j ≤ C},

    which is what Eq. 7's joint choice of μ and α optimises (λ_j = μ_j α_j): by KKT
    ``λ_j = [ℓ_j − θ c_j]_+ / v_j`` with θ = 0 if Σ_j c_j ℓ_j/v_j ≤ C (case 1: the *sum* of the
    unclipped projections), else the unique θ > 0 with Σ_j c_j λ_j = C (case 2; Eqs. 8–10 with
    θ = τ/C).  The paper's Fig. 4 is missing from the text; this is an equivalent form we derived
    from Eqs. 6–10 (a reconstruction of Fig. 4 from §5.4's text agrees with it to 5e−12).  With
    weights c_j (§10) the breakpoints are ℓ_j/c_j (our derivation); c_j = 0 rows take their full
    projection ℓ_j/v_j.  O(k log k).

    Caveats (our derivation, kept as regression tests): the optimum is that of the surrogate, which
    drops the cross terms λ_i λ_j x_i·x_j of the true dual — so SimOpt's "largest increase in the
    dual" holds only for the surrogate.  Its true dual increase can fall far below the
    C − ½C²R² that SimPerc guarantees on an imperfect trial by Theorem 2 (0.0464 vs 0.375 for
    one mistaken row plus ten nearly satisfied ones, C = 1.5) and
    can even be negative: with collinear violators and large C, case 1 adds up full projections
    (three identical rows, C = 4: Δ = −1.5).  Corollary 4's SimOpt claim is therefore not
    established.
    """
    cdef Py_ssize_t k = loss.shape[0]
    _same_length(k, sqnorm, coupling, lam)
    cdef SortScratch s
    arrays = _sort_scratch(&s, k)
    simopt_lambda_c(&loss[0] if k else NULL, &sqnorm[0] if k else NULL,
                    &coupling[0] if k else NULL, k, cap, &lam[0] if k else NULL, &s)


# =============================================================================================
# Sopopo, multi-prototype multiclass (Amit et al. §9 and footnote 1)
# =============================================================================================
cdef void sopopo_steps_c(const double *qloss, Py_ssize_t k, double v, double C, double *alpha,
                         SortScratch *s) noexcept nogil:
    """The compiled :func:`sopopo_steps` (``s``: k entries)."""
    cdef Py_ssize_t n, j
    cdef double total = 0.0, rho = 0.0
    for j in range(k):
        alpha[j] = 0.0
    if v <= 0.0 or k == 0:
        return
    for j in range(k):
        s.keys[j] = -qloss[j]
    stable_argsort(s.keys, k, s.order, s.tmp)
    if qloss[s.order[0]] <= 0.0:
        return
    # unconstrained: ρ = Σ_{prefix} q / (n + 1), consistent when q_(n) > ρ ≥ q_(n+1)
    for n in range(1, k + 1):
        total += qloss[s.order[n - 1]]
        rho = total / (n + 1)
        if n == k or qloss[s.order[n]] <= rho:
            break
    if rho / v > C:
        total = 0.0
        for n in range(1, k + 1):
            total += qloss[s.order[n - 1]]
            rho = (total - v * C) / n
            if n == k or qloss[s.order[n]] <= rho:
                break
    for j in range(k):
        alpha[j] = py_max(0.0, qloss[j] - rho) / v


def sopopo_steps(const double[::1] qloss, double v, double C, double[::1] alpha):
    """Sopopo (Shalev-Shwartz & Singer 2006; a baseline of Amit et al. §9, footnote 1) for one
    multiclass trial, in closed form (our derivation for the single graph y → every s ≠ y; the
    paper gives no details):

        min_W ½ Σ_r ‖w_r − w_r^t‖² + Cξ   s.t.  (w_y − w_s)·x ≥ 1 − ξ   ∀s ≠ y.

    With ``q_s = 1 − (w_y − w_s)·x`` (``qloss``, any sign), ``v = ‖x‖²``:
    ``α_s = [q_s − ρ]_+ / v`` where ρ ≥ 0 solves ``ρ = Σ_s [q_s − ρ]_+`` if then
    ``A = Σ_s α_s = ρ/v ≤ C``, else ``Σ_s [q_s − ρ]_+ = vC``.  The update is
    ``w_y += A x``, ``w_s −= α_s x``.  O(k log k).  Writes ``alpha`` (0 for ``q_s ≤ 0`` or v = 0).
    """
    cdef Py_ssize_t k = qloss.shape[0]
    _same_length(k, alpha)
    cdef SortScratch s
    arrays = _sort_scratch(&s, k)
    sopopo_steps_c(&qloss[0] if k else NULL, k, v, C, &alpha[0] if k else NULL, &s)


# =============================================================================================
# Multiplicative form (Amit et al. §8, Fig. 6)
# =============================================================================================
cdef double mult_alpha_closed_form_c(double wplus, double wminus, double gamma,
                                     double C) noexcept nogil:
    """The compiled :func:`mult_alpha_closed_form`."""
    cdef double wzero, disc, beta
    if wplus <= 0.0 or gamma >= 1.0:
        return C
    wzero = py_max(0.0, 1.0 - wplus - wminus)
    disc = gamma * gamma * wzero * wzero + 4.0 * (1.0 - gamma * gamma) * wplus * wminus
    beta = (gamma * wzero + sqrt(py_max(0.0, disc))) / (2.0 * (1.0 - gamma) * wplus)
    if beta <= 1.0:
        return 0.0
    return py_min(C, log(beta))


def mult_alpha_closed_form(double wplus, double wminus, double gamma, double C):
    """Appendix C: the maximiser on [0, C] of ``g(α) = γα − log(W⁺e^α + W⁻e^{−α} + W⁰)`` for an
    instance in {−1, 0, 1}^n (W^± the simplex mass where y x_i = ±1, W⁰ = 1 − W⁺ − W⁻).

    Stationarity (Eq. 36) ⇔ ``(1−γ)W⁺β² − γW⁰β − (1+γ)W⁻ = 0`` with β = e^α (the paper prints
    the quadratic without "= 0"); its largest root
    ``β = (γW⁰ + √(γ²W⁰² + 4(1−γ²)W⁺W⁻)) / (2(1−γ)W⁺)`` and ``α = max{0, min{C, log β}}``.
    Edge cases (our derivation; the paper's "second root is negative" needs γ < 1): W⁺ = 0 or
    γ ≥ 1
    make g increasing, so α = C; β ≤ 1 means no step.

    Examples
    --------
    >>> round(mult_alpha_closed_form(0.3, 0.2, 0.5, 10.0), 6)
    0.906163
    """
    return mult_alpha_closed_form_c(wplus, wminus, gamma, C)


cdef double mult_objective_slope_c(double alpha, const double *weights, const double *values,
                                   Py_ssize_t n, double rest, double gamma) noexcept nogil:
    """The compiled :func:`mult_objective_slope`."""
    cdef double shift = 0.0, num = 0.0, den, e
    cdef Py_ssize_t i
    for i in range(n):
        shift = py_max(shift, alpha * values[i])
    den = rest * exp(-shift)
    for i in range(n):
        e = weights[i] * exp(alpha * values[i] - shift)
        num += values[i] * e
        den += e
    if den <= 0.0:
        return gamma
    return gamma - num / den


def mult_objective_slope(double alpha, const double[::1] weights, const double[::1] values,
                         double rest, double gamma):
    """``g'(α) = γ − Σ_i ω_i z_i e^{αz_i} / (rest + Σ_i ω_i e^{αz_i})`` for the coordinates
    (ω_i, z_i) an instance touches; ``rest`` is the mass of the untouched ones."""
    cdef Py_ssize_t n = weights.shape[0]
    _same_length(n, values)
    return mult_objective_slope_c(alpha, &weights[0] if n else NULL, &values[0] if n else NULL,
                                  n, rest, gamma)


cdef double mult_alpha_numeric_c(const double *weights, const double *values, Py_ssize_t n,
                                 double rest, double gamma, double C) noexcept nogil:
    """The compiled :func:`mult_alpha_numeric`."""
    cdef double low = 0.0, high = C, mid
    cdef int halving
    if mult_objective_slope_c(0.0, weights, values, n, rest, gamma) <= 0.0:
        return 0.0
    if mult_objective_slope_c(C, weights, values, n, rest, gamma) >= 0.0:
        return C
    for halving in range(200):
        mid = 0.5 * (low + high)
        if mid <= low or mid >= high:
            break
        if mult_objective_slope_c(mid, weights, values, n, rest, gamma) > 0.0:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def mult_alpha_numeric(const double[::1] weights, const double[::1] values, double rest,
                       double gamma, double C):
    """The maximiser on [0, C] of the concave reduced objective of Eq. 23,
    ``g(α) = γα − log(rest + Σ_i ω_i e^{α z_i})``, for any real instance: bisection on the
    decreasing g' (a safeguarded 1-D solve; 200 halvings reach the float64 resolution)."""
    cdef Py_ssize_t n = weights.shape[0]
    _same_length(n, values)
    return mult_alpha_numeric_c(&weights[0] if n else NULL, &values[0] if n else NULL, n, rest,
                                gamma, C)


cdef void mult_set_lambda_c(int scheme, const double *loss, const double *alpha,
                            const unsigned char *mistake, const double *sqnorm_inf,
                            const double *ones, Py_ssize_t k, double cap, int max_rule,
                            double *lam, SortScratch *s) noexcept nogil:
    """The compiled :func:`mult_set_lambda` (``ones``: k ones, SimOpt's coupling; ``s``: k
    entries)."""
    cdef Py_ssize_t j, best, count = 0
    for j in range(k):
        lam[j] = 0.0
    if scheme == SIMOPT:
        simopt_lambda_c(loss, sqnorm_inf, ones, k, cap, lam, s)
        return
    if scheme == MAXPA:
        best = _most_violated(loss, sqnorm_inf, k, max_rule)
        if best >= 0:
            lam[best] = alpha[best]
        return
    for j in range(k):
        if sqnorm_inf[j] > 0.0 and loss[j] > 0.0 and (scheme == SIMPROJ or mistake[j]):
            count += 1
    if count == 0:
        return
    for j in range(k):
        if sqnorm_inf[j] > 0.0 and loss[j] > 0.0 and (scheme == SIMPROJ or mistake[j]):
            lam[j] = (cap if scheme == SIMPERC else alpha[j]) / count


def mult_set_lambda(int scheme, const double[::1] loss, const double[::1] alpha, mistake,
                    const double[::1] sqnorm_inf, double cap, int max_rule, double[::1] lam):
    """λ of one set of constraints for the multiplicative form (Amit et al. §8, Fig. 6), given
    each row's
    reduced maximiser ``alpha`` on [0, cap] (Appendix C closed form or the 1-D solve):

    * SimPerc.M: ``λ_j = cap/|M|`` on the mistakes (α = C "trivially");
    * ConProj.M / SimProj.M: ``λ_j = α_j/|M|`` on M / ``α_j/|Γ_γ|`` on the γ-violators;
    * MaxPA.M (§9.1): ``λ_{j*} = α_{j*}`` for ``j* = argmax_j ℓ_{γ,j}`` (or ``ℓ_{γ,j}/‖x_j‖_∞``);
    * SimOpt.M — used in the paper's experiments (§9) but never defined; our reconstruction:
      the water-filling of :func:`simopt_lambda` with ``ℓ_j := ℓ_{γ,j}``
      and ``v_j := ‖x_j‖_∞²``, the maximiser of the separable lower bound
      ``g_j(λ) ≥ λℓ_{γ,j} − ½λ²‖x_j‖_∞²`` of Lemma 7.  Results from it are a reconstruction.

    ``sqnorm_inf`` is ‖x_j‖_∞² (0 marks a zero row, skipped as in the additive form).
    """
    cdef Py_ssize_t k = loss.shape[0]
    cdef const unsigned char[::1] flags = _bytes(mistake, k)
    _same_length(k, alpha, sqnorm_inf, lam)
    cdef double[::1] ones = np.ones(max(k, 1))
    cdef SortScratch s
    arrays = _sort_scratch(&s, k)
    mult_set_lambda_c(scheme, &loss[0] if k else NULL, &alpha[0] if k else NULL,
                      &flags[0] if k else NULL, &sqnorm_inf[0] if k else NULL, &ones[0], k,
                      cap, max_rule, &lam[0] if k else NULL, &s)


# ------------------------------------------------------------------ the Python entry points' aid
cdef object _sort_scratch(SortScratch *s, Py_ssize_t k):
    """Fill ``s`` with scratch for k entries; returns the arrays that hold it (keep them)."""
    cdef double[::1] keys = np.empty(max(k, 1))
    cdef int64_t[:, ::1] ints = np.empty((3, max(k, 1)), np.int64)
    s.keys = &keys[0]
    s.members = &ints[0, 0]
    s.order = &ints[1, 0]
    s.tmp = &ints[2, 0]
    return keys, ints


cdef object _bytes(object flags, Py_ssize_t k):
    """Mistake flags as bytes (0/1), k of them."""
    array = np.ascontiguousarray(flags)
    if array.ndim != 1 or array.shape[0] != k:
        raise ValueError(f"{k} constraints, {array.shape} mistake flags")
    return (array != 0).view(np.uint8)


def _same_length(k, *arrays):
    for array in arrays:
        if array.shape[0] != k:
            raise ValueError(f"arrays of one set of constraints differ in length ({k}, "
                             f"{array.shape[0]})")
