"""Step rules of Yang, Jin & Ye, "Online Learning by Ellipsoid Method" (ICML 2009): CELLIP
(§2.2, Algorithm 1), IELLIP (§2.3, Algorithm 2) and the stacked multiclass form (§2.4).

State of one ellipsoid: its centre w (the classifier) and a symmetric positive definite P.  On a
mistake (margin ``m = z·(w·x) ≤ 0``; for the stacked multiclass form ``m = ρ(W; x, y)``, the
direction being z instead of ``z·x``) with ``u = P x`` and ``v = xᵀPx``:

* (5)   ``τ = (aγ − m)/sqrt(v)``, ``g = z x/sqrt(v)``, so ``P g = z u/sqrt(v)``;
* (10)  ``w ← w + τ P g`` — the P-Mahalanobis projection onto ``{z·(w·x) ≥ aγ}``;
* CELLIP (11): ``P ← (1 − τ²) P − 2τ(1 − τ) P g gᵀ P``;
* IELLIP (15): ``P ← (P − c_t P g gᵀ P)/(1 − c_t)``, ``c_t = c·b^(t−1)``, i.e.
  ``P⁻¹ ← (1 − c_t)P⁻¹ + c_t g gᵀ``.

IELLIP's readings (§2.3 leaves them open; see :class:`onlinear.IELLIP`): t of ``c_t`` counts
the rounds (``DECAY_ROUNDS``, Algorithm 2's loop counter) or this ellipsoid's updates
(``DECAY_UPDATES``), or ``c_t = 1 − b`` is constant (``DECAY_CONSTANT``: ``P⁻¹ ← b·P⁻¹ +
(1 − b)·g gᵀ`` forgets old instances by a factor b per update, §2.3's words "the smaller b is,
the shorter the memory"); and P⁻¹ takes ``g gᵀ`` as printed (``P_NORMALIZED``) or the raw
instance ``x xᵀ`` (``P_RAW``: ``P ← (P − c_t P x xᵀ P/((1 − c_t) + c_t v))/(1 − c_t)`` by
Sherman–Morrison, the reading under which §3's "by setting the scale of P, we don't have to
set c" holds).

Each rule returns ``(w_coef, p_scale, p_rank_one)`` (an ``EllipsoidStep``): the engine applies
``w ← w + w_coef·u`` and ``P ← p_scale·P + p_rank_one·u uᵀ``.

Scale: x → c·x with P → P/c² is the same learner (w → w/c).  IELLIP's predictions do not depend
on the scale of P under the printed (15) (``P_NORMALIZED``), so it is scale-invariant as it is
(the raw reading is not: there the scale of P_1 acts as c does); CELLIP's P_1 = (1 + γ(1−a))²·I is tied to
‖x‖ ≤ 1 (Yang, Jin & Ye §2.2), so it is not — scale its data into the unit ball.
"""
from libc.math cimport pow, sqrt
from libc.stdint cimport int64_t

# (the integer constants are the cpdef enums of ellipsoid.pxd; the float ones, C constants
# there, are given to Python here)
globals().update(C_NEGLIGIBLE=C_NEGLIGIBLE, TAU_MAX=TAU_MAX, INFEASIBLE=INFEASIBLE,
                 RESET_REQUESTED=RESET_REQUESTED)


cdef inline double _integer_power(double base, int64_t exponent) noexcept nogil:
    """``base ** exponent`` for an integer ``exponent ≥ 0`` as numba computed it (and so as
    the library always did): by repeated squaring up to 2^16, by ``pow`` beyond."""
    cdef double result = 1.0
    if exponent > 0x10000:
        return pow(base, <double>exponent)
    while exponent != 0:
        if exponent & 1:
            result *= base
        exponent >>= 1
        base *= base
    return result


cdef double memory(int decay, int64_t t, double b, double c) noexcept nogil:
    """IELLIP's ``c_t`` of (15): ``c·b^(t−1)`` (0⁰ = 1) with t the round or the update
    (1-based), or the constant ``1 − b``."""
    if decay == DECAY_CONSTANT:
        return 1.0 - b
    return c * _integer_power(b, t - 1) if t > 1 else c


cdef EllipsoidStep ellipsoid_step(int kind, double margin, double v, double c_t, double gamma,
                                  double a, int mode, int p_update) noexcept nogil:
    """One mistake's step.  ``mode``: CELLIP's ``on_infeasible``, IELLIP's step choice;
    ``c_t``: IELLIP's memory of (15) for this update (:func:`memory`; unused by CELLIP);
    ``p_update``: IELLIP's P⁻¹ takes ``g gᵀ`` (``P_NORMALIZED``) or ``x xᵀ`` (``P_RAW``)."""
    cdef double sqrt_v = sqrt(v), tau, clipped
    if kind == CELLIP:
        tau = (a * gamma - margin) / sqrt_v
        if tau >= 1.0:
            if mode == RAISE:
                return EllipsoidStep(0.0, INFEASIBLE, 0.0)
            clipped = min(tau, TAU_MAX)
            if mode == SKIP_MATRIX:
                return EllipsoidStep(clipped / sqrt_v, 1.0, 0.0)
            if mode == RESET:
                return EllipsoidStep(clipped / sqrt_v, RESET_REQUESTED, 0.0)
            tau = clipped
        return EllipsoidStep(tau / sqrt_v, 1.0 - tau * tau, -2.0 * tau * (1.0 - tau) / v)
    if mode == STEP_FIXED:
        tau = gamma / sqrt_v
    else:
        tau = (a * gamma - margin) / sqrt_v
    if c_t <= C_NEGLIGIBLE:  # P is numerically frozen
        return EllipsoidStep(tau / sqrt_v, 1.0, 0.0)
    if p_update == P_RAW:
        return EllipsoidStep(tau / sqrt_v, 1.0 / (1.0 - c_t),
                             -c_t / ((1.0 - c_t) * ((1.0 - c_t) + c_t * v)))
    return EllipsoidStep(tau / sqrt_v, 1.0 / (1.0 - c_t), -c_t / ((1.0 - c_t) * v))
