"""The one place where a rule id becomes a step computation.

The engine calls :func:`compute_steps` once per round with ``q = ‖x‖² > 0``, ``tau`` zeroed and
``factor`` set to ones.  A rule writes ``tau`` (one coefficient per output: the model adds
``tau[r]·x`` to output ``r``, or multiplies its weights by ``exp(tau[r]·x_j)`` for the
multiplicative family) and, if it rescales, ``factor`` (output ``r`` is first multiplied by
``factor[r]``; the engine applies it lazily through the scale factor).

``params`` is a float64 vector whose meaning is fixed per rule (see :data:`PARAMS`); ``state`` is
the learner's persistent state (see :mod:`onlinear.rules.layout`).  Keeping the switch in one
compiled function means the engine is compiled once for all rules, not once per rule.
"""
from numba import njit

from .maximum_cosine import maximum_cosine_steps, naromma_steps, romma_steps
from .passive_aggressive import pa_steps, support_class_steps
from .ultraconservative import (
    additive_family_steps,
    binary_mira_steps,
    kesler_steps,
    mc_romma_steps,
    mira_steps,
    multiplicative_steps,
    perceptron_steps,
)

PERCEPTRON = 0
BINARY_MIRA = 1
ADDITIVE_FAMILY = 2
KESLER = 3
MIRA = 4
PASSIVE_AGGRESSIVE = 5
SUPPORT_CLASS = 6
ROMMA = 7
NAROMMA = 8
MAXIMUM_COSINE = 9
MC_ROMMA = 10
MULTIPLICATIVE = 11

#: rule id → names of the entries of its ``params`` vector, in order.
PARAMS = {
    PERCEPTRON: ("beta",),
    BINARY_MIRA: ("beta",),
    ADDITIVE_FAMILY: ("beta", "scheme"),
    KESLER: ("beta",),
    MIRA: ("beta",),
    PASSIVE_AGGRESSIVE: ("C", "kind", "variant"),
    SUPPORT_CLASS: ("C", "kind", "variant"),
    ROMMA: ("kind",),
    NAROMMA: ("skip",),
    MAXIMUM_COSINE: ("conservative",),
    MC_ROMMA: ("scheme",),
    MULTIPLICATIVE: ("eta", "scheme"),
}

#: rules whose outputs are independent binary learners (one output for two classes).
BINARY_RULES = frozenset({PERCEPTRON, BINARY_MIRA, ROMMA, NAROMMA, MAXIMUM_COSINE})

#: scale-free binary rules: one-vs-rest compares ``w_r·x/‖w_r‖`` (not from the papers: their
#: weight scales are arbitrary, so raw scores of different outputs are not comparable).
SCALE_FREE_RULES = frozenset({ROMMA, NAROMMA, MAXIMUM_COSINE})


@njit(cache=True)
def compute_steps(rule, scores, y, q, params, state, tau, factor):
    if rule == PERCEPTRON:
        perceptron_steps(scores, y, q, params[0], tau)
    elif rule == BINARY_MIRA:
        binary_mira_steps(scores, y, q, params[0], tau)
    elif rule == ADDITIVE_FAMILY:
        additive_family_steps(scores, y, q, params[0], int(params[1]), tau)
    elif rule == KESLER:
        kesler_steps(scores, y, q, params[0], tau)
    elif rule == MIRA:
        mira_steps(scores, y, q, params[0], tau)
    elif rule == PASSIVE_AGGRESSIVE:
        pa_steps(scores, y, q, int(params[1]), params[0], int(params[2]), tau)
    elif rule == SUPPORT_CLASS:
        support_class_steps(scores, y, q, int(params[1]), params[0], int(params[2]), tau)
    elif rule == ROMMA:
        romma_steps(scores, y, q, int(params[0]), state, tau, factor)
    elif rule == NAROMMA:
        naromma_steps(scores, y, q, int(params[0]), state, tau, factor)
    elif rule == MAXIMUM_COSINE:
        maximum_cosine_steps(scores, y, q, params[0] != 0.0, state, tau, factor)
    elif rule == MC_ROMMA:
        mc_romma_steps(scores, y, q, int(params[0]), state, tau, factor)
    elif rule == MULTIPLICATIVE:
        multiplicative_steps(scores, y, q, params[0], int(params[1]), tau)
    else:
        raise ValueError("unknown rule id")
