"""The table of the Gaussian (confidence-weighted) learners' step rules: one row per rule, as
:mod:`onlinear.rules.table` is for the first-order rules.

Every learner of the family keeps a Gaussian N(μ, Σ) over weight vectors and, on a round with
margin ``m`` and margin variance ``V``, moves the mean along Σx and shrinks Σ by a rank-one
term along Σx (Crammer, Dredze & Pereira, NIPS 2008, and the papers after it)::

    μ ← μ + α·y·Σx,    Σ ← Σ − β·(Σx)(Σx)ᵀ    ⇔    Σ⁻¹ ← Σ⁻¹ + c·xxᵀ,   β = c/(1 + c·V)

so a rule is a compiled function ``(m, V, params) → (α, β, c)``
(:mod:`onlinear.rules.confidence`) and the engine (:mod:`onlinear._core.confidence`) applies
it in its covariance layout.  A round updates iff α > 0.

A row names that function, the fields of the rule's parameter struct (generated from the row
by :mod:`onlinear.rules.codegen`, read by the step by name), the hyperparameters a user sets
and their defaults, the covariance layouts the rule is the solution for, the diagonal forms it
allows and its update condition.  Adding a rule: its step in ``confidence.pyx`` (declared in
``confidence.pxd``), a member of :class:`GaussianRule` and a row here.

>>> from onlinear.rules.confidence_table import GAUSSIAN_RULES, GaussianRule, parameter_vector
>>> GAUSSIAN_RULES[GaussianRule.AROW].params
('r',)
>>> parameter_vector(GaussianRule.SCW_I, eta=0.75).round(6).tolist()
[0.67449, 1.0]
>>> weighted_values(GaussianRule.AROW, {"r": 1.0}, 4.0)  # (1/2r)·ℓ² weighted by 4
{'r': 0.25}
"""
from dataclasses import dataclass
from enum import IntEnum

import numpy as np
# Φ⁻¹ (what scipy.stats.norm.ppf computes), without importing scipy.stats (~35 MiB)
from scipy.special import ndtri


class GaussianRule(IntEnum):
    """Ids of the Gaussian rules, as the compiled table of steps sees them.

    Parameters
    ----------
    value : int
        The rule id; ``GaussianRule(value)`` is the member with that id.
    """

    CW_VARIANCE = 0
    CW_STD = 1
    SCW_I = 2
    SCW_II = 3
    SCW_II_LIBOL = 4
    AROW = 5
    NHERD = 6
    SHARED_CW = 7
    SHARED_SCW_I = 8
    SHARED_SCW_II = 9
    SHARED_AROW = 10
    LIBOL_SHARED_CW = 11
    LIBOL_SHARED_SCW_I = 12
    LIBOL_SHARED_SCW_II = 13
    LIBOL_SHARED_AROW = 14


#: the layouts whose margin variance is V = Σ over the two touched classes of xᵀΣ_k x (one
#: class for the binary learner): the papers' rules apply as they are
SEPARATE = ("binary", "diagonal", "per-class")
#: one covariance shared by every class (the LIBOL manual §3.2.3): the rule receives v = xᵀΣx
SHARED = ("shared",)


@dataclass(frozen=True)
class GaussianRow:
    """One Gaussian rule (see the module doc).

    Parameters
    ----------
    step : str
        The compiled step function (in :mod:`onlinear.rules.confidence`).
    params : tuple of str
        Fields of the rule's parameter struct, in order (``phi`` is Φ⁻¹(η)).
    defaults : dict
        The user's hyperparameters and their defaults (``eta``, ``C``, ``r``).
    layouts : tuple of str
        Covariance layouts the rule serves: ``SEPARATE`` or ``SHARED``.
    diagonal_forms : tuple of str, default=("project", "drop")
        The diagonal approximations the rule allows (NHERD adds ``"exact"``).
    updates_when : str, default=""
        The update condition, in words.
    margin_bound : float or None, default=None
        For a rule that updates only on rounds of margin m < ``margin_bound`` whatever the
        margin variance V (AROW, NHERD: 1): the engine's passes need not compute V on the
        other rounds.  None where V enters the condition (CW, SCW: m < φ√V).
    """

    step: str
    params: tuple
    defaults: dict
    layouts: tuple = SEPARATE
    diagonal_forms: tuple = ("project", "drop")
    updates_when: str = ""
    margin_bound: float | None = None


_ETA_C = {"eta": 0.75, "C": 1.0}

GAUSSIAN_RULES = {
    GaussianRule.CW_VARIANCE: GaussianRow("cw_variance_step", ("phi",), {"eta": 0.75},
                                          updates_when="m < φV"),
    GaussianRule.CW_STD: GaussianRow("cw_std_step", ("phi",), {"eta": 0.75},
                                     updates_when="m < φ√V"),
    GaussianRule.SCW_I: GaussianRow("scw_i_step", ("phi", "C"), _ETA_C, updates_when="m < φ√V"),
    GaussianRule.SCW_II: GaussianRow("scw_ii_step", ("phi", "C"), _ETA_C, updates_when="m < φ√V"),
    GaussianRule.SCW_II_LIBOL: GaussianRow("scw_ii_libol_step", ("phi", "C"), _ETA_C,
                                           updates_when="m < φ√V (LIBOL's SCW2.m radicand)"),
    GaussianRule.AROW: GaussianRow("arow_step", ("r",), {"r": 1.0}, updates_when="m < 1",
                                   margin_bound=1.0),
    GaussianRule.NHERD: GaussianRow("nherd_step", ("C",), {"C": 1.0},
                                    diagonal_forms=("project", "drop", "exact"),
                                    updates_when="m < 1", margin_bound=1.0),
    GaussianRule.SHARED_CW: GaussianRow("shared_cw_step", ("phi",), {"eta": 0.75}, SHARED,
                                        updates_when="m < φ√(2v)"),
    GaussianRule.SHARED_SCW_I: GaussianRow("shared_scw_i_step", ("phi", "C"), _ETA_C, SHARED,
                                           updates_when="m < φ√(2v)"),
    GaussianRule.SHARED_SCW_II: GaussianRow("shared_scw_ii_step", ("phi", "C"), _ETA_C, SHARED,
                                            updates_when="m < φ√(2v)"),
    GaussianRule.SHARED_AROW: GaussianRow("shared_arow_step", ("r",), {"r": 1.0}, SHARED,
                                          updates_when="m < 1", margin_bound=1.0),
    GaussianRule.LIBOL_SHARED_CW: GaussianRow("libol_shared_cw_step", ("phi",), {"eta": 0.75},
                                              SHARED, updates_when="m < φ√v (M_CW.m)"),
    GaussianRule.LIBOL_SHARED_SCW_I: GaussianRow("libol_shared_scw_i_step", ("phi", "C"), _ETA_C,
                                                 SHARED, updates_when="m < φ√v (M_SCW1.m)"),
    GaussianRule.LIBOL_SHARED_SCW_II: GaussianRow("libol_shared_scw_ii_step", ("phi", "C"), _ETA_C,
                                                  SHARED, updates_when="m < φ√v (M_SCW2.m)"),
    GaussianRule.LIBOL_SHARED_AROW: GaussianRow("libol_shared_arow_step", ("r",), {"r": 1.0},
                                                SHARED, updates_when="m < 1 (M_AROW.m)",
                                                margin_bound=1.0),
}
assert set(GAUSSIAN_RULES) == set(GaussianRule)


def parameter_vector(rule, **values):
    """The float64 vector the compiled step of ``rule`` reads through its parameter struct,
    from the user's hyperparameters (the row's defaults for those not given).  ``eta`` must lie
    in the open interval (0.5, 1) (φ = Φ⁻¹(η); η = 0.5 makes φ = 0 and the variance form
    divides by 0, η = 1 makes φ infinite); ``C`` and ``r`` must be positive and finite."""
    row = GAUSSIAN_RULES[GaussianRule(rule)]
    unknown = set(values) - set(row.defaults)
    if unknown:
        raise ValueError(f"{GaussianRule(rule).name}: unknown parameters {sorted(unknown)}; "
                         f"it takes {sorted(row.defaults)}")
    given = {**row.defaults, **values}
    for name in ("C", "r"):
        if name in given and not (0.0 < float(given[name]) < np.inf):
            raise ValueError(f"{name} must be positive and finite, got {given[name]!r}")
    if "eta" in given:
        if not 0.5 < float(given["eta"]) < 1.0:
            raise ValueError(f"eta must lie in the open interval (0.5, 1), got {given['eta']!r}")
        given["phi"] = float(ndtri(float(given["eta"])))
    return np.array([float(given[name]) for name in row.params], dtype=np.float64)


#: how an example weight w > 0 enters a rule's problem, by the hyperparameter that weighs the
#: loss: SCW's C·ℓ^φ (or C·(ℓ^φ)²) and NHERD's C become w·C; AROW's (1/2r)·(ℓ² + xᵀΣx)
#: becomes (w/2r)·(…), r → r/w.  CW has no loss (a hard constraint, met once whatever its
#: weight): no weighted form.
WEIGHTED_BY = {"C": lambda value, weight: value * weight,
               "r": lambda value, weight: value / weight}


def has_weighted_form(rule):
    """Whether ``rule``'s problem weighs a loss, so that an example weight has a meaning
    (:data:`WEIGHTED_BY`)."""
    return any(name in WEIGHTED_BY for name in GAUSSIAN_RULES[GaussianRule(rule)].params)


def weighted_values(rule, values, weight):
    """The hyperparameters ``values`` of ``rule`` for an example of weight ``weight`` > 0: the
    loss's weight multiplied by it (:data:`WEIGHTED_BY`); ``values`` unchanged for weight 1."""
    if weight == 1.0:
        return dict(values)
    row = GAUSSIAN_RULES[GaussianRule(rule)]
    given = {**row.defaults, **values}
    return {name: WEIGHTED_BY[name](value, weight) if name in WEIGHTED_BY else value
            for name, value in given.items()}
