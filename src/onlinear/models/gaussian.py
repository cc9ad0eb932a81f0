"""The Gaussian model: a distribution N(μ, Σ) over weight vectors, learned by the
confidence-weighted family's engine (:mod:`onlinear._core.confidence`) — CW, AROW, SCW-I/II
and NHERD, one rule of :mod:`onlinear.rules.confidence_table` each.

Arrays (the members of a saved file are these names with a leading underscore):

* ``mean`` — μ, ``(n_features, n_outputs)`` float64, feature-major (one output for two
  classes: the binary learner, whose output scores ``classes_[1]``);
* ``covariance`` — Σ by layout: ``(n_features, n_outputs)`` per-class diagonals
  (``"diagonal"``), ``(n_outputs, d, d)`` full matrices (``"per-class"``), or one ``(1, d, d)``
  matrix shared by every class (``"shared"``);
* ``prior`` — a, the variance Σ_1 = a·I started from (and given to a feature or class added
  later), shape (1,): every variance stays at most max(a, ``min_variance``);
* ``repairs`` — the engine's counts of repaired variances (diagonal ones, and full-matrix
  steps held where float64 cannot resolve Σ along the row) and of skipped rounds whose margin
  variance rounded to zero or below;
* ``counts`` — examples seen, mistakes, updates;
* with ``average``, ``avg_acc`` and ``avg_rounds``: the sums of the averaged mean, the mean of
  μ after every round (:mod:`onlinear.models.averaging`; Σ is learning state, not averaged).

The configuration (from the estimator): ``rule`` (a
:class:`~onlinear.rules.confidence_table.GaussianRule`), ``params`` (its parameter vector),
``values`` (the hyperparameters it was computed from), ``layout``, ``diagonal`` (the diagonal
form), ``min_variance``, ``a`` (Σ_1 = a·I, read when the model starts), ``average`` (fixed
when the model starts), ``constraints`` (``"max"``, absent in older configurations: the single
max-score constraint of the rule; an int k: CW's variance form with the k highest-scoring wrong
classes, :mod:`onlinear._core.multi_constraint`, which runs every round of a model of two or
more outputs) and the estimator's ``name``, for messages.

Example weights: a weight w > 0 weighs the loss of the rule's problem (C → w·C for SCW and
NHERD, r → r/w for AROW: :func:`~onlinear.rules.confidence_table.weighted_values`); a round of
weight 0 predicts (and is counted) without a step.  CW's problem has no loss to weigh.
"""
import contextlib

import numpy as np

from .._core import confidence, multi_constraint
from .._core.counters import MISTAKES, SEEN, UPDATES
from ..rules.confidence_table import (GAUSSIAN_RULES, GaussianRule, has_weighted_form,
                                      parameter_vector, weighted_values)
from . import weighted_pass
from .averaging import AveragedHypothesis
from .invariants import check_positive_definite
from .protocol import Model
from .row_checks import check_weighted_rows, refused_rows_named

# (onlinear.estimators.checks is imported where it is used: at the top, it would import the
# estimators package, which imports this module)


class GaussianModel(AveragedHypothesis, Model):
    """Mean and covariance of the confidence-weighted learners (module doc).

    Parameters
    ----------
    config : dict
        ``rule``, ``params``, ``layout``, ``diagonal``, ``min_variance``, ``a``, ``average``
        and ``name`` (module doc).
    """

    array_names = ("mean", "covariance", "prior", "repairs", "counts")
    refuses_dense_rows = True
    mixing_refusal = ("its model is a Gaussian over weight vectors (a mean and a covariance); "
                      "the average of several runs' Gaussians is not one any run reached, and "
                      "no mixing rule with a guarantee is known for it")

    def started_form(self):
        """Averaging, and the layout of Σ (its arrays' shape says: ``fit`` changes it)."""
        return {**super().started_form(), "matrix": self.layout_held()}

    def form_held_for(self, name, value):
        """``matrix="shared"`` is the binary learner's one per-class matrix."""
        if name == "matrix" and value == "shared" and self.mean.shape[1] == 1:
            return "per-class"
        return value

    def keep_started(self, config):
        """The layout of the Σ held (module doc of :mod:`onlinear.models.gaussian`)."""
        if "covariance" in self.__dict__:
            config = {**config, "layout": self.layout_held()}
        return config

    def layout_held(self):
        """``"diagonal"``, ``"per-class"`` or ``"shared"``: the layout of the Σ the model
        holds (a binary model's one matrix is ``"per-class"``)."""
        covariance = self.__dict__["covariance"]
        if covariance.ndim == 2:
            return "diagonal"
        return "shared" if covariance.shape[0] == 1 and self.mean.shape[1] > 1 else "per-class"

    @property
    def covariance(self):
        """Σ in its layout (module doc), symmetric: the held ``learn_one`` round leaves the
        lower triangle of a full matrix it moves behind until this read (its ``mirror``)."""
        self._mirror_held()
        try:
            return self.__dict__["covariance"]
        except KeyError:
            raise AttributeError("covariance") from None

    @covariance.setter
    def covariance(self, value):
        self.__dict__["covariance"] = value

    def _mirror_held(self):
        """Bring the lower triangles the held round left behind up to date (before any read
        of the covariance, and before the round is dropped or replaced)."""
        held = self.__dict__.get("_round")
        if held is not None and held[1] is not None:
            held[1].mirror()

    def __setattr__(self, name, value):
        if name in self.array_names or name == "config":  # (the held round is dropped)
            self._mirror_held()
        super().__setattr__(name, value)

    def __getstate__(self):
        self._mirror_held()
        return super().__getstate__()

    def row_round(self, exponent):
        self._mirror_held()  # (the round may be made again)
        return super().row_round(exponent)

    def start(self, n_outputs, n_features):
        layout = self.config["layout"]
        if layout != "diagonal":
            matrices = 1 if layout == "shared" else n_outputs
            from ..estimators.checks import check_memory
            check_memory(8 * matrices * n_features ** 2, self.config["name"],
                         f"its covariance ({matrices:,} matrices of {n_features:,} × "
                         f"{n_features:,} float64 values)")
        self.mean, self.covariance = confidence.initial_state(layout, n_features, n_outputs,
                                                              self.config["a"])
        # (the prior the model started with: a set later applies to the next fit)
        self.prior = np.array([float(self.config["a"])])
        self.repairs = np.zeros(2, dtype=np.int64)
        self.start_averaging()

    def specs(self, n_outputs, n_features):
        layout = self.config["layout"]
        covariance = {"diagonal": (n_features, n_outputs),
                      "shared": (1, n_features, n_features)}.get(
                          layout, (n_outputs, n_features, n_features))
        return {"mean": ((n_features, n_outputs), np.float64),
                "covariance": (covariance, np.float64),
                "prior": ((1,), np.float64),
                "repairs": ((2,), np.int64),
                **super().specs(n_outputs, n_features),
                **self.averaging_specs(n_outputs, n_features)}

    def check(self):
        """The counters' order; Σ positive definite (the diagonals' entries positive, each
        full matrix symmetric with a Cholesky factor: every rule's step keeps it so), μ's norm
        finite, the repair counts not negative."""
        super().check()
        with np.errstate(over="ignore", invalid="ignore"):
            if not np.isfinite(np.einsum("jr,jr->", self.mean, self.mean)):
                raise ValueError("_mean: the mean's norm overflows (a mean too large for the "
                                 "engine).")
        # every step shrinks Σ from Σ_1 = a·I (a new feature's or class's too) and the floor
        # lifts a variance to min_variance at most: Σ ⪯ max(a, min_variance)·I
        if not self.prior[0] > 0.0:
            raise ValueError("_prior: the prior variance a must be positive.")
        bound = max(float(self.prior[0]), self.config["min_variance"])
        if self.config["layout"] == "diagonal":
            if not np.all((self.covariance > 0.0) & (self.covariance <= bound)):
                raise ValueError(f"_covariance: a diagonal covariance's entries must lie in "
                                 f"(0, {bound}] (they start at a and only shrink).")
        else:
            top = max(check_positive_definite("_covariance", self.covariance), default=0.0)
            if not top <= bound * (1.0 + 1e-9):
                raise ValueError(f"_covariance: an eigenvalue {top:.6g} above the prior's "
                                 f"{bound} (Σ starts at a·I and only shrinks).")
        if np.any(self.repairs < 0):
            raise ValueError("_repairs: counts must be ≥ 0.")
        self.check_averaging()

    # ------------------------------------------------------------------ growing
    def grow_outputs(self, n_outputs, where):
        """New classes: μ = 0 and Σ = a·I (the prior of every class at the start); the old
        classes keep theirs bit for bit.  The binary learner (one output) cannot: a third class
        changes what its weights mean."""
        if self.mean.shape[1] == 1:
            raise ValueError(f"{self.config['name']} learns two classes with one Gaussian (the "
                             "binary learner): a third class would change what every weight "
                             "means. Give every class from the start.")
        a = float(self.prior[0])
        mean = np.zeros((self.mean.shape[0], n_outputs))
        mean[:, where] = self.mean
        layout = self.config["layout"]
        if layout == "diagonal":
            covariance = np.full((self.covariance.shape[0], n_outputs), a)
            covariance[:, where] = self.covariance
        elif layout == "per-class":
            d = self.covariance.shape[1]
            covariance = np.repeat(a * np.eye(d)[None], n_outputs, axis=0)
            covariance[where] = self.covariance
        else:
            covariance = self.covariance
        self.mean, self.covariance = mean, covariance
        self.grow_averaging_outputs(n_outputs, where)

    def grow_features(self, n_features, old):
        """New features: μ = 0 and variance a, uncorrelated with the others — what a model
        started that wide would hold, since every past row was 0 there and a step moves only
        along Σx."""
        added = n_features - self.mean.shape[0]
        a = float(self.prior[0])
        self.mean = np.ascontiguousarray(np.insert(self.mean, [old] * added, 0.0, axis=0))
        self.grow_averaging_features(n_features, old)
        if self.config["layout"] == "diagonal":
            self.covariance = np.ascontiguousarray(
                np.insert(self.covariance, [old] * added, a, axis=0))
            return
        count, d = self.covariance.shape[:2]
        grown = np.zeros((count, n_features, n_features))
        keep = np.r_[0:old, old + added:n_features]
        grown[np.ix_(np.arange(count), keep, keep)] = self.covariance
        grown[:, np.arange(old, old + added), np.arange(old, old + added)] = a
        self.covariance = grown

    # ------------------------------------------------------------------ learning
    def _engine_options(self):
        config = self.config
        return {"layout": config["layout"], "diagonal": config["diagonal"],
                "min_variance": config["min_variance"], "prior": float(self.prior[0]),
                "counts": self.repairs, **self.averaging_keywords()}

    def pass_can_fail(self, n_rows):
        # a round whose score, margin variance or step is not finite stops the pass with the
        # rounds before it taken: the estimator copies the arrays of a pass of several rows
        return n_rows > 1

    @contextlib.contextmanager
    def _failures_worded(self):
        """An engine's round that is not finite raised for the estimator's users: the
        estimator undoes the call (its pass's earlier rounds included), and the hard
        constraint of CW is a cause of its own."""
        try:
            yield
        except confidence.NotFiniteRound as error:
            name = self.config["name"]
            where = "the row" if error.row is None else f"row {error.row} of X"
            hint = (", or variances the hard constraint drove towards 0 on data it cannot "
                    "separate, where its step leaves float64: set min_variance (a floor for "
                    "them) or a smaller eta, or use AROW or SCW, whose steps are bounded"
                    if name == "ConfidenceWeighted" else "")
            raise ValueError(
                f"{name}: at {where}, a score, the margin variance or the step is not finite, "
                f"so the call learned nothing (the model is as it was before it). The causes: "
                f"NaN or infinite values, a row too large (rescale the input){hint}.") from None

    def learn(self, X, targets, order, predictions, weights=None):
        with self._failures_worded():
            self._learn(X, targets, order, predictions, weights)

    def _learn(self, X, targets, order, predictions, weights):
        order = np.ascontiguousarray(order, dtype=np.int64)
        if predictions is None or predictions.shape[0] == 0:
            predictions = None
        constraints = self._constraints()
        if weights is None and constraints:
            with refused_rows_named(X, self.config["name"]):
                mistakes, updates = multi_constraint.learn_pass(
                    X, targets, order, self.mean, self.covariance, self._phi(), constraints,
                    predictions, **self._multi_options())
        elif weights is None:
            with refused_rows_named(X, self.config["name"]):
                mistakes, updates = confidence.learn_pass(
                    self.config["rule"], X, targets, order, self.mean, self.covariance,
                    self.config["params"], predictions, **self._engine_options())
        else:
            check_weighted_rows(X, self.config["name"])
            params = self._weighted_params(np.unique(weights[order]))  # (all, before a round)

            def run(part, part_predictions, weight):
                if weight == 0.0:
                    return self._predict_only(X[part], targets[part], part_predictions)
                return confidence.learn_pass(
                    self.config["rule"], X, targets, part, self.mean, self.covariance,
                    params[weight], part_predictions, **self._engine_options())

            def row(i, weight):
                return self._weighted_row(*weighted_pass.row_entries(X, i), targets[i],
                                          params.get(weight), weight)

            mistakes, updates = weighted_pass.play(X, targets, order, weights, predictions,
                                                   run, row)
        self.counts[SEEN] += order.shape[0]
        self.counts[MISTAKES] += mistakes
        self.counts[UPDATES] += updates

    def learn_row(self, idx, vals, label, weight=1.0, dense=False):
        params = self.config["params"]
        if weight != 1.0:
            params = self._weighted_params([weight]).get(weight)
        with self._failures_worded():
            predicted, updated = self._weighted_row(idx, vals, label, params, weight)
        self.counts[SEEN] += 1
        self.counts[MISTAKES] += predicted != label
        self.counts[UPDATES] += updated
        return predicted

    def _weighted_row(self, idx, vals, label, params, weight):
        """``(predicted, updated)`` of one round of the given weight (0: a prediction)."""
        if weight == 0.0:
            self.close_rounds(1)
            return self._predicted(np.asarray(vals) @ self.mean[idx]), False
        constraints = self._constraints()
        if constraints and weight == 1.0:
            return multi_constraint.learn_row(idx, vals, label, self.mean, self.covariance,
                                              self._phi(), constraints,
                                              **self._multi_options())
        return confidence.learn_row(self.config["rule"], idx, vals, label, self.mean,
                                    self.covariance, params, **self._engine_options())

    def _weighted_params(self, weights):
        """``{weight: parameter vector}`` for the distinct example weights ``weights``, all
        computed before any round (one that overflows a hyperparameter is refused with the
        model unchanged)."""
        config = self.config
        if not has_weighted_form(config["rule"]):
            raise ValueError(f"{config['name']} takes no example weights: its problem has a "
                             "hard constraint and no loss to weigh (a row met twice is "
                             "learned once).")
        params = {}
        for weight in weights:
            weight = float(weight)
            if weight > 0.0:
                values = weighted_values(config["rule"], config["values"], weight)
                try:
                    params[weight] = parameter_vector(config["rule"], **values)
                except ValueError as error:
                    raise ValueError(f"{config['name']}: the example weight {weight!r} gives "
                                     f"{values}: {error}") from None
        return params

    @staticmethod
    def _predicted(scores):
        """The index a round predicts from its scores (one output: 1 iff the score > 0;
        several: the first of the largest)."""
        return int(scores[0] > 0.0) if scores.shape[0] == 1 else int(np.argmax(scores))

    def _predict_only(self, rows, targets, predictions):
        """Rounds of weight 0 over ``rows``: predictions, no step; ``(mistakes, 0)``."""
        self.close_rounds(rows.shape[0])
        scores = np.asarray(rows @ self.mean)
        predicted = ((scores[:, 0] > 0.0).astype(np.int64) if scores.shape[1] == 1
                     else np.argmax(scores, axis=1))
        if predictions is not None:
            predictions[:] = predicted
        return int(np.count_nonzero(predicted != targets)), 0

    def _constraints(self):
        """k, the constraints of a k-constraint round (K − 1 for ``"all"``), or 0: the rule's
        own single-constraint rounds (``"max"``, and always with one output)."""
        constraints = self.config.get("constraints", "max")
        n_outputs = self.mean.shape[1]
        if constraints == "max" or n_outputs == 1:
            return 0
        return n_outputs - 1 if constraints == "all" else int(constraints)

    def _phi(self):
        """φ = Φ⁻¹(η), read by name from the rule's parameter vector (its table row's
        ``params``)."""
        names = GAUSSIAN_RULES[GaussianRule(self.config["rule"])].params
        return float(self.config["params"][names.index("phi")])

    def _multi_options(self):
        options = self._engine_options()
        del options["diagonal"]  # (the k-constraint rounds keep the diagonal of Σ⁻¹)
        return options

    def _make_round(self, exponent):
        constraints = self._constraints()
        options = self._multi_options() if constraints else self._engine_options()
        options.pop("counts")
        if constraints:
            return multi_constraint.MultiConstraintRound(
                self.mean, self.covariance, self._phi(), constraints, self.counts, self.repairs,
                exponent=exponent, **options)
        return confidence.GaussianRound(self.config["rule"], self.mean, self.covariance,
                                        self.config["params"], self.counts, self.repairs,
                                        exponent=exponent, **options)

    def coefficients(self):
        """μ, or with ``average`` the averaged mean (:mod:`onlinear.models.averaging`)."""
        return self.averaged_hypothesis(self.mean)


