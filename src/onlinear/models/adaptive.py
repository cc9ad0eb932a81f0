"""The adaptive first-order models: per-coordinate step sizes learned from the gradients —
diagonal AdaGrad (Duchi, Hazan & Singer, JMLR 2011, Algorithm 1 with diagonal matrices) and
FTRL-Proximal (McMahan et al., KDD 2013, Algorithm 1) — learned by
:mod:`onlinear._core.adaptive`.

Arrays (the members of a saved file are these names with a leading underscore), all
``(n_features, n_outputs)`` float64 feature-major unless said, one output for two classes:

* AdaGrad: ``weights`` (W), ``squares`` (G, the sums of squared subgradients), ``last``
  (int64, (n_features,): the rounds whose regularization each feature's weights have had) and
  ``clock`` (int64, (1,): the rounds seen);
* FTRL-Proximal: ``weights`` (W, always current), ``z`` and ``n`` (the paper's z and n);
* both: ``counts`` — examples seen, mistakes, updates (rounds with a non-zero gradient);
* with ``average``, ``avg_acc`` and ``avg_rounds``: the sums of the averaged weights, the mean
  of W after every round (:mod:`onlinear.models.averaging`; a regularized AdaGrad's deferred
  steps enter them in closed form, :mod:`onlinear._core.adaptive`).

The configuration (from the estimator): ``loss`` (``"hinge"`` or ``"log"``), the rates
(AdaGrad ``eta``, ``delta``; FTRL ``alpha``, ``beta``), ``l1``, ``l2``, ``average`` and the
estimator's ``name``.

Example weights: a round of weight w has the loss w·ℓ, so its subgradient rows are w·g (the
squares accumulate (w·g)²); the regularizer's rounds are not weighted (AdaGrad's regularizer
acts on a round of weight 0 as on any other; FTRL's penalties are total, a round of weight 0
changes nothing).
"""
import numpy as np
from sklearn.utils.extmath import row_norms

from .._core import adaptive
from .._core.counters import MISTAKES, SEEN, UPDATES
from .._core.weights import averaged
from . import weighted_pass
from .averaging import AveragedHypothesis
from .protocol import Model
from .row_checks import check_weighted_rows, refused_rows_named

#: the largest example weight times row norm (so gradient norm) a round takes: its square,
#: 1e300, leaves the accumulators room for 1e8 such rounds
LARGEST_WEIGHTED_NORM = 1e150


class _Adaptive(AveragedHypothesis, Model):
    """What the adaptive models share: counting, growing, the binary learner's refusal, the
    averaged weights."""

    hypothesis_name = "weights"

    #: the configuration's entries the engine's functions take as keywords
    _options = ()
    refuses_dense_rows = True
    mixing_refusal = ("its per-coordinate step sizes come from the gradients of its own run "
                      "(accumulated squares), which an average of runs does not have; no "
                      "mixing rule with a guarantee is implemented for them")

    def _keywords(self):
        return {name: self.config[name] for name in self._options}

    def _count(self, rounds, mistakes, updates):
        self.counts[SEEN] += rounds
        self.counts[MISTAKES] += mistakes
        self.counts[UPDATES] += updates

    def learn(self, X, targets, order, predictions, weights=None):
        order = np.ascontiguousarray(order, dtype=np.int64)
        if predictions is not None and predictions.shape[0] == 0:
            predictions = None
        if weights is None:
            with refused_rows_named(X, self.config["name"]):
                counted = self._pass(X, targets, order, predictions, 1.0)
            self._count(order.shape[0], *counted)
            return
        check_weighted_rows(X, self.config["name"])
        with np.errstate(over="ignore"):  # (an infinite product is refused by name below)
            self._check_gradients(weights * row_norms(X))

        def row(i, weight):
            return self._row(*weighted_pass.row_entries(X, i), targets[i], weight)

        self._count(order.shape[0], *weighted_pass.play(
            X, targets, order, weights, predictions,
            lambda part, part_predictions, weight: self._pass(X, targets, part,
                                                              part_predictions, weight),
            row))

    def learn_row(self, idx, vals, label, weight=1.0, dense=False):
        if weight != 1.0:
            self._check_gradients(np.array([weight * np.linalg.norm(vals)]))
        predicted, updated = self._row(idx, vals, label, weight)
        self._count(1, predicted != label, updated)
        return predicted

    def _check_gradients(self, sizes):
        """Refuse (before any round) rows whose weight times norm, which bounds their
        gradient's norm, is at least :data:`LARGEST_WEIGHTED_NORM`: the squares it adds to the
        accumulators would overflow."""
        bad = np.flatnonzero(~(sizes < LARGEST_WEIGHTED_NORM))
        if bad.shape[0]:
            raise ValueError(f"{self.config['name']}: row {bad[0]}'s example weight times its "
                             f"norm is {sizes[bad[0]]:.3g}, at least {LARGEST_WEIGHTED_NORM:.0e}: "
                             "the squared gradients would overflow. Rescale the weights or "
                             "the rows.")

    def pass_can_fail(self, n_rows):
        # a round whose score is not finite stops the pass with the rounds before it taken
        return n_rows > 1

    def grow_outputs(self, n_outputs, where):
        """New classes: zero weights and zero accumulated gradients (what a class that was in
        no past round's gradient holds); the binary learner (one output) cannot."""
        if getattr(self, self._per_output[0]).shape[1] == 1:
            raise ValueError(f"{self.config['name']} learns two classes with one weight vector "
                             "(the binary learner): a third class would change what every "
                             "weight means. Give every class from the start.")
        for name in self._per_output:
            array = getattr(self, name)
            grown = np.zeros((array.shape[0], n_outputs))
            grown[:, where] = array
            setattr(self, name, grown)
        self.grow_averaging_outputs(n_outputs, where)

    def grow_features(self, n_features, old):
        """New features: zero weights and zero accumulated gradients, which is what a model
        started that wide holds (every past row was 0 there: no gradient)."""
        added = n_features - getattr(self, self._per_output[0]).shape[0]
        for name in self._per_output:
            setattr(self, name, np.ascontiguousarray(
                np.insert(getattr(self, name), [old] * added, 0.0, axis=0)))
        self.grow_averaging_features(n_features, old)
        self._grow_more(added, old)

    def _grow_more(self, added, old):
        """(AdaGrad: the new features' regularization is up to date.)"""

    def specs(self, n_outputs, n_features):
        arrays = {name: ((n_features, n_outputs), np.float64) for name in self._per_output}
        return {**arrays, **super().specs(n_outputs, n_features),
                **self.averaging_specs(n_outputs, n_features)}

    def check(self):
        """The counters' order; the accumulated squares not negative; the averaging sums'."""
        super().check()
        if np.any(self.__dict__[self._squares] < 0.0):
            raise ValueError(f"_{self._squares}: sums of squared gradients must be ≥ 0.")
        self.check_averaging()

    def coefficients(self):
        """W, or with ``average`` the averaged weights (:mod:`onlinear.models.averaging`)."""
        return self.averaged_hypothesis(self.weights)

    def probabilities(self, X):
        """Class probabilities of the logistic loss: softmax of the scores (one output:
        the sigmoid of its score for ``classes_[1]``); ``ValueError`` naming a row whose
        scores are not finite (:meth:`scores`)."""
        try:
            return adaptive.predict_proba(self.coefficients(), X)
        except ValueError as error:  # (scores that are not finite: the row named, below)
            refused = error
        self.scores(X)
        raise refused


class AdaGradModel(_Adaptive):
    """Weights, squared-gradient sums and the lazy regularization clock of diagonal AdaGrad
    (module doc).

    Parameters
    ----------
    config : dict
        ``loss``, ``eta``, ``delta``, ``l1``, ``l2``, ``average`` and ``name`` (module doc).
    """

    array_names = ("weights", "squares", "last", "clock", "counts")
    _per_output = ("weights", "squares")
    _squares = "squares"
    _options = ("loss", "eta", "delta", "l1", "l2")

    def start(self, n_outputs, n_features):
        self.weights, self.squares, self.last, self.clock = adaptive.adagrad_state(
            n_features, n_outputs)
        self.start_averaging()

    def specs(self, n_outputs, n_features):
        return {**super().specs(n_outputs, n_features),
                "last": ((n_features,), np.int64), "clock": ((1,), np.int64)}

    def check(self):
        """As every adaptive model's, and each feature's regularization clock within the
        rounds seen."""
        super().check()
        if self.clock[0] < 0 or np.any(self.last < 0) or np.any(self.last > self.clock[0]):
            raise ValueError("_last: a feature's rounds of regularization must lie in "
                             "[0, clock].")

    def _grow_more(self, added, old):
        self.last = np.insert(self.last, [old] * added, self.clock[0])

    def _make_round(self, exponent):
        return adaptive.AdaptiveRound("adagrad", (self.weights, self.squares, self.last,
                                                  self.clock), self.counts,
                                      exponent=exponent, **self._keywords(),
                                      **self.averaging_keywords())

    def _pass(self, X, targets, order, predictions, weight):
        return adaptive.adagrad_pass(X, targets, order, self.weights, self.squares, self.last,
                                     self.clock, predictions, weight=weight,
                                     **self._keywords(), **self.averaging_keywords())

    def _row(self, idx, vals, label, weight):
        return adaptive.adagrad_row(idx, vals, label, self.weights, self.squares, self.last,
                                    self.clock, weight=weight, **self._keywords(),
                                    **self.averaging_keywords())

    def coefficients(self):
        """The weights of Algorithm 1 at the rounds seen: the regularization steps deferred
        while a feature was absent from the rows are taken first (O(d·K), a no-op without
        ``l1`` and ``l2``); with ``average`` the averaged weights (the deferred steps' share of
        the sums taken first)."""
        if not (self.config["l1"] or self.config["l2"]):
            return self.averaged_hypothesis(self.weights)  # (nothing deferred)
        arrays = self._caught_up(copy=not all(
            array.flags.writeable for array in self._lazy_arrays()))  # (read-only: a copy)
        if not self.averages:
            return arrays[0]
        return averaged(arrays[0], arrays[4], self.avg_rounds, self.count("seen"))

    def _lazy_arrays(self):
        names = ("weights", "squares", "last", "clock") + (("avg_acc",) if self.averages else ())
        return [getattr(self, name) for name in names]

    def _caught_up(self, copy):
        """The arrays of :meth:`_lazy_arrays` with every deferred step taken under the
        configuration in use (in place, or on copies)."""
        arrays = [array.copy() if copy else array for array in self._lazy_arrays()]
        keywords = self._keywords()
        keywords.pop("loss")
        adaptive.adagrad_catch_up(*arrays[:4], **keywords,
                                  **({"avg_acc": arrays[4], "avg_rounds": self.avg_rounds}
                                     if self.averages else {}))
        return arrays

    def __setattr__(self, name, value):
        old = self.__dict__.get("config")
        if (name == "config" and old is not None and "weights" in self.__dict__
                and (old["l1"], old["l2"]) != (value["l1"], value["l2"])
                and all(array.flags.writeable for array in self._lazy_arrays())):
            # l1 or l2 set on a started model applies from the next round: the steps deferred
            # so far are taken under the old values, and every feature's clock starts now (an
            # unregularized pass leaves the clocks where they were, and the first read under
            # a new l1 would otherwise regularize every round since: a read changing weights)
            self._caught_up(copy=False)
            self.last[:] = self.clock[0]
        super().__setattr__(name, value)

    def predict_row(self, idx, vals, dense=False):
        """As the protocol's; a regularized model's deferred steps taken first
        (:meth:`coefficients`)."""
        if self.config["l1"] or self.config["l2"]:
            return Model.predict_row(self, idx, vals, dense)
        return super().predict_row(idx, vals, dense)


class FTRLModel(_Adaptive):
    """Weights and the per-coordinate (z, n) of FTRL-Proximal (module doc).

    Parameters
    ----------
    config : dict
        ``loss``, ``alpha``, ``beta``, ``l1``, ``l2``, ``average`` and ``name`` (module doc).
    """

    array_names = ("weights", "z", "n", "counts")
    _per_output = ("weights", "z", "n")
    _squares = "n"
    _options = ("loss", "alpha", "beta", "l1", "l2")

    def start(self, n_outputs, n_features):
        self.weights, self.z, self.n = adaptive.ftrl_state(n_features, n_outputs)
        self.start_averaging()

    def _pass(self, X, targets, order, predictions, weight):
        return adaptive.ftrl_pass(X, targets, order, self.weights, self.z, self.n, predictions,
                                  weight=weight, **self._keywords(),
                                  **self.averaging_keywords())

    def _make_round(self, exponent):
        return adaptive.AdaptiveRound("ftrl", (self.weights, self.z, self.n), self.counts,
                                      exponent=exponent, **self._keywords(),
                                      **self.averaging_keywords())

    def check(self):
        """As every adaptive model's, and each weight where Algorithm 1 leaves it: a
        coordinate's step sets w = −sign(z)·(|z| − λ1)₊/((β + √n)/α + λ2), of the sign opposite
        to z's or 0, and z changes only at that coordinate's next step; a coordinate never
        stepped (n = 0) has w = 0.  (Not w = f(z, n) itself: ``alpha``, ``beta``, ``l1`` and
        ``l2`` may be set while learning and apply from the next step, so a coordinate's w is
        that of the values of its last step.)"""
        super().check()
        if np.any(np.sign(self.weights) * np.sign(self.z) > 0.0):
            raise ValueError("_weights: a weight has the sign of its z; FTRL-Proximal's step "
                             "gives it the opposite sign or 0.")
        if np.any((self.n == 0.0) & (self.weights != 0.0)):
            raise ValueError("_weights: a weight is not 0 where n = 0 (a coordinate never "
                             "stepped).")

    def _row(self, idx, vals, label, weight):
        return adaptive.ftrl_row(idx, vals, label, self.weights, self.z, self.n, weight=weight,
                                 **self._keywords(), **self.averaging_keywords())
