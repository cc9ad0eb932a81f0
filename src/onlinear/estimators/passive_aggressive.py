"""Estimators of the multiclass Passive-Aggressive family and of the exact Support-Class PA
(Matsushima et al., spec 002)."""
from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from ..rules.table import Rule
from ..rules.passive_aggressive import EXACT, PA, PA_I, PA_II, PRINTED
from .base import OnlineLinearClassifier

_SLACKS = {"none": PA, "linear": PA_I, "squared": PA_II}
_VARIANTS = {"exact": EXACT, "printed": PRINTED}


class PassiveAggressive(OnlineLinearClassifier):
    """Multiclass Passive-Aggressive in the max-loss form (Crammer et al. 2006; spec 002 §2).

    Only the highest-scoring wrong class r is constrained: ``w_y += τx``, ``w_r −= τx`` with
    ``L = [1 − (s_y − s_r)]_+`` and

    * ``slack="none"`` (PA): ``τ = L/(2‖x‖²)``;
    * ``slack="linear"`` (PA-I): ``τ = min{C, L/(2‖x‖²)}``;
    * ``slack="squared"`` (PA-II): ``τ = L/(2‖x‖² + 1/(2C))``.

    ``variant="printed"`` uses the formulas as printed by Matsushima et al., which equal these
    with C replaced by C/2 (spec 002 §2.2); the default ``"exact"`` solves the stated problems.

    Examples
    --------
    >>> from onlinear import PassiveAggressive
    >>> from onlinear.datasets import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = PassiveAggressive().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    191 mistakes on 1,000 examples, test accuracy 0.846
    """

    _rule = Rule.PASSIVE_AGGRESSIVE
    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "slack": [StrOptions(set(_SLACKS))],
        "C": [Interval(Real, 0, None, closed="neither")],
        "variant": [StrOptions(set(_VARIANTS))],
    }

    def __init__(self, slack="none", C=1.0, variant="exact", *, n_epochs=1, shuffle=False,
                 random_state=None):
        self.slack = slack
        self.C = C
        self.variant = variant
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def _rule_values(self):
        return {"C": self.C, "kind": _SLACKS[self.slack], "variant": _VARIANTS[self.variant]}


class SupportClassPA(PassiveAggressive):
    """The exact Support-Class Passive-Aggressive family SPA / SPA-I / SPA-II (Matsushima et al.).

    Solves the problem with *all* constraints ``s_y − s_u ≥ 1 (− ξ)`` for u ≠ y exactly: the
    support classes S are the longest prefix of the losses sorted decreasingly that passes the
    test of Theorem 3.1 (3.11), and ``τ_v = [ℓ_v − θ]_+/‖x‖²`` on S, ``w_y += Σ_S τ_v x``.

    ``slack`` as in :class:`PassiveAggressive` ("none" = SPA, "linear" = SPA-I,
    "squared" = SPA-II).  ``variant="exact"`` (default) implements the corrected SPA-I/SPA-II of
    spec 002 §3.5; ``"printed"`` reproduces Table 2 as printed (wrong: the SPA-I step has "+C"
    where "−C" belongs and an inconsistent support test; the SPA-II step lacks a factor |S|).

    Examples
    --------
    >>> from onlinear import SupportClassPA
    >>> from onlinear.datasets import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = SupportClassPA().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    171 mistakes on 1,000 examples, test accuracy 0.861
    """

    _rule = Rule.SUPPORT_CLASS
