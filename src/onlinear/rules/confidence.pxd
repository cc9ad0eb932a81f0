# cython: language_level=3
# The Gaussian (confidence-weighted) learners' steps: one signature, from the round's margin m,
# its variance V and the rule's parameters (its generated struct, _gaussian_params.pxd) to the
# coefficients (α, β, c) of μ ← μ + α·y·Σx, Σ ← Σ − β(Σx)(Σx)ᵀ ⇔ Σ⁻¹ ← Σ⁻¹ + c·xxᵀ
# (onlinear.rules.confidence documents them; onlinear.rules.confidence_table lists them).

cdef struct GaussianStep:
    double alpha
    double beta
    double c

ctypedef GaussianStep (*gaussian_step_function)(double m, double v,
                                                const double *params) noexcept nogil

cdef GaussianStep cw_variance_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep cw_std_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep scw_i_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep scw_ii_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep scw_ii_libol_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep arow_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep nherd_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep shared_cw_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep shared_scw_i_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep shared_scw_ii_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep shared_arow_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep libol_shared_cw_step(double m, double v, const double *params) noexcept nogil
cdef GaussianStep libol_shared_scw_i_step(double m, double v,
                                          const double *params) noexcept nogil
cdef GaussianStep libol_shared_scw_ii_step(double m, double v,
                                           const double *params) noexcept nogil
cdef GaussianStep libol_shared_arow_step(double m, double v, const double *params) noexcept nogil
