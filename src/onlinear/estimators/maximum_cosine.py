"""Estimators of the relaxed-maximum-margin and maximum-cosine learners (Bshouty &
Haddad-Zaknoon, "The Maximum Cosine Framework for Deriving Perceptron Based Linear Classifiers",
ALT 2016; ROMMA and aggressive ROMMA of Li & Long 2002): ROMMA, aggressive ROMMA, NAROMMA, MCP
and CMCP.  All are binary and parameter-free; on more than two classes they run one-vs-rest and
predict ``argmax_r w_r·x/‖w_r‖`` (the scores must be made scale-free because each output's scale
is arbitrary; this multiclass use is ours — the paper's experiments, §5, train and evaluate each
one-vs-rest problem separately)."""
import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..rules.table import Rule
from ..rules.maximum_cosine import (
    AGGRESSIVE,
    CERTIFICATE,
    MISTAKE_DRIVEN,
    SKIP_ANTIPARALLEL,
    SKIP_COLLINEAR,
)
from .base import OnlineLinearClassifier, _Unweighted
from .primal import _PrimalLearner

__all__ = ["ROMMA", "AggressiveROMMA", "NAROMMA", "MaximumCosinePerceptron",
           "ConservativeMCP"]


class _MaximumCosineBase(_Unweighted, _PrimalLearner):
    _weights_refusal = ("it keeps geometric records of the run (a bound over the examples "
                        "seen) that a weight would make meaningless")

    def __init__(self, *, fit_intercept=False, n_epochs=1, shuffle=False, random_state=None,
                 warm_start=False, verbose=0, dtype="auto"):
        self.fit_intercept = fit_intercept
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.dtype = dtype

    @property
    def cosine_bound_(self):
        """ℓ per output: the certified lower bound on cos(w*, w)/γ (ℓ* for NAROMMA, which equals
        ‖u‖ for ROMMA and aggressive ROMMA, Theorem 7)."""
        check_is_fitted(self)
        return self._certificate()

    def _certificate(self):
        with np.errstate(divide="ignore", over="ignore"):  # ρ underflows on noisy streams
            return 1.0 / self._rule_state[CERTIFICATE]


class ROMMA(_MaximumCosineBase):
    """ROMMA, the Relaxed Online Maximum Margin Algorithm (Li & Long 2002), conservative form:
    on a mistake ``z(u·a) ≤ 0``, ``u ← argmin ‖u‖²`` s.t. ``u·u_t ≥ ‖u_t‖²`` and ``z(u·a) ≥ 1``
    (the Type III update of Table 1 of Bshouty & Haddad-Zaknoon, §3.2, with Eqs. 25–26; Type II
    when the old u drops out); the first example gives ``u = z a/‖a‖²``.

    ``coef_`` holds the unit direction of u; ``cosine_bound_`` its norm ‖u‖.

    Ties: a margin of exactly 0 is a mistake (``z(u·a) ≤ 0``: the example is learned), on
    dense and CSR rows alike.  Which side of 0 a margin falls on is that of the computed score,
    and the dense pass sums a row's products in another order than the CSR pass (vectorized;
    :mod:`onlinear._core.primal`): a row whose exact margin is 0 but whose products round
    (non-integral values) can score ±1e-16 on one path and 0 on the other, and then be learned
    on one path only.  Rows whose products are exact (small integers, dyadic values) take the
    same side on both.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The unit direction of each binary learner (one-vs-rest, or one learner for two classes
        scoring ``classes_[1]`` against ``classes_[0]``); only the direction is meaningful.
    cosine_bound_ : ndarray of shape (n_outputs,)
        ‖u‖ per output (``inf`` once it exceeds float64).

    Examples
    --------
    >>> from onlinear import ROMMA
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = ROMMA().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    208 mistakes on 1,000 examples, test accuracy 0.837
    """

    _rule = Rule.ROMMA
    _kind = MISTAKE_DRIVEN

    def _rule_values(self):
        return {"kind": self._kind}


class AggressiveROMMA(ROMMA):
    """Aggressive ROMMA (Li & Long 2002, as restated in Table 1 of Bshouty & Haddad-Zaknoon,
    §3.2): updates whenever ``z(u·a) < 1`` — Type II ``u ← z a/‖a‖²`` or Type III
    ``u ← c u + d a`` with Eqs. 25–26.  Anti-parallel examples, where the problem is
    infeasible, are skipped.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The unit direction of each binary learner (one-vs-rest, or one learner for two classes
        scoring ``classes_[1]`` against ``classes_[0]``); only the direction is meaningful.
    cosine_bound_ : ndarray of shape (n_outputs,)
        ‖u‖ per output, which equals NAROMMA's ℓ* (Theorem 7 of Bshouty & Haddad-Zaknoon).
    """

    _kind = AGGRESSIVE


class NAROMMA(_MaximumCosineBase):
    """NAROMMA, the New Aggressive ROMMA of the maximum cosine framework (Bshouty &
    Haddad-Zaknoon §3.1, Lemma 6, Fig. 1 and Table 2 — whose Type III entry is ℓ*², not ℓ*), in
    an overflow-free ρ = 1/ℓ* form (ours, algebraically identical).

    Theorem 7: it makes exactly the predictions of aggressive ROMMA.  ``skip_collinear``:
    ``"antiparallel"`` (default) skips only examples with ``z a`` anti-parallel to w (a division
    by zero), which keeps Theorem 7 exact; ``"paper"`` also skips parallel ones as Figure 1's
    step 4 does (and then Theorem 7's norm equality ‖u_i‖ = ℓ*_i can fail: aggressive ROMMA
    makes a Type II update on such an example; our finding).

    Parameters
    ----------
    skip_collinear : {"antiparallel", "paper"}, default="antiparallel"
        Which examples collinear with w are skipped: only anti-parallel ones, or both
        directions (step 4 of Figure 1).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The unit direction of each binary learner (one-vs-rest, or one learner for two classes
        scoring ``classes_[1]`` against ``classes_[0]``); only the direction is meaningful.
    cosine_bound_ : ndarray of shape (n_outputs,)
        ℓ* per output, the certified lower bound on cos(w*, w)/γ (Lemma 4, Eq. 16).

    Examples
    --------
    >>> from onlinear import NAROMMA
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = NAROMMA().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    174 mistakes on 1,000 examples, test accuracy 0.855
    """

    _rule = Rule.NAROMMA
    _skips = {"antiparallel": SKIP_ANTIPARALLEL, "paper": SKIP_COLLINEAR}
    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "skip_collinear": [StrOptions(set(_skips))],
    }

    def __init__(self, skip_collinear="antiparallel", *, fit_intercept=False, n_epochs=1,
                 shuffle=False, random_state=None, warm_start=False, verbose=0,
                 dtype="auto"):
        self.skip_collinear = skip_collinear
        super().__init__(fit_intercept=fit_intercept, n_epochs=n_epochs, shuffle=shuffle,
                         random_state=random_state, warm_start=warm_start, verbose=verbose,
                         dtype=dtype)

    def _rule_values(self):
        return {"skip": self._skips[self.skip_collinear]}


class MaximumCosinePerceptron(_MaximumCosineBase):
    """MCP, the Maximum Cosine Perceptron (Bshouty & Haddad-Zaknoon §4, Eqs. 41–43, Fig. 2):
    updates when ``z(w·a) ≤ ‖w‖/(2ℓ)`` with the step ``‖w‖/(ℓ‖a‖²)`` and
    ``ℓ² += (1 − 2η)/‖a‖²``; first example ``w_1 = z_0 a_0``, ``ℓ_1 = 1/‖a_0‖``.  Theorem 10:
    at most (R/γ)² mistakes.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The unit direction of each binary learner (one-vs-rest, or one learner for two classes
        scoring ``classes_[1]`` against ``classes_[0]``); only the direction is meaningful.
    cosine_bound_ : ndarray of shape (n_outputs,)
        ℓ per output, the certified lower bound on cos(w*, w)/γ (Lemma 9).

    Examples
    --------
    >>> from onlinear import MaximumCosinePerceptron
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = MaximumCosinePerceptron().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    199 mistakes on 1,000 examples, test accuracy 0.833
    """

    _rule = Rule.MAXIMUM_COSINE
    _conservative = False

    def _rule_values(self):
        return {"conservative": float(self._conservative)}

    def _certificate(self):
        return self._rule_state[CERTIFICATE].copy()


class ConservativeMCP(MaximumCosinePerceptron):
    """CMCP, the conservative Maximum Cosine Perceptron (Bshouty & Haddad-Zaknoon §4, Lemma 8,
    Eqs. 38–40): MCP's step on mistakes ``z(w·a) ≤ 0`` only, ``ℓ² += 1/‖a‖²``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The unit direction of each binary learner (one-vs-rest, or one learner for two classes
        scoring ``classes_[1]`` against ``classes_[0]``); only the direction is meaningful.
    cosine_bound_ : ndarray of shape (n_outputs,)
        ℓ per output, the certified lower bound on cos(w*, w)/γ (Lemma 8).
    """

    _conservative = True
