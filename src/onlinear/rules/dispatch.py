"""The one place where a rule id becomes a step computation.

The engine calls :func:`compute_steps` once per round with ``q = ‖x‖² > 0``.  A rule writes
``tau`` (one coefficient per output; the model adds ``tau[r]·x`` to output ``r``) and returns the
factor ``c`` by which the whole model is rescaled *before* the additive step (1.0 for purely
additive rules; ROMMA-type rules use it through the engine's lazy scale factor).

``params`` is a float64 vector whose meaning is fixed per rule (see :data:`PARAMS`); ``state`` is
the learner's persistent float64 state vector (``state[0]`` is the model's scale factor, owned by
the engine; the rest belongs to the rule).  Keeping the switch in one compiled function means the
engine is compiled once for all rules, not once per rule.
"""
from numba import njit

from .passive_aggressive import pa_steps, support_class_steps
from .ultraconservative import (
    additive_family_steps,
    binary_mira_steps,
    kesler_steps,
    mira_steps,
    perceptron_steps,
)

PERCEPTRON = 0
BINARY_MIRA = 1
ADDITIVE_FAMILY = 2
KESLER = 3
MIRA = 4
PASSIVE_AGGRESSIVE = 5
SUPPORT_CLASS = 6

#: rule id → names of the entries of its ``params`` vector, in order.
PARAMS = {
    PERCEPTRON: ("beta",),
    BINARY_MIRA: ("beta",),
    ADDITIVE_FAMILY: ("beta", "scheme"),
    KESLER: ("beta",),
    MIRA: ("beta",),
    PASSIVE_AGGRESSIVE: ("C", "kind", "variant"),
    SUPPORT_CLASS: ("C", "kind", "variant"),
}

#: rules whose outputs are independent binary learners (one output for two classes).
BINARY_RULES = frozenset({PERCEPTRON, BINARY_MIRA})


@njit(cache=True)
def compute_steps(rule, scores, y, q, params, state, tau):
    if rule == PERCEPTRON:
        return perceptron_steps(scores, y, q, params[0], tau)
    if rule == BINARY_MIRA:
        return binary_mira_steps(scores, y, q, params[0], tau)
    if rule == ADDITIVE_FAMILY:
        return additive_family_steps(scores, y, q, params[0], int(params[1]), tau)
    if rule == KESLER:
        return kesler_steps(scores, y, q, params[0], tau)
    if rule == MIRA:
        return mira_steps(scores, y, q, params[0], tau)
    if rule == PASSIVE_AGGRESSIVE:
        return pa_steps(scores, y, q, int(params[1]), params[0], int(params[2]), tau)
    if rule == SUPPORT_CLASS:
        return support_class_steps(scores, y, q, int(params[1]), params[0], int(params[2]), tau)
    raise ValueError("unknown rule id")
