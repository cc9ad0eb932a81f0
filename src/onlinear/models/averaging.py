"""The averaged hypothesis of the held models (``average=True``): the Gaussian learners' mean μ
(:mod:`onlinear.models.gaussian`, :mod:`onlinear.models.narow`), FTRL-Proximal's and
AdaGrad's weights (:mod:`onlinear.models.adaptive`; its dual form keeps sums of its own,
:mod:`onlinear.models.dual_adagrad`).

The averaged hypothesis is the mean of the hypotheses after every round since the model
started, w̄ = (1/T)·Σ_{t=1}^T w_t over the T rounds seen (``counts[SEEN]``) — rounds that change
nothing included, as the primal learners' (:mod:`onlinear.models.primal`) and the averaged
Perceptron's (Freund & Schapire, "Large Margin Classification Using the Perceptron
Algorithm", Machine Learning 37, 1999, §2).  Only the hypothesis is averaged: the learning
state (a covariance, accumulated squares, the rounds' own predictions and counts) is the
online one.

Two arrays keep it (members ``_avg_acc`` and ``_avg_rounds`` of a saved file):

* ``avg_rounds`` — R, shape (1,) float64: the rounds closed since the sums were last rebased;
* ``avg_acc`` — Σ_t R_t·Δ_t over the rounds' changes Δ_t of the hypothesis, shape
  ``(n_features, n_outputs)`` float64,

so that Σ_t w_t = R·w − acc and w̄ = (R·w − acc)/T: the compiled rounds record each change
(:func:`onlinear._core.row_pass.averaged_round`), a round played outside them that changes
nothing (a Gaussian round of example weight 0) only adds to R.  A model started without
``average`` has neither array (so a file written before ``average`` existed loads unchanged).

>>> import numpy as np
>>> from onlinear.models.gaussian import GaussianModel
>>> from onlinear.rules.confidence_table import GaussianRule, parameter_vector
>>> config = {"rule": int(GaussianRule.AROW), "params": parameter_vector(GaussianRule.AROW, r=1.0),
...           "values": {"r": 1.0}, "layout": "diagonal", "diagonal": "project",
...           "min_variance": 0.0, "a": 1.0, "name": "AROW", "average": True}
>>> model = GaussianModel(config)
>>> model.start(n_outputs=1, n_features=2)
>>> model.array_names[-2:], model.avg_acc.shape, model.avg_rounds.tolist()
(('avg_acc', 'avg_rounds'), (2, 1), [0.0])
"""
import numpy as np

from .._core.weights import averaged
from .row_checks import refuse_unscored_rows

#: the arrays a model that averages adds to its own, in the order they are saved
AVERAGING_ARRAYS = ("avg_acc", "avg_rounds")


class AveragedHypothesis:
    """The averaging sums of a held model whose configuration says ``average`` (module doc):
    mixed in before :class:`~onlinear.models.protocol.Model`.  The model names its
    hypothesis, a ``(n_features, n_outputs)`` float64 array attribute, in
    :attr:`hypothesis_name`."""

    #: the attribute holding the hypothesis that is averaged
    hypothesis_name = "mean"
    #: the arrays a model that averages adds to its own, in the order they are saved
    averaging_arrays = AVERAGING_ARRAYS
    #: the ``(n_features, n_outputs)`` sums a new output or feature starts at zero
    averaging_sums_name = "avg_acc"

    def __init__(self, config):
        super().__init__(config)
        if config.get("average"):
            self.array_names = type(self).array_names + self.averaging_arrays

    @property
    def averages(self):
        """Whether the model keeps the averaging sums (fixed at its start)."""
        return bool(self.config.get("average"))

    def started_form(self):
        """Averaging (its sums exist from the start or not at all)."""
        return {"average": self.averages}

    def start_averaging(self):
        """The sums of a model that has seen nothing (after its hypothesis is made)."""
        if self.averages:
            self.avg_acc = np.zeros_like(getattr(self, self.hypothesis_name))
            self.avg_rounds = np.zeros(1)

    def averaging_specs(self, n_outputs, n_features):
        """``{name: (shape, dtype)}`` of the sums (none without averaging)."""
        if not self.averages:
            return {}
        return {"avg_acc": ((n_features, n_outputs), np.float64),
                "avg_rounds": ((1,), np.float64)}

    def averaging_keywords(self):
        """The sums as the compiled rounds take them (``avg_acc``, ``avg_rounds``), or no
        keywords without averaging."""
        if not self.averages:
            return {}
        return {"avg_acc": self.avg_acc, "avg_rounds": self.avg_rounds}

    def close_rounds(self, rounds):
        """``rounds`` rounds played outside the compiled rounds, changing nothing."""
        if self.averages:
            self.avg_rounds[0] += rounds

    def check_averaging(self):
        """The sums finite, and R within the rounds seen."""
        if not self.averages:
            return
        rounds = float(self.avg_rounds[0])
        if not 0.0 <= rounds <= self.count("seen") or rounds != np.floor(rounds):
            raise ValueError("_avg_rounds: the rounds since the averaging sums were rebased "
                             "must be a whole number within [0, n_seen_].")
        if not np.all(np.isfinite(self.avg_acc)):
            raise ValueError("_avg_acc: the averaging sums must be finite.")

    def grow_averaging_outputs(self, n_outputs, where):
        """New outputs: zero sums (their hypothesis was 0 on every past round)."""
        if self.averages:
            sums = getattr(self, self.averaging_sums_name)
            grown = np.zeros((sums.shape[0], n_outputs))
            grown[:, where] = sums
            setattr(self, self.averaging_sums_name, grown)

    def grow_averaging_features(self, n_features, old):
        """New features: zero sums (their hypothesis was 0 on every past round)."""
        if self.averages:
            sums = getattr(self, self.averaging_sums_name)
            added = n_features - sums.shape[0]
            setattr(self, self.averaging_sums_name, np.ascontiguousarray(
                np.insert(sums, [old] * added, 0.0, axis=0)))

    def predict_row(self, idx, vals, dense=False):
        """As :meth:`~onlinear.models.protocol.Model.predict_row`; with averaging from the
        averaged scores of the row's features only, (R·(x·w) − x·acc)/T (not the O(d·K)
        averaged matrix); ``ValueError`` if they are not finite."""
        if not self.averages:
            return super().predict_row(idx, vals, dense)
        hypothesis, seen = getattr(self, self.hypothesis_name), self.count("seen")
        scores = np.zeros(hypothesis.shape[1]) if seen == 0 else (
            (vals @ hypothesis[idx]) * self.avg_rounds[0] - vals @ self.avg_acc[idx]) / seen
        refuse_unscored_rows(scores[None, :])
        return int(scores[0] > 0.0) if scores.shape[0] == 1 else int(np.argmax(scores))

    def averaged_hypothesis(self, hypothesis):
        """``hypothesis`` (the current one, ``(n_features, n_outputs)``), or with averaging
        the mean of the hypotheses after every round (module doc; 0 before any round)."""
        if not self.averages:
            return hypothesis
        return averaged(hypothesis, self.avg_acc, self.avg_rounds, self.count("seen"))
