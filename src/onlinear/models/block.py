"""The block model: the prototype ω of the simultaneous projections (Amit, Shalev-Shwartz &
Singer 2006), learned a trial at a time by the block engine (:mod:`onlinear._core.blocks`).

A trial is a block of binary constraints that must all hold (§2 of the paper); the engine
projects onto each and combines the steps by the scheme.  Three tasks give the engine their
constraints, and each has its arrays (the members of a saved file are these names with a
leading underscore):

* ``"labelsets"`` — multiclass and multilabel (§3.1, Kesler's multi-prototype form): ``weights``
  ``(n_features, k)`` float64, one column per label (a calibration label last, when the
  estimator keeps one), and ``scale`` ``(1,)``;
* ``"blocks"`` — the general single-prototype setting (§2): ``weights`` ``(n_features,)`` and
  ``scale`` ``(1,)``;
* ``"ordinal"`` — ordinal regression (§3.2): ``weights`` ``(n_features,)`` and the ``k − 1``
  ``thresholds``.

The true prototype is ``scale[0] · weights``: the additive update keeps the scale at 1; the
multiplicative one (§8) keeps ``weights > 0`` unnormalized and ``scale = 1/Σ weights``, so that
ω is on the probability simplex.  ``counts`` holds the trial counters of
:mod:`onlinear._core.counters` (trials, imperfect trials, constraint mistakes, constraints,
trial updates).

The configuration (from the estimator): ``task``, ``scheme`` and ``kind`` (additive or
multiplicative, :mod:`onlinear.rules.simultaneous`), ``params`` (the scheme's parameter
vector, :func:`onlinear.rules.simultaneous.make_params`) and the estimator's ``name``, for
messages.

>>> import numpy as np
>>> from onlinear.models.block import BlockModel
>>> from onlinear.rules import simultaneous as rules
>>> model = BlockModel({"task": "labelsets", "scheme": rules.SIMPROJ,
...                     "kind": rules.UPDATE_ADDITIVE, "params": rules.make_params(C=1.0),
...                     "name": "example"})
>>> model.start(3, 2)                      # three labels over two features
>>> model.learn_row(np.arange(2), np.array([1.0, 2.0]), 1)  # label 1; ties: the lowest
0
>>> model.coefficients().round(3).tolist(), model.counts.tolist()
([[-0.05, 0.1, -0.05], [-0.1, 0.2, -0.1]], [1, 1, 2, 2, 1])
"""
import numpy as np
import scipy.sparse as sp

from .._core import blocks as block_engine
from .._core import counters
from .._core.rows import csr_arrays, read_only_rows
from ..rules import simultaneous as rules
from .invariants import check_counters, check_scale_range, check_size
from .protocol import Model
from .row_checks import raise_refused_row, refuse_unscored_rows

# (onlinear.estimators.checks is imported where it is used: at the top, it would import the
# estimators package, which imports this module)

_NO_FLAGS = np.empty(0, dtype=np.int8)
_NO_WEIGHTS = np.empty(0)
TASKS = ("labelsets", "blocks", "ordinal")


def _one_hot(index, n_outputs):
    """The relevance rows (uint8) of class indices: 1 at each example's class."""
    rows = np.zeros((index.shape[0], n_outputs), dtype=np.uint8)
    rows[np.arange(index.shape[0]), index] = 1
    return rows


class BlockModel(Model):
    """The prototype of the simultaneous projections and its scale (module doc).

    Parameters
    ----------
    config : dict
        ``task``, ``scheme``, ``kind``, ``params`` and ``name`` (module doc).
    """

    array_names = ("weights", "scale", "counts")
    mixing_refusal = ("the simultaneous projections' model is another layout (a prototype "
                      "with its scale, one column per label and a calibration label), for "
                      "which no mixing rule is implemented")

    task_reads_row_scores = True
    #: a trial is the round, an imperfect trial its mistake; then the constraints' counts
    counter_index = {"seen": counters.TRIALS, "mistakes": counters.IMPERFECT,
                     "imperfect": counters.IMPERFECT, "updates": counters.TRIAL_UPDATES,
                     "constraints": counters.CONSTRAINTS,
                     "constraint_mistakes": counters.CONSTRAINT_MISTAKES}

    def __init__(self, config):
        super().__init__(config)
        self.counts = np.zeros(counters.N_TRIAL_COUNTS, dtype=np.int64)
        # the update its weights were started for (and a loaded model's file was saved with):
        # the estimator reconfigures the model from its hyperparameters on every call, and
        # additive weights (any sign, scale 1) stepped multiplicatively leave the simplex
        self.started_kind = config["kind"]

    @property
    def _multiplicative(self):
        return self.config["kind"] == rules.UPDATE_MULTIPLICATIVE

    def started_form(self):
        """The update (additive or multiplicative) the weights were started for."""
        return {"update": "multiplicative" if self.started_kind == rules.UPDATE_MULTIPLICATIVE
                else "additive"}

    def _weights_shape(self, n_outputs, n_features):
        """The labels' columns, or one prototype vector."""
        return (n_features, n_outputs) if self.config["task"] == "labelsets" else (n_features,)

    # ------------------------------------------------------------------ the arrays
    def memory(self, n_outputs, n_features):
        """The weights' bytes (checked by the estimator before :meth:`start`)."""
        shape = self._weights_shape(n_outputs, n_features)
        return 8 * int(np.prod(shape, dtype=np.float64)), (
            f"its weights ({n_features:,} features × {shape[1] if len(shape) > 1 else 1:,} "
            "labels × 8 bytes)")

    def start(self, n_outputs, n_features):
        """``n_outputs``: the label sets' columns (a calibration label included); the other
        tasks have one prototype vector (and the ordinal task ``n_outputs − 1`` thresholds)."""
        shape = self._weights_shape(n_outputs, n_features)
        size = int(np.prod(shape))
        if self._multiplicative:  # the uniform point of the simplex
            self.weights = np.ones(shape)
            self.scale = np.array([1.0 / size])
        else:
            self.weights = np.zeros(shape)
            self.scale = np.array([1.0])

    def specs(self, n_outputs, n_features):
        return {"weights": (self._weights_shape(n_outputs, n_features), np.float64),
                "scale": ((1,), np.float64),
                "counts": ((counters.N_TRIAL_COUNTS,), np.int64)}

    def check(self):
        """The trial counters in order; the weights' norm finite; the additive form's scale 1
        (it never rescales); the multiplicative form's weights positive and its scale ``1/mass``
        of them, in the engine's range."""
        check_counters(*(int(self.counts[i]) for i in (
            counters.TRIALS, counters.IMPERFECT, counters.TRIAL_UPDATES)))
        scale = self._scale_of()
        with np.errstate(over="ignore", invalid="ignore"):
            if not np.isfinite(np.sum(np.square(self.weights)) * scale[0] * scale[0]):
                raise ValueError("_weights: the weights' norm overflows (weights too large for "
                                 "the engine).")
        if not self._multiplicative:
            if np.any(scale != 1.0):
                raise ValueError("_scale: the additive form's scale is 1 (it never rescales).")
            return
        if not (np.all(self.weights > 0.0) and np.all(scale > 0.0)):
            raise ValueError("_weights: a multiplicative model's weights must be positive.")
        check_scale_range("_scale", scale)
        check_size("_scale (1 / the weights' mass)", 1.0 / scale[0], self.weights.sum())

    def _scale_of(self):
        return self.scale

    # ------------------------------------------------------------------ growing
    def grow_outputs(self, n_outputs, where):
        """The labels' columns move to their sorted places ``where``; a calibration label
        stays last.  Refused (before anything changes) for blocks (their two sides are fixed),
        the multiplicative update (its weights are normalized over all the labels) and
        indicator rows (of a fixed width)."""
        name = self.config["name"]
        if self.config["task"] == "blocks":
            raise ValueError(f"{name} cannot add classes (the two sides of a block are fixed). "
                             "Give every class from the start.")
        if self._multiplicative:
            raise ValueError(f"{name} with update='multiplicative' cannot add labels: its "
                             "weights are normalized over all the labels. Give every label from "
                             "the start.")
        if self.config.get("label_form") == "indicator":
            raise ValueError(f"{name} learns indicator rows of a fixed width (one column per "
                             "label): to add labels, learn label sets.")
        old = len(where)
        threshold = self.weights.shape[1] > old
        grown = np.zeros((self.weights.shape[0], n_outputs + threshold))
        grown[:, where] = self.weights[:, :old]
        if threshold:
            grown[:, -1] = self.weights[:, -1]
        self.weights = grown

    def grow_features(self, n_features, old):
        """New features (after the ``old`` first, before a constant feature) get zero weight;
        the multiplicative form refuses (its weights are normalized over every feature)."""
        if self._multiplicative:
            raise ValueError(f"{self.config['name']} with update='multiplicative' cannot grow "
                             "new features: its weights are normalized over all the features. "
                             "Fix the number of features in advance.")
        weights = self.weights
        added = np.zeros((n_features - weights.shape[0], *weights.shape[1:]))
        self.weights = np.ascontiguousarray(np.concatenate([weights[:old], added,
                                                            weights[old:]]))

    # ------------------------------------------------------------------ learning
    def learn(self, X, targets, order, flags=None, sample_weight=None, blocks=None):
        """One pass over the trials ``order``: label sets (``targets`` the relevance rows) or
        general blocks (``targets`` the ±1 labels, ``blocks`` the checked
        ``(block_ptr, parts, coupling)``); ``flags`` receives ``imperfect | updated << 1`` per
        trial (or is None).  A dense label-set pass refuses a row of extreme norm before
        changing anything."""
        flags = _NO_FLAGS if flags is None else flags
        order = np.ascontiguousarray(order, dtype=np.int64)
        scheme, kind, params = self.config["scheme"], self.config["kind"], self.config["params"]
        if self.config["task"] == "blocks":
            if blocks is None:  # one row per trial
                from ..tasks.blocks import Blocks

                blocks = Blocks.check_blocks(X.shape[0], None, None, None)
            arrays = (*blocks, order, self.weights, self.scale, scheme, kind, params,
                      self.counts, flags)
            if sp.issparse(X):
                block_engine.run_blocks_sparse(*csr_arrays(X), targets, *arrays)
            else:
                block_engine.run_blocks_dense(read_only_rows(X), targets, *arrays)
            return
        if targets.ndim == 1:  # class indices (multiclass): the relevance row of each
            targets = _one_hot(targets, self.weights.shape[1])
        arrays = (self.weights, self.scale, scheme, kind, params, self.counts, flags,
                  _NO_WEIGHTS if sample_weight is None else sample_weight)
        if sp.issparse(X):
            block_engine.run_labelsets_sparse(*csr_arrays(X), targets, order, *arrays)
            return
        # the pass checks each dense row from the ‖x‖² its scores sum (no sweep over X before
        # it), on copies of the arrays it writes, kept if every row is accepted
        work = tuple(a.copy() if i in (0, 1, 5) else a for i, a in enumerate(arrays))
        bad = block_engine.run_labelsets_dense(read_only_rows(X), targets, order, *work)
        if bad >= 0:  # the pass refused row `bad` and changed nothing
            raise_refused_row(X, bad, self.config["name"])
        self.weights, self.scale, self.counts = work[0], work[1], work[5]

    def learn_row(self, idx, vals, relevance, scores=None, dense=False):
        """One label-set trial on a checked row: of a class index ``relevance`` (multiclass;
        returns the index of the top score before the update, ties to the lowest) or of a
        relevance row (multilabel; returns the scores before the update, in ``scores`` if
        given).  For blocks, a trial of the one row of class index ``relevance`` (1: the +1
        side); returns the side its score chose before the update (1 if positive)."""
        if self.config["task"] == "blocks":
            score = float(vals @ self.weights[idx]) * self.scale[0]
            row = sp.csr_matrix((vals, idx, np.array([0, idx.shape[0]])),
                                shape=(1, self.weights.shape[0]))
            self.learn(row, np.array([1.0 if relevance == 1 else -1.0]),
                       np.zeros(1, dtype=np.int64))
            return int(score > 0.0)
        if scores is None:
            scores = np.empty(self.weights.shape[1])
        one_label = np.ndim(relevance) == 0
        if one_label:
            relevance = _one_hot(np.array([relevance]), self.weights.shape[1])[0]
        top = block_engine.learn_one_labelset(
            idx, vals, relevance, self.weights, self.scale, self.config["scheme"],
            self.config["kind"], self.config["params"], self.counts, scores)
        return top if one_label else scores

    def _make_round(self, exponent):
        """``learn_one``'s compiled trial: a label set's multiclass trial
        (:class:`onlinear._core.blocks.LabelSetRound`) or a one-row block's
        (:class:`~onlinear._core.blocks.BlockRowRound`)."""
        if self.config.get("label_form", "multiclass") != "multiclass":
            return None  # (a multilabel target is no single label: the general path)
        if self.config["task"] == "blocks":
            return block_engine.BlockRowRound(self.weights, self.scale, self.config["scheme"],
                                              self.config["kind"], self.config["params"],
                                              self.counts, exponent)
        return block_engine.LabelSetRound(self.weights, self.scale, self.config["scheme"],
                                          self.config["kind"], self.config["params"],
                                          self.counts, exponent)

    # ------------------------------------------------------------------ scoring
    def coefficients(self):
        """The true prototype ``scale · weights`` (a new array)."""
        return self.weights * self.scale[0]

    def scores(self, X):
        """``X @ ω``: one score per column (label sets), or one per row; ``ValueError``
        naming a row they are not finite for (:func:`~.row_checks.refuse_unscored_rows`)."""
        from sklearn.utils.extmath import safe_sparse_dot

        with np.errstate(over="ignore", invalid="ignore"):  # (refused by name below)
            scores = safe_sparse_dot(X, self.weights) * self.scale[0]
        return refuse_unscored_rows(scores)

    def row_scores(self, idx, vals):
        """The scores of one checked row (``ValueError`` if they are not finite)."""
        scores = (vals @ self.weights[idx]) * self.scale[0]
        refuse_unscored_rows(np.reshape(scores, (1, -1)))
        return scores


class OrdinalModel(BlockModel):
    """The ordinal task's prototype w and thresholds b (Amit et al. §3.2; module doc): the
    additive update only, so no scale.

    Parameters
    ----------
    config : dict
        ``scheme``, ``params`` and ``name`` (module doc); the task is ``"ordinal"``.
    """

    array_names = ("weights", "thresholds", "counts")
    _ONE = np.ones(1)

    @property
    def _multiplicative(self):
        return False

    def started_form(self):
        """Nothing: the additive update is its only one."""
        return {}

    def _weights_shape(self, n_outputs, n_features):
        return (n_features,)

    def memory(self, n_outputs, n_features):
        """The prototype's bytes (checked by the estimator before :meth:`start`)."""
        return 8 * n_features, f"its weights ({n_features:,} features × 8 bytes)"

    def start(self, n_outputs, n_features):
        """A prototype of ``n_features`` weights and ``n_outputs − 1`` thresholds (``n_outputs``
        the ranks), all zero."""
        self.weights = np.zeros(n_features)
        self.thresholds = np.zeros(n_outputs - 1)

    def specs(self, n_outputs, n_features):
        specs = super().specs(n_outputs, n_features)
        del specs["scale"]
        return {**specs, "thresholds": ((n_outputs - 1,), np.float64)}

    def _scale_of(self):
        return self._ONE

    def grow_outputs(self, n_outputs, where):
        raise ValueError(f"{self.config['name']} cannot add classes (a rank order is fixed). "
                         "Give every class from the start.")

    def _make_round(self, exponent):
        return None

    def learn(self, X, targets, order, flags=None, sample_weight=None, blocks=None):
        """One pass over the rows ``order`` (``targets`` their ranks)."""
        flags = _NO_FLAGS if flags is None else flags
        order = np.ascontiguousarray(order, dtype=np.int64)
        arrays = (self.weights, self.thresholds, self.config["scheme"], self.config["params"],
                  self.counts, flags, _NO_WEIGHTS if sample_weight is None else sample_weight)
        if sp.issparse(X):
            block_engine.run_ordinal_sparse(*csr_arrays(X), targets, order, *arrays)
        else:
            block_engine.run_ordinal_dense(read_only_rows(X), targets, order, *arrays)

    def learn_row(self, idx, vals, rank, dense=False):
        """One trial on a checked row of rank ``rank``; returns the rank predicted before it,
        ``min{i : f ≤ b_i}`` of the score f = w·x and the thresholds before the update."""
        thresholds = self.thresholds.copy()
        f = block_engine.learn_one_ordinal(idx, vals, rank, self.weights, self.thresholds,
                                           self.config["scheme"], self.config["params"],
                                           self.counts)
        at_or_below = np.flatnonzero(f <= thresholds)
        return int(at_or_below[0]) if at_or_below.shape[0] else thresholds.shape[0]

    def coefficients(self):
        return self.weights.copy()

    def scores(self, X):
        """The margins ``f − b_j`` of the rows' scores f = w·x against each threshold (the
        ordinal task reads ranks and cumulative scores from them)."""
        from sklearn.utils.extmath import safe_sparse_dot

        with np.errstate(over="ignore", invalid="ignore"):  # (refused by name below)
            margins = (np.asarray(safe_sparse_dot(X, self.weights))[:, None]
                       - self.thresholds[None, :])
        return refuse_unscored_rows(margins)

    def row_scores(self, idx, vals):
        """The margins of one checked row (``ValueError`` if they are not finite)."""
        margins = (vals @ self.weights[idx]) - self.thresholds
        refuse_unscored_rows(margins[None, :])
        return margins
