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
``clock`` (int64, (1,): t), ``counts``.  The rounds run in Python (numpy per round), not
compiled.  Losses and example weights as the mirror-descent model's
(:mod:`onlinear.models.adaptive`).
"""
import numpy as np

from .adaptive import _Adaptive
from .weighted_pass import play_rows


class DualAdaGradModel(_Adaptive):
    """Gradient sums, squared-gradient sums and the round count of AdaGrad's RDA form (module
    doc).

    Parameters
    ----------
    config : dict
        ``loss``, ``eta``, ``delta``, ``l1``, ``l2`` and ``name``.
    """

    array_names = ("sums", "squares", "clock", "counts")
    _per_output = ("sums", "squares")
    _squares = "squares"
    _options = ("loss", "eta", "delta", "l1", "l2")

    def start(self, n_outputs, n_features):
        self.sums = np.zeros((n_features, n_outputs))
        self.squares = np.zeros((n_features, n_outputs))
        self.clock = np.zeros(1, np.int64)

    def specs(self, n_outputs, n_features):
        return {**super().specs(n_outputs, n_features), "clock": ((1,), np.int64)}

    def check(self):
        """As every adaptive model's, and the round count not negative."""
        super().check()
        if self.clock[0] < 0:
            raise ValueError("_clock: the number of rounds must be ≥ 0.")

    def _weights(self, sums, squares):
        """The RDA weights of the coordinates whose sums and squares are given (module doc)."""
        config = self.config
        t = float(self.clock[0])
        scale = config["delta"] + np.sqrt(squares) + config["eta"] * config["l2"] * t
        shrunk = np.sign(sums) * np.maximum(np.abs(sums) - config["l1"] * t, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            weights = -config["eta"] * shrunk / scale
        return np.where(scale > 0.0, weights, 0.0)  # (never a gradient, δ = 0: w = 0)

    def coefficients(self):
        return self._weights(self.sums, self.squares)

    def _make_round(self, exponent):
        return None  # (no compiled round: learn_one takes the general path)

    # ------------------------------------------------------------------ learning
    def _pass(self, X, targets, order, predictions, weight):
        return play_rows(X, targets, order, predictions,
                         lambda idx, vals, label: self._row(idx, vals, label, weight))

    def _row(self, idx, vals, label, weight):
        """One round: ``(predicted, updated)``; raises ValueError, changing nothing, on a score
        that is not finite."""
        idx = np.asarray(idx, dtype=np.int64)
        vals = np.asarray(vals, dtype=np.float64)
        scores = vals @ self._weights(self.sums[idx], self.squares[idx])
        if not np.all(np.isfinite(scores)):
            raise ValueError("a score is not finite (NaN or infinite values, or a row too "
                             "large: rescale the input)")
        gamma, predicted = _coefficients(scores, label, self.config["loss"])
        gamma = gamma * weight
        self.clock[0] += 1
        updated = bool(np.any(gamma != 0.0) and np.any(vals != 0.0))
        if updated:
            gradient = np.outer(vals, gamma)
            self.sums[idx] += gradient
            self.squares[idx] += gradient * gradient
        return predicted, updated


def _coefficients(scores, label, loss):
    """``(γ, predicted)``: the loss's subgradient rows are γ_k·x, and the index predicted —
    the conventions of :mod:`onlinear._core.adaptive` (binary: +1 on a score > 0; ties to the
    lowest index; the support class s* the first largest wrong score)."""
    K = scores.shape[0]
    gamma = np.zeros(K)
    if K == 1:
        z = 1.0 if label == 1 else -1.0
        if loss == "hinge":
            gamma[0] = -z if 1.0 - z * scores[0] > 0.0 else 0.0
        else:
            gamma[0] = -z * np.exp(-np.logaddexp(0.0, z * scores[0]))
        return gamma, int(scores[0] > 0.0)
    predicted = int(np.argmax(scores))
    if loss == "hinge":
        wrong = scores.copy()
        wrong[label] = -np.inf
        support = int(np.argmax(wrong))
        if 1.0 - scores[label] + scores[support] > 0.0:
            gamma[label], gamma[support] = -1.0, 1.0
        return gamma, predicted
    exponentials = np.exp(scores - scores[predicted])
    gamma = exponentials / exponentials.sum()
    gamma[label] -= 1.0
    return gamma, predicted
