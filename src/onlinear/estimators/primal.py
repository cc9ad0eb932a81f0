"""The primal learners' estimator base: the protocol, holding a
:class:`~onlinear.models.primal.PrimalModel` that one compiled rule learns.

A concrete learner declares its hyperparameters (``__init__`` and
``_parameter_constraints``), its rule (``_rule``, a row of :data:`onlinear.rules.table.RULES`)
and how the hyperparameters become the rule's parameters (``_rule_values``); this base turns
them into the model's configuration and answers the protocol's hooks that the primal model
adds to those of every held model (:mod:`.holding`): example and class weights, averaging,
the weights' dtype, and the per-example fast path of :mod:`.fast_path`.
"""
import numpy as np

from .._core import primal, rows
from ..models.primal import PrimalModel
from ..rules.table import RULES
from . import fast_path
from .base import OnlineLinearClassifier
from .checks import check_memory
from .holding import _ModelHolding
from .rule_facts import _RuleFacts


class _PrimalLearner(_RuleFacts, _ModelHolding):
    """Base of the learners trained by the primal engine (module doc)."""

    _model_class = PrimalModel
    _parameter_constraints = OnlineLinearClassifier._parameter_constraints

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # a pass cannot fail once its rows and labels are checked, and a dense pass checks
        # each row itself (PrimalModel.learn): learn_many's one-call batches, and no separate
        # row check before a dense pass
        cls._fast_many = cls._pass_checks_dense_rows = cls._run is _PrimalLearner._run

    # ------------------------------------------------------------------ the configuration
    def _model_config(self, n_outputs, n_features):
        d = self.__dict__
        model, loaded = d.get("model_"), d.get("_loaded_arrays")
        # the started model's averaging and dtype are its own (a change of the hyperparameter
        # applies at the next fit, which restarts: see _check_started_form)
        if model is not None:
            average, dtype = model.config["average"], model.weights.dtype
        elif loaded is not None and "weights" in loaded:
            average, dtype = bool(getattr(self, "average", False)), loaded["weights"].dtype
        else:
            average, dtype = bool(getattr(self, "average", False)), self._weight_dtype
        row = RULES[self._rule]
        return PrimalModel.configuration(
            self._rule_id, self._rule_params(), name=type(self).__name__,
            step_kind=self._step_kind, scale_free=self._scale_free,
            exact_norms=row.reads_norm or row.scale_free, average=average, dtype=dtype,
            state_rows=self._state_rows,
            row_exponent=(rows.ROW_NORM_EXPONENT_FLOAT32 if dtype == np.float32
                          else rows.ROW_NORM_EXPONENT),
            weight_mode=self._weight_mode())

    def _start_model(self, n_outputs, n_features):
        self.__dict__.pop("model_", None)  # (a restart: the new model's form is the parameters')
        average = getattr(self, "average", False) and self._has_averaged_form()
        size = self._weight_dtype.itemsize
        check_memory(size * n_features * n_outputs * (2 if average else 1), type(self).__name__,
                     f"its weights ({n_features:,} features × {n_outputs:,} outputs × {size} "
                     "bytes" + (", twice: averaging)" if average else ")"))
        super()._start_model(n_outputs, n_features)
        self.__dict__.pop("_data_weight_dtype", None)  # (the weights say it from now on)

    def _check_started_form(self):
        """Raise if ``average`` was changed after the model started (:meth:`fit` restarts it
        with the new value)."""
        if self._average_changed():
            started = self.model_.config["average"]
            raise ValueError(
                f"average={self.average} was set after the model started "
                f"{'with' if started else 'without'} averaging: fit restarts the model "
                "with the new value (partial_fit, learn_one, predict and a warm_start fit keep "
                "the old one).")

    def _average_changed(self):
        return self.model_.config["average"] != bool(getattr(self, "average", False))

    @property
    def _rule_state(self):
        """The rule's state rows (the engine's lazy scales and sizes, then the rule's own)."""
        return self.model_.state

    # ------------------------------------------------------------------ learning
    def _run(self, X, y_index, order, predictions=None, sample_weight=None):
        self._check_started_form()
        self.model_.learn(X, y_index, order, predictions, sample_weight)

    def _learn_one_index(self, idx, vals, label):
        self._check_started_form()
        weight, mode = 1.0, primal.WEIGHT_NONE
        if getattr(self, "class_weight", None) is not None:
            weight, mode = self._class_weights(None, "learn_one")[label], self._weight_mode()
        return self.model_.learn_row(idx, vals, label, self._dense_index, weight, mode)

    def _build_fast(self, dense):
        return fast_path.build(self, dense)

    # ------------------------------------------------------------------ predicting
    def _predicting_weights(self):
        self._check_started_form()
        return self.model_.predicting_weights()

    def _output_scales(self):
        return self.model_.output_scales()

    def _predict_index_one(self, idx, vals):
        self._check_started_form()
        return self.model_.predict_row(idx, vals, idx is self._dense_index)
