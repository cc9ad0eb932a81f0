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
``"per-class"`` a full A⁻¹ per output, O(d·nnz + d²) an update, by the rank-one step taken
as the Gaussian engine's congruence, A⁻¹ ← BA⁻¹Bᵀ with B = I − γ(A⁻¹x)xᵀ and 1 − βχ =
r/(r + χ) (β = 1/(r + χ)), held at its floor (:mod:`onlinear._core.confidence`).  It leaves
xᵀA⁻¹x = 1/b, but along the direction of a row far larger than the rest (‖x‖² ≫ 1/a) the
variance, a/(1 + a‖x‖²b) there, falls below the rounding of A⁻¹'s largest entries: the plain
subtraction took it to exactly 0 (the model froze along x), the congruence keeps it.

``variant="libol"`` plays LIBOL's ``NAROW.m`` instead (full A⁻¹ only): AROW's step with r_t
in place of r — on a hinge loss ℓ = max(0, 1 − z·w·x) > 0 with r_t < ∞, w += ℓ/(χ + r_t)·z·A⁻¹x
and the same rank-one shrink — and no update at all while r_t = ∞ (θ unused).

Arrays: the Gaussian model's (``mean`` = w, ``covariance`` = A⁻¹, ``prior`` = a, ``repairs``,
unused here, ``counts``, with ``average`` the sums of the averaged w) and ``theta`` (θ, ``(n_features, n_outputs)``).  The rounds are
compiled (:func:`onlinear._core.confidence.narow_pass`, ``narow_row`` and ``NarowRound`` for
``learn_one``): a full A⁻¹ is stepped on its upper triangle and mirrored, so it stays
symmetric bit for bit.
"""
import numpy as np

from .._core import confidence
from .._core.counters import MISTAKES, SEEN, UPDATES
from .gaussian import GaussianModel
from .row_checks import refused_rows_named


class NAROWModel(GaussianModel):
    """θ, w and A⁻¹ of NAROW (module doc).

    Parameters
    ----------
    config : dict
        ``b``, ``layout`` (``"diagonal"`` or ``"per-class"``), ``a``, ``min_variance`` (0:
        the Gaussian model's checks), ``average`` and ``name``.
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

    def _options(self):
        config = self.config
        return {"b": config["b"], "layout": config["layout"], "variant": config["variant"],
                "prior": float(self.prior[0]), **self.averaging_keywords()}

    def learn(self, X, targets, order, predictions, weights=None):
        if weights is not None:
            raise ValueError(f"{self.config['name']} takes no example weights.")
        if predictions is not None and predictions.shape[0] == 0:
            predictions = None
        order = np.ascontiguousarray(order, dtype=np.int64)
        with refused_rows_named(X, self.config["name"]):
            counted = confidence.narow_pass(X, targets, order, self.mean, self.covariance,
                                            self.theta, predictions, **self._options())
        self._count(order.shape[0], *counted)

    def learn_row(self, idx, vals, label, weight=1.0, dense=False):
        if weight != 1.0:
            raise ValueError(f"{self.config['name']} takes no example weights.")
        predicted, updated = confidence.narow_row(idx, vals, label, self.mean, self.covariance,
                                                  self.theta, **self._options())
        self._count(1, predicted != label, updated)
        return predicted

    def _make_round(self, exponent):
        return confidence.NarowRound(self.mean, self.covariance, self.theta, self.counts,
                                     exponent=exponent, **self._options())

    def _count(self, rounds, mistakes, updates):
        self.counts[SEEN] += rounds
        self.counts[MISTAKES] += mistakes
        self.counts[UPDATES] += updates
