"""Estimators of the multiclass Passive-Aggressive family and of the exact Support-Class PA
(Matsushima, Shimizu, Yoshida, Ninomiya & Nakagawa, "Exact Passive-Aggressive Algorithm for
Multiclass Classification Using Support Class", SDM 2010)."""
from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from ..rules.table import Rule
from ..rules.passive_aggressive import EXACT, PA, PA_I, PA_II, PRINTED
from .base import OnlineLinearClassifier
from .primal import _PrimalLearner

__all__ = ["PassiveAggressive", "SupportClassPA"]

_SLACKS = {"none": PA, "linear": PA_I, "squared": PA_II}
_VARIANTS = {"exact": EXACT, "printed": PRINTED}


class PassiveAggressive(_PrimalLearner):
    """Multiclass Passive-Aggressive in the max-loss form (Crammer et al. 2006; the PA, PA-I
    and PA-II baselines of Matsushima et al. §2).

    Only the highest-scoring wrong class r is constrained: ``w_y += τx``, ``w_r −= τx`` with
    ``L = [1 − (s_y − s_r)]_+`` and

    * ``slack="none"`` (PA): ``τ = L/(2‖x‖²)``;
    * ``slack="linear"`` (PA-I): ``τ = min{C, L/(2‖x‖²)}``;
    * ``slack="squared"`` (PA-II): ``τ = L/(2‖x‖² + 1/(2C))``.

    ``variant="printed"`` uses the step sizes as printed by Matsushima et al. (§2 and Table 2),
    which equal these with C replaced by C/2 — they solve the stated problems without the ½ in
    front of the distance term (our derivation); the default ``"exact"`` solves the stated
    problems.

    Parameters
    ----------
    slack : {"none", "linear", "squared"}, default="none"
        The problem solved: PA (hard constraint ``s_y − s_r ≥ 1``, problem (2.3) of Matsushima
        et al.), PA-I (``+ Cξ``) or PA-II (``+ Cξ²``).
    C : float, default=1.0
        Aggressiveness C > 0 of PA-I and PA-II (the weight of the slack; larger means less
        relaxation); unused by PA.  It carries the units of 1/‖x‖² (x → c·x needs C → C/c²).
        Matsushima et al.'s experiments (§5.2) use 0.001.
    variant : {"exact", "printed"}, default="exact"
        ``"exact"``: the minimisers of the stated problems; ``"printed"``: the formulas as
        printed (C/2 in place of C).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The true weights (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import PassiveAggressive
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = PassiveAggressive().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    191 mistakes on 1,000 examples, test accuracy 0.846
    """

    _rule = Rule.PASSIVE_AGGRESSIVE
    _read_only_with = {
        "C": ("slack", ("linear", "squared"),
              "the slack's weight; the hard constraint has no slack"),
        # (the printed step sizes are the exact ones with C/2 for C: PA and SPA read neither)
        "variant": ("slack", ("linear", "squared"),
                    "the printed steps differ from the exact ones only in C"),
    }
    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "slack": [StrOptions(set(_SLACKS))],
        "C": [Interval(Real, 0, None, closed="neither")],
        "variant": [StrOptions(set(_VARIANTS))],
    }

    def __init__(self, slack="none", C=1.0, variant="exact", *, fit_intercept=False, average=False,
                 n_epochs=1, shuffle=False, random_state=None,
                 class_weight=None, warm_start=False, verbose=0, dtype="auto"):
        self.slack = slack
        self.C = C
        self.variant = variant
        self.fit_intercept = fit_intercept
        self.average = average
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose
        self.dtype = dtype

    def _rule_values(self):
        return {"C": self.C, "kind": _SLACKS[self.slack], "variant": _VARIANTS[self.variant]}


class SupportClassPA(PassiveAggressive):
    """The exact Support-Class Passive-Aggressive family SPA / SPA-I / SPA-II (Matsushima et
    al., §3).

    Solves the problem with *all* constraints ``s_y − s_u ≥ 1 (− ξ)`` for u ≠ y exactly: the
    support classes S are the longest prefix of the losses sorted decreasingly that passes the
    test of Theorem 3.1 (3.11), and ``τ_v = [ℓ_v − θ]_+/‖x‖²`` on S, ``w_y += Σ_S τ_v x``.

    ``slack`` as in :class:`PassiveAggressive` ("none" = SPA, "linear" = SPA-I,
    "squared" = SPA-II).  ``variant="exact"`` (default) implements SPA-I/SPA-II as the exact
    solutions of the problems of §3.3 (our KKT derivation, checked against a generic QP solver);
    ``"printed"`` reproduces Table 2 as printed (wrong: the SPA-I step has "+C" where "−C"
    belongs and an inconsistent support test; the SPA-II step has 1/(2C) where |S|/(2C)
    belongs).

    Parameters
    ----------
    slack : {"none", "linear", "squared"}, default="none"
        SPA (problem (2.2): every constraint ``s_y − s_u ≥ 1`` hard), SPA-I (one shared slack,
        ``+ Cξ``) or SPA-II (``+ Cξ²``), Table 2 of Matsushima et al.
    C : float, default=1.0
        Aggressiveness C > 0 of SPA-I and SPA-II; unused by SPA.  It carries the units of
        1/‖x‖² (x → c·x needs C → C/c²).
    variant : {"exact", "printed"}, default="exact"
        ``"exact"``: the minimisers of the stated problems; ``"printed"``: Table 2 as printed.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The true weights (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import SupportClassPA
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = SupportClassPA().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    171 mistakes on 1,000 examples, test accuracy 0.861
    """

    _rule = Rule.SUPPORT_CLASS
