# cython: language_level=3
"""The one place where a Gaussian rule id (:class:`onlinear.rules.confidence_table.GaussianRule`)
becomes its compiled step (:mod:`onlinear.rules.confidence`): the table of step pointers is
generated from the rule table (``rules/codegen.py``), so a new rule adds nothing here."""
from .confidence cimport GaussianStep, gaussian_step_function

include "_gaussian_steps.pxi"


cdef gaussian_step_function gaussian_step_of(int rule) noexcept nogil:
    """The step function of Gaussian rule id ``rule``, or NULL for an unknown id."""
    if rule < 0 or rule >= _N_GAUSSIAN_RULES:
        return NULL
    return _GAUSSIAN_STEPS[rule]


def gaussian_step(int rule, double m, double v, const double[::1] params):
    """``(α, β, c)`` of Gaussian rule ``rule`` for a round of margin ``m`` and margin variance
    ``v`` (the tests' entry; ``params`` from
    :func:`onlinear.rules.confidence_table.parameter_vector`)."""
    cdef gaussian_step_function step = gaussian_step_of(rule)
    if step == NULL:
        raise ValueError(f"unknown Gaussian rule id {rule}")
    if params.shape[0] < len(GAUSSIAN_PARAMETER_FIELDS[rule]):
        raise ValueError(f"rule {rule} reads {len(GAUSSIAN_PARAMETER_FIELDS[rule])} parameters, "
                         f"got {params.shape[0]}")
    cdef GaussianStep s = step(m, v, &params[0])
    return s.alpha, s.beta, s.c
