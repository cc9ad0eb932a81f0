"""Estimators of the confidence-weighted (Gaussian) family: CW, AROW, SCW-I/II and NHERD.

Each keeps a Gaussian N(μ, Σ) over weight vectors — μ the classifier, Σ its uncertainty,
Σ_1 = a·I — and on a round with margin m and margin variance V moves μ along Σx and shrinks Σ
along Σx (the rule's step, :mod:`onlinear.rules.confidence_table`; the engine,
:mod:`onlinear._core.confidence`; the model, :class:`onlinear.models.gaussian.GaussianModel`).
Multiclass rounds use the single max-score constraint of Crammer, Dredze & Kulesza
("Multi-Class Confidence Weighted Algorithms", EMNLP 2009): the true class against the
highest-scoring wrong class s*, m = s_y − s_{s*}; ``ConfidenceWeighted(form="variance",
constraints=k)`` takes that paper's k constraints instead, solved exactly over the layout's Σ
(:mod:`onlinear._core.multi_constraint`).

``matrix`` chooses where Σ lives:

* ``"per-class"`` — one full d×d matrix per class (V = xᵀΣ_y x + xᵀΣ_{s*}x; the
  block-diagonal restriction of the papers' stacked (K·d)×(K·d) Σ), O(d²) per update;
* ``"diagonal"`` — one diagonal per class, O(non-zeros) per update (SOL's, Jubatus's and
  Hivemall's multiclass layout), kept by ``diagonal="project"`` (the diagonal of the updated
  Σ⁻¹, the default) or ``"drop"`` (the diagonal of the updated Σ);
* ``"shared"`` — one d×d matrix for every class: the multiclass problem the LIBOL manual
  states (§3.2.3), solved exactly; ``libol_compat=True`` reproduces LIBOL's code instead
  (``M_CW``, ``M_SCW1``, ``M_SCW2``, ``M_AROW``), which differs from that problem's solution
  (``docs/misprints.md``);
* ``"auto"`` (default) — per-class while the model has at most 512 features
  (``FULL_MATRIX_MAX_SIZE``, as the ellipsoid methods), diagonal beyond.

With two classes every layout is the papers' binary learner (one Gaussian; ``coef_`` scores
``classes_[1]``).  New classes start from μ = 0, Σ = a·I and new features from μ = 0 with
variance a, which is exactly what a model started that wide holds.

Example weights (``sample_weight``, ``class_weight``) weigh the loss term of the round's
problem — not in the papers, which weigh every example alike: for an example of weight w > 0,
SCW-I/II's C·ℓ^φ and NHERD's loss and confidence terms take w·C, AROW's
(1/2r)·(ℓ² + xᵀΣx) takes w/(2r) (r → r/w); a weight of 0 makes the round a prediction only.
For the binary AROW with a full covariance an integer weight k is exactly k repetitions of the
example in a row: the hinge stays active after each step (1 − m' = (1 − m)·r/(V + r) > 0), so
the k steps minimise the same sum of quadratics as one step with r/k, and Σ⁻¹ gains k·xxᵀ/r
either way; a diagonal Σ breaks the identity (the direction Σx turns between the
repetitions), and so may a multiclass round (the runner-up s* may change).  CW has no weighted
form: its problem is a hard constraint with no loss to weigh (met after one step, a row
repeated is learned once), so ``ConfidenceWeighted`` takes no weights.  The weighted rounds
run as one compiled pass per run of equal weights (:mod:`onlinear.models.weighted_pass`).
"""
from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from ..models.gaussian import GaussianModel
from ..rules.confidence_table import GaussianRule, parameter_vector
from . import docstrings
from .base import _Unweighted
from .ellipsoid import FULL_MATRIX_MAX_SIZE
from .held_averaging import AVERAGE_CONSTRAINTS, _AveragedHeld
from .holding import HELD_CONSTRAINTS, WEIGHTED_CONSTRAINTS, _ModelHolding

__all__ = ["ConfidenceWeighted", "AROW", "SoftConfidenceWeighted", "NormalHerd"]

_COMMON = {
    **HELD_CONSTRAINTS,
    **AVERAGE_CONSTRAINTS,
    "a": [Interval(Real, 0, None, closed="neither")],
    "matrix": [StrOptions({"auto", "diagonal", "per-class", "shared"})],
    "diagonal": [StrOptions({"project", "drop"})],
    "min_variance": [Interval(Real, 0, None, closed="left")],
}
#: The family's shared parameters, documented once and added to each class's docstring
#: (:mod:`onlinear.estimators.docstrings`); NHERD writes its own ``matrix`` and ``diagonal``.
GAUSSIAN_PARAMETERS = {
    "a": """\
a : float, default=1.0
    The initial variance: Σ_1 = a·I (and a new feature's or class's).  It carries the units
    of 1/‖x‖² (x → c·x needs a → a/c²; the learner is then exactly invariant).  Fixed when
    the model starts (``fit`` restarts it with a new value).""",
    "matrix": """\
matrix : {"auto", "per-class", "diagonal", "shared"}, default="auto"
    Where Σ lives (module doc): a full d×d matrix per class, a diagonal per class, or one
    matrix shared by the classes (the LIBOL manual's multiclass problem); ``"auto"``: full
    per class while the model has at most 512 features, diagonal beyond.""",
    "diagonal": """\
diagonal : {"project", "drop"}, default="project"
    How a diagonal (or a per-class matrix's share of the step) is kept: the diagonal of the
    updated Σ⁻¹, or of the updated Σ (module doc).""",
    "min_variance": """\
min_variance : float, default=0.0
    A floor under every diagonal variance after its update, and under a full Σ's variance
    xᵀΣx/‖x‖² along an updated row (0: none but what float64 resolves: the smallest normal
    float, 2.2e-308, for a diagonal variance; for a full Σ, √ε of its largest variance or
    6.7e-139·a, whichever is larger, a the prior variance).""",
}

#: the families whose problem has a loss to weigh take ``class_weight`` (module doc)
_CLASS_WEIGHT = {"class_weight": WEIGHTED_CONSTRAINTS["class_weight"]}
_ETA = [Interval(Real, 0.5, 1, closed="neither")]
_POSITIVE = [Interval(Real, 0, None, closed="neither")]


class _Gaussian(_AveragedHeld, _ModelHolding):
    """Shared machinery: the layout, the rule and the configuration of the Gaussian model."""

    _model_class = GaussianModel
    _parameter_docs = {**docstrings.HELD_PARAMETERS, **GAUSSIAN_PARAMETERS}

    def _gaussian_rule(self, shared):
        """The :class:`GaussianRule` of the estimator's hyperparameters (``shared``: the
        layout has one Σ for every class)."""
        raise NotImplementedError

    def _rule_values(self):
        """The user's hyperparameters the rule reads (``eta``, ``C``, ``r``)."""
        raise NotImplementedError

    def _layout(self, n_features):
        if self.matrix != "auto":
            return self.matrix
        return "per-class" if n_features <= FULL_MATRIX_MAX_SIZE else "diagonal"

    def _validate_params(self):
        super()._validate_params()
        if self.libol_compat and self.matrix != "shared" and not self._has_libol_variant:
            raise ValueError(f"{type(self).__name__}: libol_compat=True reproduces LIBOL's "
                             "shared-covariance code (its M_* algorithms): it needs "
                             "matrix='shared'.")

    _has_libol_variant = False

    def _model_config(self, n_outputs, n_features):
        layout = self._layout(n_features)
        if layout == "shared" and n_outputs == 1:  # (two classes: the binary learner's Σ)
            layout = "per-class"
        rule = self._gaussian_rule(layout == "shared")
        return {"rule": int(rule), "params": parameter_vector(rule, **self._rule_values()),
                "values": self._rule_values(), "layout": layout, "diagonal": self.diagonal,
                "min_variance": float(self.min_variance), "a": float(self.a),
                "average": self._started_average(), "name": type(self).__name__,
                "constraints": getattr(self, "constraints", "max")}

    @property
    def n_variance_repairs_(self):
        """Variances the engine repaired: diagonal ones raised to the smallest normal float
        from below it (as an exact CW step whose c overflows leaves them) or to
        ``min_variance``, and full-matrix steps held where float64 cannot resolve Σ along the
        row (:mod:`onlinear._core.confidence`)."""
        return int(self.model_.repairs[0])

    @property
    def covariance_(self):
        """Σ: ``(n_features, n_outputs)`` diagonals (``matrix="diagonal"``), ``(n_outputs, d,
        d)`` per-class matrices or ``(1, d, d)`` for a shared one (a copy; the intercept's
        constant feature last, when ``fit_intercept``)."""
        return self.model_.covariance.copy()


class ConfidenceWeighted(_Unweighted, _Gaussian):
    """Confidence-Weighted learning (CW): the smallest change of the Gaussian, in KL divergence,
    under which the example is classified correctly with probability at least η.

    Problem (Dredze, Crammer & Pereira, ICML 2008, §3; Crammer, Dredze & Pereira, NIPS 2008)::

        (μ, Σ) = argmin D_KL(N(μ, Σ) ‖ N(μ_t, Σ_t))  s.t.  Pr_{w∼N(μ,Σ)}[y(w·x) ≥ 0] ≥ η

    i.e. m ≥ φ√V with φ = Φ⁻¹(η).  ``form="std"`` (default) solves it exactly (the
    standard-deviation form of the NIPS 2008 paper, a convex problem in Σ^½; closed forms
    α, u, β — the rationalized u, which does not cancel); ``form="variance"`` solves the ICML
    paper's linearized constraint m ≥ φV (its "variance" update).  Both update iff the
    constraint fails.  CW has no slack: on noisy data its Σ collapses on the rows it
    keeps failing, which ``min_variance`` (a floor of every diagonal variance) bounds.  With
    no floor a diagonal σ may fall below float64's range (on Letter within some 4,500 rows,
    once a mistake's c ≈ (mφ/V)² overflows): it is then held at the smallest normal float,
    a deviation from the paper (whose steps never leave the reals) that lets the pass go on.
    A full Σ's variance along a row is likewise held at what float64 resolves (√ε of its
    largest variance): the exact CW itself diverges on Letter (its mean past 10³⁰ within
    7,200 rows, in 80-digit arithmetic too), and the unheld float64 Σ turned indefinite there
    and skipped most later rounds; held, Σ stays positive definite (counted in
    ``n_variance_repairs_``).  ``min_variance`` bounds both and is the cure for noisy data.

    k constraints (``constraints=k``, Crammer, Dredze & Kulesza, EMNLP 2009; variance form)::

        min D_KL(N(μ, Σ) ‖ N(μ_t, Σ_t))  s.t.  μ·Δ_j ≥ φ Δ_jᵀΣΔ_j,  j ∈ S

    with Δ_j = f(x, y) − f(x, j) and S the k highest-scoring wrong classes (ties: the lowest
    index).  Over the layout's Σ (a full matrix or a diagonal per class) its solution is
    Σ_c⁻¹ = Σ_{t,c}⁻¹ + 2φA_c xxᵀ (a diagonal: the diagonal of that), μ_y += A_y Σ_{t,y}x and
    μ_j −= α_j Σ_{t,j}x, with α_j ≥ 0 the constraints' multipliers, A_y = Σ_j α_j and A_j = α_j,
    found by Hildreth's coordinate ascent on the dual (:mod:`onlinear._core.multi_constraint`).
    It differs from ``"max"`` even for k = 1.  Both then move μ_y and μ_{s*} by ±αΣ_{t,c}x
    and add 2αφ·xxᵀ to each of the two Σ_c⁻¹; they differ in α.  ``"max"`` takes the binary
    rule's α, the root of m + αV = φV/(1 + 2αφV) with V = v_y + v_{s*}: exact for the stacked
    Σ, whose update couples the two classes, but the per-class Σ kept has the larger variance
    v_y/(1 + 2αφv_y) + v_{s*}/(1 + 2αφv_{s*}) along the constraint (a diagonal Σ: the sum over
    the row of x_i²σ_i/(1 + 2αφσ_i x_i²)), so the constraint is not met after the step.
    ``constraints=1`` takes α from m + αV = φ(v_y/(1 + 2αφv_y) + v_{s*}/(1 + 2αφv_{s*})) (its
    diagonal form likewise) and meets it exactly.  A round updates iff a constraint of S
    fails, and counts as one update.

    Parameters
    ----------
    eta : float, default=0.75
        The confidence η ∈ (0.5, 1) demanded of each example (φ = Φ⁻¹(η)).
    form : {"std", "variance"}, default="std"
        The exact standard-deviation form or the linearized variance form (above).
    libol_compat : bool, default=False
        With ``matrix="shared"`` (``form="std"``): LIBOL's ``M_CW`` code (its α, which is the
        binary formula with v → 2v and is not the solution of the shared problem, and its
        trigger m < φ√v), for reproducing LIBOL's numbers.
    constraints : {"max", "all"} or int ≥ 1, default="max"
        The constraints of a multiclass round.  ``"max"``: the single max-score constraint
        (the true class y against the highest-scoring wrong class s*) with the rule's step,
        unchanged: the binary rule's step on V = v_y + v_{s*} (the form SOL, Jubatus and
        Hivemall implement), which on the per-class and diagonal layouts is not the solution
        of the restricted problem (above).  An int k: the EMNLP 2009 paper's k constraints,
        y against its k highest-scoring wrong classes at once (k ≥ the number of wrong
        classes: all of them, as ``"all"``), solved exactly over the layout's Σ (above);
        ``constraints=1`` is the exact restricted solution of the single constraint, which
        differs from ``"max"``.  Needs ``form="variance"`` (where each
        constraint is linear in μ and Σ and the problem convex; the standard-deviation form
        has no coordinate-wise solution), ``matrix`` ``"per-class"``, ``"diagonal"`` or
        ``"auto"`` (the shared layout solves another problem) and ``diagonal="project"``
        (the restricted problem keeps the diagonal of Σ⁻¹).  With two classes the binary
        learner has one constraint and ``constraints`` changes nothing.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The mean μ (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import ConfidenceWeighted
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = ConfidenceWeighted(matrix="diagonal").fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    187 mistakes on 1,000 examples, test accuracy 0.853

    The k-constraint rounds meet their constraints over the diagonal Σ, which the max-score
    step does not (it updates on almost every round):

    >>> for constraints in ("max", 1, "all"):
    ...     model = ConfidenceWeighted(form="variance", matrix="diagonal",
    ...                                constraints=constraints).fit(X[:1000], y[:1000])
    ...     print(f"constraints={constraints!r}: {model.n_updates_} updates, "
    ...           f"{model.n_mistakes_} mistakes")
    constraints='max': 989 updates, 166 mistakes
    constraints=1: 358 updates, 193 mistakes
    constraints='all': 319 updates, 182 mistakes
    """

    _weights_refusal = ("CW's problem is a hard constraint with no loss to weigh (met after "
                        "one step, a row repeated is learned once)")

    _parameter_constraints = {**_COMMON, "eta": _ETA,
                              "form": [StrOptions({"std", "variance"})],
                              "libol_compat": ["boolean"],
                              "constraints": [Interval(Integral, 1, None, closed="left"),
                                              StrOptions({"max", "all"})]}

    def __init__(self, eta=0.75, form="std", a=1.0, matrix="auto", diagonal="project",
                 min_variance=0.0, libol_compat=False, *, constraints="max",
                 fit_intercept=False, average=False, n_epochs=1, shuffle=False,
                 random_state=None, warm_start=False, verbose=0):
        self.eta = eta
        self.form = form
        self.a = a
        self.matrix = matrix
        self.diagonal = diagonal
        self.min_variance = min_variance
        self.libol_compat = libol_compat
        self.constraints = constraints
        self.fit_intercept = fit_intercept
        self.average = average
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose

    def _validate_params(self):
        super()._validate_params()
        if self.constraints != "max":
            self._check_constraints()
        if self.matrix == "shared" and self.form == "variance":
            raise ValueError("ConfidenceWeighted: matrix='shared' solves the shared problem's "
                             "exact (standard-deviation) form; form='variance' has no shared "
                             "layout.")

    def _check_constraints(self):
        """Refuse the options k constraints have no solution for (class doc)."""
        given = f"ConfidenceWeighted: constraints={self.constraints!r}"
        if isinstance(self.constraints, bool):
            raise ValueError(f"{given}: give a count k ≥ 1 (an int), 'all' or 'max'; a bool is "
                             "not a count of constraints.")
        if self.form != "variance":
            raise ValueError(f"{given} needs form='variance': each constraint is then linear "
                             "in (μ, Σ) and the k-constraint problem convex, solved exactly; "
                             "the standard-deviation form (form='std') has no coordinate-wise "
                             "solution. Use form='variance' or constraints='max'.")
        if self.matrix == "shared":
            raise ValueError(f"{given} is not offered with matrix='shared': the shared layout "
                             "is another problem (one Σ for every class). Use "
                             "matrix='per-class', 'diagonal' or 'auto', or constraints='max'.")
        if self.diagonal != "project":
            raise ValueError(f"{given} needs diagonal='project', not {self.diagonal!r}: the "
                             "solution of the k-constraint problem over a per-class Σ keeps "
                             "the diagonal of the updated Σ⁻¹; the diagonal of Σ "
                             "(diagonal='drop') solves no problem with several constraints.")

    def _gaussian_rule(self, shared):
        if shared:
            return GaussianRule.LIBOL_SHARED_CW if self.libol_compat else GaussianRule.SHARED_CW
        return GaussianRule.CW_STD if self.form == "std" else GaussianRule.CW_VARIANCE

    def _rule_values(self):
        return {"eta": self.eta}


class AROW(_Gaussian):
    """Adaptive Regularization of Weight vectors (AROW; Crammer, Kulesza & Dredze, NIPS 2009):
    CW's KL term with the hard constraint replaced by a squared hinge loss and a
    confidence term, so that noisy examples no longer collapse Σ::

        C(μ, Σ) = D_KL(N(μ, Σ) ‖ N(μ_t, Σ_t)) + (1/2r)·ℓ²(y, μ·x) + (1/2r)·xᵀΣx

    with ℓ the hinge loss.  Closed form: on m < 1, β = 1/(V + r), α = (1 − m)·β,
    μ ← μ + α·y·Σx, Σ ← Σ − β(Σx)(Σx)ᵀ.  The minimiser of C in closed form holds on the
    updating rounds; the paper's mistake bound (Theorem 2) is tested in the form the suite
    states.

    Parameters
    ----------
    r : float, default=1.0
        The regularization r > 0: larger means smaller, more conservative steps.  It carries
        the units of ‖x‖² (x → c·x needs r → c²·r).
    libol_compat : bool, default=False
        With ``matrix="shared"``: LIBOL's ``M_AROW`` code, whose mean step ℓ/(v + r) is
        (2v + r)/(v + r) times the shared problem's ℓ/(2v + r).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The mean μ (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import AROW
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = AROW(r=10.0).fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    137 mistakes on 1,000 examples, test accuracy 0.857
    """

    _parameter_constraints = {**_COMMON, **_CLASS_WEIGHT, "r": _POSITIVE,
                              "libol_compat": ["boolean"]}

    def __init__(self, r=1.0, a=1.0, matrix="auto", diagonal="project", min_variance=0.0,
                 libol_compat=False, *, fit_intercept=False, average=False, n_epochs=1,
                 shuffle=False, random_state=None, class_weight=None, warm_start=False,
                 verbose=0):
        self.r = r
        self.a = a
        self.matrix = matrix
        self.diagonal = diagonal
        self.min_variance = min_variance
        self.libol_compat = libol_compat
        self.fit_intercept = fit_intercept
        self.average = average
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose

    def _gaussian_rule(self, shared):
        if shared:
            return GaussianRule.LIBOL_SHARED_AROW if self.libol_compat else \
                GaussianRule.SHARED_AROW
        return GaussianRule.AROW

    def _rule_values(self):
        return {"r": self.r}


class SoftConfidenceWeighted(_Gaussian):
    """Soft Confidence-Weighted learning (SCW-I and SCW-II; Wang, Zhao & Hoi, ICML 2012): CW's
    problem with the confidence constraint made a loss ℓ^φ = max(0, φ√V − m)::

        SCW-I:  argmin D_KL(N(μ, Σ) ‖ N(μ_t, Σ_t)) + C·ℓ^φ
        SCW-II: argmin D_KL(N(μ, Σ) ‖ N(μ_t, Σ_t)) + C·(ℓ^φ)²

    in closed form (α capped at C for SCW-I; SCW-II's α from n = V + 1/(2C)); both update iff
    m < φ√V.

    Parameters
    ----------
    C : float, default=1.0
        The weight C > 0 of the loss (larger: closer to CW).
    eta : float, default=0.75
        The confidence η ∈ (0.5, 1) of the loss (φ = Φ⁻¹(η)).
    variant : {"I", "II"}, default="I"
        SCW-I (linear loss) or SCW-II (squared loss).
    libol_compat : bool, default=False
        LIBOL's code: with ``matrix="shared"``, its ``M_SCW1``/``M_SCW2`` (M_SCW1's α is not
        the shared problem's solution, M_SCW2's is); otherwise, for SCW-II, the radicand of
        LIBOL's binary ``SCW2.m``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The mean μ (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import SoftConfidenceWeighted
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = SoftConfidenceWeighted(C=0.1).fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    129 mistakes on 1,000 examples, test accuracy 0.871
    """

    _parameter_constraints = {**_COMMON, **_CLASS_WEIGHT, "C": _POSITIVE, "eta": _ETA,
                              "variant": [StrOptions({"I", "II"})],
                              "libol_compat": ["boolean"]}

    def __init__(self, C=1.0, eta=0.75, variant="I", a=1.0, matrix="auto", diagonal="project",
                 min_variance=0.0, libol_compat=False, *, fit_intercept=False, average=False,
                 n_epochs=1, shuffle=False, random_state=None, class_weight=None,
                 warm_start=False, verbose=0):
        self.C = C
        self.eta = eta
        self.variant = variant
        self.a = a
        self.matrix = matrix
        self.diagonal = diagonal
        self.min_variance = min_variance
        self.libol_compat = libol_compat
        self.fit_intercept = fit_intercept
        self.average = average
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose

    @property
    def _has_libol_variant(self):
        return self.variant == "II"

    def _gaussian_rule(self, shared):
        second = self.variant == "II"
        if shared:
            if self.libol_compat:
                return GaussianRule.LIBOL_SHARED_SCW_II if second else \
                    GaussianRule.LIBOL_SHARED_SCW_I
            return GaussianRule.SHARED_SCW_II if second else GaussianRule.SHARED_SCW_I
        if second:
            return GaussianRule.SCW_II_LIBOL if self.libol_compat else GaussianRule.SCW_II
        return GaussianRule.SCW_I

    def _rule_values(self):
        return {"eta": self.eta, "C": self.C}


class NormalHerd(_Gaussian):
    """Normal Herd (NHERD; Crammer & Lee, "Learning via Gaussian Herding", NIPS 2010): the
    Gaussian moved as a whole — every weight vector it holds takes the passive-aggressive step
    of the squared hinge loss — so that on m < 1::

        α = (1 − m)/(V + 1/C),   Σ⁻¹ ← Σ⁻¹ + (2C + C²V)·xxᵀ

    (the LIBOL manual's full form; ``diagonal="exact"`` keeps each variance as
    σ/(1 + Cσx²)², the paper's best diagonal map).

    Parameters
    ----------
    C : float, default=1.0
        The aggressiveness C > 0 (γ = 1/C in LIBOL's code).
    matrix : {"auto", "per-class", "diagonal"}, default="auto"
        Where Σ lives (module doc); NHERD has no shared form.
    diagonal : {"project", "drop", "exact"}, default="project"
        How a diagonal is kept (module doc; ``"exact"`` above).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The mean μ (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import NormalHerd
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = NormalHerd(C=0.01, matrix="diagonal").fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    167 mistakes on 1,000 examples, test accuracy 0.863
    """

    _parameter_constraints = {**_COMMON, **_CLASS_WEIGHT, "C": _POSITIVE,
                              "matrix": [StrOptions({"auto", "diagonal", "per-class"})],
                              "diagonal": [StrOptions({"project", "drop", "exact"})]}
    libol_compat = False

    def __init__(self, C=1.0, a=1.0, matrix="auto", diagonal="project", min_variance=0.0, *,
                 fit_intercept=False, average=False, n_epochs=1, shuffle=False,
                 random_state=None, class_weight=None, warm_start=False, verbose=0):
        self.C = C
        self.a = a
        self.matrix = matrix
        self.diagonal = diagonal
        self.min_variance = min_variance
        self.fit_intercept = fit_intercept
        self.average = average
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose

    def _gaussian_rule(self, shared):
        return GaussianRule.NHERD

    def _rule_values(self):
        return {"C": self.C}

