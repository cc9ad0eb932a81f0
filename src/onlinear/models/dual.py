"""The dual model: a kernel expansion ``s_r(x) = Σ_i α_{i,r} K(x_i, x)`` over support patterns.

The kernel forms of the learners whose update is additive in x (Crammer & Singer 2003, end of
§5.3, Eq. 21; Matsushima et al. 2010) keep, and :mod:`onlinear._core.kernel` learns:

* ``support`` — ``(n_features, capacity)``: the support patterns, feature-major (one contiguous
  row of the support set per feature), the first ``n_support`` columns used; the capacity
  doubles as the set grows;
* ``support_sq`` — their squared norms; ``coef`` and ``acc`` — ``(capacity, n_outputs)``: the
  raw dual coefficients (true ones: times the output's lazy scale) and the averaging sums;
* ``avg_scale_sum``, ``state`` (the lazy scale per output and the rule's rows), ``counts``.

``n_support`` is a number, not an array: a file holds it among the estimator's scalars.

>>> import numpy as np
>>> from onlinear.models.dual import DualModel
>>> model = DualModel(DualModel.configuration(rule=0, params=np.zeros(1), name="demo"))
>>> model.start(n_outputs=3, n_features=2)
>>> model.n_support, model.support.shape, model.coefficients().shape
(0, (2, 0), (0, 3))
"""
import math

import numpy as np
import scipy.sparse as sp

from .._core import counters
from .._core import kernel as dual
from .._core import primal
from .._core.primal import predict_index
from .._core.rows import ROW_NORM_EXPONENT, csr_arrays, read_only_rows
from .._core.kernel import kernel_row, kernel_self
from ..kernels import CALLABLE, POLY, check_poly_squares, gram
from ..rules.layout import FIRST_RULE_ROW, SCALE
from .invariants import check_scale_range, check_size
from .primal import grow_rule_outputs
from .protocol import Model

_NO_WEIGHTS = np.empty(0)


_KERNEL_LOW, _KERNEL_HIGH = 2.0 ** (-2 * ROW_NORM_EXPONENT), 2.0 ** (2 * ROW_NORM_EXPONENT)


def _refuse_overflowed_scores(scores):
    """Raise ``ValueError`` if a row's scores (a row of ``scores``) are not all finite: its
    kernel values with the support, or their sums, overflowed (a row far larger than the
    support vectors, or a kernel's parameters set since the support was learned), and an
    infinity or a NaN would pick a class of its own."""
    if np.isfinite(scores).all():
        return
    row = int(np.argmin(np.isfinite(scores).all(axis=1)))
    raise ValueError(f"row {row}'s scores are not numbers: its kernel values with the support "
                     "vectors overflow float64 (an infinite score, or infinite terms of both "
                     "signs); scale the data, or lower the kernel's gamma or degree.")


def check_one_poly_row(x, kernel_params):
    """Refuse a dense row ``x`` whose polynomial kernel value ``K(x, x)`` leaves the range the
    rules can use (:func:`onlinear.kernels.check_poly_squares`), in scalar arithmetic: on one
    row the array version costs more than the compiled round's bookkeeping."""
    gamma, coef0, degree = kernel_params.tolist()
    square = float(x @ x)
    base = gamma * square + coef0
    try:
        value, bound = abs(base) ** degree, (gamma * square + abs(coef0)) ** degree
    except OverflowError:
        value = bound = math.inf
    if not (bound <= _KERNEL_HIGH and (value >= _KERNEL_LOW or base == 0.0)):
        check_poly_squares(np.array([square]), kernel_params)  # raises, with the full message


#: kernel values computed at once when scoring rows against the support set (8 MB)
_GRAM_BLOCK_VALUES = 1 << 20


class DualModel(Model):
    """The support set, dual coefficients and rule state of a kernel learner (module doc).

    Parameters
    ----------
    config : dict
        From :meth:`configuration`: the rule's id and parameter vector, the kernel (its kind
        and parameters, or the callable), how an example's weight enters the round, and the
        learner's name (for messages).
    """

    array_names = ("support", "support_sq", "coef", "acc", "avg_scale_sum", "state", "counts")
    mixing_refusal = ("it is a kernel learner: its model is a support set, not a weight vector "
                      "(the mix of dual models is the union of the support sets with scaled "
                      "coefficients — sound, but the set then grows with every epoch and shard; "
                      "not implemented: use its primal form)")

    def __init__(self, config):
        super().__init__(config)
        self.n_support = 0

    @staticmethod
    def configuration(rule, params, *, name, kind=None, kernel_params=None, kernel=None,
                      state_rows=FIRST_RULE_ROW, weight_mode=primal.WEIGHT_STEP, average=False,
                      data_gamma=None):
        """The configuration dict of a model (see the class); ``kind`` None: the kernel is not
        resolved yet (it is, from the first data, before anything is learned).
        ``data_gamma``: ``"auto"`` or ``"scale"`` when the kernel's gamma was resolved from the
        data (:meth:`grow_features`)."""
        return {"rule": int(rule), "params": np.ascontiguousarray(params, dtype=np.float64),
                "kind": kind, "kernel_params": kernel_params, "kernel": kernel,
                "state_rows": int(state_rows), "weight_mode": int(weight_mode),
                "average": bool(average), "name": name, "data_gamma": data_gamma}

    # ------------------------------------------------------------------ the arrays
    def specs(self, n_outputs, n_features):
        capacity = "support capacity"  # grows by doubling: any size ≥ n_support
        return {"support": ((n_features, capacity), np.float64),
                "support_sq": ((capacity,), np.float64),
                "coef": ((capacity, n_outputs), np.float64),
                "acc": ((capacity, n_outputs), np.float64),
                "avg_scale_sum": ((n_outputs,), np.float64),
                "state": ((self.config["state_rows"], n_outputs), np.float64),
                "counts": ((counters.N_COUNTS,), np.int64)}

    def start(self, n_outputs, n_features):
        self.support = np.zeros((n_features, 0))
        self.support_sq = np.zeros(0)
        self.coef = np.zeros((0, n_outputs))
        self.acc = np.zeros((0, n_outputs))
        self.avg_scale_sum = np.zeros(n_outputs)
        self.state = np.zeros((self.config["state_rows"], n_outputs))
        self.state[SCALE] = 1.0
        self.counts = np.zeros(counters.N_COUNTS, dtype=np.int64)
        self.n_support = 0

    def check(self):
        """The counters in order; ``n_support`` within the capacity; every output's scale in
        the engine's range; the stored squared norms those of the support vectors within
        rounding; the kernel resolved (a started model has seen data); the polynomial kernel of
        every support vector with itself in the range the rules can use (the rows were checked
        so when they were learned: :func:`onlinear.kernels.check_poly_squares`)."""
        super().check()
        n = self.n_support
        if not 0 <= n <= self.coef.shape[0]:
            raise ValueError(f"_n_support={n} is not within the support capacity "
                             f"[0, {self.coef.shape[0]}].")
        check_scale_range("_state", self.state[SCALE])
        support = self.support[:, :n]
        with np.errstate(over="ignore", invalid="ignore"):
            squares = np.einsum("js,js->s", support, support)
        check_size("_support_sq (the support vectors' squared norms)", self.support_sq[:n],
                   squares)
        kind = self.config["kind"]
        if kind is None:
            raise ValueError("gamma_: a started kernel model has resolved its kernel (gamma_ "
                             "is missing).")
        if kind == POLY:  # (the Gaussian's values are in [0, 1] whatever gamma)
            check_poly_squares(squares, self.config["kernel_params"])

    def n_inputs(self):
        return self.support.shape[0]

    def _store(self, support, support_sq, coef, acc, n_support):
        self.support, self.support_sq, self.coef, self.acc = support, support_sq, coef, acc
        self.n_support = int(n_support)

    def _arrays(self):
        return (self.support, self.support_sq, self.coef, self.acc, self.n_support)

    def _rule(self):
        config = self.config
        return (config["rule"], config["params"], self.state, self.avg_scale_sum,
                config["kind"], config["kernel_params"], self.counts)

    @property
    def resolved(self):
        """Whether the kernel is resolved (the estimator resolves ``gamma`` from the first
        data)."""
        return self.config["kind"] is not None

    # ------------------------------------------------------------------ learning
    def pass_context(self, X):
        """The support slot of every row (−1: none yet), so that a row updated in several
        epochs of ``fit`` (or of a ``stream``) is one support pattern, its coefficients
        merged; first, the polynomial kernel's values checked on every row, before anything
        is learned: ``|K(x, x')| ≤ √(K(x, x) K(x', x'))`` for ``coef0 ≥ 0``, so ``K(x, x)``
        within the accepted ``‖x‖²`` range on every row (see
        :data:`onlinear._core.rows.ROW_NORM_EXPONENT`) keeps every kernel value, ``1/K(x, x)``
        and the scores finite; a ``K(x, x)`` that underflows to 0 would silently make x a zero
        row.  (The Gaussian has K(x, x) = 1; the linear kernel is ‖x‖², checked with the
        rows.)"""
        self._check_poly_rows(X)
        return {"row_slot": np.full(X.shape[0], -1, dtype=np.int64)}

    def _check_poly_rows(self, X):
        """With the polynomial kernel, refuse rows whose ``K(x, x)`` leaves the usable range
        (:func:`onlinear.kernels.check_poly_squares`), before they are learned or scored."""
        if self.config["kind"] != POLY:
            return
        if sp.issparse(X):
            squares = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
        else:
            squares = np.einsum("ij,ij->i", X, X, dtype=np.float64)
        check_poly_squares(squares, self.config["kernel_params"])

    def pass_can_fail(self, n_rows):
        # a Python kernel is evaluated round by round (it can raise, or return NaN, on any
        # row); one round evaluates it before changing anything
        return n_rows > 1 and self.config["kind"] == CALLABLE

    def learn(self, X, targets, order, predictions=None, sample_weight=None, row_slot=None):
        """One pass (see :meth:`Model.learn`); ``row_slot[i]``: the support slot of row i (−1:
        none yet), so that a row updated in several epochs is one support pattern."""
        if predictions is None:
            predictions = counters.NO_PREDICTIONS
        order = np.ascontiguousarray(order, dtype=np.int64)
        if row_slot is None:
            row_slot = np.full(X.shape[0], -1, dtype=np.int64)
        self._check_support_room(order, row_slot)
        # an example's weight enters the dual step as the primal's (weight_mode)
        weighting = (_NO_WEIGHTS, primal.WEIGHT_NONE) if sample_weight is None else (
            sample_weight, self.config["weight_mode"])
        if self.config["kind"] == CALLABLE:
            for t, i in enumerate(order):
                x = X[i].toarray()[0] if sp.issparse(X) else X[i]
                weight = 1.0 if sample_weight is None else float(sample_weight[i])
                row_slot[i] = self._callable_round(x, targets[i], int(row_slot[i]),
                                                   predictions, t, weight, weighting[1])
            return
        rule = (*self._rule(), predictions, *weighting)
        if sp.issparse(X):
            self._store(*dual.run_sparse(*csr_arrays(X), X.shape[1], targets, order, row_slot,
                                         *self._arrays(), *rule))
        else:
            self._store(*dual.run_dense(read_only_rows(X), targets, order, row_slot,
                                        *self._arrays(), *rule))

    def _callable_round(self, x, label, slot, predictions, t, weight=1.0,
                        weight_mode=primal.WEIGHT_NONE):
        """One round with a Python kernel; returns the support slot of x (or −1).  The kernel
        is evaluated and checked before anything changes."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        kernel = self.config["kernel"]
        n = self.n_support
        values = np.zeros(n)
        if n:
            values = gram(self.support[:, :n].T, x[None, :], CALLABLE, None, kernel=kernel)[:, 0]
        q = float(gram(x[None, :], x[None, :], CALLABLE, None, kernel=kernel)[0, 0])
        if not np.isfinite(q) or not np.isfinite(values).all():
            raise ValueError("the kernel callable returned NaN or infinity.")
        support, support_sq, coef, acc = dual.grow(*self._arrays(), n + 1)
        self._store(support, support_sq, coef, acc, n)
        krow = np.zeros(support.shape[1])
        krow[:n] = values
        config = self.config
        n, slot, _ = dual.step(x, float(x @ x), krow, q, label, slot, support, support_sq,
                               coef, acc, n, config["rule"], config["params"], self.state,
                               self.avg_scale_sum, config["kind"], config["kernel_params"],
                               self.counts, predictions, t, weight, weight_mode)
        self.n_support = int(n)
        return slot

    def learn_row(self, idx, vals, label, weight=None, dense=False):
        """One round on a checked row (a new example: never merged with a stored pattern; see
        :meth:`Model.learn_row`), the polynomial kernel's values checked first; the index
        predicted before it.  ``weight`` enters the round as the configuration's
        ``weight_mode`` says (None: no weight)."""
        x = self._dense_row(idx, vals, dense)
        if self.config["kind"] == POLY:
            check_one_poly_row(x, self.config["kernel_params"])  # refuse before any change
        weight_mode = primal.WEIGHT_NONE if weight is None else self.config["weight_mode"]
        weight = 1.0 if weight is None else float(weight)
        if self.config["kind"] == CALLABLE:
            predicted = self._predict_dense(x, average=False)  # as the round predicts
            self.learn(x[None, :], np.array([label], dtype=np.int64),
                       np.zeros(1, dtype=np.int64), row_slot=np.full(1, -1, dtype=np.int64))
            return predicted
        *arrays, predicted = dual.learn_one(x, label, *self._arrays(), *self._rule(), weight,
                                            weight_mode)
        self._store(*arrays)
        return predicted

    def _make_round(self, exponent):
        """``learn_one``'s compiled round (:class:`onlinear._core.kernel.DualRowRound`), for a
        resolved kernel other than a Python callable (evaluated in Python) and the polynomial
        one (whose rows the estimator checks for overflow first)."""
        config = self.config
        if config["kind"] is None or config["kind"] in (CALLABLE, POLY):
            return None
        return dual.DualRowRound(self.__dict__, self.n_support, config["rule"],
                                 config["params"], config["kind"], config["kernel_params"],
                                 primal.WEIGHT_NONE, exponent)

    # ------------------------------------------------------------------ predicting
    def dual_coefficients(self, average=None):
        """True coefficients ``(n_support, n_outputs)`` of the final hypothesis or, with
        ``average`` (default: the configuration's), the averaged one."""
        n = self.n_support
        if average is None:
            average = self.config["average"]
        if not average:
            return self.coef[:n] * self.state[SCALE]
        rounds = self.counts[counters.SEEN]
        if rounds == 0:
            return np.zeros_like(self.coef[:n])
        return (self.coef[:n] * self.avg_scale_sum - self.acc[:n]) / rounds

    def coefficients(self):
        return self.dual_coefficients()

    #: every rule's kernel form can average: its hypothesis is the expansion, linear in the
    #: coefficients, whatever the primal rule's weights are
    averages_every_rule = True

    def _check_support_room(self, order, row_slot):
        """Refuse a pass whose rows, each a new support pattern at worst, would take the dense
        support set (``n_features`` values a pattern, the capacity doubled as it grows, old and
        new held together meanwhile) past the memory :func:`check_memory` allows: 600 sparse
        rows of 2²⁰ features took 12.5 GB."""
        from ..estimators.checks import check_memory

        d, capacity = self.support.shape
        fresh = np.unique(order[row_slot[order] < 0]).size if order.size else 0
        worst = self.n_support + fresh
        if worst <= capacity:
            return
        grown = capacity  # (as _core.kernel.grow doubles it, from 16, a pattern at a time)
        while grown < worst:
            grown = max(2 * grown, 16)
        check_memory(8 * d * (grown + grown // 2), self.config["name"],
                     f"its support patterns, kept dense ({d:,} features × up to {worst:,} "
                     "patterns × 8 bytes, the old set held while it grows); use fewer features "
                     "(hashing), fewer rows, or a linear learner")

    def scores(self, X):
        """Scores of every output for the rows ``X`` (dense or CSR, of the model's width)."""
        n = self.n_support
        if n == 0:
            return np.zeros((X.shape[0], self.coef.shape[1]))
        config = self.config
        self._check_poly_rows(X)  # (as learning checks them: else NaN scores)
        coefficients = self.dual_coefficients()
        scores = np.empty((X.shape[0], coefficients.shape[1]))
        # the rows' kernel values against the support set a block of rows at a time: the whole
        # n_rows × n_support matrix at once took 726 MB for 20,000 rows of 3,000 patterns
        step = max(1, _GRAM_BLOCK_VALUES // n)
        for start in range(0, X.shape[0], step):
            rows = X[start:start + step]
            kernel = gram(rows, self.support[:, :n].T, config["kind"], config["kernel_params"],
                          B_sq=self.support_sq[:n], kernel=config["kernel"])
            with np.errstate(invalid="ignore", over="ignore"):
                scores[start:start + step] = kernel @ coefficients
        _refuse_overflowed_scores(scores)
        return scores

    def _dense_row(self, idx, vals, dense):
        """The checked row as a dense float64 vector of the model's width."""
        if dense:
            return np.ascontiguousarray(vals, dtype=np.float64)
        x = np.zeros(self.n_inputs())
        x[idx] = vals
        return x

    def predict_row(self, idx, vals, dense=False):
        """The output index the configured hypothesis predicts for a checked row (the
        polynomial kernel's value on it checked first, as :meth:`scores` checks its rows)."""
        x = self._dense_row(idx, vals, dense)
        if self.config["kind"] == POLY:
            check_one_poly_row(x, self.config["kernel_params"])
        return self._predict_dense(x)

    def _predict_dense(self, x, average=None):
        """The output index predicted for the dense row ``x``, as the learning round predicts
        it (``average=False``) or with the configured hypothesis."""
        n = self.n_support
        config = self.config
        if n == 0:
            scores = np.zeros(self.coef.shape[1])
        else:
            if config["kind"] == CALLABLE:
                krow = gram(x[None, :], self.support[:, :n].T, CALLABLE, None,
                            kernel=config["kernel"])[0]
            else:
                krow = np.empty(n)
                _, x_sq = kernel_self(x, config["kind"], config["kernel_params"])
                kernel_row(self.support, self.support_sq, n, x, x_sq, config["kind"],
                           config["kernel_params"], krow)
            with np.errstate(invalid="ignore", over="ignore"):
                scores = krow @ self.dual_coefficients(average)
            _refuse_overflowed_scores(scores[None, :])
        return predict_index(scores, self.state, False)

    # ------------------------------------------------------------------ growing
    def grow_outputs(self, n_outputs, where):
        """New outputs get zero coefficients, zero averaging sums and a lazy scale of 1; refused
        (before anything changes) for a binary rule's one output and the rules that keep a
        per-output record of their run."""
        grow_rule_outputs(self, ("coef", "acc", "avg_scale_sum", "state"), n_outputs, where)

    def grow_features(self, n_features, old):
        """New features are zero coordinates of every support pattern: the kernel values of
        past rows (zero there) are unchanged.  A gamma resolved from the data ("auto",
        "scale") was the started width's: a model started as wide as the grown one would have
        taken another, so the grown one would not learn as it (``grow_features``): refused."""
        gamma = self.config.get("data_gamma")
        if gamma is not None:
            raise ValueError(
                f'{self.config["name"]}: gamma="{gamma}" was resolved from the {old:,} features '
                "the model started with; a model started wider would take another gamma, so a "
                "grown one would not learn as it. Give gamma a number (e.g. 1/n for a stream of "
                "n features), or the stream's width from the start (onlinear train "
                "--n-features).")
        support = self.support
        added = np.zeros((n_features - support.shape[0], support.shape[1]))
        self.support = np.ascontiguousarray(np.concatenate([support[:old], added,
                                                            support[old:]]))

