"""Diagonal AdaGrad in its primal-dual form (Duchi, Hazan & Singer, "Adaptive Subgradient
Methods for Online Learning and Stochastic Optimization", JMLR 12, 2011, Algorithm 1 with
diagonal matrices and the regularized dual averaging (RDA) update): the weights minimise the
average gradient's linear term, the regularizer and the adaptive proximal term around 0,

    w_{t+1} = argmin_w  η·ḡ_t·w + η(λ1|w| + λ2 w²/2) + (1/2t)·H_t w²,   ḡ_t = (1/t)Σ_{τ≤t} g_τ,

per coordinate (H = δ + √G, G the sum of squared gradients, the current one included)::

    w = −η·sign(u)·[|u| − λ1·t]₊ / (H + ηλ2·t),    u = Σ_{τ≤t} g_τ = t·ḡ

(the paper's update numbers are not quoted: they were not checked against its text).  t counts
every round, those with no gradient included (ḡ averages over them).  The weights are closed
functions of (u, G, t): they are computed where they are read — a row's non-zeros in a round,
O(K·non-zeros), every feature for ``coef_`` — and never stored, so a feature absent from the
rows needs no catch-up.

Arrays (``(n_features, n_outputs)`` float64 unless said): ``sums`` (u), ``squares`` (G),
``clock`` (int64, (1,): t), ``counts``; with ``average``, ``avg_sums`` (each feature's sums of
the weights after every round, through round ``avg_last[j]``) and ``avg_last`` (int64,
(n_features,)): the averaged weights (1/t)·Σ_{τ=1}^t w_τ close each feature's sums through the
rounds seen in closed form (:func:`onlinear._core.adaptive.rda_average`), since with a
regularizer every weight moves every round.  The rounds are compiled
(:func:`onlinear._core.adaptive.rda_pass`, ``rda_row`` and ``AdaptiveRound("rda", ...)`` for
``learn_one``).  Losses and example weights as the mirror-descent model's
(:mod:`onlinear.models.adaptive`).
"""
import numpy as np

from .._core import adaptive
from .adaptive import _Adaptive
from .protocol import Model


class DualAdaGradModel(_Adaptive):
    """Gradient sums, squared-gradient sums and the round count of AdaGrad's RDA form (module
    doc).

    Parameters
    ----------
    config : dict
        ``loss``, ``eta``, ``delta``, ``l1``, ``l2``, ``average`` and ``name``.
    """

    array_names = ("sums", "squares", "clock", "counts")
    _per_output = ("sums", "squares")
    _squares = "squares"
    _options = ("loss", "eta", "delta", "l1", "l2")
    # (its own sums, not the primal convention's avg_acc and avg_rounds: module doc)
    averaging_arrays = ("avg_sums", "avg_last")
    averaging_sums_name = "avg_sums"

    def start(self, n_outputs, n_features):
        self.sums = np.zeros((n_features, n_outputs))
        self.squares = np.zeros((n_features, n_outputs))
        self.clock = np.zeros(1, np.int64)
        self.start_averaging()

    def start_averaging(self):
        if self.averages:
            self.avg_sums = np.zeros_like(self.sums)
            self.avg_last = np.zeros(self.sums.shape[0], np.int64)

    def averaging_specs(self, n_outputs, n_features):
        if not self.averages:
            return {}
        return {"avg_sums": ((n_features, n_outputs), np.float64),
                "avg_last": ((n_features,), np.int64)}

    def averaging_keywords(self):
        if not self.averages:
            return {}
        return {"avg_sums": self.avg_sums, "avg_last": self.avg_last}

    def close_rounds(self, rounds):
        """(Every round, of weight 0 too, is a compiled one: it moves t, which the sums read.)"""

    def check_averaging(self):
        """The sums finite, each feature's reaching a round within [0, t]."""
        if not self.averages:
            return
        if not np.all(np.isfinite(self.avg_sums)):
            raise ValueError("_avg_sums: the averaging sums must be finite.")
        if np.any(self.avg_last < 0) or np.any(self.avg_last > self.clock[0]):
            raise ValueError("_avg_last: each feature's averaging sums must reach a round in "
                             "[0, clock].")

    def grow_averaging_features(self, n_features, old):
        """New features: zero sums, through the rounds seen (their weights were 0 there)."""
        if self.averages:
            added = n_features - self.avg_sums.shape[0]
            self.avg_last = np.insert(self.avg_last, [old] * added, self.clock[0])
        super().grow_averaging_features(n_features, old)

    def specs(self, n_outputs, n_features):
        return {**super().specs(n_outputs, n_features), "clock": ((1,), np.int64)}

    def check(self):
        """As every adaptive model's, and the round count not negative."""
        if self.clock[0] < 0:
            raise ValueError("_clock: the number of rounds must be ≥ 0.")
        super().check()

    def predict_row(self, idx, vals, dense=False):
        """From :meth:`coefficients` (the averaged weights with ``average``)."""
        return Model.predict_row(self, idx, vals, dense)

    def coefficients(self):
        """The RDA weights of every coordinate at the rounds seen (module doc; the compiled
        rounds compute the same for a row's non-zeros); with ``average``, the mean of the
        weights after every round (:func:`onlinear._core.adaptive.rda_average`)."""
        config = self.config
        if self.averages:
            keywords = self._keywords()
            keywords.pop("loss")
            return adaptive.rda_average(self.sums, self.squares, self.clock, self.avg_sums,
                                        self.avg_last, **keywords)
        t = float(self.clock[0])
        scale = config["delta"] + np.sqrt(self.squares) + config["eta"] * config["l2"] * t
        shrunk = np.sign(self.sums) * np.maximum(np.abs(self.sums) - config["l1"] * t, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            weights = -config["eta"] * shrunk / scale
        return np.where(scale > 0.0, weights, 0.0)  # (never a gradient, δ = 0: w = 0)

    def _make_round(self, exponent):
        state = (self.sums, self.squares, self.clock)
        if self.averages:
            state += (self.avg_sums, self.avg_last)
        return adaptive.AdaptiveRound("rda", state, self.counts, exponent=exponent,
                                      **self._keywords())

    # ------------------------------------------------------------------ learning
    def _pass(self, X, targets, order, predictions, weight):
        return adaptive.rda_pass(X, targets, order, self.sums, self.squares, self.clock,
                                 predictions, weight=weight, **self._keywords(),
                                 **self.averaging_keywords())

    def _row(self, idx, vals, label, weight):
        return adaptive.rda_row(idx, vals, label, self.sums, self.squares, self.clock,
                                weight=weight, **self._keywords(), **self.averaging_keywords())
