"""``average`` for the estimators whose held model keeps the averaging sums
(:class:`~onlinear.models.averaging.AveragedHypothesis`): the Gaussian learners, NAROW, AdaGrad
and FTRL-Proximal.

The model takes ``average`` when it starts and keeps it until ``fit`` restarts it (its
``started_form``); a family whose hyperparameters leave no sound average refuses it, saying why
(:meth:`_AveragedHeld._held_averaging_refusal`).
"""
from .base import OnlineLinearClassifier

#: the ``average`` hyperparameter's constraint, for a family's ``_parameter_constraints``
AVERAGE_CONSTRAINTS = {"average": OnlineLinearClassifier._parameter_constraints["average"]}


class _AveragedHeld:
    """Mixed in before :class:`~onlinear.estimators.holding._ModelHolding` (module doc)."""

    def _held_averaging_refusal(self):
        """Why the hyperparameters leave no averaged form, or None (the default)."""
        return None

    def _has_averaged_form(self):
        return self._held_averaging_refusal() is None

    def _averaging_refusal(self):
        return self._held_averaging_refusal() or super()._averaging_refusal()

    def _started_average(self):
        """The configuration's ``average``: the started model's own (a change of the
        hyperparameter applies at the next ``fit``, which restarts), else the
        hyperparameter's."""
        model = self.__dict__.get("model_")
        if model is not None:
            return model.averages
        return bool(getattr(self, "average", False))
