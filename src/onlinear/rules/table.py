"""The one table of step rules: every fact about a rule that the engines, the estimators and the
tests need, in one row per rule.

A row names the compiled function that computes the rule's steps (the compiled switch,
:func:`onlinear.rules.dispatch.compute_steps`, calls it), the names of the entries of its
``params`` vector, in order, and its properties:

* ``binary`` — its outputs are independent binary learners: one output for two classes, one
  per class (one-vs-rest) for more;
* ``scale_free`` — a binary rule whose weight scale is arbitrary, so one-vs-rest compares
  ``w_r·x/‖w_r‖`` (ours, not the papers': raw scores of such outputs are not comparable);
* ``reads_norm`` — the rule reads ‖w_r‖² from the state (``layout.squared_norm``), so an engine
  must keep it current (the dual engine pays O(S²) kernel evaluations for it otherwise);
* ``state_rows`` — rows of the learner's ``state`` array: the engine's rows
  (:data:`onlinear.rules.layout.FIRST_RULE_ROW` of them) and the rule's own after them;
* ``example_weight`` — how an example's weight w enters the round (:meth:`RuleRow.weight_mode`);
* ``updates_when`` — the rule's update condition, in words (the docs' table of rules).

The step function reads ``params`` through its rule's struct, whose fields are the row's
parameter names (generated from this table with the compiled table of step functions,
:mod:`onlinear.rules.codegen`), never by position.

Adding a rule: its step function in the module of its paper family (declared in its ``.pxd``,
reading its parameters through ``<RuleName>Params``), a member of :class:`Rule` and a row here;
the build generates the compiled switch's entry and the struct from the row, and the estimators
and tests read the rest from it.

>>> from onlinear.rules.table import RULES, Rule
>>> RULES[Rule.SUPPORT_CLASS].params
('C', 'kind', 'variant')
>>> RULES[Rule.SUPPORT_CLASS].vector({"C": 0.5, "kind": 1, "variant": 0}).tolist()
[0.5, 1.0, 0.0]
>>> [rule.name for rule, row in RULES.items() if row.scale_free]
['ROMMA', 'NAROMMA', 'MAXIMUM_COSINE']
"""
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from .layout import FIRST_RULE_ROW
from .passive_aggressive import PA

#: the rule's own state rows (after the engine's, :data:`~onlinear.rules.layout.FIRST_RULE_ROW`):
#: the certificate of the maximum-cosine learners (ρ or ℓ per output), MC-ROMMA's 1/‖M‖
from .maximum_cosine import CERTIFICATE  # noqa: E402
from .ultraconservative import RHO  # noqa: E402

class Rule(IntEnum):
    """Rule ids, as the compiled switch sees them (plain integers).

    Parameters
    ----------
    value : int
        The rule id; ``Rule(value)`` is the member with that id.
    """

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


@dataclass(frozen=True)
class RuleRow:
    """One rule: its step function, parameter names and properties (see the module doc).

    Parameters
    ----------
    step : str
        The name of the compiled function that computes the rule's steps (in the module of
        its paper family; :data:`onlinear.rules.dispatch.STEP_NAMES` lists them by rule id).
    params : tuple of str
        Names of the entries of the rule's ``params`` vector, in order.
    binary : bool, default=False
        The outputs are independent binary learners (one for two classes, one-vs-rest for more).
    scale_free : bool, default=False
        A binary rule whose weight scale is arbitrary (one-vs-rest compares ``w_r·x/‖w_r‖``).
    reads_norm : bool, default=False
        The rule reads ‖w_r‖² from the state, which an engine must then keep current.
    state_rows : int, default=FIRST_RULE_ROW
        Rows of the learner's ``state`` array: the engine's and the rule's own after them.
    example_weight : {"step", "C"}, default="step"
        How an example's weight w enters the round: ``"step"``, the step is w times as long
        (for the hard-margin rules, whose step meets the constraints exactly, a weight below 1
        leaves the margin short and one above 1 overshoots it); ``"C"``, the rule's C becomes
        w·C — the weighted loss C·w·ξ of its primal problem — whenever the rule has a slack
        (``kind`` PA-I or PA-II; the hard-margin kind takes the step).
    updates_when : str, default=""
        The rule's update condition, in words.
    """

    step: str
    params: tuple
    binary: bool = False
    scale_free: bool = False
    reads_norm: bool = False
    state_rows: int = FIRST_RULE_ROW
    example_weight: str = "step"
    updates_when: str = ""

    def weight_mode(self, values):
        """``"step"`` or ``"C"``: how an example's weight enters this rule's round with the
        parameter ``values`` (see ``example_weight``)."""
        if self.example_weight == "C" and values["kind"] != PA:
            return "C"
        return "step"

    def vector(self, values):
        """The rule's ``params`` vector from ``values``, a mapping of every parameter name to a
        number (string options already encoded by the estimator)."""
        return parameter_vector(self.params, values)


def parameter_vector(names, values):
    """The float64 vector a compiled step reads through its parameter struct, whose fields are
    ``names`` in order: one entry per name, from ``values`` (every name, and no other)."""
    missing = set(names) - set(values)
    unknown = set(values) - set(names)
    if missing or unknown:
        raise ValueError(f"rule parameters: expected {list(names)}; missing "
                         f"{sorted(missing)}, unknown {sorted(unknown)}.")
    return np.array([values[name] for name in names], dtype=np.float64)


RULES = {
    Rule.PERCEPTRON: RuleRow("perceptron_steps", ("beta",), binary=True,
                             updates_when="z·s ≤ β (each output)"),
    Rule.BINARY_MIRA: RuleRow("binary_mira_steps", ("beta",), binary=True,
                              updates_when="z·s < β/2 (each output)"),
    Rule.ADDITIVE_FAMILY: RuleRow("additive_family_steps", ("beta", "scheme"),
                                  updates_when="some wrong class scores ≥ s_y − β"),
    Rule.KESLER: RuleRow("kesler_steps", ("beta",),
                         updates_when="some wrong class scores ≥ s_y − β"),
    Rule.MIRA: RuleRow("mira_steps", ("beta",),
                       updates_when="some wrong class scores > s_y − β"),
    Rule.PASSIVE_AGGRESSIVE: RuleRow("pa_steps", ("C", "kind", "variant"), example_weight="C",
                                     updates_when="s_y − max_{r≠y} s_r < 1"),
    Rule.SUPPORT_CLASS: RuleRow("support_class_steps", ("C", "kind", "variant"),
                                example_weight="C",
                                updates_when="s_y − max_{r≠y} s_r < 1 (every class with s_y − s_r < 1 may step)"),
    Rule.ROMMA: RuleRow("romma_steps", ("kind",), binary=True, scale_free=True,
                        reads_norm=True, state_rows=CERTIFICATE + 1,
                        updates_when="z(u·x) ≤ 0 (aggressive: z(u·x) < 1), each output"),
    Rule.NAROMMA: RuleRow("naromma_steps", ("skip",), binary=True, scale_free=True,
                          reads_norm=True, state_rows=CERTIFICATE + 1,
                          updates_when="z(ŵ·x) < ρ (each output); anti-parallel rows "
                                       "skipped (skip_collinear='paper': parallel ones too)"),
    Rule.MAXIMUM_COSINE: RuleRow("maximum_cosine_steps", ("conservative",), binary=True,
                                 scale_free=True, reads_norm=True, state_rows=CERTIFICATE + 1,
                                 updates_when="z(w·x) ≤ ‖w‖/(2ℓ) (conservative: "
                                              "z(w·x) ≤ 0), each output"),
    Rule.MC_ROMMA: RuleRow("mc_romma_steps", ("scheme",), reads_norm=True, state_rows=RHO + 1,
                           updates_when="some wrong class scores ≥ s_y"),
    Rule.MULTIPLICATIVE: RuleRow("multiplicative_steps", ("eta", "scheme"),
                                 updates_when="some wrong class scores ≥ s_y"),
}
assert set(RULES) == set(Rule)
