"""The NAROW model (Orabona & Crammer, "New Adaptive Algorithms for Online Classification",
NIPS 2010): a Perceptron-like sum θ and a second-order matrix A whose increments x xᵀ/r_t come
with an adaptive r_t, infinite (no increment) while the example's variance χ = xᵀA⁻¹x is at
most 1/b.

Per output (binary, or one-vs-rest with label z = ±1), on a row x (the LIBOL manual's
Algorithm 11, which is the algorithm of F. Orabona's DOGMA toolbox)::

    χ = xᵀA⁻¹x ;  r = χ/(bχ − 1) if χ > 1/b, else r = ∞
    f = (w·x)·r/(χ + r)                      (= xᵀ(A + xxᵀ/r)⁻¹θ; f = w·x when r = ∞)
    if z·f < 1:  θ ← θ + z·x ;  A⁻¹ ← A⁻¹ − (A⁻¹x)(A⁻¹x)ᵀ/(r + χ) (r < ∞) ;  w ← A⁻¹θ

with θ = 0, A⁻¹ = a·I at the start.  ``"diagonal"`` keeps A⁻¹ = diag(σ), σ_j ←
1/(1/σ_j + x_j²/r) (the diagonal of the updated A), w_j = σ_j θ_j: O(non-zeros) a round;
``"per-class"`` a full A⁻¹ per output, O(d·nnz + d²) an update, by the plain rank-one
subtraction: it leaves the variance along x at xᵀA⁻¹x = χ·(1 − χ/(r + χ)) = 1/b, so it does not
cancel towards 0 as NHERD's does with a large C.

``variant="libol"`` plays LIBOL's ``NAROW.m`` instead (full A⁻¹ only): AROW's step with r_t
in place of r — on a hinge loss ℓ = max(0, 1 − z·w·x) > 0 with r_t < ∞, w += ℓ/(χ + r_t)·z·A⁻¹x
and the same rank-one shrink — and no update at all while r_t = ∞ (θ unused).

Arrays: the Gaussian model's (``mean`` = w, ``covariance`` = A⁻¹, ``prior`` = a, ``repairs``,
unused here, ``counts``) and ``theta`` (θ, ``(n_features, n_outputs)``).  The rounds run in
Python (numpy per round), not compiled: this learner has no compiled engine yet.
"""
import numpy as np

from .._core.counters import MISTAKES, SEEN, UPDATES
from . import weighted_pass
from .gaussian import GaussianModel


class NAROWModel(GaussianModel):
    """θ, w and A⁻¹ of NAROW (module doc).

    Parameters
    ----------
    config : dict
        ``b``, ``layout`` (``"diagonal"`` or ``"per-class"``), ``a``, ``min_variance`` (0:
        the Gaussian model's checks) and ``name``.
    """

    array_names = ("mean", "theta", "covariance", "prior", "repairs", "counts")
    mixing_refusal = ("its model is a sum θ and a second-order matrix of its own run; the "
                      "average of several runs' is not one any run reached, and no mixing rule "
                      "with a guarantee is known for it")

    def start(self, n_outputs, n_features):
        super().start(n_outputs, n_features)
        self.theta = np.zeros_like(self.mean)

    def specs(self, n_outputs, n_features):
        return {**super().specs(n_outputs, n_features),
                "theta": ((n_features, n_outputs), np.float64)}

    def check(self):
        """The Gaussian model's invariants, and θ finite (w = A⁻¹θ is what predicts)."""
        super().check()
        if not np.all(np.isfinite(self.theta)):
            raise ValueError("_theta: the sum θ must be finite.")

    def grow_outputs(self, n_outputs, where):
        """New classes: θ = w = 0, A⁻¹ = a·I (the Gaussian model's)."""
        super().grow_outputs(n_outputs, where)
        theta = np.zeros((self.theta.shape[0], n_outputs))
        theta[:, where] = self.theta
        self.theta = theta

    def grow_features(self, n_features, old):
        """New features: θ = w = 0 and variance a, what a model started that wide holds."""
        added = n_features - self.theta.shape[0]
        super().grow_features(n_features, old)
        self.theta = np.ascontiguousarray(np.insert(self.theta, [old] * added, 0.0, axis=0))

    # ------------------------------------------------------------------ learning
    def pass_can_fail(self, n_rows):
        return n_rows > 1  # (a row whose score is not finite stops the pass)

    def learn(self, X, targets, order, predictions, weights=None):
        if weights is not None:
            raise ValueError(f"{self.config['name']} takes no example weights.")
        if predictions is not None and predictions.shape[0] == 0:
            predictions = None
        self._count(len(order), *weighted_pass.play_rows(X, targets, order, predictions,
                                                         self._play))

    def learn_row(self, idx, vals, label, weight=1.0, dense=False):
        if weight != 1.0:
            raise ValueError(f"{self.config['name']} takes no example weights.")
        idx = np.asarray(idx, dtype=np.int64)
        vals = np.asarray(vals, dtype=np.float64)
        keep = vals != 0.0  # (a dense row's zeros: the round is that of its non-zeros)
        predicted, updated = self._play(idx[keep], vals[keep], int(label))
        self._count(1, predicted != label, updated)
        return predicted

    def _make_round(self, exponent):
        return None  # (no compiled round: learn_one takes the general path)

    def _count(self, rounds, mistakes, updates):
        self.counts[SEEN] += rounds
        self.counts[MISTAKES] += mistakes
        self.counts[UPDATES] += updates

    def _libol_step(self, k, z, score, chi, r, step):
        """LIBOL's ``NAROW.m`` round on output k (module doc); whether it updated."""
        loss = max(0.0, 1.0 - z * score)
        if not (loss > 0.0 and np.isfinite(r)):
            return False
        beta = 1.0 / (chi + r)
        self.mean[:, k] += loss * beta * z * step
        self.covariance[k] -= beta * np.outer(step, step)
        return True

    def _play(self, idx, vals, label):
        """One round on the non-zeros ``vals`` at ``idx``: ``(predicted, updated)``; raises
        ValueError before changing anything when a score or χ is not finite."""
        K = self.mean.shape[1]
        diagonal = self.config["layout"] == "diagonal"
        scores = vals @ self.mean[idx]
        if diagonal:
            steps = self.covariance[idx] * vals[:, None]  # (A⁻¹x)_j per output
            chis = vals @ steps
        else:
            steps = np.stack([matrix[:, idx] @ vals for matrix in self.covariance], axis=1)
            chis = vals @ steps[idx]
        if not (np.all(np.isfinite(scores)) and np.all(np.isfinite(chis))):
            raise ValueError("a score or the variance xᵀA⁻¹x is not finite (NaN or infinite "
                             "values, or a row too large: rescale the input)")
        predicted = int(scores[0] > 0.0) if K == 1 else int(np.argmax(scores))
        b = self.config["b"]
        updated = False
        for k in range(K):
            z = (1.0 if label == 1 else -1.0) if K == 1 else (1.0 if k == label else -1.0)
            chi = float(chis[k])
            if not chi > 0.0:  # a zero row: no step (its θ increment is 0 anyway)
                continue
            grows = chi * b > 1.0
            r = chi / (b * chi - 1.0) if grows else np.inf
            if self.config["variant"] == "libol":
                updated |= self._libol_step(k, z, float(scores[k]), chi, r, steps[:, k])
                continue
            margin = z * float(scores[k]) * (r / (chi + r) if grows else 1.0)
            if not margin < 1.0:
                continue
            updated = True
            self.theta[idx, k] += z * vals
            if diagonal:
                if grows:
                    sig = self.covariance[idx, k]
                    self.covariance[idx, k] = sig / (1.0 + sig * vals * vals / r)
                self.mean[idx, k] = self.covariance[idx, k] * self.theta[idx, k]
                continue
            if grows:
                self.covariance[k] -= np.outer(steps[:, k], steps[:, k]) / (r + chi)
            self.mean[:, k] = self.covariance[k] @ self.theta[:, k]
        return predicted, updated
