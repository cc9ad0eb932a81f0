"""The primal learners' estimator base: the protocol, holding a
:class:`~onlinear.models.primal.PrimalModel` that one compiled rule learns.

A concrete learner declares its hyperparameters (``__init__`` and
``_parameter_constraints``), its rule (``_rule``, a row of :data:`onlinear.rules.table.RULES`)
and how the hyperparameters become the rule's parameters (``_rule_values``); this base turns
them into the model's configuration and answers the protocol's hooks that the primal model
adds to those of every held model (:mod:`.holding`): how example and class weights enter a
round, averaging and the weights' dtype; the model answers every other hook.
"""
import numpy as np

from .._core import rows
from ..models.primal import PrimalModel
from ..rules.table import RULES
from .base import OnlineLinearClassifier
from .holding import _ModelHolding
from .rule_facts import _RuleFacts


class _PrimalLearner(_RuleFacts, _ModelHolding):
    """Base of the learners trained by the primal engine (module doc)."""

    _model_class = PrimalModel
    _parameter_constraints = OnlineLinearClassifier._parameter_constraints

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

    @property
    def _rule_state(self):
        """The rule's state rows (the engine's lazy scales and sizes, then the rule's own)."""
        return self.model_.state
