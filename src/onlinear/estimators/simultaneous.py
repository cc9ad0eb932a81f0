"""Simultaneous projections (Amit, Shalev-Shwartz & Singer) as scikit-learn estimators.

Every trial is a block of binary constraints that must all hold (§2–3 of the paper); the learner
solves one projection per constraint, independently, and combines them (the paper's point).  The
compiled loops live in :mod:`onlinear._core.blocks`; the estimators here turn each task's labels
into its constraints:

* :class:`SimultaneousProjectionClassifier` — multiclass (``y`` 1-D: one label per example,
  §3.1, our Kesler form) and multilabel / label ranking (``y`` a 0/1 indicator matrix or a list
  of label sets, §3.1), one weight vector per label (Kesler's multi-prototype construction: the
  constraint of the pair (relevant r, irrelevant s) is ``s_r − s_s ≥ 1``);
* :class:`SimultaneousProjectionOrdinal` — ordinal regression (§3.2): one weight vector and
  k − 1 thresholds, the block of an example of rank y is "above the thresholds below y, below the
  others";
* :class:`BlockLearner` — the paper's general setting (§2, single prototype): you give the
  blocks (rows grouped by ``block_ptr``, labels ±1), optionally a partition of each block
  (decomposable loss, §7) and coupling weights (§10).

The scheme (``"simperc"``, ``"conproj"``, ``"simproj"``, ``"simopt"``, ``"maxpa"``,
``"optimal"``, ``"sopopo"``) chooses how the per-constraint projections are combined; see
:mod:`onlinear.rules.simultaneous` for each one's mathematics and the paper's errata.

Online diagnostics since the last ``fit`` (predict-before-update, as the paper counts):
``n_seen_`` trials, ``n_mistakes_`` *imperfect* trials (some constraint with margin ≤ 0 — ties
are mistakes; for multiclass: the true class is not the unique top score), ``n_constraints_``
and ``n_constraint_mistakes_`` (per constraint, as the experiments of §9 count them),
``n_updates_`` trials that changed the model.
"""
from __future__ import annotations

import types
from numbers import Real

from numpy.typing import ArrayLike, NDArray

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..models.block import BlockModel, OrdinalModel
from ..rules import simultaneous as rules
from ..tasks import Blocks, LabelSets, Ordinal
from ..tasks.labels import ONE_LABEL
from .base import MatrixLike, OnlineLinearClassifier, _TrialLearner
from .holding import _ModelHolding

__all__ = ["SimultaneousProjectionClassifier", "SimultaneousProjectionOrdinal", "BlockLearner"]

#: the schemes, under their registered names
SCHEME_NAMES = tuple(rules.SCHEMES)


def _documented(function, doc):
    """A copy of ``function`` with the docstring ``doc``."""
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)
    vars(copy).update(vars(function))
    copy.__doc__, copy.__annotations__ = doc, dict(function.__annotations__)
    copy.__kwdefaults__, copy.__qualname__ = function.__kwdefaults__, function.__qualname__
    return copy


class _Simultaneous(_ModelHolding):
    """What the three estimators share: the scheme and its hyperparameters, the block model
    (:class:`onlinear.models.block.BlockModel`) and its counters, epochs and shuffling.
    Subclasses define ``_start``, ``_encode``, ``_run``.

    ``sample_weight`` (label sets and ranks; the block learner weighs its rows by
    ``coupling``) scales an example's budget: its trial solves the problem of the scheme with
    C·w in place of C (the weighted loss C·w·max_j ℓ_j of the trial's primal, Amit et al. Eq.
    (2)); a weight of 0 makes the trial a prediction only."""

    # a trial predicts a label set or a rank, which the compiled pass does not record:
    # learn_many learns row by row
    _records_predictions = False

    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "scheme": [StrOptions(set(SCHEME_NAMES))],
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "max_rule": [StrOptions({"hinge", "distance"})],
    }
    _kind = rules.UPDATE_ADDITIVE
    _model_class = BlockModel
    #: the block model's task (:data:`onlinear.models.block.TASKS`)
    _block_task = "blocks"

    def _rule_params(self):
        return rules.make_params(C=self.C, gamma=getattr(self, "gamma", 0.5),
                                 max_rule=self.max_rule,
                                 decompose=getattr(self, "decompose", "none"))

    def _model_config(self, n_outputs, n_features):
        return {"task": self._block_task, "scheme": self._scheme, "kind": self._kind,
                "params": np.ascontiguousarray(self._rule_params(), dtype=np.float64),
                "name": type(self).__name__}

    @property
    def _scheme(self):
        return rules.SCHEMES[self.scheme]

    def _validate_params(self):
        super()._validate_params()
        if getattr(self, "update", "additive") == "multiplicative" and self.scheme in (
                "optimal", "sopopo"):
            raise ValueError(f"scheme={self.scheme!r} has no multiplicative form (the paper "
                             "defines no exact solver for the KL projection); use an additive "
                             "update or another scheme.")

    # ------------------------------------------------------------------ diagnostics
    @property
    def n_imperfect_(self):
        return self._count("imperfect")

    @property
    def n_constraints_(self):
        return self._count("constraints")

    @property
    def n_constraint_mistakes_(self):
        return self._count("constraint_mistakes")


# ====================================================================== multiclass / multilabel
class SimultaneousProjectionClassifier(_Simultaneous):
    """Multiclass and multilabel classifier trained by simultaneous projections (§3 of the paper).

    One weight vector per label (``coef_``, multi-prototype — the Kesler construction,
    our form of §3.1).  On each example the constraints are the pairs (relevant r, irrelevant s):
    ``s_r − s_s ≥ 1`` with ``s = W x``; the virtual instance of a pair has squared norm 2‖x‖².
    The scheme combines the k_t per-pair projections (PA-I steps ``α = min{C, ℓ/v}``) with
    simplex weights μ:

    * ``"simperc"`` μ uniform on the mistaken pairs, α = C (Thm. 2);
    * ``"conproj"`` μ uniform on the mistaken pairs, α = PA-I step (Cor. 4);
    * ``"simproj"`` μ uniform on every pair with a positive hinge loss, α = PA-I step;
    * ``"simopt"`` μ and α jointly (the water-filling form of Fig. 4; see its caveats: our
      counterexamples to the SimOpt part of Corollary 4);
    * ``"maxpa"`` only the most violated pair (multi-prototype MaxPA = multiclass PA-I);
    * ``"optimal"`` the exact solution of the round's projection problem (Eq. 2);
    * ``"sopopo"`` the exact projection in Sopopo's closed form (multiclass; = ``"optimal"``
      with several relevant labels).

    **Tasks.** ``y`` 1-D → multiclass (``predict`` returns labels, the top score; ties go to the
    lowest class index and count as mistakes online).  ``y`` a 0/1 indicator matrix, or a list
    of label sets (``[{"a", "b"}, {"c"}, set()]``) → multilabel: ``predict`` returns the
    indicator matrix (columns = ``classes_``), ``predict_label_sets`` the sets,
    ``decision_function`` the label scores (a ranking).

    A nested list of equal-length 0/1 rows is read as an indicator matrix (scikit-learn's
    convention); give sets to mean label sets.

    **Threshold rule (multilabel).**  The paper ranks labels but does not say which to predict
    (§3.1).  ``threshold="calibrated"`` (default) learns a virtual threshold label θ, ranked
    below every relevant label and above every irrelevant one (its constraints join each block:
    ``s_r − s_θ ≥ 1``, ``s_θ − s_s ≥ 1``; "calibrated label ranking"); examples without any
    relevant label then teach the model too.  ``decision_function`` returns ``s_r − s_θ`` and
    ``predict`` the labels with a positive value.  A number ``t`` instead predicts the labels
    with ``s_r > t`` on the plain pairwise model (its scores sum to 0 across labels in the
    additive update, so ``t = 0`` means "above the average label").  Whether the model holds the
    threshold label is decided when training starts; a later ``set_params(threshold=t)`` on a
    calibrated model predicts ``s_r − s_θ > t``.

    Parameters
    ----------
    scheme : {"simperc", "conproj", "simproj", "simopt", "maxpa", "optimal", "sopopo"}, \
default="simproj"
        How the round's per-constraint PA-I projections are combined (the list above;
        :mod:`onlinear.rules.simultaneous` gives each one's mathematics).
    C : float, default=1.0
        Aggressiveness C > 0: the cap ``Σ_j α_j ≤ C`` on each round's dual mass (Eq. 3 of
        Amit et al.), hence the box of each per-constraint step ``α_j = min{C, ℓ_j/v_j}``
        (Eq. 4) and SimPerc's step size.  With the additive update it carries the units of
        1/‖x‖² (x → c·x needs C → C/c²).
    update : {"additive", "multiplicative"}, default="additive"
        ``"additive"``: ``W ← W + Σ_j λ_j y_j x_j`` (the Kesler pairs' virtual instances).
        ``"multiplicative"``: exponentiated updates keeping all the n_features·k weights on one
        simplex with KL proximity (§8; closed-form step for features in {−1, 0, 1}).
        Signed problems need features ``[x, −x]``; ``gamma`` is then the margin.
    gamma : float, default=0.1
        The multiplicative margin γ > 0 of §8 (the constraints become ``s_r − s_s ≥ γ``;
        ignored by additive updates; Appendix C's closed-form step needs γ < 1).  Scores are on
        the scale of the simplex weights: tune γ to the data (the paper searched 0.5–2× the
        data's margin).
    max_rule : {"hinge", "distance"}, default="hinge"
        Which pair ``scheme="maxpa"`` calls the most violated: the largest hinge loss ℓ_j,
        or the largest distance ``ℓ_j/‖x_j‖`` to the pair's half-space (‖x_j‖_∞ under the
        multiplicative update); unused by the other schemes.
    threshold : "calibrated" or float, default="calibrated"
        Multilabel prediction rule (the threshold rule above): ``"calibrated"`` learns the
        virtual threshold label θ; a finite number t predicts the labels with ``s_r > t``.
        Ignored for multiclass.
    decompose : {"none", "per_label", "singletons"}, default="none"
        The decomposable loss of §7: the round's pairs split into sets, each with budget
        C/r_t and its own scheme — one set per relevant label (its pairs against the irrelevant
        ones; the calibrated threshold label is one of them), or one per pair (the average hinge
        loss).  ``"none"``: one set, the paper's max loss.
    fit_intercept : bool, default=False
        Learn a bias per output: a constant feature of value 1 appended to every row, its
        weight ``intercept_``; it enters the projections and their norms ‖x‖² as any
        feature does.  Off by default: the paper's setting.

    Attributes
    ----------
    classes_ : ndarray
        Labels (multiclass), or the label of each indicator column (multilabel; 0..k−1 for an
        indicator matrix, the sorted labels for label sets).
    coef_ : ndarray of shape (n_classes, n_features)
        One row per label (the threshold label excluded).
    threshold_coef_ : ndarray of shape (n_features,) or None
        The calibrated threshold label's weights; None for multiclass, or for multilabel
        training started with a numeric ``threshold``.
    multilabel_ : bool
        Whether the model was trained on multilabel targets (an indicator matrix or label
        sets) rather than one label per example.
    n_seen_ : int
        Trials (examples) learned since the last :meth:`fit`.
    n_mistakes_ : int
        Imperfect trials (the paper's mistakes), each counted before the trial is learned: some
        constraint has margin ≤ 0 (ties are mistakes); for multiclass: the true class is not
        the unique top score.
    n_imperfect_ : int
        The same count as ``n_mistakes_``, under the paper's name.
    n_constraints_ : int
        Constraints seen: the sum of the trials' block sizes k_t.
    n_constraint_mistakes_ : int
        Constraints with margin ≤ 0 when their trial was predicted (the per-constraint count
        of the experiments of §9).
    n_updates_ : int
        Trials on which the model changed.

    Examples
    --------
    >>> from onlinear import SimultaneousProjectionClassifier
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = SimultaneousProjectionClassifier(scheme="simproj", C=0.1).fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    172 mistakes on 1,000 examples, test accuracy 0.854

    Multilabel, with label sets (or an indicator matrix); a constant feature gives the labels
    their intercepts:

    >>> import numpy as np
    >>> from onlinear.metrics import hamming_loss
    >>> rng = np.random.default_rng(0)
    >>> X = np.hstack([rng.normal(size=(3000, 10)), np.ones((3000, 1))])
    >>> Y = (X[:, :10] @ rng.normal(size=(10, 4)) > 1.0).astype(int)     # 0 to 4 labels each
    >>> topics = np.array(["art", "bio", "chem", "dance"])
    >>> sets = [set(topics[row == 1].tolist()) for row in Y]
    >>> tagger = SimultaneousProjectionClassifier(C=0.01).fit(X[:2000], sets[:2000])
    >>> tagger.predict_label_sets(X[2000:2003]), [sorted(s) for s in sets[2000:2003]]
    ([('art', 'bio'), ('bio', 'dance'), ('art', 'chem')], [['art', 'bio'], ['bio', 'dance'], ['art', 'chem']])
    >>> tagger.predict(X[2000:2002])     # the indicator matrix, columns = classes_
    array([[1, 1, 0, 0],
           [0, 1, 0, 1]])
    >>> round(hamming_loss(Y[2000:], tagger.predict(X[2000:])), 3)
    0.029
    """

    _parameter_constraints = {
        **_Simultaneous._parameter_constraints,
        "update": [StrOptions({"additive", "multiplicative"})],
        "gamma": [Interval(Real, 0.0, None, closed="neither")],
        "threshold": [StrOptions({"calibrated"}), Interval(Real, None, None, closed="neither")],
        "decompose": [StrOptions({"none", "per_label", "singletons"})],
    }

    def __init__(self, scheme="simproj", C=1.0, *, fit_intercept=False, update="additive", gamma=0.1,
                 max_rule="hinge", threshold="calibrated", decompose="none", n_epochs=1,
                 shuffle=False, random_state=None, warm_start=False, verbose=0):
        self.scheme = scheme
        self.C = C
        self.update = update
        self.gamma = gamma
        self.max_rule = max_rule
        self.threshold = threshold
        self.decompose = decompose
        self.fit_intercept = fit_intercept
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose

    _block_task = "labelsets"
    # the label-set pass checks each dense row itself, from the ‖x‖² its scores sum, and
    # changes nothing if one is refused (BlockModel.learn): no sweep over X before it, which
    # cost as much as pa's whole pass on MNIST-sized rows
    _pass_checks_dense_rows = True
    _task_class = LabelSets  # (labels, indicator rows or label sets: the first targets say)
    _two_class_outputs = 2  # (a prototype per class, two classes too: Kesler's form)
    _read_only_with = {
        "max_rule": ("scheme", ("maxpa",), "MaxPA's choice of the most violated constraint"),
        "gamma": ("update", ("multiplicative",), "the multiplicative update's margin"),
    }
    _model_scalars = {**_Simultaneous._model_scalars, "multilabel_": bool, "_label_kind": str}

    def _model_config(self, n_outputs, n_features):
        # (the form of the targets: a multilabel model has no one-label trial, and indicator
        # rows of a fixed width cannot add labels)
        return {**super()._model_config(n_outputs, n_features), "label_form": self._label_kind}

    @property
    def _kind(self):
        return rules.UPDATE_MULTIPLICATIVE if self.update == "multiplicative" else rules.UPDATE_ADDITIVE

    def _make_task(self):
        """The started model's task (:meth:`onlinear.tasks.LabelSets.started`): multiclass,
        or multilabel with the threshold label when the model holds its column — decided by
        ``threshold`` when the model starts (a later ``set_params(threshold=...)`` changes
        the prediction rule, not the model's columns)."""
        if self.multilabel_ != (self._label_kind != ONE_LABEL):
            raise ValueError(f"_label_kind={self._label_kind!r} and multilabel_="
                             f"{self.multilabel_!r} do not describe a task.")
        model = self.__dict__.get("model_")
        if model is None:  # (a start, or a file's model before its arrays)
            calibrated = isinstance(self.threshold, str)
        else:
            calibrated = model.weights.shape[1] > self.classes_.shape[0]
        return LabelSets.started(self.classes_, self._label_kind, calibrated, self._cut)

    # the protocol's learn_one itself (its fast path, no extra call per example), documented
    # for these targets
    learn_one = _documented(OnlineLinearClassifier.learn_one, """Learn one example and return
        the prediction made *before* the update (a label for multiclass; for multilabel, the
        predicted label set as an indicator row, or a tuple of labels for label-set targets).
        ``y`` is a label, an indicator row or a label set; ``classes`` is required on the first
        call.""")

    @property
    def _cut(self):
        """The prediction's cut on the (relative) label scores."""
        return 0.0 if isinstance(self.threshold, str) else float(self.threshold)

    # ------------------------------------------------------------------ prediction
    # (the protocol's own, the task reading the scores; documented for these targets)
    decision_function = _documented(OnlineLinearClassifier.decision_function, """Label
        scores, shape (n_samples, n_classes) — for two-class multiclass problems (n_samples,),
        positive meaning ``classes_[1]``.  Multilabel with the calibrated threshold: each
        label's score minus the threshold label's (positive = predicted).""")
    predict = _documented(OnlineLinearClassifier.predict, """Multiclass: the top-scoring label
        (ties → lowest class index).  Multilabel: the indicator matrix of the predicted labels
        (columns = ``classes_``), by the threshold rule.""")

    def predict_label_sets(self, X: MatrixLike) -> list[tuple]:
        """Multilabel: the predicted labels of each example, as tuples of ``classes_``."""
        if not self.multilabel_:
            raise ValueError("predict_label_sets is for multilabel models; use predict.")
        return self._task.as_label_sets(self.predict(X))

    # ------------------------------------------------------------------ fitted attributes
    @property
    def threshold_coef_(self):
        """The threshold label's weights (multilabel with the calibrated threshold), else
        None."""
        check_is_fitted(self)
        if not getattr(self._task, "calibrated", False):
            return None
        return self.model_.coefficients()[:, -1]


# ============================================================================= ordinal
class SimultaneousProjectionOrdinal(_Simultaneous):
    """Ordinal regression by simultaneous projections (§3.2 of the paper).

    One weight vector ``coef_`` and k − 1 thresholds ``thresholds_``.  An example of rank y
    (0-based position of its label in ``classes_``) is a block of k − 1 constraints on its score
    f = w·x: ``f − b_j ≥ 1`` for the thresholds below its rank (j < y) and ``b_j − f ≥ 1`` for
    the others; the virtual instance (x, −e_j) has squared norm ‖x‖² + 1.  The paper's
    prediction is ``min{i : f < b_i}`` (b_k = ∞); here ``min{i : f ≤ b_i}``, so that an exact
    tie goes to the lower rank as the online count treats it (a mistake) — the two differ only
    at f = b_i.  The reduction does not keep the thresholds ordered; when they are ordered, an
    imperfect trial is a wrong rank.

    Parameters
    ----------
    scheme : {"simperc", "conproj", "simproj", "simopt", "maxpa", "optimal", "sopopo"}, \
default="simproj"
        How the round's per-constraint PA-I projections are combined, as in
        :class:`SimultaneousProjectionClassifier`; ``"sopopo"`` is ``"optimal"`` here (the
        exact projection of the block).
    C : float, default=1.0
        Aggressiveness C > 0: the cap ``Σ_j α_j ≤ C`` on each round's dual mass (Eq. 3 of
        Amit et al.), hence the box of each per-constraint step ``α_j = min{C, ℓ_j/v_j}``
        (Eq. 4) and SimPerc's step size.
    max_rule : {"hinge", "distance"}, default="hinge"
        Which constraint ``scheme="maxpa"`` calls the most violated: the largest hinge loss ℓ_j,
        or the largest distance ``ℓ_j/‖x_j‖`` to the constraint's half-space; unused by the
        other schemes.
    classes : array-like or None, default=None
        The labels in rank order (lowest first); by default the sorted labels seen by ``fit``
        (numbers, or strings sorted alphabetically — pass the order then).
    decompose : {"none", "singletons"}, default="none"
        ``"singletons"``: the decomposable loss of §7 with one set per threshold (budget
        C/(k − 1) each: the average hinge loss over the thresholds).  ``"none"``: one set, the
        paper's max loss.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels in rank order (lowest first).
    coef_ : ndarray of shape (n_features,)
        The weight vector w (the score is ``f = X @ coef_``).
    thresholds_ : ndarray of shape (n_classes − 1,)
        The thresholds b_0, …, b_{k−2} (not kept ordered by the reduction, see above).
    n_seen_ : int
        Trials (examples) learned since the last :meth:`fit`.
    n_mistakes_ : int
        Imperfect trials (the paper's mistakes), each counted before the trial is learned: some
        constraint has margin ≤ 0 (ties are mistakes); a wrong rank when the thresholds are
        ordered.
    n_imperfect_ : int
        The same count as ``n_mistakes_``, under the paper's name.
    n_constraints_ : int
        Constraints seen: the sum of the trials' block sizes k_t.
    n_constraint_mistakes_ : int
        Constraints with margin ≤ 0 when their trial was predicted (the per-constraint count
        of the experiments of §9).
    n_updates_ : int
        Trials on which the model changed.

    Examples
    --------
    >>> import numpy as np
    >>> from onlinear import SimultaneousProjectionOrdinal
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 5))
    >>> y = np.digitize(X @ [1.0, -2.0, 0.5, 0.0, 1.0], [-2.0, 0.0, 2.0])    # ranks 0..3
    >>> labels = np.array(["poor", "fair", "good", "great"])[y]
    >>> model = SimultaneousProjectionOrdinal(C=0.1, classes=["poor", "fair", "good", "great"])
    >>> model = model.fit(X, labels)
    >>> model.predict(X[:3]).tolist(), labels[:3].tolist()
    (['good', 'poor', 'poor'], ['good', 'poor', 'poor'])
    >>> model.n_mistakes_, model.thresholds_.round(2).tolist()
    (194, [-4.68, 0.09, 4.75])
    """

    _parameter_constraints = {
        **_Simultaneous._parameter_constraints,
        "classes": ["array-like", None],
        "decompose": [StrOptions({"none", "singletons"})],
    }

    def __init__(self, scheme="simproj", C=1.0, *, max_rule="hinge", classes=None,
                 decompose="none", n_epochs=1, shuffle=False, random_state=None,
                 warm_start=False, verbose=0):
        self.scheme = scheme
        self.C = C
        self.max_rule = max_rule
        self.classes = classes
        self.decompose = decompose
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose

    _model_class = OrdinalModel
    _block_task = "ordinal"

    _task_class = Ordinal

    # ------------------------------------------------------------------ prediction
    # (the protocol's own, the ordinal task reading the margins f − b_j; documented for ranks)
    decision_function = _documented(OnlineLinearClassifier.decision_function, """Two ranks:
        ``f − b_0`` (positive means ``classes_[1]``).  More: the cumulative scores
        ``Σ_{j<r} (f − b_j)`` of every rank r, shape (n_samples, n_classes), whose argmax is
        the predicted rank when the thresholds are ordered.""")
    predict = _documented(OnlineLinearClassifier.predict, """The predicted labels (the rank
        of the score among the thresholds).""")

    @property
    def thresholds_(self):
        check_is_fitted(self)
        return self.model_.thresholds.copy()


# ============================================================================= general blocks
class BlockLearner(_TrialLearner, _Simultaneous):
    """The paper's general setting: one weight vector, trials given as blocks of binary
    instances that must all be classified correctly (§2 of the paper, single prototype).

    Trial t is the rows ``block_ptr[t]:block_ptr[t + 1]`` of ``X`` with their labels; without
    ``block_ptr`` every row is its own trial (then the schemes reduce to Perceptron / PA-I, our
    derivation, and this is a binary classifier).  Labels are two classes, ``classes_[1]`` being
    the positive side (+1) — pass ±1 to read them as the paper's.

    Parameters
    ----------
    scheme : {"simperc", "conproj", "simproj", "simopt", "maxpa", "optimal", "sopopo"}, \
default="simproj"
        How the round's per-constraint PA-I projections are combined, as in
        :class:`SimultaneousProjectionClassifier`; ``"maxpa"`` here is single-prototype MaxPA
        ("Max-SP"); ``"sopopo"`` is ``"optimal"``.
    C : float, default=1.0
        Aggressiveness C > 0: the cap ``Σ_j c_j α_j ≤ C`` on each round's dual mass (Eq. 3 of
        Amit et al.; c_j = 1 unless ``fit`` is given the coupling weights of §10), hence the
        box of each per-constraint step ``α_j = min{C/c_j, ℓ_j/v_j}`` (Eq. 4) and SimPerc's
        step size.  With the additive update it carries the units of 1/‖x‖² (x → c·x needs
        C → C/c²).
    update : {"additive", "multiplicative"}, default="additive"
        ``"multiplicative"``: ω on the probability simplex, exponentiated updates with KL
        proximity (§8), margin ``gamma``; the step has a closed form for instances in
        {−1, 0, 1}^n (Appendix C).
    gamma : float, default=0.1
        Multiplicative margin γ > 0 of §8 (constraints ``y_j ω·x_j ≥ γ``; the closed form needs
        γ < 1); ignored by additive updates.
    max_rule : {"hinge", "distance"}, default="hinge"
        Which constraint ``scheme="maxpa"`` calls the most violated: the largest hinge loss ℓ_j,
        or the largest distance ``ℓ_j/‖x_j‖`` to the constraint's half-space (‖x_j‖_∞ under
        the multiplicative update); unused by the other schemes.
    fit_intercept : bool, default=False
        Learn a bias per output: a constant feature of value 1 appended to every row, its
        weight ``intercept_``; it enters the projections and their norms ‖x‖² as any
        feature does.  Off by default: the paper's setting.
    shuffle : bool, default=False
        Shuffle the trials (not the rows within a trial) before every epoch of :meth:`fit`
        (off: the online protocol sees the stream in the order given).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive side (+1).
    coef_ : ndarray of shape (1, n_features)
        ω (scores ``X @ coef_[0]``; positive means ``classes_[1]``).
    n_seen_ : int
        Trials (blocks) learned since the last :meth:`fit`.
    n_mistakes_ : int
        Imperfect trials (the paper's mistakes), each counted before the trial is learned: some
        constraint of the block has margin ≤ 0 (ties are mistakes).
    n_imperfect_ : int
        The same count as ``n_mistakes_``, under the paper's name.
    n_constraints_ : int
        Constraints seen: the sum of the trials' block sizes k_t.
    n_constraint_mistakes_ : int
        Constraints with margin ≤ 0 when their trial was predicted (the per-constraint count
        of the experiments of §9).
    n_updates_ : int
        Trials on which the model changed.

    Examples
    --------
    >>> from onlinear import BlockLearner
    >>> from onlinear.data import make_simplex_blocks
    >>> data = make_simplex_blocks(300, block_size=10, n_features=100, n_relevant=10,
    ...                            n_margin_samples=20_000, random_state=0)
    >>> X, y, block_ptr = data.blocks()
    >>> simproj = BlockLearner("simproj", C=0.1).fit(X, y, block_ptr=block_ptr)
    >>> maxpa = BlockLearner("maxpa", C=0.1).fit(X, y, block_ptr=block_ptr)
    >>> simproj.n_seen_, simproj.n_mistakes_, maxpa.n_mistakes_
    (300, 3, 20)
    """

    _parameter_constraints = {
        **_Simultaneous._parameter_constraints,
        "update": [StrOptions({"additive", "multiplicative"})],
        "gamma": [Interval(Real, 0.0, None, closed="neither")],
    }

    def __init__(self, scheme="simproj", C=1.0, *, fit_intercept=False, update="additive", gamma=0.1,
                 max_rule="hinge", n_epochs=1, shuffle=False, random_state=None,
                 warm_start=False, verbose=0):
        self.scheme = scheme
        self.C = C
        self.update = update
        self.gamma = gamma
        self.max_rule = max_rule
        self.fit_intercept = fit_intercept
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose

    @property
    def _kind(self):
        return rules.UPDATE_MULTIPLICATIVE if self.update == "multiplicative" else rules.UPDATE_ADDITIVE

    _task_class = Blocks

    def learn_block(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None,
                    parts: ArrayLike | None = None, coupling: ArrayLike | None = None) -> NDArray:
        """Learn one trial (the rows of ``X``); returns the labels predicted for its rows
        before the update."""
        with self._unchanged_on_error():
            X, labels = self._prepare(X, y, classes, "learn_block")
            blocks = self._task.check_blocks(X.shape[0], [0, X.shape[0]], parts, coupling)
        predicted = self._task.predict_scores(self.model_.scores(X))
        self._run(X, labels, np.zeros(1, dtype=np.int64), blocks=blocks)
        return predicted

    # the protocol's learn_one itself (its fast path: the block model's compiled one-row
    # trial), documented for blocks
    learn_one = _documented(OnlineLinearClassifier.learn_one, """Learn a trial of one row
        (``x`` 1-D, or a one-row sparse matrix); returns the label predicted before it.
        ``classes`` (the two labels) is required on the first call.""")

    # ------------------------------------------------------------------ prediction
    # (the protocol's own, the block task reading the scores; documented for blocks)
    decision_function = _documented(OnlineLinearClassifier.decision_function, """Scores
        ``x·ω`` of the rows (positive means ``classes_[1]``).""")
    predict = _documented(OnlineLinearClassifier.predict, """``classes_[1]`` where the score
        is positive, else ``classes_[0]`` (a zero score is a mistake for either label
        online).""")

