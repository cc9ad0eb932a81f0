# cython: language_level=3
"""The one place where a rule id becomes a step computation.

Every rule's step has one signature (``rules/_step.pxd``): from the round's true scores ``s``
(one per output), the label index ``y``, ``q = ‖x‖² > 0``, the rule's ``params`` and the
learner's ``state`` it writes ``tau`` (one coefficient per output: the model adds ``tau[r]·x``
to output ``r``, or multiplies its weights by ``exp(tau[r]·x_j)`` for the multiplicative
family) and, if it rescales, ``factor`` (output ``r`` is first multiplied by ``factor[r]``;
the engine applies it lazily through the scale factor).  ``order`` is an int64 scratch array of
one entry per output that a rule may overwrite (the support-class rules sort their losses in
it); an engine passes one for the whole pass, so that a round allocates nothing.

``params`` is a float64 vector whose entries are named per rule in
:data:`onlinear.rules.table.RULES`; ``state`` is the learner's persistent state (see
:mod:`onlinear.rules.layout`).  The engines look a rule's step function up once per call
(:func:`step_of`, by the ids of :class:`~onlinear.rules.table.Rule`) and call it through the
pointer every round: one compiled engine serves every rule, and the table below is checked
against the rule table by name (:data:`STEP_NAMES`, ``tests/test_rule_table.py``).
"""
from libc.stdint cimport int64_t
import numpy as np

from ._step cimport step_function

from .table import RULES, Rule

# the step functions' cimports, their table by rule id, STEP_NAMES and PARAMETER_FIELDS:
# generated from the rule table (rules/codegen.py), so a new rule adds nothing here
include "_steps.pxi"

#: ids of the rules that read ‖w_r‖² from ``state`` (see :class:`onlinear.rules.table.RuleRow`)
NORM_READING_RULES = tuple(int(rule) for rule, row in RULES.items() if row.reads_norm)


cdef step_function step_of(int rule) noexcept nogil:
    """The step function of rule id ``rule``, or NULL for an unknown id."""
    if rule < 0 or rule >= _N_RULES:
        return NULL
    return _STEPS[rule]


cdef void compute_steps_c(step_function step, const double *scores, Py_ssize_t m, Py_ssize_t y,
                          double q, const double *params, double *state, double *tau,
                          double *factor, int64_t *order) noexcept nogil:
    """The round's steps: ``tau`` zeroed and ``factor`` set to ones, then the rule's."""
    cdef Py_ssize_t r
    for r in range(m):
        tau[r] = 0.0
        factor[r] = 1.0
    step(scores, m, y, q, params, state, tau, factor, order)


def compute_steps(int rule, const double[::1] scores, Py_ssize_t y, double q,
                  const double[::1] params, double[:, ::1] state, double[::1] tau,
                  double[::1] factor, int64_t[::1] order=None):
    """The steps of rule ``rule`` for one round, from Python (the tests' entry): ``tau`` and
    ``factor`` are overwritten (zeros and ones, then the rule's), ``state`` updated as the
    engine's round would; ``order`` as above (allocated when not given)."""
    cdef step_function step = step_of(rule)
    if step == NULL:
        raise ValueError(f"unknown rule id {rule}")
    cdef Py_ssize_t m = scores.shape[0]
    if tau.shape[0] != m or factor.shape[0] != m or state.shape[1] != m:
        raise ValueError("scores, tau, factor and the state's columns must have one entry per "
                         "output")
    if not 0 <= y < m and m > 1:
        raise ValueError(f"label index {y} outside 0..{m - 1}")
    if order is None:
        order = np.empty(m, np.int64)
    compute_steps_c(step, &scores[0], m, y, q, &params[0] if params.shape[0] else NULL,
                    &state[0, 0], &tau[0], &factor[0], &order[0])
