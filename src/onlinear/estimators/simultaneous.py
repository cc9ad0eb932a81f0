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
import warnings
from numbers import Real

from numpy.typing import ArrayLike, NDArray

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .._core import blocks as block_engine
from ..models.block import BlockModel, OrdinalModel
from ..rules import simultaneous as rules
from ..tasks import Blocks, Multiclass, Multilabel, Ordinal
from ..tasks.multilabel import classes_of, read_one, read_targets
from .base import MatrixLike, OnlineLinearClassifier, _TrialLearner
from .checks import _DTYPES, canonical_csr, check_class_labels, check_rows
from .holding import _ModelHolding

__all__ = ["SimultaneousProjectionClassifier", "SimultaneousProjectionOrdinal", "BlockLearner"]

#: the schemes, under their registered names
SCHEME_NAMES = tuple(rules.SCHEMES)

# the engine's counters (onlinear._core.blocks: trials, imperfect, constraint mistakes,
# constraints, updates)
#: targets that are not one class label (label sets, indicator rows: learn_one's general path)
_NOT_A_LABEL = (set, frozenset, list, tuple, np.ndarray)


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

    def _model_config(self, n_outputs, n_features):
        # (the form of the targets: a multilabel model has no one-label trial, and indicator
        # rows of a fixed width cannot add labels)
        return {**super()._model_config(n_outputs, n_features), "label_form": self._label_kind}

    @property
    def _kind(self):
        return rules.UPDATE_MULTIPLICATIVE if self.update == "multiplicative" else rules.UPDATE_ADDITIVE

    @property
    def _calibrated(self):
        """Does the model hold a threshold label (decided when training starts: a later
        set_params(threshold=...) changes the prediction rule, not the model's columns)."""
        return self.multilabel_ and self.model_.weights.shape[1] == self.classes_.shape[0] + 1

    # ------------------------------------------------------------------ labels
    def _targets(self, y):
        """``(form, y)``: "multiclass", "indicator" or "sets" (:func:`tasks.multilabel.read_targets`)."""
        return read_targets(y, type(self).__name__)

    def _set_task(self, kind, classes, n_features):
        self.multilabel_ = kind != "multiclass"
        self._label_kind = kind
        self._start(classes, n_features)

    def _make_task(self, calibrated=None):
        if not self.multilabel_:
            return Multiclass(self.classes_)
        if calibrated is None:  # a started model: its columns say (set_params may have changed
            calibrated = self.model_.weights.shape[1] > self.classes_.shape[0]  # threshold since)
        return Multilabel(self.classes_, self._label_kind, calibrated, self._cut)

    def _start(self, classes, n_features):
        classes = np.asarray(classes)
        multilabel = getattr(self, "multilabel_", False)
        if classes.shape[0] < (1 if multilabel else 2):
            raise ValueError(
                f"{type(self).__name__} needs at least two classes; got {classes.shape[0]} class: "
                f"{classes.tolist()}.")
        self.multilabel_ = multilabel
        if not multilabel:
            self._label_kind = "multiclass"
        self.classes_ = classes
        self._task = self._make_task(calibrated=self._calibrated_for(multilabel))
        self._start_model(self._n_outputs(classes.shape[0]), n_features)
        self._dense_index = np.arange(n_features)

    def _n_outputs(self, n_classes):
        """A column per label, and the calibration label's (multilabel, ``threshold=
        "calibrated"``, decided when the model starts)."""
        return n_classes + (1 if self._calibrated_for(self.multilabel_) else 0)

    _model_scalars = {**_Simultaneous._model_scalars, "multilabel_": bool, "_label_kind": str}

    def _check_classes(self):
        # (a loaded model's scalars first: the task they describe)
        if self._label_kind not in ("multiclass", "sets", "indicator") or (
                self.multilabel_ != (self._label_kind != "multiclass")):
            raise ValueError(f"_label_kind={self._label_kind!r} and multilabel_="
                             f"{self.multilabel_!r} do not describe a task.")
        check_class_labels(self.classes_)
        if self.multilabel_:  # one label is a multilabel problem (relevant or not)
            if self.classes_.ndim != 1 or self.classes_.shape[0] < 1 or not np.array_equal(
                    np.unique(self.classes_), self.classes_):
                raise ValueError(f"classes_ must hold distinct labels in sorted order; got "
                                 f"{self.classes_.tolist()!r:.200}.")
        else:
            super()._check_classes()

    def _calibrated_for(self, multilabel):
        return multilabel and isinstance(self.threshold, str)

    def _encode(self, y):
        """The relevance matrix the engine reads (uint8, one row per example; see the task).
        Raises before anything changes on a label outside ``classes_``."""
        if self._label_kind == "multiclass":
            return self._task.relevance(self._task.encode(np.asarray(y)))
        return self._task.encode(y)

    def _validate_xy(self, X, y, reset):
        kind, y = self._targets(y)
        X = validate_data(self, X, accept_sparse="csr", dtype=_DTYPES, order="C", reset=reset,
                          ensure_all_finite=False)
        X = canonical_csr(X)
        if sp.issparse(X) or self._constant():
            check_rows(X, type(self).__name__)  # (dense rows as given: the pass checks them)
        n = len(y)
        if X.shape[0] != n:
            raise ValueError(f"X has {X.shape[0]} rows but y has {n} labels.")
        if kind == "multiclass" and y.ndim != 1:
            raise ValueError(f"y must be 1-D labels, an indicator matrix or label sets; got "
                             f"shape {y.shape}.")
        if kind == "multiclass" and y.dtype.kind not in "biu":  # (1-D integers always are)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                check_classification_targets(y)
        elif kind == "indicator":
            y = check_array(y, dtype=None, input_name="y", ensure_min_samples=0)
        return X, kind, y  # CSR rows canonical, as in estimators.base

    def _classes_of(self, kind, y):
        return classes_of(kind, y)

    # ------------------------------------------------------------------ training
    def _prepare(self, X, y, classes, method):
        """:meth:`OnlineLinearClassifier._prepare` for the three kinds of targets: ``y`` 1-D
        labels (multiclass), a 0/1 indicator matrix or a list of label sets (multilabel);
        ``classes`` (every label the stream can contain) is required on a first call other than
        ``fit`` for labels and label sets, and defaults to the columns of an indicator matrix.
        Returns ``(X, relevance)``."""
        first = method == "fit" or not hasattr(self, "classes_")
        if first:
            self._validate_params()
        X, kind, y = self._validate_xy(X, y, reset=first)
        if not first:
            self._check_intercept()
        X = self._with_constant(X)
        if method == "fit":
            self._set_task(kind, self._classes_of(kind, y), X.shape[1])
        elif first:
            if classes is None and kind == "indicator":
                classes = np.arange(y.shape[1])
            classes = self._first_classes(classes, method)
            self._set_task(kind, classes, X.shape[1])
        else:
            self._check_task(kind)
            self._check_same_classes(classes)
        return X, self._encode(y)

    def _check_task(self, kind):
        if (kind == "multiclass") == self.multilabel_ or (
                self.multilabel_ and kind != self._label_kind):
            raise ValueError(f"the model was started on {self._label_kind} targets; got "
                             f"{kind} targets.")

    # the protocol's learn_one itself (its fast path, no extra call per example), documented
    # for these targets
    learn_one = _documented(OnlineLinearClassifier.learn_one, """Learn one example and return
        the prediction made *before* the update (a label for multiclass; for multilabel, the
        predicted label set as an indicator row, or a tuple of labels for label-set targets).
        ``y`` is a label, an indicator row or a label set; ``classes`` is required on the first
        call.""")

    def _learn_one_general(self, x, y, classes):
        task = self.__dict__.get("_task")
        if classes is not None and task is not None and self._known_classes(classes):
            classes = None  # the model's own: nothing to check or grow
        if (task is not None and task.name == "multiclass" and classes is None
                and not isinstance(y, _NOT_A_LABEL)):
            # the multiclass stream's path: one label, a started model, nothing else to check
            idx, vals = self._one_row(x)
            relevance = np.zeros(self.model_.weights.shape[1], dtype=np.uint8)
            relevance[task.index_of(y)] = 1
            return self.classes_[self._learn_one_round(idx, vals, relevance)]
        if (task is not None and task.name == "multilabel" and task.form == "indicator"
                and classes is None and isinstance(y, np.ndarray) and y.ndim == 1
                and y.shape[0] == task.classes.shape[0] and y.dtype.kind in "biuf"):
            # the indicator stream's path, likewise (a value other than 0/1 takes the general
            # path, which names it)
            relevance = np.empty(self.model_.weights.shape[1], dtype=np.uint8)
            if block_engine.indicator_relevance(y, task.calibrated, relevance):
                idx, vals = self._one_row(x)
                scores = np.empty(self.model_.weights.shape[1])
                self._learn_one_round(idx, vals, relevance, scores)
                return block_engine.indicator_prediction(scores, task.calibrated, self._cut)
        kind, y_block = self._one_target(y, classes)
        if hasattr(self, "classes_") and classes is not None and not self._known_classes(classes):
            with self._unchanged_on_error():  # classes may add labels: grow atomically
                self._check_same_classes(classes)
                return self.learn_one(x, y)
        if hasattr(self, "classes_"):
            # a started model: every check before the compiled round, which cannot fail, so
            # no snapshot of the model per example
            self._check_task(kind)
            idx, vals = self._one_row(x)
            k = self.classes_.shape[0]
            if kind == "multiclass":  # (as _encode, without its array work)
                relevance = np.zeros(k, dtype=np.uint8)
                relevance[self._label_of(y)] = 1
            elif kind == "indicator" and y_block.shape[1] == k:  # 0/1 checked by _one_target
                relevance = self._task.encode_indicator_row(y_block[0])
            else:
                relevance = self._encode(y_block)[0]
            return self._learn_one_checked(idx, vals, relevance)
        with self._unchanged_on_error():
            if classes is None and kind == "indicator":
                classes = np.arange(y_block.shape[1])
            classes = self._first_classes(classes, "learn_one")
            self._validate_params()
            idx, vals = self._check_one(x, n_features=None)
            n_features = x.shape[1] if sp.issparse(x) else vals.shape[0] - self._constant()
            self._set_task(kind, classes, n_features + self._constant())
            self.n_features_in_ = n_features
            if kind == "multiclass":
                self._label_of(y)  # names the label, as every onlinear learner does
            return self._learn_one_checked(idx, vals, self._encode(y_block)[0])

    def _learn_one_checked(self, idx, vals, relevance):
        """The compiled round on a checked row (column indices ``idx``, values ``vals``,
        relevance row), straight to the engine; the prediction made before it."""
        scores = np.empty(self.model_.weights.shape[1])
        top = self._learn_one_round(idx, vals, relevance, scores)
        if not self.multilabel_:
            return self.classes_[top]  # ties to the lowest index, as predict
        return self._task.predict_one(scores, self._cut)

    def _learn_one_round(self, idx, vals, relevance, scores=None):
        """The compiled round; the index of the top score before it (``scores`` receives them
        all)."""
        model = self.model_
        if scores is None:
            scores = np.empty(model.weights.shape[1])
        return model.learn_row(idx, vals, relevance, scores)

    @property
    def _cut(self):
        """The prediction's cut on the (relative) label scores."""
        return 0.0 if isinstance(self.threshold, str) else float(self.threshold)

    def _one_target(self, y, classes=None):
        """``(form, targets of one example)`` (:func:`tasks.multilabel.read_one`)."""
        if hasattr(self, "classes_"):
            n_labels = self.classes_.shape[0]
        else:
            try:  # (classes are checked later, where a bad one is named)
                n_labels = None if classes is None else np.unique(np.asarray(classes)).shape[0]
            except TypeError:  # unorderable, e.g. None among numbers
                n_labels = None
        kind = getattr(self, "_label_kind", None)
        return read_one(y, sets=kind == "sets", n_labels=n_labels, indicator=kind == "indicator")

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
    def coef_(self):
        check_is_fitted(self)
        weights = self.model_.coefficients()[:self.n_features_in_].T
        return weights[:self.classes_.shape[0]].copy()

    @property
    def intercept_(self):
        """The bias of each row of ``coef_``: the weight of the constant feature of
        ``fit_intercept`` (zeros without it)."""
        check_is_fitted(self)
        n_rows = np.atleast_2d(self.coef_).shape[0]
        if not self._constant():
            return np.zeros(n_rows)
        return np.atleast_1d(self.model_.coefficients()[-1])[:n_rows].copy()

    @property
    def threshold_coef_(self):
        check_is_fitted(self)
        if not self._calibrated:
            return None
        return self.model_.coefficients()[:, -1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags


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

