"""Estimators of Crammer & Singer's ultraconservative learners ("Ultraconservative Online
Algorithms for Multiclass Problems", JMLR 3, 2003): the Perceptron (binary and one-vs-rest), the
additive family (uniform, max-score, proportional), Kesler's construction, MIRA and binary MIRA,
multiclass ROMMA and the multiplicative family."""
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._core import primal
from ..rules.table import Rule
from ..rules.layout import RAW_SQNORM
from ..rules.ultraconservative import MAX_SCORE, PROPORTIONAL, RHO, UNIFORM
from ..tasks import Binary
from .base import OnlineLinearClassifier, _Unweighted
from .primal import _PrimalLearner

__all__ = ["Perceptron", "OneVsRestPerceptron", "UltraconservativePerceptron",
           "KeslerPerceptron", "MIRA", "BinaryMIRA", "MulticlassROMMA",
           "Multiplicative", "BalancedWinnow"]

_BETA = [Interval(Real, 0, None, closed="left")]
_SCHEMES = {"uniform": UNIFORM, "max": MAX_SCORE, "prop": PROPORTIONAL}


class Perceptron(_PrimalLearner):
    """Rosenblatt's Perceptron: one weight vector for two classes, one-vs-rest otherwise.

    Output r with label z = ±1 updates iff ``z (w_r·x) ≤ β`` (``w_r += z x``); β > 0 is the
    aggressive variant of Crammer & Singer's experiments (§8 of their paper; how β enters a
    binary Perceptron is our reading, the paper does not say).  ``≤`` rather than ``<`` so that
    w = 0 learns, as Crammer & Singer's error set (§2) counts ties.

    Parameters
    ----------
    beta : float, default=0.0
        Aggressive margin β ≥ 0, in score units (those of ‖x‖²).  An output updates when its margin
        ``z (w_r·x)`` is at most β.  0 is Rosenblatt's Perceptron; Crammer & Singer's experiments
        use 0.01.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The true weights: one binary learner per class (one-vs-rest), or a single one for two
        classes, scoring ``classes_[1]`` against ``classes_[0]``.

    Examples
    --------
    >>> from onlinear import Perceptron
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = Perceptron().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    225 mistakes on 1,000 examples, test accuracy 0.815
    """

    _rule = Rule.PERCEPTRON
    _parameter_constraints = {**OnlineLinearClassifier._parameter_constraints, "beta": _BETA}

    def __init__(self, beta=0.0, *, fit_intercept=False, average=False, n_epochs=1, shuffle=False,
                 random_state=None, class_weight=None, warm_start=False, verbose=0,
                 dtype="auto"):
        self.beta = beta
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
        return {"beta": self.beta}


class OneVsRestPerceptron(Perceptron):
    """One binary Perceptron per class, even for two classes — the baseline ("Perceptron") of
    Crammer & Singer's experiments (§8).  A round counts as an update when at least one of the
    per-class Perceptrons updated (the patterns a shared kernel expansion stores).

    Parameters
    ----------
    beta : float, default=0.0
        Aggressive margin β ≥ 0, in score units (those of ‖x‖²).  Each per-class Perceptron updates
        when its margin ``z (w_r·x)`` is at most β (Crammer & Singer's experiments use 0.01).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        The true weights, one binary Perceptron per class.
    """

    _two_class_outputs = 2  # (a Perceptron per class, even for two)


class UltraconservativePerceptron(_PrimalLearner):
    """The additive ultraconservative family (Figure 2 of Crammer & Singer): on a round whose
    error set ``E = {r ≠ y : s_r ≥ s_y − β}`` is not empty, ``M_y += x`` and ``M_r −= |τ_r| x``
    on E, the unit of demotion shared out by ``scheme``:

    * ``"uniform"`` — equally over E (the multiclass Perceptron of §3);
    * ``"max"`` — all on the highest-scoring wrong class;
    * ``"prop"`` — in proportion to each class's excess score (uniform when all excesses are 0).

    Theorem 3: on data separable with margin γ by a unit-norm M*, at most 2R²/γ² updates.

    Parameters
    ----------
    scheme : {"uniform", "max", "prop"}, default="uniform"
        How τ shares the demotion −1 over the error set (the examples of τ in Crammer & Singer
        §4; any choice satisfies constraints 1–4 of Figure 2).  ``"max"`` takes the argmax over
        the wrong classes only and ``"prop"`` divides by the excesses of the wrong classes only
        (the printed formulas could pick y, or add β to the denominator).
    beta : float, default=0.0
        Aggressive margin β ≥ 0, in score units (those of ‖x‖²).  β is subtracted from the score of
        the true class before the error set and τ are computed (the "aggressive fashion" of §8, with
        β = 0.01), so rounds with margin ≤ β update too.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The true weights (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import UltraconservativePerceptron
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = UltraconservativePerceptron(scheme="max").fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    250 mistakes on 1,000 examples, test accuracy 0.795
    """

    _rule = Rule.ADDITIVE_FAMILY
    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "scheme": [StrOptions(set(_SCHEMES))],
        "beta": _BETA,
    }

    def __init__(self, scheme="uniform", beta=0.0, *, fit_intercept=False, average=False,
                 n_epochs=1, shuffle=False, random_state=None,
                 class_weight=None, warm_start=False, verbose=0, dtype="auto"):
        self.scheme = scheme
        self.beta = beta
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
        return {"beta": self.beta, "scheme": _SCHEMES[self.scheme]}


class KeslerPerceptron(_PrimalLearner):
    """Kesler's construction (Crammer & Singer §4.2; the step-by-step algorithm is our
    reconstruction from its text): the binary Perceptron on the k−1 expanded vectors of each
    example, i.e. for each wrong class r in ascending order with ``s_r ≥ s_y − β`` a max-type
    sub-update ``M_y += x, M_r −= x`` (the score of y kept current between them).  Each
    sub-update is a member of Figure 2, so Theorem 3 bounds their number by 2R²/γ².

    Parameters
    ----------
    beta : float, default=0.0
        Aggressive margin β ≥ 0, in score units (those of ‖x‖²).  A wrong class r is corrected when
        ``s_r ≥ s_y − β``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The true weights (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).
    """

    _rule = Rule.KESLER
    _parameter_constraints = {**OnlineLinearClassifier._parameter_constraints, "beta": _BETA}

    def __init__(self, beta=0.0, *, fit_intercept=False, average=False, n_epochs=1, shuffle=False,
                 random_state=None, class_weight=None, warm_start=False, verbose=0,
                 dtype="auto"):
        self.beta = beta
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
        return {"beta": self.beta}


class MIRA(_PrimalLearner):
    """MIRA, the Margin Infused Relaxed Algorithm (Figure 3 and §5 of Crammer & Singer; the
    margin β is the aggressive version of §5.3).

    Each round solves ``min_τ ½ Σ_r ‖M_r + τ_r x‖²`` s.t. ``τ_r ≤ δ_{r,y}``, ``Σ_r τ_r = 0`` with
    the score of y lowered by the margin β, exactly (projection onto the simplex, Eq. 15).

    ``beta`` defaults to 0.01, the value of the paper's experiments: started from M = 0, MIRA
    with β = 0 never moves (every score is 0 and τ = 0 is optimal — which is why Figure 3
    prints "Set M ≠ 0").  β is in score units, so it should follow the scale of the data.

    Parameters
    ----------
    beta : float, default=0.01
        Aggressive margin β ≥ 0, in score units (those of ‖x‖²).  The aggressive MIRA of §5.3
        replaces B_y by ``B̃_y = B_y − β`` (B_r = M_r·x, Eq. 14), so M is updated whenever the
        margin is below β.  Corollary 10 bounds the mistakes by 4R⁴/(βγ²) for 0 ≤ β ≤ 2R².

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The true weights (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import MIRA
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = MIRA().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    171 mistakes on 1,000 examples, test accuracy 0.861
    """

    _rule = Rule.MIRA
    _parameter_constraints = {**OnlineLinearClassifier._parameter_constraints, "beta": _BETA}

    def __init__(self, beta=0.01, *, fit_intercept=False, average=False, n_epochs=1, shuffle=False,
                 random_state=None, class_weight=None, warm_start=False, verbose=0,
                 dtype="auto"):
        self.beta = beta
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
        return {"beta": self.beta}


class BinaryMIRA(MIRA):
    """Binary MIRA (Figure 4 of Crammer & Singer; Eqs. 17–18, with the aggressive margin of
    the end of §5.3): ``τ = clip(−(z(w·x) − β/2)/‖x‖², 0, 1)``, ``w += τ z x``; one-vs-rest on
    more than two classes.  β defaults to 0.01 for the same reason as :class:`MIRA`.

    Parameters
    ----------
    beta : float, default=0.01
        Aggressive margin β ≥ 0, in score units (those of ‖x‖²).  The aggressive binary MIRA solves
        ``min ‖x‖²τ² + [2z(w·x) − β]τ`` on 0 ≤ τ ≤ 1 (β/2 on w because the two-prototype margin is
        2 w·x).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The true weights: one binary learner per class (one-vs-rest), or a single one for two
        classes, scoring ``classes_[1]`` against ``classes_[0]``.
    """

    _rule = Rule.BINARY_MIRA


class MulticlassROMMA(_Unweighted, _PrimalLearner):
    """Multiclass ROMMA (Figure 6 of Crammer & Singer, §7; its constraint (1) prints M_r^t
    where the variable M_r belongs): on a round with E ≠ ∅ and τ from the additive family
    (``scheme``), ``M ← argmin ½‖M‖²`` s.t. ``Σ_r τ_r M_r·x ≥ 1`` and ``M·M_t ≥ ‖M_t‖²`` — in
    closed form a global rescaling plus an additive step (Eq. 27), applied in O(non-zeros of x)
    through the engine's lazy scale.  Theorem 14: at most 2R²‖M*‖² mistakes for a comparator M*
    of margin 1.

    On noisy streams ‖M‖ grows geometrically (beyond float64 within thousands of rounds), so
    the model is kept as a unit-Frobenius-norm direction: ``coef_`` is ``M/‖M‖`` (the same
    predictions) and ``weight_norm_`` is ‖M‖ (``inf`` once it exceeds float64); the true
    weights are ``coef_ * weight_norm_``.

    Parameters
    ----------
    scheme : {"uniform", "max", "prop"}, default="max"
        The τ of the additive family (Crammer & Singer §4) that forms constraint (1) of
        Figure 6; the paper leaves the choice open (any τ satisfying constraints 1–4).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The direction ``M/‖M‖`` of the weights (for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).
    weight_norm_ : float
        ‖M‖, the Frobenius norm of the true weights (0 before the first update, ``inf`` once
        it exceeds float64).

    Examples
    --------
    >>> from onlinear import MulticlassROMMA
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = MulticlassROMMA().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    218 mistakes on 1,000 examples, test accuracy 0.824
    """

    _weights_refusal = ("it keeps geometric records of the run (a bound over the examples "
                        "seen) that a weight would make meaningless")

    _rule = Rule.MC_ROMMA
    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "scheme": [StrOptions(set(_SCHEMES))],
    }

    def __init__(self, scheme="max", *, fit_intercept=False, average=False, n_epochs=1,
                 shuffle=False, random_state=None, warm_start=False, verbose=0,
                 dtype="auto"):
        self.scheme = scheme
        self.fit_intercept = fit_intercept
        self.average = average
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.dtype = dtype

    def _rule_values(self):
        return {"scheme": _SCHEMES[self.scheme]}

    @property
    def weight_norm_(self):
        """‖M‖, the Frobenius norm of the true weights (``coef_`` holds their direction)."""
        check_is_fitted(self)
        if not np.any(self._rule_state[RAW_SQNORM]):
            return 0.0
        with np.errstate(divide="ignore"):
            return float(1.0 / self._rule_state[RHO, 0])


class Multiplicative(_PrimalLearner):
    """The multiplicative ultraconservative family (Figure 5 and §6 of Crammer & Singer):
    positive weights, ``M_{r,i} ← M_{r,i} exp(η τ_r x_i)/Z`` on rounds with E ≠ ∅, τ from the
    additive family (``scheme``), and

    * ``normalize="row"`` (version 1): every row keeps unit l1 mass, start ``M = 1/n``;
    * ``normalize="matrix"`` (version 2): the whole matrix keeps unit l1 mass, start ``1/(nk)``.

    Theorem 11 assumes ``‖x‖_∞ ≤ 1`` and a non-negative comparator (for signed targets feed
    ``[x, −x]``); its optimal rate is ``artanh(γ/k)`` (row) or ``artanh(γ)`` (matrix) — our
    derivation from the proof in Crammer & Singer's Appendix A, which states the bound only up
    to O(·).  Only the non-zeros of x are touched (lazy normalization through the scale
    factor); weights stay strictly positive and finite on any stream (exponents are clamped at
    ±300, weights floored at 1e-300 relative to the largest scale the engine keeps).

    Parameters
    ----------
    eta : float, default=0.1
        Learning rate η > 0 of Figure 5, in ``exp(η τ_r x_i)``; it carries the units of 1/x.
    normalize : {"row", "matrix"}, default="row"
        Version 1 of Figure 5 (``Z_r`` per row) or version 2 (one ``Z`` for the matrix).
    scheme : {"uniform", "max", "prop"}, default="uniform"
        The τ of the additive family (Crammer & Singer §4) used in the exponent.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The true (positive) weights; for two classes the single row is the difference
        ``M_2 − M_1``, scoring ``classes_[1]`` against ``classes_[0]``.

    Examples
    --------
    >>> from onlinear import Multiplicative
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = Multiplicative().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    214 mistakes on 1,000 examples, test accuracy 0.754
    """

    _rule = Rule.MULTIPLICATIVE
    _normalizations = {"row": primal.MULTIPLICATIVE_ROW, "matrix": primal.MULTIPLICATIVE_MATRIX}
    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "eta": [Interval(Real, 0, None, closed="neither")],
        "normalize": [StrOptions(set(_normalizations))],
        "scheme": [StrOptions(set(_SCHEMES))],
    }

    def __init__(self, eta=0.1, normalize="row", scheme="uniform", *, fit_intercept=False,
                 n_epochs=1, shuffle=False, random_state=None,
                 class_weight=None, warm_start=False, verbose=0):
        self.eta = eta
        self.normalize = normalize
        self.scheme = scheme
        self.fit_intercept = fit_intercept
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose

    @property
    def _step_kind(self):
        return self._normalizations[self.normalize]

    def _rule_values(self):
        return {"eta": self.eta, "scheme": _SCHEMES[self.scheme]}


class BalancedWinnow(Multiplicative):
    """Balanced (two-weight-vector) normalized Winnow (Littlestone 1988): the two-class case of
    :class:`Multiplicative`, to which Crammer & Singer's family reduces (they only state this,
    §6; the explicit form is ours): on a mistake ``M_y ∝ M_y ⊙ exp(ηx)`` and
    ``M_other ∝ M_other ⊙ exp(−ηx)``.  Binary only.

    Parameters
    ----------
    eta : float, default=0.1
        Learning rate η > 0, in ``exp(±ηx_i)``; it carries the units of 1/x.
    normalize : {"row", "matrix"}, default="row"
        Version 1 of Crammer & Singer's Figure 5 (each weight vector keeps unit l1 mass) or
        version 2 (the two together do).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        ``M_2 − M_1``, scoring ``classes_[1]`` against ``classes_[0]``.
    """

    _parameter_constraints = {
        k: v for k, v in Multiplicative._parameter_constraints.items() if k != "scheme"
    }

    def __init__(self, eta=0.1, normalize="row", *, fit_intercept=False, n_epochs=1, shuffle=False,
                 random_state=None, class_weight=None, warm_start=False, verbose=0):
        self.eta = eta
        self.normalize = normalize
        self.fit_intercept = fit_intercept
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose

    def _rule_values(self):
        return {"eta": self.eta, "scheme": UNIFORM}

    # two weight vectors (w⁺, w⁻) for two classes, and no form for more (Multiplicative is
    # the multiclass one)
    _task_class = Binary
    _two_class_outputs = 2
