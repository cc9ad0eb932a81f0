"""Estimators of the relaxed-maximum-margin and maximum-cosine learners (spec 004): ROMMA,
aggressive ROMMA, NAROMMA, MCP and CMCP.  All are binary and parameter-free; on more than two
classes they run one-vs-rest and predict ``argmax_r w_r·x/‖w_r‖`` (the scores must be made
scale-free because each output's scale is arbitrary; this multiclass use is ours, not the paper's,
spec 004 §12.3)."""
import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..rules.table import Rule
from ..rules.maximum_cosine import (
    AGGRESSIVE,
    CERTIFICATE,
    ROMMA,
    SKIP_ANTIPARALLEL,
    SKIP_COLLINEAR,
)
from .base import OnlineLinearClassifier


class _MaximumCosineBase(OnlineLinearClassifier):

    def __init__(self, *, n_epochs=1, shuffle=False, random_state=None):
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    @property
    def cosine_bound_(self):
        """ℓ per output: the certified lower bound on cos(w*, w)/γ (ℓ* for NAROMMA, which equals
        ‖u‖ for ROMMA and aggressive ROMMA, Theorem 7)."""
        check_is_fitted(self)
        return self._certificate()

    def _certificate(self):
        with np.errstate(divide="ignore", over="ignore"):  # ρ underflows on noisy streams
            return 1.0 / self._state[CERTIFICATE]


class ROMMA(_MaximumCosineBase):
    """ROMMA, the Relaxed Online Maximum Margin Algorithm (Li & Long 2002), conservative form:
    on a mistake ``z(u·a) ≤ 0``, ``u ← argmin ‖u‖²`` s.t. ``u·u_t ≥ ‖u_t‖²`` and ``z(u·a) ≥ 1``
    (spec 004 §4, Type III of Table 1); the first example gives ``u = z a/‖a‖²``.

    ``coef_`` holds the unit direction of u; ``cosine_bound_`` its norm ‖u‖.

    Examples
    --------
    >>> from onlinear import ROMMA
    >>> from onlinear.datasets import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = ROMMA().fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    208 mistakes on 1,000 examples, test accuracy 0.837
    """

    _rule = Rule.ROMMA
    _kind = ROMMA

    def _rule_values(self):
        return {"kind": self._kind}


class AggressiveROMMA(ROMMA):
    """Aggressive ROMMA (Li & Long 2002; spec 004 Table 1): updates whenever ``z(u·a) < 1`` —
    Type II ``u ← z a/‖a‖²`` or Type III ``u ← c u + d a`` with (25)–(26).  Anti-parallel
    examples, where the problem is infeasible, are skipped."""

    _kind = AGGRESSIVE


class NAROMMA(_MaximumCosineBase):
    """NAROMMA, the New Aggressive ROMMA of the maximum cosine framework (spec 004 §3, Table 2
    with the square root of the corrected ℓ* entry), in the overflow-free ρ = 1/ℓ* form.

    Theorem 7: it makes exactly the predictions of aggressive ROMMA.  ``skip_collinear``:
    ``"antiparallel"`` (default) skips only examples with ``z a`` anti-parallel to w (a division
    by zero), which keeps Theorem 7 exact; ``"paper"`` also skips parallel ones as Figure 1's
    step 4 does (and then Theorem 7's norm equality can fail, spec 004 §9.3).

    Examples
    --------
    >>> from onlinear import NAROMMA
    >>> from onlinear.datasets import load_usps
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

    def __init__(self, skip_collinear="antiparallel", *, n_epochs=1, shuffle=False,
                 random_state=None):
        self.skip_collinear = skip_collinear
        super().__init__(n_epochs=n_epochs, shuffle=shuffle, random_state=random_state)

    def _rule_values(self):
        return {"skip": self._skips[self.skip_collinear]}


class MaximumCosinePerceptron(_MaximumCosineBase):
    """MCP, the Maximum Cosine Perceptron (spec 004 §6, (41)–(43)): updates when
    ``z(w·a) ≤ ‖w‖/(2ℓ)`` with the step ``‖w‖/(ℓ‖a‖²)`` and ``ℓ² += (1 − 2η)/‖a‖²``; first
    example ``w_1 = z_0 a_0``, ``ℓ_1 = 1/‖a_0‖``.  Theorem 10: at most (R/γ)² mistakes.

    Examples
    --------
    >>> from onlinear import MaximumCosinePerceptron
    >>> from onlinear.datasets import load_usps
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
        return self._state[CERTIFICATE].copy()


class ConservativeMCP(MaximumCosinePerceptron):
    """CMCP, the conservative Maximum Cosine Perceptron (spec 004 §5, Lemma 8): MCP's step on
    mistakes ``z(w·a) ≤ 0`` only, ``ℓ² += 1/‖a‖²``."""

    _conservative = True
