"""The one place where a rule id becomes a step computation.

The engine calls :func:`compute_steps` once per round with ``q = ‖x‖² > 0``, ``tau`` zeroed and
``factor`` set to ones.  A rule writes ``tau`` (one coefficient per output: the model adds
``tau[r]·x`` to output ``r``, or multiplies its weights by ``exp(tau[r]·x_j)`` for the
multiplicative family) and, if it rescales, ``factor`` (output ``r`` is first multiplied by
``factor[r]``; the engine applies it lazily through the scale factor).

``order`` is an int64 scratch array of one entry per output that a rule may overwrite (the
support-class rules sort their losses in it); an engine passes one for the whole pass so that a
round allocates nothing (without it, a rule that needs one allocates it).

``params`` is a float64 vector whose entries are named per rule in
:data:`onlinear.rules.table.RULES`; ``state`` is the learner's persistent state (see
:mod:`onlinear.rules.layout`).  Keeping the switch in one function means the engine is
compiled once for all rules, not once per rule; the rule ids are
:class:`~onlinear.rules.table.Rule`.

The switch is inlined into the engine's round (``inline="always"``; each engine calls it from
one place): as a call, numba passed its six arrays field by field (about fifty arguments) in
every round, which cost about 60 ns a round — 7 % of a dense pass of pa over 784 features
(measured against the bare loop of ``benchmarks/bare_loop.py``).  The rules' own functions
stay calls: only the one the rule id selects runs.
"""
from numba import njit

from .maximum_cosine import maximum_cosine_steps, naromma_steps, romma_steps
from .passive_aggressive import pa_steps, support_class_steps
from .table import RULES, Rule
from .ultraconservative import (
    additive_family_steps,
    binary_mira_steps,
    kesler_steps,
    mc_romma_steps,
    mira_steps,
    multiplicative_steps,
    perceptron_steps,
)

# The switch compares plain integers (numba folds these module constants into the code).
_PERCEPTRON = int(Rule.PERCEPTRON)
_BINARY_MIRA = int(Rule.BINARY_MIRA)
_ADDITIVE_FAMILY = int(Rule.ADDITIVE_FAMILY)
_KESLER = int(Rule.KESLER)
_MIRA = int(Rule.MIRA)
_PASSIVE_AGGRESSIVE = int(Rule.PASSIVE_AGGRESSIVE)
_SUPPORT_CLASS = int(Rule.SUPPORT_CLASS)
_ROMMA = int(Rule.ROMMA)
_NAROMMA = int(Rule.NAROMMA)
_MAXIMUM_COSINE = int(Rule.MAXIMUM_COSINE)
_MC_ROMMA = int(Rule.MC_ROMMA)
_MULTIPLICATIVE = int(Rule.MULTIPLICATIVE)

#: ids of the rules that read ‖w_r‖² from ``state`` (see :class:`onlinear.rules.table.RuleRow`)
NORM_READING_RULES = tuple(int(rule) for rule, row in RULES.items() if row.reads_norm)


@njit(cache=True, error_model="numpy", inline="always")
def compute_steps(rule, scores, y, q, params, state, tau, factor, order=None):
    if rule == _PERCEPTRON:
        perceptron_steps(scores, y, q, params[0], tau)
    elif rule == _BINARY_MIRA:
        binary_mira_steps(scores, y, q, params[0], tau)
    elif rule == _ADDITIVE_FAMILY:
        additive_family_steps(scores, y, q, params[0], int(params[1]), tau)
    elif rule == _KESLER:
        kesler_steps(scores, y, q, params[0], tau)
    elif rule == _MIRA:
        mira_steps(scores, y, q, params[0], tau, order)
    elif rule == _PASSIVE_AGGRESSIVE:
        pa_steps(scores, y, q, int(params[1]), params[0], int(params[2]), tau)
    elif rule == _SUPPORT_CLASS:
        support_class_steps(scores, y, q, int(params[1]), params[0], int(params[2]), tau,
                            order)
    elif rule == _ROMMA:
        romma_steps(scores, y, q, int(params[0]), state, tau, factor)
    elif rule == _NAROMMA:
        naromma_steps(scores, y, q, int(params[0]), state, tau, factor)
    elif rule == _MAXIMUM_COSINE:
        maximum_cosine_steps(scores, y, q, params[0] != 0.0, state, tau, factor)
    elif rule == _MC_ROMMA:
        mc_romma_steps(scores, y, q, int(params[0]), state, tau, factor)
    elif rule == _MULTIPLICATIVE:
        multiplicative_steps(scores, y, q, params[0], int(params[1]), tau)
    else:
        raise ValueError("unknown rule id")
