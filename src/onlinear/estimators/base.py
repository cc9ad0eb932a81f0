"""The scikit-learn/river protocol shared by every online learner.

Validation, label encoding, epochs and shuffling, atomicity (a failed call leaves the model as
it was), the lock, ``fit``/``partial_fit``/``stream``/``learn_one``/``learn_many``/``predict``,
diagnostics and the persistence hooks live here.  The model is the family's: the hooks that
start, learn, grow, save and read it (``_start_model``, ``_run``, ``_learn_one_index``,
``_model_arrays``, ...) are answered by the model object an estimator holds
(:mod:`.holding`, :mod:`onlinear.models`); a concrete learner declares its hyperparameters
(``__init__`` and ``_parameter_constraints``) and, for the rule-based families, its rule
(:mod:`.primal`).
"""
from __future__ import annotations

import copy
import itertools
import time
import warnings
from collections.abc import Iterable
from contextlib import contextmanager
from numbers import Integral
from typing import Any, Self

from numpy.typing import ArrayLike, NDArray

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, validate_data

from .._core import rows
from ..tasks import Multiclass
from ..tasks.labels import ONE_LABEL
from . import docstrings
from .checks import (
    ROW_DTYPES,
    _refuse_complex,
    canonical_csr,
    check_class_labels,
    check_discrete_labels,
    check_memory,
    check_row,
    check_rows,
)
from ..models.invariants import check_model_array, check_scalar
from .locking import _lock_methods, _ModelLock

# What an estimator holds that is not its state: its lock (a lock can be neither pickled nor
# copied: a fresh one is made on first use), the per-example context (compiled entry points
# over the model's own arrays, rebuilt on the next call) and the column indices of a dense row
# (as large as one output's weights, made again by the next dense row: _dense_row_index).
_NOT_STATE = ("_lock", "_fast", "_dense_index")
#: numbers of the models started in this process (``_start_number``: which start a
#: :class:`TrainingStream` was made for; an int, so that a pickle or a copy keeps it)
_STARTS = itertools.count(1)
#: What the estimators take as rows: array-likes or scipy sparse matrices (CSR is used as it is).
MatrixLike = ArrayLike | sp.spmatrix | sp.sparray
_FLOAT64 = np.dtype(np.float64)
#: why a row of no features is refused (as fit refuses an X of none)
_NO_FEATURES = ("x has no features (a row of length 0): a model needs at least one; give the "
                "row its features (learn_stream pads an empty first chunk to one feature).")
_FLOAT32 = np.dtype(np.float32)


class OnlineLinearClassifier(ClassifierMixin, BaseEstimator):
    """Base class: an online linear classifier trained by one compiled rule.

    Every subclass takes the parameters below besides its own, and has the attributes below
    once fitted (some subclasses add their own).  A subclass's docstring documents what is its
    own; the entries of the parameters and attributes it shares with others are added from
    one table when the class is created (:mod:`onlinear.estimators.docstrings`).

    Accepted rows: finite, and zero or of norm in ``[2^-505, 2^505]`` (≈ 9.5e-153 … 1e152, see
    :data:`onlinear._core.rows.ROW_NORM_EXPONENT`), or ``[2^-32, 2^32]`` for a model with
    float32 weights (``dtype``: by default, one started on float32 data); otherwise ``fit``,
    ``partial_fit`` and ``learn_one`` raise a ``ValueError`` naming the row before anything is
    learned (a fitted model stays bit-identical).  Within that range every learner is exactly
    invariant under x → c·x once the hyperparameters carrying units follow (β → c²β, C → C/c²,
    η → η/c; nothing for the scale-free learners and IELLIP), CELLIP excepted (its P_1 assumes
    ‖x‖ ≤ 1).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The true weights (the lazy scale factor applied).  For two classes the single row
        scores ``classes_[1]`` against ``classes_[0]``.

    Notes
    -----
    **Failed calls (atomicity).**
    A call that raises — ``fit``, ``partial_fit``, ``learn_one``, ``learn_block``,
    ``set_params``, on dense or CSR input — leaves the estimator exactly as it was before the
    call: every fitted attribute and private array bitwise unchanged (an unfitted estimator
    stays unfitted), so it then learns as if the call had not been made.  How each path keeps
    this:

    * everything that can be checked is checked before the model is touched (input, labels,
      ``classes``, kernel overflow, a one-row round's feasibility);
    * every attribute rebound during the call (a refit's new arrays, a first call's set-up, a
      kernel model's grown arrays) is restored from a snapshot of ``vars(self)`` taken when the
      call starts (:meth:`_unchanged_on_error`);
    * a multi-row pass whose compiled loop can still fail part way (``_pass_can_fail``: CELLIP
      with ``on_infeasible="raise"``, a callable kernel) also snapshots the arrays it writes in
      place — one copy of the model per call, made only on those paths; a one-row round of
      those paths checks feasibility before writing, so ``learn_one`` never copies the model.

    **Threads.**
    Every estimator holds a re-entrant lock (a ``threading.RLock``; not part of ``get_params``,
    dropped when pickled or deep-copied and recreated afterwards, so ``clone``, ``pickle`` and
    ``copy.deepcopy`` work as before).  Every public method that learns (``fit``,
    ``partial_fit``, ``learn_one``, ``learn_block``, ``set_params``) or reads the model
    (``predict``, ``predict_one``, ``decision_function``, ``predict_label_sets``, ``score`` and
    the fitted attributes such as ``coef_``, ``n_seen_``, ``support_vectors_``) runs while
    holding it.  Hence, with one estimator shared by several threads:

    * concurrent learning calls are serialized: each call's rows are learned exactly once, as
      one uninterrupted block, in the order the calls take the lock (which the threads'
      scheduling decides — as for any online learner, the final model depends on that order);
      two racing first calls both succeed, the first to take the lock sets the model up;
    * a prediction never sees a half-updated model: it sees the model between two learning
      calls.  Predictions are serialized with learning and with each other (for parallel
      prediction, predict with copies: ``copy.deepcopy(model)``);
    * a copy taken while another thread learns — :func:`onlinear.save`, ``pickle``,
      ``copy.deepcopy`` — is the model after some whole round: each copies the model's arrays
      while holding the lock, then writes or pickles the copy;
    * the lock does not make a sequence of calls atomic (e.g. ``predict`` then
      ``partial_fit``): take ``model._model_lock()`` (re-entrant) around such a sequence.

    Scikit-learn's own estimators give no such guarantee (they document that an estimator is
    not to be shared between threads that fit it); the lock costs about 0.1 µs per call.
    """

    def __init_subclass__(cls, **kwargs):
        """Run a subclass's own learning and reading methods and fitted properties under the
        lock too (re-entrant: a wrapped method calling another is fine)."""
        super().__init_subclass__(**kwargs)
        _lock_methods(cls)
        cls.__doc__ = docstrings.complete(cls, cls._parameter_docs, cls._attribute_docs)

    #: the entries of the parameters and attributes a learner shares with others, added to its
    #: docstring when the class is created (a family adds its own shared ones)
    _parameter_docs = docstrings.PARAMETERS
    _attribute_docs = docstrings.ATTRIBUTES
    _not_state = _NOT_STATE  # (what persistence leaves out besides the hyperparameters)

    def _model_lock(self):
        """The estimator's re-entrant lock (created on first use; ``dict.setdefault`` is atomic,
        so two threads starting at once share one lock)."""
        lock = self.__dict__.get("_lock")
        if lock is None:
            lock = self.__dict__.setdefault("_lock", _ModelLock())
        return lock

    def __getstate__(self):
        """The state to pickle: a copy taken under the lock, so that a pickle made while another
        thread learns is the model after some whole round (pickle reads the state only after
        this returns, when the learner may be writing the live arrays again)."""
        with self._model_lock():
            if "classes_" in self.__dict__:
                # (a hyperparameter set after the start and shaping the model would make a
                # pickle that unpickling refuses: refused here, as onlinear.save refuses it)
                self._check_as_started()
            state = super().__getstate__()
            return copy.deepcopy({key: value for key, value in state.items()
                                  if key not in _NOT_STATE})

    def __deepcopy__(self, memo):
        """A copy taken under the lock (a model of some whole round, as :meth:`__getstate__`),
        in one pass: ``copy.deepcopy`` would otherwise copy :meth:`__getstate__`'s copy again."""
        twin = type(self).__new__(type(self))
        memo[id(self)] = twin
        with self._model_lock():
            state = {key: value for key, value in vars(self).items() if key not in _NOT_STATE}
            vars(twin).update(copy.deepcopy(state, memo))
        return twin

    def __setstate__(self, state):
        """Unpickling runs :func:`onlinear.load`'s checks (:meth:`_check_started`) on a started
        model before it is used: a pickle whose arrays do not fit (a state array of one row,
        short counters, empty parameters) or that is no model the engine could have made is
        refused with a ``ValueError``, never handed to the compiled core.  The attributes
        derived from the hyperparameters are computed again, not taken from the pickle."""
        if not isinstance(state, dict):
            raise ValueError(f"cannot unpickle a {type(self).__name__} from a "
                             f"{type(state).__name__} state.")
        if "classes_" in state:
            probe = object.__new__(type(self))
            vars(probe).update(state)
            try:
                probe._check_started()
            except (ValueError, TypeError, KeyError, AttributeError, IndexError) as error:
                raise ValueError(f"this pickle is not a {type(self).__name__} the engine could "
                                 f"have made: {error}") from None
            state = {k: v for k, v in vars(probe).items() if k not in _NOT_STATE}
        super().__setstate__(state)  # (scikit-learn's: its version check)

    def _check_started(self):
        """The checks :func:`onlinear.load` makes of a started model's attributes, for a model
        that did not come through it (an unpickled one): hyperparameters, fitted scalars,
        classes, every array's dtype, shape and finiteness, the derived attributes computed
        again, and the model's invariants (:meth:`_check_model`).  Raises ``ValueError``."""
        self._validate_params()
        for name, kind in self._model_scalars.items():
            setattr(self, name, check_scalar(name, getattr(self, name, None), kind))
        if not isinstance(self.classes_, np.ndarray):
            raise ValueError("classes_ must be an array of labels.")
        self._check_classes()
        weights = self._saved_array("_weights")
        self.__dict__.pop("_data_weight_dtype", None)
        if isinstance(weights, np.ndarray):
            self._take_saved_weight_dtype(weights.dtype)
        free = {}
        for name, (shape, dtype) in self._model_arrays().items():
            check_model_array(name, self._saved_array(name), shape, np.dtype(dtype), free)
        self._restore_derived()
        self._check_model()

    def __setattr__(self, name, value):
        # Any attribute set may rebind an array the per-example context holds, or change
        # whether a call may take it (fast_path): the context is rebuilt on the next call.
        self.__dict__.pop("_fast", None)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        self.__dict__.pop("_fast", None)
        super().__delattr__(name)

    #: whether a dense pass checks each row itself (then :meth:`_validate` leaves it to it)
    _pass_checks_dense_rows = False
    _parameter_constraints = {
        "average": ["boolean"],
        "fit_intercept": ["boolean"],
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "verbose": ["verbose"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "dtype": [StrOptions({"auto", "float64", "float32"})],
    }

    # ------------------------------------------------------------------ model state
    #: the outputs of this family's model of two classes: 2 (one per class) or 1 (one binary
    #: output, positive for ``classes_[1]``); the task counts them (:meth:`_n_outputs`)
    _two_class_outputs = 2

    def _n_outputs(self):
        """The outputs of the model of ``classes_``: the task's
        (:meth:`onlinear.tasks.Multiclass.n_outputs_for`; one per class, a model of two classes
        :attr:`_two_class_outputs`)."""
        task = self.__dict__.get("_task") or self._make_task()  # (a file's model: not yet)
        return task.n_outputs_for(self._two_class_outputs)

    def _start(self, classes, n_features, form=ONE_LABEL):
        """Start a model of ``classes`` and ``n_features`` inputs for targets of form ``form``
        (the task's reading of the first targets: :meth:`onlinear.tasks.Labels.read_targets`)."""
        classes = np.asarray(classes)
        self._task_class.check_start(classes, form, type(self).__name__)
        self.__dict__.pop("model_", None)  # (a restart: the task is the new model's)
        self.classes_ = classes
        for name, value in self._task_class.form_scalars(form).items():
            setattr(self, name, value)
        self._task = self._make_task()
        self._configure()
        self._start_model(self._n_outputs(), n_features)  # (it refuses a model too large)
        self.__dict__.pop("_dense_index", None)  # (made on a dense row's first use)
        self._start_number = next(_STARTS)

    def _configure(self):
        """The numbers the engine reads, computed again from the hyperparameters (on a start,
        a load, and a ``set_params`` of a started model)."""

    def _start_model(self, n_outputs, n_features):
        """Set up the model of ``n_outputs`` outputs over ``n_features`` features (a family's
        model: :mod:`.holding`)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ averaging
    def _has_averaged_form(self):
        """Whether the learner can average its hypotheses (``average=True``)."""
        return False

    def _averaging_refusal(self):
        """Why ``average=True`` is refused."""
        return "its model keeps no averaging sums"

    # ------------------------------------------------------------------ the weights' precision
    @property
    def _weight_dtype(self):
        """The dtype of the weights: float64, or float32 for ``dtype="float32"``; for
        ``dtype="auto"``, the one chosen for the data the model (re)starts on
        (:meth:`_choose_weight_dtype`) until it has started, then that of its weights."""
        dtype = getattr(self, "dtype", "float64")
        if dtype == "auto":
            chosen = self.__dict__.get("_data_weight_dtype")  # (a start under way: fit restarts)
            if chosen is not None:
                return chosen
            weights = self._saved_array("_weights")
            return _FLOAT32 if weights is not None and weights.dtype == _FLOAT32 else _FLOAT64
        return _FLOAT32 if dtype == "float32" else _FLOAT64

    def _choose_weight_dtype(self, data_dtype):
        """Before the model starts on data of ``data_dtype``: with ``dtype="auto"``, float32
        weights for float32 data (unless ``average``), float64 otherwise — scikit-learn's
        convention (its SGDClassifier, Perceptron and PassiveAggressiveClassifier keep float32
        ``coef_`` for float32 X)."""
        if getattr(self, "dtype", "float64") != "auto":
            return
        float32 = data_dtype == _FLOAT32 and not getattr(self, "average", False)
        self.__dict__["_data_weight_dtype"] = _FLOAT32 if float32 else _FLOAT64

    def _take_saved_weight_dtype(self, saved):
        """Before a saved model's arrays are read (:func:`onlinear.load`): with
        ``dtype="auto"``, the weights' dtype the file declares, as data of that dtype would
        have chosen it (a file of any other, or float32 weights with ``average``, is then
        refused by the array checks that follow)."""
        if saved in (_FLOAT32, _FLOAT64):
            self._choose_weight_dtype(saved)

    @property
    def _row_exponent(self):
        """The exponent e of the accepted row norms, ``[2^-e, 2^e]`` (see
        :data:`onlinear._core.rows.ROW_NORM_EXPONENT`): narrower for float32 weights."""
        if self._weight_dtype is _FLOAT32:
            return rows.ROW_NORM_EXPONENT_FLOAT32
        return rows.ROW_NORM_EXPONENT

    def _check_weight_dtype(self):
        """Raise if ``dtype`` was changed after the model started (its weights say; a kernel
        model has none)."""
        weights = self._saved_array("_weights")
        if weights is not None and weights.dtype != self._weight_dtype:
            raise ValueError(
                f"dtype={self.dtype!r} was set after the model started with "
                f"{weights.dtype} weights: fit restarts the model with the new value "
                "(partial_fit, learn_one and a warm_start fit keep the old one).")

    def _validate_params(self):
        super()._validate_params()
        if getattr(self, "average", False) and self._weight_dtype is _FLOAT32:
            raise ValueError(
                f"{type(self).__name__}(average=True) needs dtype='float64': the averaging sums "
                "record each step as it was taken, and float32 weights round the step they "
                "store, so the averaged hypothesis would drift from the mean of the hypotheses.")
        if getattr(self, "average", False) and not self._has_averaged_form():
            raise ValueError(
                f"{type(self).__name__} has no averaged form (average=True): "
                f"{self._averaging_refusal()}.")

    #: the task of the estimator's targets (:mod:`onlinear.tasks`): one label per example
    _task_class = Multiclass

    def _make_task(self):
        """The task of a started model (an instance of :attr:`_task_class`)."""
        return self._task_class(self.classes_)

    def _encode(self, y):
        """Class indices of the labels ``y``; raises before anything is changed if one is unknown."""
        return self._task.encode(y)

    def _run(self, X, y_index, order, predictions=None, sample_weight=None):
        """One pass of the model over the rows ``order`` of the checked ``X`` (a family's
        model: :mod:`.holding`)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ sample weights
    def _check_sample_weight(self, sample_weight, X, all_zero=False):
        """Validated example weights (finite, non-negative, one per row, float64), or None;
        ``all_zero``: a call whose weights are all 0 is allowed (a stream's chunk to predict
        only; ``fit`` with nothing to learn is an error, as in scikit-learn)."""
        if sample_weight is None:
            return None
        from sklearn.utils.validation import _check_sample_weight

        weights = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                       ensure_non_negative=True,
                                       allow_all_zero_weights=all_zero)
        return np.ascontiguousarray(weights, dtype=np.float64)

    def _validate(self, X, y, reset, pass_checks_rows=False, form=ONE_LABEL):
        # The finiteness check is ours: scikit-learn's costs about half of a dense PA pass
        # (it sums in float64, then scans); on a failure its own check raises its message.
        # ``pass_checks_rows``: a dense X is left to the pass that follows over all of it
        # (run_dense checks each row from the ‖x‖² it sums anyway, and changes nothing if one
        # is refused), if the rows are read as given (no intercept's constant feature).
        # ``form``: the targets' (the task's reading); other than labels, the task checked them
        if form == ONE_LABEL:
            X, y = validate_data(self, X, y, accept_sparse="csr", dtype=ROW_DTYPES, order="C",
                                 reset=reset, ensure_all_finite=False)
        else:
            X = validate_data(self, X, accept_sparse="csr", dtype=ROW_DTYPES, order="C",
                              reset=reset, ensure_all_finite=False)
            check_consistent_length(X, y)
        if reset:  # (before the row checks: the accepted norms depend on the weights' dtype)
            self._choose_weight_dtype(X.dtype)
        X = canonical_csr(X)  # before the row checks: a row's norm is that of its sums
        if not (pass_checks_rows and self._pass_checks_dense_rows and not sp.issparse(X)
                and not self._constant()):
            check_rows(X, type(self).__name__, self._row_exponent)
        # (1-D integers always are labels; other forms of targets the task checked)
        if form == ONE_LABEL and not (y.ndim == 1 and y.dtype.kind in "biu"):
            with warnings.catch_warnings():
                # "more unique classes than half the samples" is expected of small batches
                warnings.simplefilter("ignore", UserWarning)
                check_classification_targets(y)
        # CSR rows are canonical (duplicates summed, indices sorted) and then read as they are: the
        # sums differ from a dense pass only by rounding, as a dense pass's vectorized sums do
        # anyway (see engine)
        return X, y

    def set_params(self, **params: Any) -> Self:
        """Set hyperparameters; on a model already learning, they apply from the next example
        on (as scikit-learn's SGD estimators do), after validation."""
        previous = self.get_params(deep=False)
        super().set_params(**params)
        if hasattr(self, "classes_"):  # (a started model: its engine reads them from now on)
            try:
                self._validate_params()
                self._configure()
                if "_task" in self.__dict__:  # (a task may read hyperparameters: a cut)
                    self._task = self._make_task()
            except ValueError:
                super().set_params(**previous)  # a bad value leaves the model as it was
                raise
        return self

    # ------------------------------------------------------------------ the model as named arrays
    #: Fitted scalars of a started model besides ``classes_`` and its arrays: name → type.
    _model_scalars = {"n_features_in_": int}
    #: Attributes of a started model computed from the hyperparameters and the saved model
    #: (:meth:`_restore_derived`): not saved.
    _derived = frozenset({"_task", "_params", "_dense_index", "_start_number"})
    #: The hyperparameters this learner takes but its rule reads only under some setting of
    #: another one, as its Parameters section says (``C``: "unused by PA"): ``{parameter:
    #: (the other parameter, the values with which the rule reads it, what it is)}``.  The
    #: experiment harness refuses such a parameter where it would change nothing, and gives a
    #: grid's key only to the compared learners that read it.
    _read_only_with: dict = {}

    def _model_arrays(self):
        """``{name: (shape, dtype)}`` of the learned arrays of a started model with this
        ``classes_``, ``n_features_in_`` and :attr:`_model_scalars`.  With the
        hyperparameters, they are the whole model: what :func:`onlinear.save` writes and what
        :func:`onlinear.load` checks a file against before any of it is used.  A dimension
        given as a string is free, but the same wherever that string appears."""
        raise NotImplementedError

    def _saved_array(self, name):
        """The learned array ``name`` of :meth:`_model_arrays` (None if absent)."""
        return vars(self).get(name)

    def _load_array(self, name, array):
        """Take ``array``, read from a file and checked, as the learned array ``name``."""
        setattr(self, name, array)

    def _restore_derived(self):
        """After loading: the attributes of :attr:`_derived`."""
        self.__dict__.pop("_data_weight_dtype", None)  # (the weights say it from now on)
        self._task = self._make_task()
        self.__dict__.pop("_dense_index", None)  # (made on a dense row's first use)
        self._configure()

    # ------------------------------------------------------------------ the intercept
    def _constant(self):
        """1 if the rows get the constant feature of ``fit_intercept``, else 0."""
        return 1 if getattr(self, "fit_intercept", False) else 0

    def _model_width(self):
        """The number of weights per output the started model holds."""
        raise NotImplementedError

    @property
    def _started_with_intercept(self):
        """Whether the started model holds the constant feature's weight (its width says)."""
        return self._model_width() != self.n_features_in_

    def _check_as_started(self):
        """Raise if a hyperparameter that shapes the started model (``fit_intercept``,
        ``dtype``) was changed since: what ``partial_fit`` checks of a started model."""
        self._check_intercept()
        self._check_weight_dtype()

    def _check_intercept(self):
        """Raise if ``fit_intercept`` was changed after the model started (its width says)."""
        if self._model_width() != self.n_features_in_ + self._constant():
            raise ValueError(
                f"fit_intercept={self.fit_intercept} was set after the model started "
                f"{'without' if self.fit_intercept else 'with'} an intercept: fit restarts the "
                "model with the new value (partial_fit, learn_one, predict and a warm_start fit "
                "keep the old one).")

    def _with_constant(self, X):
        """``X`` with the constant feature (value 1) appended when ``fit_intercept``: the
        bias is the weight of that feature (a copy of X; CSR stays CSR, canonical)."""
        if not self._constant():
            return X
        ones = np.ones((X.shape[0], 1), dtype=X.dtype)
        if sp.issparse(X):
            return sp.hstack([X, sp.csr_matrix(ones)], format="csr")
        return np.ascontiguousarray(np.hstack([X, ones]))

    def _widen_features(self, n_features, old):
        """Widen the model to ``n_features`` features (the ``old`` first kept; new features go
        after them, before the constant feature): zero weights."""
        raise NotImplementedError

    def _check_growable(self):
        """Raise ``ValueError`` if new features cannot join this model as zero weights (else
        the model decides, in :meth:`_widen_features`, before it changes anything)."""

    def grow_features(self, n_features: int) -> Self:
        """Widen a started model to ``n_features`` features (a stream whose rows reach a larger
        feature index than seen so far, e.g. new words of a text stream).

        The new features get zero weight (zero support coordinates for a kernel model), which
        is exactly what the model would hold had it been started that wide: every past row had
        value 0 there, and an additive step only changes the weights of a row's non-zero
        features.  So a model grown as its stream widens learns as one started wide (exactly,
        on CSR rows).  The learners whose weights are not additive in x (the multiplicative
        family and the simultaneous projections' multiplicative update, normalized over all
        the features; the ellipsoid methods, whose metric shrinks over every feature), and the
        kernel learners whose ``gamma`` was resolved from the data (``"auto"``, ``"scale"``:
        a wider start resolves another), refuse with a ``ValueError``: give them the number
        of features in advance.

        Parameters
        ----------
        n_features : int
            The new number of features, at least ``n_features_in_``.

        Returns
        -------
        self
        """
        check_is_fitted(self)
        if isinstance(n_features, bool) or not isinstance(n_features, Integral) \
                or n_features < self.n_features_in_:
            raise ValueError(f"n_features must be an integer ≥ n_features_in_ = "
                             f"{self.n_features_in_}; got {n_features!r}.")
        if n_features == self.n_features_in_:
            return self
        self._check_growable()
        self._check_intercept()
        self._check_room_to_grow(n_features)
        self._widen_features(n_features, self.n_features_in_)
        self.n_features_in_ = int(n_features)
        # (the new features have no names: a DataFrame's columns no longer describe the model)
        self.__dict__.pop("feature_names_in_", None)
        self.__dict__.pop("_dense_index", None)  # (made on a dense row's first use)
        return self

    def _check_room_to_grow(self, n_features):
        """Refuse (MemoryError, before anything changes) a widening whose arrays would pass
        what :func:`check_memory` allows: each array grows with every dimension that is the
        model's width (a full covariance's two), and the old ones are held meanwhile."""
        model = self.__dict__.get("model_")
        if model is None:
            return
        old = self.n_features_in_ + self._constant()
        new = n_features + self._constant()
        need = 0
        for array in model.arrays().values():
            if isinstance(array, np.ndarray):
                need += array.nbytes * (1 + (new / max(old, 1)) ** array.shape.count(old))
        check_memory(int(need), type(self).__name__,
                     f"its arrays widened from {self.n_features_in_:,} to {n_features:,} "
                     "features (the old ones held meanwhile)")

    def _check_classes(self):
        """Whether a loaded ``classes_`` (and the scalars loaded with it) is one the estimator
        could have started with (the task's rule: :meth:`onlinear.tasks.Multiclass.check_classes`,
        and the started task's own checks)."""
        self._task_class.check_classes(self.classes_)
        self._make_task()

    def _check_model(self):
        """The invariants the engine relies on, checked on a loaded or unpickled model after
        its arrays' shapes, dtypes and finiteness: raise ``ValueError`` naming the array."""
        raise NotImplementedError

    # ------------------------------------------------------------------ training
    @contextmanager
    def _unchanged_on_error(self, copy_arrays=False):
        """Restore every attribute if the body raises: a failed call leaves the model as it was.

        Attributes rebound in the body are restored from the snapshot of ``vars(self)``; arrays
        written in place are restored only with ``copy_arrays`` (a copy of each array attribute,
        taken now), or after :meth:`_snapshot_arrays` on the yielded snapshot: the paths whose
        compiled pass cannot fail part way check everything before it and copy nothing (no copy
        of the model per call)."""
        saved = dict(vars(self))
        held = saved.get("model_")
        if held is not None:  # (its arrays rebound by the call are restored with it)
            saved["model_"] = copy.copy(held)
        if copy_arrays:
            self._snapshot_arrays(saved)
        try:
            yield saved
        except BaseException:
            lock = vars(self).get("_lock")
            vars(self).clear()
            vars(self).update(saved)
            if lock is not None:
                vars(self)["_lock"] = lock
            raise

    @staticmethod
    def _snapshot_arrays(saved):
        """Replace the model of the snapshot ``saved`` (a copy of ``vars``) by a copy of it and
        its arrays (and drop its per-example context, which holds the arrays themselves).  The
        estimator's own arrays (``classes_``, the dense rows' index) are kept as they are: a pass
        writes only the model's in place, and a copy would part ``classes_`` from the task's
        (one array), which restoring must not change."""
        saved.pop("_fast", None)
        if "model_" in saved:
            saved["model_"] = copy.deepcopy(saved["model_"])

    def _pass_can_fail(self, n_rows):
        """Whether a pass over ``n_rows`` rows can raise after the compiled loop has changed the
        model (then :meth:`partial_fit` snapshots the model's arrays); by default it cannot:
        everything is checked before it."""
        return False

    def _prepare(self, X, y, classes, method):
        """Validate the data of a pass and return ``(X, targets)`` for :meth:`_run`; on the
        first call (always for ``method="fit"``) validate the hyperparameters and start the
        model — from ``classes``, required, or for ``fit`` from the labels of ``y``.

        The one hook behind :meth:`fit`, :meth:`partial_fit` and :meth:`stream` (which run it
        inside :meth:`_unchanged_on_error`).  The task reads the targets
        (:meth:`onlinear.tasks.Labels.read_targets`): labels, or a learner's other forms —
        indicator rows and label sets (:class:`onlinear.tasks.LabelSets`), decided by the first
        targets and held to on a started model."""
        first = method == "fit" or not hasattr(self, "classes_")
        form, y = self._task_class.read_targets(y, type(self).__name__)
        if first:
            self._validate_params()
            if method != "fit":
                classes = self._first_classes(classes, method, form, y)
        else:
            self._task.check_form(form)
            self._check_same_classes(classes)
        # (a stream's passes come later, over some of its rows: its rows are checked now)
        X, y = self._validate(X, y, reset=first, pass_checks_rows=method != "stream", form=form)
        if not first:
            self._check_intercept()
            self._check_weight_dtype()
        X = self._with_constant(X)
        if first:
            self._start(self._fit_classes(form, y) if method == "fit" else classes, X.shape[1],
                        form)
        return X, self._encode(y)

    def _pass_context(self, X, method):
        """Keyword arguments of :meth:`_run` that belong to a data set rather than to a pass,
        for the call ``method`` (none here; the kernel learners keep the support slot of every
        row, so that a row updated again in a later epoch stays one support pattern, and
        resolve their kernel from the data of ``fit`` or ``stream``)."""
        return {}

    def _epochs(self, n):
        """The order of every epoch of :meth:`fit`."""
        rng = check_random_state(self.random_state)
        for _ in range(self.n_epochs):
            yield rng.permutation(n) if self.shuffle else np.arange(n)

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Train: ``n_epochs`` online passes over ``(X, y)``, from scratch — or, with
        ``warm_start=True`` on a started model, continuing it (its weights, counters and
        averaging sums; the labels of ``y`` must be among ``classes_``, see :meth:`add_classes`),
        as ``n_epochs`` calls of :meth:`partial_fit` would, shuffled if ``shuffle``.

        ``sample_weight`` (one non-negative weight per row) scales each example's part in its
        round (:meth:`_weight_mode`: the C of PA-I/PA-II, the step of the others), times the
        weight of its class (``class_weight``); a weight of 0 makes the round a prediction
        only.  The online counts count every row."""
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight, trials=None):
        """:meth:`fit`; ``trials``: a trial learner's ``(block_ptr, parts, coupling)``
        (:class:`_TrialLearner`)."""
        warm = bool(getattr(self, "warm_start", False)) and hasattr(self, "classes_")
        # a refit sets up new arrays: restoring the attributes restores the previous model
        with self._unchanged_on_error() as saved:
            X, targets = self._prepare(X, y, None, "warm_start" if warm else "fit")
            weights = self._example_weights(targets, y, sample_weight, X, "fit")
            context = self._pass_context(X, "fit")
            n_examples = self._examples(X, trials, context)
            if weights is not None:
                context["sample_weight"] = weights
            if warm and (weights is not None or self._pass_can_fail(X.shape[0] * self.n_epochs)):
                self._snapshot_arrays(saved)
            for epoch, order in enumerate(self._epochs(n_examples), start=1):
                with self._progress(f"epoch {epoch}/{self.n_epochs}", order.shape[0]):
                    self._run(X, targets, order, **context)
            if weights is not None or not warm:  # (a new model's arrays: no copy was needed)
                self._refuse_overflowed_model(weights)
        return self

    def _refuse_overflowed_model(self, weights):
        """Raise ``ValueError`` (the caller restores the model) if a learned array holds an
        infinity or a NaN after a pass, or the model fails the checks :func:`onlinear.load`
        runs on a file (:meth:`_check_model`: e.g. weights whose norm overflows), so that a
        model ``fit`` makes can always be saved and loaded back.  The rows' norms are checked
        before the pass, which bounds every step of the rules at their defaults; an example's
        weight (``sample_weight``, ``class_weight``) scales its step, and some
        hyperparameters (a huge ``C``, ``gamma`` or ``a``) scale every step: there the steps
        themselves can overflow, which no check of the rows sees.  (Checked after ``fit`` and after a weighted pass: an unweighted
        ``partial_fit`` would pay a copy of the model each call for it.)"""
        problem = None
        for name in self._model_arrays():
            array = self._saved_array(name)
            if array is not None and array.dtype.kind in "fc" and not np.isfinite(array).all():
                problem = f"learning overflowed the model ({name} holds infinity or NaN)"
                break
        else:
            try:  # (finite, but not what a file may hold: the checks onlinear.load runs)
                self._check_model()
            except ValueError as error:
                problem = f"learning left a model that does not hold together ({error})"
        if problem is None:
            return
        cause = (f"an example's weight scales its step, and the largest here, "
                 f"{float(np.max(weights)):.3g}, is too large for the data's scale: lower "
                 "sample_weight or class_weight, or rescale the rows"
                 if weights is not None else
                 "its hyperparameters scale every step beyond float64's range on this data "
                 f"({_hyperparameters(self)}): choose values nearer 1, or rescale the rows")
        raise ValueError(f"{type(self).__name__}: {problem} and was undone: {cause}.")

    def _examples(self, X, trials, context):
        """The number of examples of a pass over the rows ``X``: a row each, or with
        ``trials`` (a trial learner's, :class:`_TrialLearner`) a trial each, the trials checked
        by the task and added to the pass's ``context``."""
        if trials is None:
            return X.shape[0]
        context["blocks"] = blocks = self._task.check_blocks(X.shape[0], *trials)
        return blocks[0].shape[0] - 1

    def partial_fit(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None) -> Self:
        """One online pass over ``(X, y)`` in the given order, continuing the current model.

        ``classes`` (all the labels the stream can contain) is required on the first call.
        ``sample_weight`` as in :meth:`fit`; ``class_weight="balanced"`` needs the whole
        training set and is refused here (give a dict).  On bad input (NaN/inf, wrong number of
        features, unknown labels, bad weights) a ``ValueError`` is raised and the model is
        left exactly as it was.
        """
        self._one_pass(X, y, classes, sample_weight, "partial_fit")
        return self

    def _one_pass(self, X, y, classes, sample_weight, method, record=False, trials=None):
        """:meth:`partial_fit`'s pass (``method`` names the caller in messages; ``trials`` as
        in :meth:`_fit`); returns the class index predicted in each round if ``record``, else
        None."""
        first = not hasattr(self, "classes_")
        predicted = None
        with self._unchanged_on_error() as saved:
            X, targets = self._prepare(X, y, classes, method)
            weights = self._example_weights(targets, y, sample_weight, X, method)
            context = self._pass_context(X, method)
            n_examples = self._examples(X, trials, context)
            if weights is not None:
                context["sample_weight"] = weights
            if record:
                context["predictions"] = predicted = np.empty(X.shape[0], dtype=np.int64)
            if not first and (weights is not None or self._pass_can_fail(X.shape[0])):
                self._snapshot_arrays(saved)  # (a first call's arrays are new: nothing to copy)
            with self._progress(method, n_examples):
                self._run(X, targets, np.arange(n_examples), **context)
            if weights is not None or first:
                self._refuse_overflowed_model(weights)
        return predicted

    def learn_many(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None,
                   sample_weight: ArrayLike | None = None) -> NDArray:
        """Learn a batch of examples in order and return the label predicted for each one
        *before* its update: :meth:`learn_one` for users whose stream comes in small batches.

        The rounds are those of :meth:`partial_fit` on the batch (bit for bit); they are
        :meth:`learn_one`'s on each row in turn, up to rounding (a dense batch is scored with
        vectorized sums, see :mod:`onlinear._core.primal`).  ``classes`` is required on the
        first call, ``sample_weight`` as in :meth:`fit`.  On bad input nothing is learned and
        the error names the problem.  On a started model, a batch that needs no conversion (a
        C-contiguous float64 or float32 array of the model's width, or a canonical float64
        CSR matrix, with known labels) skips scikit-learn's validation: its rows are checked
        in one compiled sweep and learned in one compiled call.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The examples, in the order they arrived.
        y : array-like of shape (n_samples,)
            Their labels.
        classes : array-like, optional
            All the labels of the stream (required on the first call).
        sample_weight : array-like of shape (n_samples,), optional
            The weight of each example.

        Returns
        -------
        ndarray of shape (n_samples,)
            The label predicted for each example before the model learned it.

        Examples
        --------
        >>> import numpy as np, onlinear
        >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.2], [0.1, 1.0]])
        >>> model = onlinear.make("pa")
        >>> model.learn_many(X, ["a", "b", "a", "b"], classes=["a", "b"]).tolist()
        ['a', 'a', 'a', 'b']
        >>> model.n_mistakes_
        1
        """
        if sample_weight is None and self._records_predictions:
            predicted = self._learn_many_fast(X, y, classes)
            if predicted is not None:
                return predicted
        if not self._records_predictions:
            return self._learn_rows(X, y, classes, sample_weight)
        predicted = self._one_pass(X, y, classes, sample_weight, "learn_many", record=True)
        return self.classes_[predicted]

    #: Whether :meth:`learn_many` may learn a checked batch in one call of :meth:`_run` (a
    #: pass that cannot fail once its rows and labels are checked: the primal learners')
    _fast_many = False

    def _started_form_changed(self):
        """Whether a hyperparameter the model took at its start (``average``) was changed
        since (the general path raises)."""
        return False

    #: Whether :meth:`_run` records each round's prediction (``predictions=``); the learners
    #: whose rounds predict label sets or ranks learn a batch row by row (:meth:`_learn_rows`).
    _records_predictions = True

    def _learn_many_fast(self, X, y, classes):
        """:meth:`learn_many` on a started model in one compiled sweep and one compiled pass,
        or None (nothing changed) when the general path must run: the conditions of the
        per-example fast path (:mod:`.fast_path`) for a whole batch, and a primal learner's
        pass, which cannot fail once its rows and labels are checked (a dense pass checks its
        rows itself, and raises the general path's error having changed nothing)."""
        d = self.__dict__
        if ("_task" not in d or not self._fast_many or not self._fast_one or d.get("verbose")):
            return None
        if (d.get("fit_intercept") or d.get("class_weight") is not None
                or self._started_form_changed()):
            return None
        if classes is not None and not self._known_classes(classes):
            return None
        width = self._model_width()
        kind = type(X)
        if kind is np.ndarray:  # (its rows are checked by the dense pass itself)
            if not (X.ndim == 2 and X.shape[0] > 0 and X.shape[1] == width
                    and X.flags.c_contiguous and X.dtype in (np.float64, np.float32)):
                return None
        elif kind is sp.csr_matrix or kind is sp.csr_array:
            if not (X.shape[0] > 0 and X.shape[1] == width and X.data.dtype == np.float64
                    and X.has_canonical_format):
                return None
            if rows.first_bad_row_sparse(X.data, X.indptr, self._row_exponent) >= 0:
                return None
        else:
            return None
        if not isinstance(y, np.ndarray) or y.shape != (X.shape[0],) or y.dtype.kind == "O":
            return None
        task = d["_task"]
        if y.dtype.kind != task.classes.dtype.kind:
            return None
        try:
            targets = task.encode(y)
        except (TypeError, ValueError):  # the general path names it
            return None
        predictions = np.empty(X.shape[0], dtype=np.int64)
        self._run(X, targets, np.arange(X.shape[0]), predictions)
        return task.classes[predictions]

    def _learn_rows(self, X, y, classes, sample_weight):
        """:meth:`learn_many` as :meth:`learn_one` on each row in turn, all of it or nothing:
        the model is restored if a row is refused."""
        if sample_weight is not None:
            raise TypeError(f"{type(self).__name__}.learn_many takes no sample_weight; "
                            "give the weights to partial_fit.")
        if not sp.issparse(X):
            X = np.asarray(X)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D (one row per example); got shape {X.shape}.")
        elif not isinstance(X, sp.csr_matrix):
            X = sp.csr_matrix(X)
        if X.shape[0] == 0:
            raise ValueError("X has no rows: learn_many needs at least one example.")
        if len(y) != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {len(y)} labels.")
        with self._unchanged_on_error() as saved:
            self._snapshot_arrays(saved)
            predicted = [self.learn_one(X[i], y[i], classes=classes if i == 0 else None)
                         for i in range(X.shape[0])]
        if predicted and isinstance(predicted[0], np.ndarray):
            return np.vstack(predicted)  # indicator rows
        if predicted and isinstance(predicted[0], tuple):
            return predicted  # label sets
        return np.asarray(predicted)

    # ------------------------------------------------------------------ class weights, progress
    def _class_weights(self, y, method):
        """The weight of every class (by class index) under ``class_weight``, or None: a dict's
        values (1 for a class it does not name; a key that is not a class is an error), or
        ``"balanced"``'s ``n_rows / (n_classes · count)`` over the labels ``y`` of this
        :meth:`fit` (scikit-learn's :func:`~sklearn.utils.class_weight.compute_class_weight`;
        in a warm start, over the classes present in ``y``).  ``"balanced"`` needs the whole
        training set: it is refused by ``partial_fit`` and ``learn_one``, as scikit-learn's
        SGD estimators refuse it."""
        class_weight = getattr(self, "class_weight", None)
        if class_weight is None:
            return None
        from sklearn.utils.class_weight import compute_class_weight

        if isinstance(class_weight, str):
            if method != "fit":
                raise ValueError(
                    f'class_weight="balanced" is computed from the whole training set, which '
                    f"{method} does not see: pass the weights as a dict, e.g. from "
                    "sklearn.utils.class_weight.compute_class_weight('balanced', classes=classes, "
                    "y=y_sample) on a large enough sample of the labels.")
            present = np.unique(y)
            weights = np.ones(self.classes_.shape[0])
            weights[self._encode(present)] = compute_class_weight("balanced", classes=present,
                                                                  y=y)
            return weights
        keys = list(class_weight)
        unknown = [key for key, known in zip(keys, np.isin(np.asarray(keys, dtype=object),
                                                            self.classes_.astype(object)))
                   if not known]
        if unknown:
            raise ValueError(f"class_weight names labels that are not classes of the model: "
                             f"{unknown} (classes: {self.classes_.tolist()}).")
        weights = compute_class_weight(class_weight, classes=self.classes_, y=self.classes_)
        if not (np.all(np.isfinite(weights)) and np.all(weights >= 0)):
            raise ValueError(f"class_weight must give finite, non-negative weights; got "
                             f"{class_weight}.")
        return np.asarray(weights, dtype=np.float64)

    def _example_weights(self, targets, y, sample_weight, X, method):
        """Each row's weight in its round: ``sample_weight`` times its class's weight
        (``class_weight``); None when neither is given."""
        weights = self._check_sample_weight(sample_weight, X, all_zero=method != "fit")
        if getattr(self, "class_weight", None) is None:
            return weights
        per_class = self._class_weights(np.asarray(y), method)
        by_row = np.ascontiguousarray(per_class[targets], dtype=np.float64)
        return by_row if weights is None else by_row * weights

    @contextmanager
    def _progress(self, what, n_rows):
        """With ``verbose`` > 0, print one line per pass (an epoch of :meth:`fit`, a call of
        :meth:`partial_fit`) when it ends: rows, mistakes, updates and the wall time, as
        scikit-learn's SGD estimators report their epochs."""
        if not getattr(self, "verbose", 0):
            yield
            return
        def counts():
            return ((self.n_mistakes_, self.n_updates_) if hasattr(self, "_counts") else (0, 0))

        before = counts()
        start = time.perf_counter()
        yield
        seconds = time.perf_counter() - start
        mistakes, updates = (now - then for now, then in zip(counts(), before))
        print(f"-- {type(self).__name__} {what}: {n_rows:,} rows, {mistakes:,} mistakes, "
              f"{updates:,} updates, {seconds:.3f} s", flush=True)

    def stream(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None
               ) -> TrainingStream:
        """A data set validated once, to learn in chunks of its rows: returns a
        :class:`TrainingStream` whose ``learn(rows)`` continues this model on the rows
        ``rows`` of ``(X, y)``, in that order.

        Each ``learn(rows)`` does what ``partial_fit(X[rows], y[rows])`` would, without
        validating or copying its chunk, and a row met again (a later epoch) is the same
        example: a kernel learner updates its support pattern, as :meth:`fit` does.  The
        experiment harness measures learning curves this way.  ``classes`` is required when the
        model is not started yet, as for :meth:`partial_fit`.  ``class_weight`` weighs each
        row's rounds as in :meth:`fit` (``"balanced"`` from the labels ``y``, the stream's
        whole data set, as :meth:`fit` computes it).

        Examples
        --------
        >>> import numpy as np
        >>> import onlinear
        >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]])
        >>> y = np.array([0, 1, 1, 0])
        >>> model = onlinear.make("pa")
        >>> stream = model.stream(X, y, classes=[0, 1])
        >>> stream.learn([0, 1]); (model.n_seen_, model.n_mistakes_)
        (2, 1)
        >>> stream.learn([2, 3, 0, 1]); (model.n_seen_, model.n_mistakes_)  # a second epoch
        (6, 4)
        """
        with self._model_lock(), self._unchanged_on_error():
            X, targets = self._prepare(X, y, classes, "stream")
            context = self._pass_context(X, "stream")
            # class_weight: each row's weight in its rounds, as fit weighs them ("balanced"
            # from the stream's labels: a stream is a whole data set, as fit's)
            weights = self._example_weights(targets, y, None, X, "fit")
            if weights is not None:
                context["sample_weight"] = weights
            return TrainingStream(self, X, targets, context)

    def _first_classes(self, classes, method, form=ONE_LABEL, y=None):
        """The classes of a first call other than ``fit``: ``classes``, or the ``classes``
        hyperparameter of an estimator that has one (the ordinal learner's rank order), or what
        the task reads off the targets ``y`` of form ``form`` (an indicator matrix's columns),
        read by the task (:meth:`onlinear.tasks.Multiclass.read_classes`)."""
        declared = getattr(self, "classes", None)
        if classes is None:
            classes = declared
        elif declared is not None and not np.array_equal(np.asarray(classes, dtype=object),
                                                         np.asarray(declared, dtype=object)):
            # (an ordinal learner's rank order: the hyperparameter and classes_ would part)
            raise ValueError(f"{method}(classes={list(classes)!r}) differs from the estimator's "
                             f"classes={list(declared)!r}: give one of them, or the same.")
        if classes is None and y is not None:
            classes = self._task_class.default_classes(form, y)
        if classes is None:
            raise ValueError(f"classes must be passed on the first call to {method}.")
        classes = self._task_class.read_classes(classes)  # (NaN and None named first)
        if form == ONE_LABEL:
            check_discrete_labels(classes)
        return classes

    def _fit_classes(self, form, y):
        """The classes ``fit`` starts with: the ``classes`` hyperparameter of an estimator
        that has one, else the labels the targets ``y`` show, sorted (the task's
        :meth:`~onlinear.tasks.Labels.classes_of`)."""
        given = getattr(self, "classes", None)
        if given is None:
            return self._task_class.classes_of(form, y)
        return self._task_class.read_classes(given)

    def _known_classes(self, classes):
        """Whether ``classes`` (passed again to a started model, as scikit-learn users do on
        every call) is its ``classes_`` element by element, in order: cheaply, without the
        sorting and checks of a first call (nothing is cached: a failed call changes
        nothing)."""
        known = self.classes_
        if classes is known:
            return True
        given = np.asarray(classes)
        if given.shape != known.shape:
            return False
        if given.dtype == known.dtype and given.dtype.kind in "biuU" and (
                given.tobytes() == known.tobytes()):
            return True  # the same values, bit for bit (a fifth of array_equal's time)
        return bool(np.array_equal(given, known))

    def _check_same_classes(self, classes):
        """``classes`` given to a started model: the model's classes (nothing to do), or more
        of them (the model grows: :meth:`add_classes`); missing one of them is an error.
        Callers that must stay atomic run this where a failure restores the model."""
        if classes is None:
            return
        given = self._task_class.read_classes(classes)
        if np.array_equal(given, self.classes_):
            return
        self._task_class.check_growth(given, self.classes_)
        self.add_classes(given)

    # ------------------------------------------------------------------ growing classes
    def _check_class_growth(self):
        """Raise ``ValueError`` if new classes cannot join this model (else the model decides,
        in :meth:`_grow_outputs`, before it changes anything)."""

    def add_classes(self, labels: Iterable[Any]) -> Self:
        """Add class labels to a started model (a stream in which a new label appears).

        Each new class gets a zero prototype, a lazy scale of 1 and zero averaging sums: the
        model is the one that learned the past rounds without that class and meets it from now
        on (the rounds before it are not replayed: a model declared with the class from the
        start could differ, since a zero prototype can be in a round's error set, and a
        one-vs-rest learner would have given it negative steps).  Every other class keeps its
        weights bit for bit; classes stay sorted, so their columns may move.
        Learners that cannot grow (multiplicative and binary two-class models, rules that keep
        per-class records, the ellipsoid methods) raise ``ValueError`` and stay as they were.
        ``partial_fit``, ``learn_one`` and ``stream`` grow the model the same way when their
        ``classes`` names more labels than the model holds.

        Parameters
        ----------
        labels : array-like
            Labels to add; labels the model already holds are ignored.

        Returns
        -------
        self
        """
        check_is_fitted(self)
        with self._model_lock(), self._unchanged_on_error():
            check_class_labels(labels, known=self.classes_)
            if self._task.form == ONE_LABEL:
                check_discrete_labels(labels)
            merged = np.unique(np.concatenate([self.classes_, np.asarray(
                np.unique(labels), dtype=self.classes_.dtype if self.classes_.dtype.kind in
                "biu" else None)]))
            if merged.shape[0] == self.classes_.shape[0]:
                return self
            self._check_class_growth()
            check_memory(8 * self.n_features_in_ * merged.shape[0], type(self).__name__,
                         f"its weights ({self.n_features_in_:,} features × "
                         f"{merged.shape[0]:,} classes × 8 bytes)")
            where = np.searchsorted(merged, self.classes_)  # old columns' new positions
            self._grow_outputs(merged.shape[0], where)
            self.classes_ = merged
            self._task = self._make_task()
        return self

    def _grow_outputs(self, n_outputs, where):
        """Widen the model to ``n_outputs`` outputs, the old ones at positions ``where``."""
        raise NotImplementedError

    def learn_one(self, x: MatrixLike, y: Any, classes: ArrayLike | None = None) -> Any:
        """Learn from one example ``x`` (a 1-D array-like, or a 1-row sparse matrix, which is
        used as it is) with label ``y``.

        Returns the label predicted for ``x`` *before* the update (progressive validation in a
        single call).  ``classes`` is required on the first call, as for :meth:`partial_fit`.
        """
        d = self.__dict__
        # the lock taken inline, by acquire and release: the hot path (a ``with`` block cost
        # about 0.35 µs a call, acquire/try/finally 0.11 µs)
        lock = d.get("_lock") or self._model_lock()
        lock.acquire()
        try:
            fast = d.get("_fast")
            if fast is not None and (classes is None or fast.knows(classes)):
                predicted = fast.learn(x, y)
                if predicted is not None:
                    return predicted
            return self._learn_one_otherwise(x, y, classes)
        finally:
            lock.release()

    learn_one.__wrapped_by_lock__ = True

    def _learn_one_otherwise(self, x, y, classes):
        """:meth:`learn_one` when the kept per-example context did not take the call: with
        ``classes``, with no context kept yet or one for the other kind of row (a new one is
        built, and kept once it has served a call), or on the general path."""
        fast = self._fast_for(x, classes)
        if fast:
            predicted = fast.learn(x, y)
            if predicted is not None:
                self.__dict__["_fast"] = fast  # (a failed call keeps none)
                return predicted
        return self._learn_one_general(x, y, classes)

    def _learn_one_general(self, x, y, classes):
        """:meth:`learn_one`'s general path: start the model, grow classes, check the row and
        the label, and play the round (:meth:`_learn_one_index`)."""
        if not hasattr(self, "classes_"):
            with self._unchanged_on_error():
                form, target = self._task_class.read_one(y, classes)
                classes = self._first_classes(classes, "learn_one", form, target)
                self._validate_params()
                self._choose_weight_dtype(getattr(x, "dtype", None))
                idx, vals = self._check_one(x, n_features=None)
                n_features = x.shape[1] if sp.issparse(x) else vals.shape[0] - self._constant()
                self._start(classes, n_features + self._constant(), form)
                self.n_features_in_ = n_features
                if not sp.issparse(x):
                    idx = self._dense_row_index()  # (the dense round, as a pass plays it)
                task = self._task
                return task.predicted(self._learn_one_index(idx, vals, task.target_of(y)))
        if classes is not None and not self._known_classes(classes):
            # it names new classes (or bad ones): grow or refuse, atomically
            with self._unchanged_on_error():
                self._check_same_classes(classes)
                idx, vals = self._one_row(x)
                task = self._task
                return task.predicted(self._learn_one_index(idx, vals, task.target_of(y)))
        idx, vals = self._one_row(x)
        task = self._task
        target = task.target_of(y)
        # no snapshot per example: _learn_one_index checks its row before changing anything
        return task.predicted(self._learn_one_index(idx, vals, target))

    def _fast_for(self, x, classes=None):
        """The per-example context for a call on ``x``: the kept one if it takes rows of
        ``x``'s kind, else a new one (:meth:`_fast_context`); None when the call cannot take
        the fast path (an unstarted model, ``classes`` that are not ``classes_``...)."""
        if not self._fast_one or "_task" not in self.__dict__ or (
                classes is not None and not self._known_classes(classes)):
            return None
        fast = self.__dict__.get("_fast")
        if fast is not None and type(x) in fast.kinds:
            return fast
        return self._fast_context(x)

    #: Whether ``learn_one`` and ``predict_one`` may take a per-example context
    #: (:meth:`_build_fast`, :mod:`.fast_path`): the families whose model has one set it.
    _fast_one = False

    def _fast_context(self, x):
        """The per-example context (:mod:`.fast_path`) of a started model for rows of ``x``'s
        kind (the weights put in that kind's layout), or None: a model whose calls cannot take
        it, or a row of neither kind.  The caller keeps it in ``_fast`` once it has served
        a call; any attribute set drops it (``__setattr__``)."""
        kind = type(x)
        if kind is np.ndarray:
            return self._build_fast(dense=True)
        if kind is sp.csr_matrix or kind is sp.csr_array:
            return self._build_fast(dense=False)
        return None

    def _build_fast(self, dense):
        """The per-example context for dense rows or CSR rows (:mod:`.fast_path`), or None."""
        return None

    def _learn_one_index(self, idx, vals, label):
        """One compiled round on a checked row (``idx`` is ``_dense_index`` for a dense row);
        the index predicted before it.  Must raise before changing anything, or not at all
        (``learn_one`` takes no snapshot of the model)."""
        raise NotImplementedError

    def _one_row(self, x, learning=True):
        """A started model's checked row (with the constant feature when ``fit_intercept``)."""
        if getattr(self, "fit_intercept", False) != self._started_with_intercept:
            self._check_intercept()  # raises: fit_intercept changed after the start
        if learning:
            self._check_weight_dtype()
        return self._check_one(x, n_features=self.n_features_in_, learning=learning)

    def _check_row_names(self, x):
        """Refuse a pandas row (a Series, or a one-row DataFrame) whose feature names differ
        from those the model was fit with (``feature_names_in_``), as ``predict`` refuses such
        a DataFrame: read by position, a reordered row would be another example."""
        known = self.__dict__.get("feature_names_in_")
        names = getattr(x, "columns", None)
        if names is None and hasattr(x, "index") and hasattr(x, "to_numpy"):
            names = x.index  # (a Series: one row, its features as its index)
        if known is None or names is None:
            return
        names = list(names)
        if not all(isinstance(name, str) for name in names) or names == list(known):
            return  # (no names to check, as scikit-learn ignores non-string column names)
        unexpected = [name for name in names if name not in set(known)]
        missing = [name for name in known if name not in set(names)]
        raise ValueError(
            "The feature names should match those that were passed during fit: "
            + (f"unseen {unexpected[:5]}; " if unexpected else "")
            + (f"missing {missing[:5]}; " if missing else "")
            + ("" if unexpected or missing else "the same names in another order; ")
            + f"expected {list(known)[:10]}{' …' if len(known) > 10 else ''}.")

    def _check_one(self, x, n_features, learning=True):
        """``(column indices, values)`` of one checked example: a CSR row as it is, a dense
        row with ``arange(n_features)``; a row to learn from must also have an accepted norm
        (:func:`check_rows`)."""
        if sp.issparse(x):
            if x.ndim != 2 or x.shape[0] != 1:
                raise ValueError(f"x must be one example (one row); got shape {x.shape}.")
            if n_features is not None and x.shape[1] != n_features:
                raise ValueError(
                    f"x has {x.shape[1]} features, but the model expects {n_features}.")
            if x.shape[1] == 0:
                raise ValueError(_NO_FEATURES)
            _refuse_complex(x)
            x = canonical_csr(sp.csr_matrix(x))
            vals = np.ascontiguousarray(x.data, dtype=np.float64)
            if learning:
                check_row(vals, self._row_exponent)
            elif not np.isfinite(vals).all():
                raise ValueError("x contains NaN or infinity.")
            idx = np.ascontiguousarray(x.indices, dtype=np.int64)
            if self._constant():  # fit_intercept: the constant feature, last
                return np.append(idx, x.shape[1]), np.append(vals, 1.0)
            return idx, vals
        if not isinstance(x, np.ndarray):
            self._check_row_names(x)
            x = np.asarray(x)
        if x.ndim == 0:  # (None, a number: ascontiguousarray would make it a row of one)
            raise ValueError(f"x must be one example (a 1-D array of numbers); got "
                             f"{'None' if x.item() is None else type(x.item()).__name__}.")
        if x.dtype.kind == "c":
            _refuse_complex(x)
        x = np.ascontiguousarray(x, dtype=np.float64)
        if x.ndim == 2 and x.shape[0] == 1:
            x = x[0]
        if x.ndim != 1:
            raise ValueError(f"x must be one example (a 1-D array); got shape {x.shape}.")
        if n_features is not None and x.shape[0] != n_features:
            raise ValueError(f"x has {x.shape[0]} features, but the model expects {n_features}.")
        if x.shape[0] == 0:
            raise ValueError(_NO_FEATURES)
        if learning:
            check_row(x, self._row_exponent)
        elif not np.isfinite(x).all():
            raise ValueError("x contains NaN or infinity.")
        if self._constant():  # fit_intercept: the constant feature, last
            x = np.append(x, 1.0)
        index = self._dense_row_index() if hasattr(self, "n_features_in_") else None
        if index is None or index.shape[0] != x.shape[0]:
            index = np.arange(x.shape[0])
        return index, x

    def _dense_row_index(self):
        """The column indices of a dense row of this model, ``arange`` of its width (the
        constant feature included), made on the first dense row and kept until the width
        changes.  Made lazily because it is as large as one output's weights: a model learned
        from CSR rows, or loaded to learn from them, never holds it (and a file's width is not
        allocated by :func:`onlinear.load`).  The held engines tell a dense row by this very
        array (``idx is``)."""
        n = self.n_features_in_ + self._constant()
        index = self.__dict__.get("_dense_index")
        if index is None or index.shape[0] != n:
            index = self._dense_index = _dense_index(n, type(self).__name__)
        return index

    # ------------------------------------------------------------------ prediction
    def _raw_scores(self, X):
        """Scores of every output, shape (n_samples, n_outputs); ``w_r·x/‖w_r‖`` for the
        scale-free learners, as the engine predicts."""
        check_is_fitted(self)
        X = canonical_csr(validate_data(self, X, accept_sparse="csr", dtype=ROW_DTYPES,
                                        reset=False))
        self._check_intercept()
        return self._row_scores(self._with_constant(X))

    def _row_scores(self, X):
        """Scores of every output for checked rows ``X`` (the constant feature appended): the
        model's (:mod:`.holding`)."""
        raise NotImplementedError

    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """Class scores: shape (n_samples, n_classes), or (n_samples,) for two classes
        (positive means ``classes_[1]``)."""
        scores = self._raw_scores(X)  # (first: it checks that the model is fitted)
        return self._task.decision(scores)  # (the task reads the scores)

    def predict(self, X: MatrixLike) -> NDArray:
        """Highest-scoring class; ties go to the lowest class index, as in training."""
        scores = self._raw_scores(X)
        return self._task.predict_scores(scores)

    def score(self, X: MatrixLike, y: Any, sample_weight: ArrayLike | None = None) -> float:
        """Accuracy: the fraction of examples whose prediction is their target (for label
        sets, the whole set: subset accuracy), as scikit-learn's."""
        task = self.__dict__.get("_task")
        return super().score(X, y if task is None else task.scoring_targets(y),
                             sample_weight=sample_weight)

    def predict_one(self, x: MatrixLike) -> Any:
        """Predict the label of one example ``x`` (1-D array-like)."""
        d = self.__dict__
        lock = d.get("_lock") or self._model_lock()  # (inline, as in learn_one)
        lock.acquire()
        try:
            fast = d.get("_fast")
            if fast is not None:
                predicted = fast.predict(x)
                if predicted is not None:
                    return predicted
            return self._predict_one_otherwise(x)
        finally:
            lock.release()

    predict_one.__wrapped_by_lock__ = True

    def _predict_one_otherwise(self, x):
        """:meth:`predict_one` when the kept per-example context did not take the call (as
        :meth:`_learn_one_otherwise`)."""
        fast = self._fast_for(x)
        if fast:
            predicted = fast.predict(x)
            if predicted is not None:
                self.__dict__["_fast"] = fast
                return predicted
        check_is_fitted(self)
        idx, vals = self._one_row(x, learning=False)
        return self._predict_checked_row(idx, vals)

    def _predict_checked_row(self, idx, vals):
        """:meth:`predict_one` of a checked row: the label of :meth:`_predict_index_one`."""
        return self.classes_[self._predict_index_one(idx, vals)]

    def _predict_index_one(self, idx, vals):
        """The output index predicted for a checked row (as :meth:`_learn_one_index`)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ fitted attributes
    @property
    def task_(self):
        """The task of the started model (:mod:`onlinear.tasks`): how it reads targets, and
        how its predictions are scored (:meth:`~onlinear.tasks.Multiclass.score_sums`)."""
        check_is_fitted(self)
        return self._task

    def _count(self, name):
        """The model's counter ``name`` ("seen", "mistakes", "updates", ...; :mod:`.holding`)."""
        raise NotImplementedError

    @property
    def n_seen_(self):
        return self._count("seen")

    @property
    def n_mistakes_(self):
        return self._count("mistakes")

    @property
    def n_updates_(self):
        return self._count("updates")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = self._task_class.multiclass
        tags.classifier_tags.multi_label = self._task_class.multilabel
        return tags


# (the base takes no parameter itself: its docstring lists those every learner takes)
OnlineLinearClassifier.__doc__ = docstrings.complete(
    OnlineLinearClassifier, {name: docstrings.PARAMETERS[name] for name in docstrings.UNIVERSAL},
    docstrings.ATTRIBUTES)


def _hyperparameters(estimator):
    """The estimator's numeric hyperparameters (not how it is run), for a message."""
    shown = [f"{name}={value!r}" for name, value in sorted(estimator.get_params(deep=False)
                                                           .items())
             if isinstance(value, (int, float)) and not isinstance(value, bool)
             and name not in ("n_epochs", "verbose", "random_state")]
    return ", ".join(shown) or "none"


class _Unweighted(OnlineLinearClassifier):
    """The learners whose round has no weighted form here: ``fit`` and ``partial_fit`` without
    ``sample_weight`` (so that scikit-learn sees they take none).  The maximum-cosine rules and
    MC-ROMMA keep geometric records of the run (a bound over the examples seen) that a weight
    would make meaningless; the ellipsoid methods' steps are cuts of a fixed geometry (CELLIP's
    covering argument, IELLIP's metric update (15)) that a weight would not scale; the kernel
    engine does not read weights (yet)."""

    #: why ``sample_weight`` is refused (the TypeError's message)
    _weights_refusal = "its rounds have no weighted form here"

    def fit(self, X: MatrixLike, y: ArrayLike, **refused: Any) -> Self:
        """Train from scratch: ``n_epochs`` online passes over ``(X, y)``."""
        _refuse_keywords(self, "fit", refused)
        return OnlineLinearClassifier.fit(self, X, y)

    def partial_fit(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None,
                    **refused: Any) -> Self:
        """One online pass over ``(X, y)`` in the given order, continuing the current model;
        ``classes`` is required on the first call."""
        _refuse_keywords(self, "partial_fit", refused)
        return OnlineLinearClassifier.partial_fit(self, X, y, classes)


def _refuse_keywords(estimator, method, refused):
    """The TypeError Python gives an unknown keyword argument, naming the estimator's own class
    (not the shared base whose method it is) and, for ``sample_weight``, why.  The methods take
    ``**refused`` rather than naming ``sample_weight``: scikit-learn reads a named parameter as
    support (``has_fit_parameter``)."""
    if not refused:
        return
    name = next(iter(refused))
    why = (f": {type(estimator).__name__} takes no example weights, as "
           f"{estimator._weights_refusal}" if name == "sample_weight" else "")
    raise TypeError(f"{type(estimator).__name__}.{method}() got an unexpected keyword argument "
                    f"{name!r}{why}")


class _TrialLearner(OnlineLinearClassifier):
    """The protocol of the learners whose examples are *trials*, groups of rows that must all
    be classified correctly (Amit, Shalev-Shwartz & Singer, §2: the block learner):
    :meth:`fit` and :meth:`partial_fit` take the trials' offsets and the loss's sets and
    coupling weights instead of ``sample_weight``; a trial of one row is :meth:`learn_one`.
    A stream of independent rows is not theirs (:meth:`stream` refuses)."""

    def fit(self, X: MatrixLike, y: ArrayLike, block_ptr: ArrayLike | None = None,
            parts: ArrayLike | None = None, coupling: ArrayLike | None = None) -> Self:
        """Train: ``n_epochs`` online passes over the trials, from scratch (or, with
        ``warm_start=True`` on a started model, continuing it), shuffled if ``shuffle``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_rows, n_features)
        y : array-like of shape (n_rows,), two classes (±1 in the paper)
        block_ptr : array-like of int, shape (n_trials + 1,), optional
            Trial t = rows ``block_ptr[t]:block_ptr[t + 1]``; default one row per trial.
        parts : array-like of int, shape (n_rows,), optional
            Decomposable loss (§7): the set id (0..r_t−1) of each row inside its trial;
            each set gets the scheme with cap C/r_t.  Default: one set per trial.
        coupling : array-like of shape (n_rows,), optional
            Weights c_j > 0 of the coupling constraint Σ c_j λ_j ≤ C (§10; the box of
            constraint j becomes λ_j ≤ C/c_j).
        """
        return self._fit(X, y, None, trials=(block_ptr, parts, coupling))

    def partial_fit(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None,
                    block_ptr: ArrayLike | None = None, parts: ArrayLike | None = None,
                    coupling: ArrayLike | None = None) -> Self:
        """One online pass over the trials of ``(X, y, block_ptr)`` in the given order,
        continuing the model; ``classes`` (the two labels) is required on the first call;
        ``block_ptr``, ``parts`` and ``coupling`` as in :meth:`fit`."""
        self._one_pass(X, y, classes, None, "partial_fit", trials=(block_ptr, parts, coupling))
        return self

    def stream(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None):
        """Not for trials: a trial is a group of rows (``block_ptr``); use :meth:`partial_fit`
        (or the learner's own one-trial call)."""
        raise TypeError(f"{type(self).__name__} learns trials of several rows: use "
                        "partial_fit(X, y, block_ptr=...) or learn_block, not stream.")


def _dense_index(n_features, owner):
    """The column indices of a dense row, ``arange(n_features)``, after :func:`check_memory`
    (as large as the weights of one output: a width from a file, or from a hostile row, must
    be refused before it is allocated)."""
    check_memory(8 * n_features, owner, f"the column indices of a dense row ({n_features:,} "
                 "features × 8 bytes)")
    return np.arange(n_features)


class TrainingStream:
    """A data set validated once for an estimator (see :meth:`OnlineLinearClassifier.stream`).

    Parameters
    ----------
    estimator : OnlineLinearClassifier
        The model that learns; it is shared, not copied.
    X : ndarray or CSR matrix
        The validated rows.
    targets : ndarray
        Their encoded targets (what the estimator's compiled pass reads).
    context : dict
        Per-data-set keyword arguments of the compiled pass (e.g. the kernel learners' support
        slot of every row, and ``sample_weight``: each row's weight under ``class_weight``).
    """

    def __init__(self, estimator, X, targets, context):
        self.estimator = estimator
        self.X, self.targets, self.context = X, targets, context
        # what the targets, the rows' width and the context were made for: a restart (fit)
        # makes a new model, growing classes re-encodes the labels, growing features widens
        # the model (a kernel learner's support slots would point into another model: the
        # compiled pass would read and write past its arrays), another class_weight would
        # weigh the rows otherwise.  Compared by value: a refused call restores the model as
        # a copy, and a pickle copies the estimator.
        self._made_for = self._state_of(estimator)
        self._class_weight = copy.deepcopy(getattr(estimator, "class_weight", None))

    @staticmethod
    def _state_of(estimator):
        state = estimator.__dict__
        classes = state.get("classes_")
        return (state.get("_start_number"), None if classes is None else classes.tolist(),
                state.get("n_features_in_"))

    @property
    def n_rows(self):
        return self.X.shape[0]

    def _rows(self, rows):
        """``rows`` as int64 indices into the data set, or the error that names the problem
        (a boolean mask, fractional or text indices, out of range)."""
        given = np.asarray(rows)
        if given.size and given.dtype.kind not in "iu":
            raise TypeError(f"rows must be integer indices into the stream's "
                            f"{self.n_rows:,} rows; got an array of {given.dtype}"
                            + (" (a boolean mask: pass np.flatnonzero(mask))"
                               if given.dtype == bool else "") + ".")
        rows = np.ascontiguousarray(given, dtype=np.int64).reshape(-1)
        if rows.size and (rows.min() < 0 or rows.max() >= self.n_rows):
            raise IndexError(f"rows must be in [0, {self.n_rows}); got "
                             f"{rows.min()}..{rows.max()}.")
        return rows

    def learn(self, rows):
        """Predict, then learn, the rows ``rows`` (integer indices into the data set) in that
        order.  A bad index raises ``IndexError`` (``TypeError`` for indices that are not
        integers) and leaves the model as it was; so does a model refit, or whose classes or
        features grew, since the stream was made (a ``ValueError``: make a new stream)."""
        estimator = self.estimator
        rows = self._rows(rows)
        with estimator._model_lock(), estimator._unchanged_on_error() as saved:
            if self._state_of(estimator) != self._made_for:
                raise ValueError(
                    f"this stream was made for the {type(estimator).__name__} as it was before "
                    "it was refit or its classes or features grew: its encoded labels and rows "
                    "no longer fit the model. Make a new one: model.stream(X, y).")
            if self._class_weight != getattr(estimator, "class_weight", None):
                raise ValueError(
                    f"this stream weighs its rows by class_weight={self._class_weight!r:.200}, "
                    f"and the {type(estimator).__name__}'s is now "
                    f"{getattr(estimator, 'class_weight', None)!r:.200}. Make a new one: "
                    "model.stream(X, y).")
            estimator._check_as_started()
            weights = self.context.get("sample_weight")
            if weights is not None or estimator._pass_can_fail(rows.shape[0]):
                estimator._snapshot_arrays(saved)
            estimator._run(self.X, self.targets, rows, **self.context)
            if weights is not None:  # (a weight scales a step: as after a weighted partial_fit)
                estimator._refuse_overflowed_model(weights)


_lock_methods(OnlineLinearClassifier, inherited=True)
