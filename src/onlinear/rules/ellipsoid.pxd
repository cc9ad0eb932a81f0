# cython: language_level=3
# The ellipsoid rules (ellipsoid.pyx, which documents them): the integer constants are exported
# to Python by the cpdef enums, the float ones by ellipsoid.pyx.
cpdef enum:
    CELLIP = 0
    IELLIP = 1

# CELLIP's answer to τ ≥ 1 (the cut misses the ellipsoid: no margin-aγ separator is left in it,
# and (11) would make P singular or indefinite; the paper offers no remedy and points to IELLIP
# for inseparable data, §2.3)
cpdef enum:
    CLIP = 0  # τ ← min(τ, 1 − 1e-3)
    RAISE = 1  # the learner says so: the engine returns an error code
    SKIP_MATRIX = 2  # update w by (10) only
    RESET = 3  # the step with the clipped τ, then P ← P_1 (the default)

cpdef enum:
    STEP_MARGIN = 0  # τ = (aγ − m)/sqrt(v), eq. (5)
    STEP_FIXED = 1  # τ = γ/sqrt(v), the step Lemma 2 analyses

# IELLIP's readings of c_t and of the P update (§2.3, eq. (15))
cpdef enum:
    DECAY_ROUNDS = 0  # c_t = c·b^(t−1), t the round (Algorithm 2's t)
    DECAY_UPDATES = 1  # c_t = c·b^(k−1), k this ellipsoid's update
    DECAY_CONSTANT = 2  # c_t = 1 − b on every update

cpdef enum:
    P_NORMALIZED = 0  # P⁻¹ ← (1 − c_t)P⁻¹ + c_t g gᵀ, g = x/sqrt(v): (15) as printed
    P_RAW = 1  # P⁻¹ ← (1 − c_t)P⁻¹ + c_t x xᵀ

from libc.stdint cimport int64_t

cdef extern from *:
    """
    #define ONLINEAR_ELLIPSOID_C_NEGLIGIBLE 1e-15
    #define ONLINEAR_ELLIPSOID_TAU_MAX (1.0 - 1e-3)
    #define ONLINEAR_ELLIPSOID_INFEASIBLE (-1.0)
    #define ONLINEAR_ELLIPSOID_RESET_REQUESTED (-2.0)
    """
    # c_t below this is taken as 0: P is numerically frozen (c·b^(t−1) underflows towards it)
    const double C_NEGLIGIBLE "ONLINEAR_ELLIPSOID_C_NEGLIGIBLE"
    const double TAU_MAX "ONLINEAR_ELLIPSOID_TAU_MAX"
    # returned as p_scale when CELLIP must stop (on_infeasible = RAISE)
    const double INFEASIBLE "ONLINEAR_ELLIPSOID_INFEASIBLE"
    # returned as p_scale to ask the engine for P ← P_1
    const double RESET_REQUESTED "ONLINEAR_ELLIPSOID_RESET_REQUESTED"


# One mistake's step: the engine applies w ← w + w_coef·u and P ← p_scale·P + p_rank_one·u uᵀ.
cdef struct EllipsoidStep:
    double w_coef
    double p_scale
    double p_rank_one


cdef double memory(int decay, int64_t t, double b, double c) noexcept nogil
cdef EllipsoidStep ellipsoid_step(int kind, double margin, double v, double c_t, double gamma,
                                  double a, int mode, int p_update) noexcept nogil
