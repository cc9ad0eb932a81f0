"""The metric model: a centre w and a positive-definite metric P per class, learned by the
ellipsoid engine (:mod:`onlinear._core.ellipsoid`) — CELLIP and IELLIP of Yang, Jin & Ye
(ICML 2009), Algorithms 1 and 2.

Arrays (the members of a saved file are these names with a leading underscore):

* ``weights`` — the centres, ``(n_features, n_outputs)`` float64, feature-major;
* ``metric`` — P: ``(n_outputs, n_features)`` diagonals (``DIAGONAL``), ``(n_outputs·d, d)``
  stacked d×d blocks, one per output (``FULL``), or one ``(K·d, K·d)`` matrix over the
  stacked weight vector (``STACKED``, the paper's multiclass form, §2.4);
* ``state`` — rows: the weights' scale (always 1: no ellipsoid step rescales w), the diagonal
  layout's lazy factor, the updates each ellipsoid made (IELLIP's ``decay="updates"``);
* ``counts`` — examples seen, mistakes, updates.

The configuration (from the estimator): ``params`` (the engine's parameter vector, fields
``onlinear._core.ellipsoid.PARAMETERS``), ``layout`` (``FULL``, ``DIAGONAL``, ``STACKED``),
``p1`` (the scale of P_1 = p1·I), ``centre`` (None for w_1 = 0, or ``{"scale", "random_state"}``
for w_1 drawn from N(0, scale²)), ``raise_mode`` (the ``mode`` that stops a pass on an
infeasible cut), and the estimator's ``name`` and reasons for refusing to grow, for messages.
"""
import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._core import ellipsoid as ee
from .._core.counters import NO_PREDICTIONS
from .._core.rows import csr_arrays, read_only_rows
from ..rules.layout import SCALE
from .invariants import check_positive_definite
from .protocol import Model
from .row_checks import raise_refused_row

# (onlinear.estimators.checks is imported where it is used: at the top, it would import the
# estimators package, which imports this module)


class MetricModel(Model):
    """Centres and metrics of the ellipsoid methods (module doc).

    Parameters
    ----------
    config : dict
        ``params``, ``layout``, ``p1``, ``centre`` and ``name`` (module doc).
    """

    array_names = ("weights", "metric", "state", "counts")
    mixing_refusal = ("an ellipsoid method's model carries a metric, and the average of the "
                      "metrics of several runs is not the metric of any run")

    def memory(self, n_outputs, n_features):
        """The metric's bytes (the weights' are fewer), named as the metric."""
        layout = self.config["layout"]
        size = (n_outputs * n_features) ** 2 if layout == ee.STACKED else \
            n_outputs * n_features ** 2 if layout != ee.DIAGONAL else n_outputs * n_features
        return 8 * size, (f"its metric ({size:,} float64 values: {n_features:,} features, "
                          f"{n_outputs:,} outputs)")

    def start(self, n_outputs, n_features):
        layout, p1 = self.config["layout"], self.config["p1"]
        self.weights = np.zeros((n_features, n_outputs))
        self.state = np.zeros((ee.N_STATE_ROWS, n_outputs))
        self.state[SCALE] = 1.0
        if layout == ee.DIAGONAL:
            self.metric = np.ones((n_outputs, n_features))
            self.state[ee.DIAGONAL_SCALE] = p1
        elif layout == ee.STACKED:
            self.metric = p1 * np.eye(n_outputs * n_features)
        else:
            self.metric = np.tile(p1 * np.eye(n_features), (n_outputs, 1))
        centre = self.config.get("centre")
        if centre is not None:  # IELLIP's w_init="random": around the origin, as its §3 does
            rng = check_random_state(centre["random_state"])
            self.weights[:] = rng.normal(0.0, centre["scale"], self.weights.shape)

    #: the ``matrix`` hyperparameter's name of each layout
    LAYOUT_NAMES = {ee.DIAGONAL: "diagonal", ee.FULL: "per-class", ee.STACKED: "stacked"}

    def started_form(self):
        """The layout of the metric (its shape says: ``fit`` changes it)."""
        return {"matrix": self.LAYOUT_NAMES[self.layout_held()]}

    def form_held_for(self, name, value):
        """``matrix="stacked"`` of a binary model is its one full matrix."""
        if name == "matrix" and value == "stacked" and self.weights.shape[1] == 1:
            return "per-class"
        return value

    def keep_started(self, config):
        """The layout of the metric held."""
        if "metric" in self.__dict__:
            config = {**config, "layout": self.layout_held()}
        return config

    def layout_held(self):
        """The layout (``ee.DIAGONAL``, ``ee.FULL``, ``ee.STACKED``) of the metric the model
        holds, read from its shape (a single feature's shapes coincide: the configuration's)."""
        d, K = self.weights.shape
        shape = self.metric.shape
        if d > 1 and shape == (K, d):
            return ee.DIAGONAL
        if d > 1 and K > 1 and shape == (K * d, K * d):
            return ee.STACKED
        return self.config["layout"] if d <= 1 else ee.FULL

    def specs(self, n_outputs, n_features):
        shape = {ee.DIAGONAL: (n_outputs, n_features),
                 ee.STACKED: (n_outputs * n_features, n_outputs * n_features)}.get(
                     self.config["layout"], (n_outputs * n_features, n_features))
        return {"weights": ((n_features, n_outputs), np.float64),
                "metric": (shape, np.float64),
                "state": ((ee.N_STATE_ROWS, n_outputs), np.float64),
                **super().specs(n_outputs, n_features)}

    def check(self):
        """The counters' order, and the ellipsoid engine's store: ``w``'s scale 1, its norm
        finite; the metric positive definite — the diagonal layout's entries positive under
        a positive lazy factor, each full block symmetric with a Cholesky factor (every step
        keeps ``P`` positive definite: Yang, Jin & Ye, Eqs. (10)–(11)); whole update counts."""
        super().check()
        if np.any(self.state[SCALE] != 1.0):
            raise ValueError("_state: the weights' scale of an ellipsoid model is 1 (no step "
                             "rescales w).")
        with np.errstate(over="ignore", invalid="ignore"):
            if not np.isfinite(np.einsum("jr,jr->", self.weights, self.weights)):
                raise ValueError("_weights: the weights' norm overflows (weights too large "
                                 "for the engine).")
        if self.config["layout"] == ee.DIAGONAL:
            if not np.all(self.metric > 0.0):
                raise ValueError("_metric: a diagonal metric's entries must be positive (the "
                                 "engine's metrics are positive definite).")
            if not np.all(self.state[ee.DIAGONAL_SCALE] > 0.0):
                raise ValueError("_state: a diagonal metric's lazy factor must be positive.")
        else:
            d = self.metric.shape[1]
            check_positive_definite("_metric", self.metric.reshape(-1, d, d))
        made = self.state[ee.UPDATES_MADE]
        if np.any(made < 0) or np.any(made != np.floor(made)):
            raise ValueError("_state: the updates of an ellipsoid (row 2) must be whole numbers "
                             "≥ 0.")

    def grow_outputs(self, n_outputs, where):
        raise ValueError(f"{self.config['name']} cannot add classes: "
                         f"{self.config['no_new_classes']}. Give every class from the start.")

    def grow_features(self, n_features, old):
        raise ValueError(f"{self.config['name']} cannot grow new features: "
                         f"{self.config['no_new_features']}. Fix the number of features in "
                         "advance.")

    def pass_can_fail(self, n_rows):
        # CELLIP with on_infeasible="raise" stops at the first infeasible cut; a round is taken
        # whole or not at all, so only a pass of several rows needs the arrays copied first
        return n_rows > 1 and int(self.config["params"][ee.PARAMETERS.index("mode")]) == \
            self.config["raise_mode"]

    def learn(self, X, targets, order, predictions):
        if predictions is None:
            predictions = NO_PREDICTIONS
        order = np.ascontiguousarray(order, dtype=np.int64)
        layout = self.config["layout"]
        arrays = (self.weights, self.metric, self.state, self.config["params"], self.counts,
                  predictions)
        if sp.issparse(X):
            failed = ee.run_sparse(layout, *csr_arrays(X), targets, order, *arrays)
        elif layout == ee.DIAGONAL:
            # the pass checks each row from the ‖x‖² its scores sum (no sweep over X before
            # it), on copies of the arrays it writes, kept if it ran through
            work = tuple(array.copy() for array in arrays[:3]) + (
                arrays[3], arrays[4].copy(), predictions)
            failed = ee.run_dense(layout, read_only_rows(X), targets, order, *work)
            if failed <= -2:  # row order[-2 - failed] was refused, and changed nothing
                raise_refused_row(X, int(order[-2 - failed]), self.config["name"])
            if failed < 0:
                self.weights, self.metric, self.state, self.counts = work[:3] + work[4:5]
        else:
            failed = ee.run_dense(layout, read_only_rows(X), targets, order, *arrays)
        if failed >= 0:
            raise self._infeasible_error(f"at example {int(order[failed])} of this batch")

    def learn_row(self, idx, vals, label, dense=False):
        # straight to the compiled round (a round that fails changes nothing)
        predicted = ee.learn_one(self.config["layout"], idx, vals, label, self.weights,
                                 self.metric, self.state, self.config["params"], self.counts)
        if predicted < 0:
            raise self._infeasible_error("on this example")
        return predicted

    def _make_round(self, exponent):
        return ee.EllipsoidRound(self.config["layout"], self.weights, self.metric, self.state,
                                 self.config["params"], self.counts, exponent)

    def coefficients(self):
        return self.weights

    def _infeasible_error(self, where):
        return ValueError(
            f"{self.config['name']}: {where} the cut misses the ellipsoid (τ ≥ 1): no "
            "classifier with margin a·gamma is left in it, so the data are not separable with "
            "that margin (label noise, or ‖x‖ > 1). The model is left as it was before this "
            "call; on_infeasible='reset' (the default), 'clip' or IELLIP handle such data.")
