"""Estimators of the online ellipsoid methods of Yang, Jin & Ye (ICML 2009): CELLIP and IELLIP.

The points the paper leaves open and what this library decides:

1. CELLIP's P_1: ``(1 + γ(1−a))²·I`` by default, the scale the covering argument needs;
   ``init="paper"`` gives the printed ``(1 + γ(1−a))·I``.
2. The bound (13): the tests assert the self-consistent corrected form with the "+1" of
   Appendix B, ``M ≤ 1 + 2[log(1−a) + log γ − log(1+(1−a)γ)] / log(1 − a²γ²/(1+(1−a)γ)²)``.
3. IELLIP's τ: ``a = 1`` by default (exposed as ``a``), the margin step (10) by default and the
   fixed step ``γ/sqrt(xᵀPx)`` analysed by Lemma 2 as ``step="fixed"``.
4. IELLIP's ``c_t = c·b^(t−1)`` counts *trials* by default, i.e. every example since the last
   ``fit`` (or since the first ``partial_fit``), and is not reset between epochs;
   ``decay="updates"`` counts each ellipsoid's updates instead (kept in the model's state, so
   that a saved or resumed model goes on with the same c_t), ``decay="constant"`` takes
   ``c_t = 1 − b`` (forgetting: §2.3's words rather than its formula).
5. ``c`` defaults to ``0.5·(1 − b)`` (so that Theorem 4's ``c + b < 1`` holds); P is updated by
   the normalized (15) by default, under which predictions do not depend on ``scale`` — so,
   contrary to the paper's remark, the scale of P_1 does not stand in for c; it does under
   ``p_update="raw"`` (P⁻¹ mixes in ``x xᵀ``, the reading the remark needs).
6. Theorem 4's (18) is tested in the reconstructed form with the factor 2 (unit-norm inputs).
7. w starts at 0 (Algorithms 1 and 2; ties are broken by the lowest class index); IELLIP's
   ``w_init="random"`` draws it around the origin as the paper's experiments do (§3, scale not
   given: ``w_scale``).  No preprocessing and no bias term: the theory assumes ‖x‖ ≤ 1, which
   is the user's to arrange (e.g. divide by the largest row norm).
"""
import math
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._core import ellipsoid as ee
from ..models.metric import MetricModel
from ..rules import ellipsoid as rule  # module-qualified: the classes below reuse the names
from ..rules.table import parameter_vector
from ..tasks.labels import ONE_LABEL
from .base import OnlineLinearClassifier, _Unweighted
from .holding import _ModelHolding

__all__ = ["CELLIP", "IELLIP"]

_MATRICES = {"auto", "per-class", "stacked", "diagonal"}
#: ``matrix="auto"``: the paper's stacked (K·d)×(K·d) matrix while K·d is at most this, else one
#: d×d matrix per class while d is at most this, else diagonal metrics (O(non-zeros) per update;
#: a full d×d matrix per class of 60,000 text features would need 29 GB per class).  Chosen by
#: cost: an update of a full matrix of side n costs O(n²) against pa's O(K·nnz) per round, and
#: a pass's cost relative to pa's grows faster than n once the matrix leaves the cache
#: (benchmarks/ellipsoid_layouts.py, two runs on a shared 2-core machine: side 256, USPS
#: per-class, 3.5–8× pa's; side 416, Letter stacked, 5–23×; side 784, MNIST per-class,
#: 24–115×; side 2,560, USPS stacked, 240–630×).  The stated factor: a full matrix only where a
#: pass costs at most about 25× pa's, hence a side of at most 512.  MNIST's 784 features go
#: diagonal: 1–3× pa's cost, within 0.3 points of per-class test accuracy for IELLIP (1.8 for
#: CELLIP); docs/guide/families.md has the table.
FULL_MATRIX_MAX_SIZE = 512


class _Ellipsoid(_ModelHolding, _Unweighted):
    """Shared machinery: the metric's layout and initialization (the model and its engine:
    :class:`onlinear.models.metric.MetricModel`)."""

    _weights_refusal = ("its steps are cuts of a fixed geometry (CELLIP's covering argument, "
                        "IELLIP's metric update (15)) that a weight would not scale")
    _kind = None
    _model_class = MetricModel

    def _initial_scale(self):
        raise NotImplementedError

    def _mode(self):
        raise NotImplementedError

    def _rule_params(self):
        return parameter_vector(ee.PARAMETERS, {
            "gamma": self.gamma,
            "a": self.a,
            "b": getattr(self, "b", 0.0),
            "c": self._memory() if self._kind == rule.IELLIP else 0.0,
            "mode": self._mode(),
            "p1_scale": self._initial_scale(),
            "kind": self._kind,
            "decay": self._decays[getattr(self, "decay", "rounds")],
            "p_update": self._p_updates[getattr(self, "p_update", "normalized")]})

    _decays = {"rounds": rule.DECAY_ROUNDS, "updates": rule.DECAY_UPDATES,
               "constant": rule.DECAY_CONSTANT}
    _p_updates = {"normalized": rule.P_NORMALIZED, "raw": rule.P_RAW}

    def _resolve_layout(self, n_outputs, n_features):
        if self.matrix == "diagonal":
            return ee.DIAGONAL
        if self.matrix == "per-class" or (n_outputs == 1 and self.matrix == "stacked"):
            return ee.FULL
        if self.matrix == "stacked" or n_outputs * n_features <= FULL_MATRIX_MAX_SIZE:
            return ee.STACKED if n_outputs > 1 else ee.FULL
        return ee.FULL if n_features <= FULL_MATRIX_MAX_SIZE else ee.DIAGONAL

    def _model_config(self, n_outputs, n_features):
        return {"params": np.ascontiguousarray(self._rule_params(), dtype=np.float64),
                "layout": self._resolve_layout(n_outputs, n_features),
                "p1": self._initial_scale(), "centre": self._centre(),
                "name": type(self).__name__, "raise_mode": rule.RAISE,
                "no_new_classes": "each class's ellipsoid has shrunk over every past example "
                                  "(one-vs-rest), which a new class's would not have",
                "no_new_features": "its metric shrinks over every feature each round, so a "
                                   "feature added later would not be one that was always 0"}

    def _centre(self):
        """w_1: None for 0 (Algorithms 1 and 2), unless IELLIP's ``w_init`` says otherwise."""
        return None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._pass_checks_dense_rows = True  # (the diagonal layout's pass: see _validate)

    def _validate(self, X, y, reset, pass_checks_rows=False, form=ONE_LABEL):
        # the diagonal layout's dense pass checks each row itself (MetricModel.learn); a full
        # metric's would need a copy of its d×d matrices per call to undo a refused row, so X
        # is checked first
        model = self.__dict__.get("model_")
        if reset or model is None:  # (as _resolve_layout will choose)
            shape = getattr(X, "shape", ())
            diagonal = self.matrix == "diagonal" or (
                self.matrix == "auto" and len(shape) == 2 and shape[1] > FULL_MATRIX_MAX_SIZE)
        else:
            diagonal = model.config["layout"] == ee.DIAGONAL
        return super()._validate(X, y, reset, pass_checks_rows and diagonal, form)


class CELLIP(_Ellipsoid):
    """CELLIP, the classical ellipsoid method for online learning (Algorithm 1 of Yang, Jin &
    Ye): on a mistake the centre w moves to the P-Mahalanobis projection onto
    ``{z·(w·x) ≥ aγ}`` (10) and the ellipsoid shrinks around the cut (11).  Theorem 3: on data
    separable with margin γ (‖x‖ ≤ 1), a number of mistakes independent of the dimension.

    ``init="corrected"`` (default) starts from ``P_1 = (1 + γ(1−a))²·I``, the smallest ball that
    contains the ball B of the covering argument; ``"paper"`` uses the printed
    ``(1 + γ(1−a))·I``, which does not (an inconsistency of §2.2: the ball B must lie in the
    starting ellipsoid for the covering argument of Theorem 3).  ``on_infeasible`` says what to
    do when τ ≥ 1 — possible only when the separability assumption fails — where (11) would make P
    singular or indefinite: ``"reset"`` (P ← P_1 and a step with τ = 1 − 10⁻³, the default),
    ``"clip"`` (τ ← 1 − 10⁻³ in both (10) and (11): each such cut shrinks P a thousandfold, so
    on noisy data P collapses towards 0 and rounding can leave it indefinite — use it only on
    nearly separable data), ``"raise"`` or ``"skip_matrix"`` (move w only).

    ``matrix``: ``"stacked"`` is the paper's multiclass form (one (K·d)×(K·d) matrix over the
    stacked weight vector), ``"per-class"`` one ellipsoid per class (one-vs-rest, ours),
    ``"diagonal"`` a diagonal P per class in O(non-zeros) (ours, no theorem), ``"auto"`` stacked
    while K·d ≤ 512, per-class while d ≤ 512, diagonal beyond (``FULL_MATRIX_MAX_SIZE``: beyond a
    side of 512 a full matrix makes a pass cost more than about 25× pa's; MNIST's 784 features
    go diagonal).  With two classes every choice
    but ``"diagonal"`` is the paper's binary algorithm.  No bias term; the theory assumes
    ‖x‖ ≤ 1.

    Parameters
    ----------
    gamma : float, default=0.1
        The margin γ > 0 the data are assumed separable with (Theorem 3, ‖x‖ ≤ 1); the cut of
        a mistake is ``{z·(w·x) ≥ aγ}``.
    a : float, default=0.5
        The fraction a ∈ [0, 1] of the margin the cut demands: the step
        ``τ = (aγ − m)/sqrt(xᵀPx)`` on a mistake with margin m ≤ 0 (5), and the radius
        ``1 + γ(1−a)`` of the starting ball.
    init : {"corrected", "paper"}, default="corrected"
        The starting matrix: ``P_1 = (1 + γ(1−a))²·I`` (the covering argument's) or the
        printed ``(1 + γ(1−a))·I`` (above).
    on_infeasible : {"reset", "clip", "raise", "skip_matrix"}, default="reset"
        What to do when τ ≥ 1 (the cut misses the ellipsoid; above): reset P to P_1, clip τ,
        raise a ``ValueError`` (the model left as before the call), or move w only.
    matrix : {"auto", "stacked", "per-class", "diagonal"}, default="auto"
        The layout of P (above): the paper's stacked (K·d)×(K·d) matrix (§2.4),
        one d×d matrix per class, or a diagonal P per class; ``"auto"``: stacked while
        K·d ≤ 512, per-class while d ≤ 512, diagonal beyond (above: the cost of a full
        matrix grows with its side; at d = 784 one matrix per class costs 24–115× pa's pass).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The centre w of the ellipsoid (one row per class; for two classes the single row
        scores ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> import numpy as np
    >>> from onlinear import CELLIP
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> scale = np.linalg.norm(X, axis=1).max()
    >>> model = CELLIP(matrix="per-class").fit(X[:1000] / scale, y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test / scale, y_test):.3f}")
    201 mistakes on 1,000 examples, test accuracy 0.845
    """

    _kind = rule.CELLIP
    _modes = {"clip": rule.CLIP, "raise": rule.RAISE, "skip_matrix": rule.SKIP_MATRIX,
              "reset": rule.RESET}
    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "a": [Interval(Real, 0, 1, closed="both")],
        "init": [StrOptions({"corrected", "paper"})],
        "on_infeasible": [StrOptions(set(_modes))],
        "matrix": [StrOptions(_MATRICES)],
    }

    def __init__(self, gamma=0.1, a=0.5, init="corrected", on_infeasible="reset", matrix="auto", *,
                 fit_intercept=False, n_epochs=1, shuffle=False, random_state=None,
                 warm_start=False, verbose=0):
        self.gamma = gamma
        self.a = a
        self.init = init
        self.on_infeasible = on_infeasible
        self.matrix = matrix
        self.fit_intercept = fit_intercept
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose

    def _initial_scale(self):
        radius = 1.0 + self.gamma * (1.0 - self.a)
        scale = radius * radius if self.init == "corrected" else radius
        if not math.isfinite(scale):  # (the ellipsoid's first radius overflows float64)
            raise ValueError(f"CELLIP: gamma={self.gamma!r} with a={self.a!r} makes the initial "
                             f"ellipsoid's radius 1 + gamma·(1 − a) = {radius:.3g}, whose "
                             f"{'square ' if self.init == 'corrected' else ''}overflows float64: "
                             "choose a smaller gamma.")
        return scale

    def _mode(self):
        return self._modes[self.on_infeasible]


class IELLIP(_Ellipsoid):
    """IELLIP, the improved ellipsoid method (Algorithm 2 of Yang, Jin & Ye): the centre moves
    as in CELLIP, (10) with ``τ = (aγ − m)/sqrt(xᵀPx)``, and P is a decaying mixture,
    ``P⁻¹ ← (1 − c_t) P⁻¹ + c_t g gᵀ`` with ``c_t = c·b^(t−1)`` (15), t counting examples.

    Defaults as in the paper's experiments: ``gamma=0.1``, ``b=0.3``, ``P_1 = scale·I`` with
    ``scale=0.1``; ``c`` (unreported) defaults to ``0.5·(1 − b)``, which satisfies Theorem 4's
    ``c + b < 1``.  Predictions do not depend on ``scale`` (our reading of §2.3,
    Algorithm 2: P enters the step only through ratios).  ``step="fixed"``
    uses ``τ = γ/sqrt(xᵀPx)``, the step the paper's Lemma 2 analyses.  ``matrix`` as in
    :class:`CELLIP`.

    The paper's text admits several readings of Algorithm 2; the defaults are the printed one
    (t of ``c_t`` is Algorithm 2's round counter, P by (15) as printed, ``w_1 = 0`` as its
    INITIALIZE line says), and ``decay``, ``p_update`` and ``w_init`` give the others:

    * ``decay="updates"``: t counts the updates of the ellipsoid (Appendix C's proof of
      Theorem 4 steps only on updates and holds for either count).  ``decay="constant"``:
      ``c_t = 1 − b``, i.e. ``P⁻¹ ← b·P⁻¹ + (1 − b)·g gᵀ``, which forgets each past instance by
      a factor b per update — not the printed formula, but the reading §2.3's words "the
      smaller b is, the shorter the memory is" fit best (under ``c·b^(t−1)`` a small b stops P
      after its first few instances and keeps those for good: a short memory only in the
      sense of few instances).
    * ``p_update="raw"``: ``P⁻¹ ← (1 − c_t)P⁻¹ + c_t x xᵀ`` with the instance instead of
      ``g = x/sqrt(xᵀPx)`` — the only reading under which §3's remark "only the relative scale
      between P_1 and c is useful, by setting the scale of P, we don't have to set c" holds
      (under (15), ``scale`` changes no prediction).
    * ``w_init="random"``: w_1 drawn around the origin, as §3 says its experiments did (scale
      not given).

    On USPS, Letter and Shuttle none of these readings shows Fig. 2's trade-off (a larger b
    giving fewer updates *and* a higher test error); see ``onlinear reproduce
    yang-jin-ye-fig2``.

    Parameters
    ----------
    gamma : float, default=0.1
        The margin γ > 0 of the step (the paper's experiments use 0.1).
    b : float, default=0.3
        The decay b ∈ [0, 1] of the memory ``c_t = c·b^(t−1)`` of (15) (0.3 in the paper's
        experiments).
    c : float or None, default=None
        The memory scale c ∈ [0, 1) of (15); None means ``0.5·(1 − b)``, so that Theorem 4's
        ``c + b < 1`` holds.
    scale : float, default=0.1
        ``P_1 = scale·I`` (scale > 0; 0.1 in the paper's experiments); predictions do not
        depend on it.
    a : float, default=1.0
        The fraction a > 0 of the margin the step aims at: ``τ = (aγ − m)/sqrt(xᵀPx)`` (5) on
        a mistake with margin m ≤ 0; unused by ``step="fixed"``.
    step : {"margin", "fixed"}, default="margin"
        ``"margin"``: τ as above; ``"fixed"``: ``τ = γ/sqrt(xᵀPx)``, the step of Lemma 2.
    matrix : {"auto", "stacked", "per-class", "diagonal"}, default="auto"
        The layout of P, as in :class:`CELLIP`: the paper's stacked (K·d)×(K·d) matrix (§2.4),
        one d×d matrix per class, or a diagonal P per class; ``"auto"``: stacked while
        K·d ≤ 512, per-class while d ≤ 512, diagonal beyond (the cost of a full matrix grows
        with its side; at d = 784 one matrix per class costs 24–115× pa's pass).
    decay : {"rounds", "updates", "constant"}, default="rounds"
        What drives the memory ``c_t`` of (15) (above): ``c·b^(t−1)`` with t the round
        (every example since the last :meth:`fit`, not reset between epochs; Algorithm 2's
        t), or with t the updates made by this ellipsoid (one count per class with
        ``matrix="per-class"`` or ``"diagonal"``, one for the learner with ``"stacked"`` or two
        classes); ``"constant"``: ``c_t = 1 − b`` on every update (b > 0; ``c`` must then be
        None, it is not used).
    p_update : {"normalized", "raw"}, default="normalized"
        What P⁻¹ mixes in: ``g gᵀ`` with ``g = x/sqrt(xᵀPx)``, (15) as printed, or the raw
        ``x xᵀ`` (above; with the stacked layout, x is the stacked cut direction of §2.4).
        ``"raw"`` is not scale-free and needs a c_t that dies out: not with
        ``decay="constant"``, nor with b = 1 and c > 0 (P would grow without bound).
    w_init : {"zeros", "random"}, default="zeros"
        ``w_1 = 0`` (Algorithm 2), or drawn from N(0, w_scale²) independently for every weight
        (§3: "randomly initialized around the origin"; it also breaks the first rounds' ties,
        which ``"zeros"`` breaks by the lowest class index).  The draw is
        ``rng.normal(0, w_scale, (n_weights, n_outputs))`` with ``rng`` from
        ``random_state``, made when the model starts (first :meth:`fit` or
        :meth:`partial_fit`), before any shuffling; ``coef_`` is its transpose.
    w_scale : float, default=1e-3
        The standard deviation of a random w_1 (> 0; the paper gives none); unused with
        ``w_init="zeros"``.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling, and of the random w_1 of ``w_init="random"``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The centre w of the ellipsoid (one row per class; for two classes the single row
        scores ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import IELLIP
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = IELLIP(matrix="per-class").fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    233 mistakes on 1,000 examples, test accuracy 0.780
    """

    _kind = rule.IELLIP
    _read_only_with = {
        "a": ("step", ("margin",), "the fraction of the margin the margin step aims at"),
        "w_scale": ("w_init", ("random",), "the spread of a random w_1"),
    }
    _steps = {"margin": rule.STEP_MARGIN, "fixed": rule.STEP_FIXED}
    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "b": [Interval(Real, 0, 1, closed="both")],
        "c": [Interval(Real, 0, 1, closed="left"), None],
        "scale": [Interval(Real, 0, None, closed="neither")],
        "a": [Interval(Real, 0, None, closed="neither")],
        "step": [StrOptions(set(_steps))],
        "matrix": [StrOptions(_MATRICES)],
        "decay": [StrOptions(set(_Ellipsoid._decays))],
        "p_update": [StrOptions(set(_Ellipsoid._p_updates))],
        "w_init": [StrOptions({"zeros", "random"})],
        "w_scale": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, gamma=0.1, b=0.3, c=None, scale=0.1, a=1.0, step="margin", matrix="auto", *,
                 decay="rounds", p_update="normalized", w_init="zeros", w_scale=1e-3,
                 fit_intercept=False, n_epochs=1, shuffle=False, random_state=None,
                 warm_start=False, verbose=0):
        self.gamma = gamma
        self.b = b
        self.c = c
        self.scale = scale
        self.a = a
        self.step = step
        self.matrix = matrix
        self.decay = decay
        self.p_update = p_update
        self.w_init = w_init
        self.w_scale = w_scale
        self.fit_intercept = fit_intercept
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose

    def _memory(self):
        return 0.5 * (1.0 - self.b) if self.c is None else self.c

    def _validate_params(self):
        super()._validate_params()
        name = type(self).__name__
        if self.decay == "constant":
            if self.c is not None:
                raise ValueError(f"{name}: c={self.c!r} is not used with decay='constant' "
                                 "(c_t = 1 − b on every update); leave c=None.")
            if self.b == 0:
                raise ValueError(f"{name}: decay='constant' needs b > 0: c_t = 1 − b = 1 would "
                                 "make P⁻¹ = g gᵀ, singular.")
        if self.p_update == "raw" and (self.decay == "constant"
                                       or (self.b == 1 and self._memory() > 0)):
            raise ValueError(
                f"{name}: p_update='raw' needs a memory c_t that dies out (b < 1 or c = 0, and "
                f"not decay='constant'); got decay={self.decay!r}, b={self.b!r}, c={self.c!r}. "
                "With a constant c_t, P grows without bound along the directions that recent "
                "instances do not cover, and unlike (15) the raw update cannot be rescaled "
                "without changing the predictions.")

    def _centre(self):
        if self.w_init == "random":
            return {"scale": self.w_scale, "random_state": self.random_state}
        return None

    def _initial_scale(self):
        return self.scale

    def _mode(self):
        return self._steps[self.step]
