"""The estimators that hold their model as an object (:mod:`onlinear.models`): the protocol's
hooks answered by ``model_``.

:class:`OnlineLinearClassifier` is the scikit-learn/river protocol; its hooks for the model
(start, a pass, a round, the arrays persistence saves and a failed call restores, growing,
the weights that predict) are left to the family.  A family whose model is an object names its
class in ``_model_class`` and computes the numbers its engine reads in ``_model_config``; this
base answers every model hook from ``model_``, so the family itself holds hyperparameters
only.

A saved file's members are the model's arrays under their names with a leading underscore
(``model_.weights`` is the member ``_weights``), the names the estimators used when they held
the arrays themselves: files written before keep loading.
"""
import numpy as np
from sklearn.utils.validation import check_is_fitted

from . import fast_path
from .base import OnlineLinearClassifier
from .checks import check_memory

_PREFIX = "_"
#: The protocol's hyperparameters that a held model takes: not ``average`` (the families
#: whose model averages add it: :mod:`.held_averaging`), ``dtype`` (the state is float64;
#: float32 rows are read as they are), nor ``class_weight`` (:data:`WEIGHTED_CONSTRAINTS`
#: adds it).
HELD_CONSTRAINTS = {name: constraint
                    for name, constraint in OnlineLinearClassifier._parameter_constraints.items()
                    if name not in ("average", "class_weight", "dtype")}
#: :data:`HELD_CONSTRAINTS` and ``class_weight``: the families whose rounds take a weight.
WEIGHTED_CONSTRAINTS = {
    **HELD_CONSTRAINTS,
    "class_weight": OnlineLinearClassifier._parameter_constraints["class_weight"]}


#: how a message names what a started model has or has not (:meth:`_check_started_form`)
_FORMS = {"average": "averaging"}


def _differs(value, started):
    """Whether a hyperparameter's ``value`` is not the one the model ``started`` with (a flag
    read as a bool: ``average=0`` is ``average=False``)."""
    return bool(value) != started if isinstance(started, bool) else value != started


class _ModelHolding(OnlineLinearClassifier):
    """Base of the estimators that hold a :class:`~onlinear.models.protocol.Model` in
    ``model_`` (module doc).

    Attributes
    ----------
    model_ : Model
        The learned state and its engine (:mod:`onlinear.models`); set once started.
    """

    #: the class of the model (a subclass of :class:`onlinear.models.protocol.Model`)
    _model_class = None
    _derived = OnlineLinearClassifier._derived | {"model_"}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._fast_one = True  # (learn_one's fast path: the model's compiled round)
        model_class = cls.__dict__.get("_model_class")
        if isinstance(model_class, type) and model_class.checks_dense_rows:
            # a pass cannot fail once its rows and labels are checked, and a dense pass checks
            # each row itself: learn_many's one-call batches, and no row check before it
            cls._fast_many = cls._pass_checks_dense_rows = True
        elif isinstance(model_class, type) and model_class.refuses_dense_rows:
            cls._pass_checks_dense_rows = True  # (a dense pass checks each row itself)

    def _model_config(self, n_outputs, n_features):
        """The numbers the model's engine reads, from the hyperparameters (a dict)."""
        raise NotImplementedError

    _two_class_outputs = 1  # (the binary learner's one output for two classes)

    # ------------------------------------------------------------------ start and configure
    def _model_shape(self):
        """``(n_outputs, n_features)`` of the started model (its constant feature counted)."""
        return (self._n_outputs(),
                self.n_features_in_ + self._constant())

    #: fitted scalars resolved from the data a model starts on (the kernel learners'
    #: ``gamma_``), by :meth:`_resolve_from_data`: cleared when a model starts
    _resolved_from_data = ()

    def _start_model(self, n_outputs, n_features):
        self.__dict__.pop("model_", None)  # (a restart: the new model's form is the parameters')
        for name in self._resolved_from_data:
            self.__dict__.pop(name, None)
        model = self._model_class(self._model_config(n_outputs, n_features))
        need = model.memory(n_outputs, n_features)
        if need is not None:
            check_memory(need[0], type(self).__name__, need[1])
        model.start(n_outputs, n_features)
        self.model_ = model
        self.__dict__.pop("_data_weight_dtype", None)  # (the model says it from now on)

    def _check_started_form(self):
        """Raise if a hyperparameter the model took at its start
        (:meth:`~onlinear.models.protocol.Model.started_form`) was changed since: ``fit``
        restarts the model with the new value."""
        for name, started in self.model_.started_form().items():
            if _differs(self._started_value(name, started), started):
                how = (f"{'with' if started else 'without'} {_FORMS.get(name, name)}"
                       if isinstance(started, bool) else f"with {name}={started!r}")
                raise ValueError(
                    f"{name}={getattr(self, name)!r} was set after the model started {how}: "
                    "fit restarts the model with the new value (partial_fit, learn_one, "
                    "predict and a warm_start fit keep the old one).")

    def _check_as_started(self):
        """Raise if a hyperparameter that shapes the started model was changed since
        (``fit_intercept``, ``dtype`` and those of :meth:`_check_started_form`): the checks
        ``partial_fit`` makes of a started model, for the calls that read or write the whole
        model without them (``coef_``, ``intercept_``, :func:`onlinear.save`, a stream's
        passes)."""
        super()._check_as_started()
        self._check_started_form()

    def _started_form_changed(self):
        model = self.__dict__.get("model_")
        return model is not None and any(
            _differs(self._started_value(name, started), started)
            for name, started in model.started_form().items())

    def _started_value(self, name, started):
        """What the hyperparameter ``name`` asks of a model that started with ``started``:
        ``"auto"`` whatever the start chose, another value as the model would hold it
        (:meth:`~onlinear.models.protocol.Model.form_held_for`)."""
        value = getattr(self, name, None)
        if isinstance(value, str) and value == "auto":
            return started
        return self.model_.form_held_for(name, value)

    def _configure(self):
        model = self.__dict__.get("model_")
        if model is not None:
            width = model.n_inputs()
            model.config = model.keep_started(self._model_config(self._n_outputs(), width))

    # ------------------------------------------------------------------ the arrays, by name
    def _model_arrays(self):
        n_outputs, n_features = self._model_shape()
        specs = self._model_class(self._model_config(n_outputs, n_features)).specs(
            n_outputs, n_features)
        return {_PREFIX + name: spec for name, spec in specs.items()}

    def _saved_array(self, name):
        model = self.__dict__.get("model_")
        return None if model is None else getattr(model, name[len(_PREFIX):], None)

    def _load_array(self, name, array):
        self.__dict__.setdefault("_loaded_arrays", {})[name[len(_PREFIX):]] = array

    def _restore_derived(self):
        self.__dict__.pop("_data_weight_dtype", None)
        loaded = self.__dict__.pop("_loaded_arrays", None)
        if loaded is not None:  # (a file's arrays: a new model holds them)
            n_outputs, n_features = self._model_shape()
            self.model_ = self._model_class(self._model_config(n_outputs, n_features))
            self.model_.restore(loaded)
        for name, value in self.__dict__.pop("_loaded_model_scalars", {}).items():
            setattr(self.model_, name, value)  # (a file's scalars the model holds)
        self._task = self._make_task()  # (after the model: a task may read its layout)
        self.__dict__.pop("_dense_index", None)  # (made on a dense row's first use)
        self._configure()

    def _check_model(self):
        self.model_.check()

    @property
    def _counts(self):
        return self.model_.counts

    def _count(self, name):
        check_is_fitted(self)
        return self.model_.count(name)

    # ------------------------------------------------------------------ learning
    def _pass_can_fail(self, n_rows):
        return self.model_.pass_can_fail(n_rows)

    def _resolve_from_data(self, X, method):
        """Complete the model's configuration from the first data, the dense checked rows
        ``X`` of the call ``method``, before anything is learned (while the model is not
        :attr:`~onlinear.models.protocol.Model.resolved`); nothing waits for data here (the
        kernel learners resolve ``gamma``)."""

    def _pass_context(self, X, method):
        model = self.model_
        if not model.resolved:
            self._resolve_from_data(X, method)
        return model.pass_context(X)

    def _run(self, X, y_index, order, predictions=None, sample_weight=None, **context):
        # (the pass's context, :meth:`_pass_context`: the model's own keywords, e.g. a kernel
        # model's support slot of every row)
        self._check_started_form()
        if sample_weight is None:
            self.model_.learn(X, y_index, order, predictions, **context)
        else:
            self.model_.learn(X, y_index, order, predictions, sample_weight, **context)

    def _learn_one_index(self, idx, vals, label):
        self._check_started_form()
        dense = idx is self.__dict__.get("_dense_index")
        if not self.model_.resolved:  # (from its first row, before any change)
            row = np.zeros((1, self.model_.n_inputs()))
            row[0, idx] = vals
            self._resolve_from_data(row, "learn_one")
        if getattr(self, "class_weight", None) is None:
            return self.model_.learn_row(idx, vals, label, dense=dense)
        weight = float(self._class_weights(None, "learn_one")[label])
        return self.model_.learn_row(idx, vals, label, weight, dense=dense)

    def _build_fast(self, dense):
        return fast_path.build(self, dense)

    # ------------------------------------------------------------------ growing
    def _check_class_growth(self):
        """(The model decides, in :meth:`_grow_outputs`, before it changes anything.)"""

    def _grow_outputs(self, n_outputs, where):
        self.model_.grow_outputs(n_outputs, where)

    def _check_growable(self):
        """(The model decides, in :meth:`_widen_features`, before it changes anything.)"""

    def _widen_features(self, n_features, old):
        self.model_.grow_features(n_features + self._constant(), old)

    # ------------------------------------------------------------------ predicting
    def _model_width(self):
        return self.model_.n_inputs()

    # ------------------------------------------------------------------ fitted attributes
    def _coefficients(self):
        """The model's coefficients ``(n_features [+ 1], n_outputs)``, scales applied."""
        self._check_as_started()
        return self.model_.coefficients()

    @property
    def coef_(self):
        check_is_fitted(self)
        return self._task.coef(self._coefficients(), self.n_features_in_)

    @property
    def intercept_(self):
        """The bias of every row of ``coef_`` (the weight of the constant feature; zeros
        without ``fit_intercept``), shaped as scikit-learn's: (n_classes,), or (1,) for two
        classes (the task's layout: :meth:`onlinear.tasks.Multiclass.intercept`)."""
        check_is_fitted(self)
        return self._task.intercept(self._coefficients(), bool(self._constant()))

    def _row_scores(self, X):
        self._check_started_form()
        return self.model_.scores(X)

    def _predict_checked_row(self, idx, vals):
        model = self.model_
        if model.task_reads_row_scores:
            return self._task.predict_row(model.row_scores(idx, vals))
        return self.classes_[self._predict_index_one(idx, vals)]

    def _predict_index_one(self, idx, vals):
        self._check_started_form()
        return self.model_.predict_row(idx, vals, idx is self.__dict__.get("_dense_index"))
