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


def gaussian_step(int rule, double m, double v, const double[::1] vector):
    """``(α, β, c)`` of Gaussian rule ``rule`` for a round of margin ``m`` and margin variance
    ``v`` (the tests' entry; ``vector`` from
    :func:`onlinear.rules.confidence_table.parameter_vector`, passed on to the step, which reads
    it through its struct)."""
    cdef gaussian_step_function step = gaussian_step_of(rule)
    if step == NULL:
        raise ValueError(f"unknown Gaussian rule id {rule}")
    if vector.shape[0] < len(GAUSSIAN_PARAMETER_FIELDS[rule]):
        raise ValueError(f"rule {rule} reads {len(GAUSSIAN_PARAMETER_FIELDS[rule])} parameters, "
                         f"got {vector.shape[0]}")
    cdef GaussianStep s = step(m, v, &vector[0])
    return s.alpha, s.beta, s.c
