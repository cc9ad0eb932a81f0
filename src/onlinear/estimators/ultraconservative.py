"""Estimators of Crammer & Singer's ultraconservative learners (spec 000): the Perceptron
(binary and one-vs-rest), the additive family (uniform, max-score, proportional), Kesler's
construction, MIRA and binary MIRA."""
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ..rules import dispatch
from ..rules.ultraconservative import MAX_SCORE, PROPORTIONAL, UNIFORM
from .base import OnlineLinearClassifier

_BETA = [Interval(Real, 0, None, closed="left")]


class Perceptron(OnlineLinearClassifier):
    """Rosenblatt's Perceptron: one weight vector for two classes, one-vs-rest otherwise.

    Output r with label z = ±1 updates iff ``z (w_r·x) ≤ β`` (``w_r += z x``); β > 0 is the
    aggressive variant of Crammer & Singer's experiments (spec 000 §2.1, §2.10).

    Examples
    --------
    >>> from onlinear import Perceptron
    >>> from onlinear.datasets import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = Perceptron().fit(X, y)
    >>> print(f"test accuracy {model.score(X_test, y_test):.3f}")
    test accuracy 0.8...
    """

    _rule = dispatch.PERCEPTRON
    _parameter_constraints = {**OnlineLinearClassifier._parameter_constraints, "beta": _BETA}

    def __init__(self, beta=0.0, *, n_epochs=1, shuffle=False, random_state=None):
        self.beta = beta
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def _rule_params(self):
        return [self.beta]


class OneVsRestPerceptron(Perceptron):
    """One binary Perceptron per class, even for two classes — the baseline ("Perceptron") of
    Crammer & Singer's experiments (spec 000 §2.10).  A round counts as an update when at least
    one of the per-class Perceptrons updated (the patterns a shared kernel expansion stores)."""

    def _n_outputs(self, n_classes):
        return n_classes


class UltraconservativePerceptron(OnlineLinearClassifier):
    """The additive ultraconservative family (Figure 2 of Crammer & Singer): on a round whose
    error set ``E = {r ≠ y : s_r ≥ s_y − β}`` is not empty, ``M_y += x`` and ``M_r −= |τ_r| x``
    on E, the unit of demotion shared out by ``scheme``:

    * ``"uniform"`` — equally over E (the multiclass Perceptron of §3);
    * ``"max"`` — all on the highest-scoring wrong class;
    * ``"prop"`` — in proportion to each class's excess score (uniform when all excesses are 0).

    Theorem 3: on data separable with margin γ by a unit-norm M*, at most 2R²/γ² updates.

    Examples
    --------
    >>> from onlinear import UltraconservativePerceptron
    >>> from onlinear.datasets import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = UltraconservativePerceptron(scheme="max").fit(X, y)
    >>> print(f"test accuracy {model.score(X_test, y_test):.3f}")
    test accuracy 0.8...
    """

    _rule = dispatch.ADDITIVE_FAMILY
    _schemes = {"uniform": UNIFORM, "max": MAX_SCORE, "prop": PROPORTIONAL}
    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "scheme": [StrOptions(set(_schemes))],
        "beta": _BETA,
    }

    def __init__(self, scheme="uniform", beta=0.0, *, n_epochs=1, shuffle=False,
                 random_state=None):
        self.scheme = scheme
        self.beta = beta
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def _rule_params(self):
        return [self.beta, self._schemes[self.scheme]]


class KeslerPerceptron(OnlineLinearClassifier):
    """Kesler's construction (spec 000 §2.3): the binary Perceptron on the k−1 expanded vectors
    of each example, i.e. for each wrong class r in ascending order with ``s_r ≥ s_y − β`` a
    max-type sub-update ``M_y += x, M_r −= x`` (the score of y kept current between them)."""

    _rule = dispatch.KESLER
    _parameter_constraints = {**OnlineLinearClassifier._parameter_constraints, "beta": _BETA}

    def __init__(self, beta=0.0, *, n_epochs=1, shuffle=False, random_state=None):
        self.beta = beta
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def _rule_params(self):
        return [self.beta]


class MIRA(OnlineLinearClassifier):
    """MIRA, the Margin Infused Relaxed Algorithm (Figure 3, §5.3 of Crammer & Singer).

    Each round solves ``min_τ ½ Σ_r ‖M_r + τ_r x‖²`` s.t. ``τ_r ≤ δ_{r,y}``, ``Σ_r τ_r = 0`` with
    the score of y lowered by the margin β, exactly (projection onto the simplex, Eq. 15).

    ``beta`` defaults to 0.01, the value of the paper's experiments: started from M = 0, MIRA
    with β = 0 never moves (every score is 0 and τ = 0 is optimal; spec 000 §4.4).  β is in
    score units, so it should follow the scale of the data.

    Examples
    --------
    >>> from onlinear import MIRA
    >>> from onlinear.datasets import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = MIRA().fit(X, y)
    >>> print(f"test accuracy {model.score(X_test, y_test):.3f}")
    test accuracy 0.8...
    """

    _rule = dispatch.MIRA
    _parameter_constraints = {**OnlineLinearClassifier._parameter_constraints, "beta": _BETA}

    def __init__(self, beta=0.01, *, n_epochs=1, shuffle=False, random_state=None):
        self.beta = beta
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def _rule_params(self):
        return [self.beta]


class BinaryMIRA(MIRA):
    """Binary MIRA (Figure 4): ``τ = clip(−(z(w·x) − β/2)/‖x‖², 0, 1)``, ``w += τ z x``;
    one-vs-rest on more than two classes.  β defaults to 0.01 for the same reason as
    :class:`MIRA`."""

    _rule = dispatch.BINARY_MIRA
