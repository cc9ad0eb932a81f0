"""The primal model: one weight vector per output, a lazy scale per output, the rule's state.

The learners of Crammer & Singer (2003) — the Perceptrons, the additive and multiplicative
ultraconservative families, MIRA —, the Passive-Aggressive family (Crammer et al. 2006) and its
support-class form (Matsushima et al. 2010), the maximum-cosine rules (ROMMA and its
relatives) all keep the same arrays, learned by the primal engine
(:mod:`onlinear._core.primal`) with one compiled step per rule (:mod:`onlinear.rules`):

* ``weights`` — ``(n_features, n_outputs)``, float64 or float32, stored feature-major (C
  order, the layout of CSR rows' rounds) or class-major (Fortran order, for the vectorized sums
  of dense rows): in the layout of the rows learned last (:meth:`PrimalModel.in_layout`);
* ``state`` — ``(state rows, n_outputs)``: the lazy scale of each output and the sizes the
  engine tracks (:mod:`onlinear.rules.layout`), then the rule's own rows;
* ``counts`` — rounds seen, mistakes, updates;
* with averaging, ``avg_acc`` and ``avg_scale_sum``: the sums from which the averaged
  hypothesis is read in O(1) per round (:mod:`onlinear._core.weights`).

The true weights of output r are ``weights[:, r] · state[SCALE, r]``.

>>> import numpy as np
>>> from onlinear.models.primal import PrimalModel
>>> model = PrimalModel(PrimalModel.configuration(rule=0, params=np.zeros(1), name="demo"))
>>> model.start(n_outputs=3, n_features=2)
>>> sorted(model.arrays()), model.weights.shape, model.coefficients().tolist()
(['counts', 'state', 'weights'], (2, 3), [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
"""
import numpy as np
import scipy.sparse as sp

from .._core import counters, primal, rows
from .._core.rows import csr_arrays, read_only_rows
from .._core.weights import aligned_copy, averaged
from ..rules.layout import FIRST_RULE_ROW, RAW_MASS, RAW_SQNORM, SCALE, SIZE_ANCHOR
from .invariants import check_primal_store
from .protocol import Model
from .row_checks import raise_refused_row, refuse_unscored_rows

_FLOAT64 = np.dtype(np.float64)
_AVERAGING = ("avg_acc", "avg_scale_sum")


class PrimalModel(Model):
    """The weights, scales, rule state and counters of a primal learner (module doc).

    Parameters
    ----------
    config : dict
        From :meth:`configuration`: the rule's id and parameter vector, how it steps
        (``step_kind``: additive or multiplicative, row- or matrix-normalized), whether it is
        scale-free, reads the stepped columns' norms (``exact_norms``), averages
        (``average``), the weights' dtype, the rows of its state, the accepted row norms'
        exponent, how an example's weight enters its round (``weight_mode``), and the
        learner's name (for messages).
    """

    def __init__(self, config):
        object.__setattr__(self, "array_names", ("weights", "state", "counts")
                           + (_AVERAGING if config["average"] else ()))
        super().__init__(config)

    @staticmethod
    def configuration(rule, params, *, name, step_kind=primal.ADDITIVE, scale_free=False,
                      exact_norms=False, average=False, dtype=_FLOAT64,
                      state_rows=FIRST_RULE_ROW, row_exponent=rows.ROW_NORM_EXPONENT,
                      weight_mode=primal.WEIGHT_STEP):
        """The configuration dict of a model (the numbers the engine reads; see the class)."""
        return {"rule": int(rule), "params": np.ascontiguousarray(params, dtype=np.float64),
                "step_kind": int(step_kind), "scale_free": bool(scale_free),
                "exact_norms": bool(exact_norms), "average": bool(average),
                "dtype": np.dtype(dtype), "state_rows": int(state_rows),
                "row_exponent": int(row_exponent), "weight_mode": int(weight_mode),
                "name": name}

    @property
    def mixing_refusal(self):
        """Why the weights of several runs cannot be averaged into a model of this kind, or
        None (parameter mixing, :mod:`onlinear.distributed`)."""
        config = self.config
        if config["step_kind"] != primal.ADDITIVE:
            return ("its weights are updated multiplicatively (positive, normalized): an average "
                    "of such models is not one of them; no mixing rule is implemented for it")
        if config["average"]:
            return ("with average=True it keeps the averaging sums of its own run, which the "
                    "mix of several runs does not have: mix models with average=False")
        if config["state_rows"] != FIRST_RULE_ROW:
            return ("its rule keeps a certificate of its run in the model state (ROMMA, "
                    "NAROMMA, Maximum Cosine, multiclass ROMMA), which an average of runs "
                    "does not inherit")
        return None

    #: (a dense pass checks each row from the ‖x‖² it sums anyway, and changes nothing if one
    #: is refused)
    checks_dense_rows = True

    # ------------------------------------------------------------------ the arrays
    def memory(self, n_outputs, n_features):
        """The weights' bytes, twice with averaging (its sums are as large)."""
        average, size = self.config["average"], self.config["dtype"].itemsize
        return (size * n_features * n_outputs * (2 if average else 1),
                f"its weights ({n_features:,} features × {n_outputs:,} outputs × {size} bytes"
                + (", twice: averaging)" if average else ")"))

    def started_form(self):
        """Averaging (its sums exist from the start or not at all)."""
        return {"average": self.config["average"]}

    def specs(self, n_outputs, n_features):
        weights = ((n_features, n_outputs), self.config["dtype"].type)
        specs = {"weights": weights,
                 "state": ((self.config["state_rows"], n_outputs), np.float64),
                 "counts": ((counters.N_COUNTS,), np.int64)}
        if self.config["average"]:
            specs.update(avg_acc=weights, avg_scale_sum=((n_outputs,), np.float64))
        return specs

    def start(self, n_outputs, n_features):
        config = self.config
        self.weights = aligned_copy(np.zeros((n_features, n_outputs), config["dtype"]), "C")
        self.state = np.zeros((config["state_rows"], n_outputs))
        self.state[SCALE] = 1.0
        self.counts = np.zeros(counters.N_COUNTS, dtype=np.int64)
        if config["step_kind"] != primal.ADDITIVE:  # positive weights, normalized (Fig. 5)
            self.weights[:] = 1.0
            self.state[RAW_MASS] = n_features
            matrix = config["step_kind"] == primal.MULTIPLICATIVE_MATRIX
            self.state[SCALE] = 1.0 / (n_features * (n_outputs if matrix else 1))
        if config["average"]:
            self.avg_acc = np.zeros_like(self.weights)
            self.avg_scale_sum = np.zeros(n_outputs)

    def check(self):
        """The counters in order, and the primal store: scales in the engine's range, norms
        finite and equal to the tracked ones within rounding, multiplicative weights positive
        (:func:`~onlinear.models.invariants.check_primal_store`)."""
        super().check()
        check_primal_store(self.weights, self.state,
                           self.config["step_kind"] != primal.ADDITIVE,
                           int(self.counts[counters.UPDATES]))

    def __setattr__(self, name, value):
        if name in self.array_names or name == "config":  # (the per-example round holds both)
            self.__dict__.pop("_example", None)
        super().__setattr__(name, value)

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_example", None)
        return state

    # ------------------------------------------------------------------ the weights' layout
    # Feature-major (C order: the outputs of a feature contiguous, the layout of CSR rows'
    # rounds) or class-major (Fortran order: each output's weights contiguous, for the
    # vectorized sums of dense rows): the layout of the rows the model learned last.  Each
    # change of kind costs one copy (O(features·outputs)), so a stream of one kind of row never
    # pays it again.
    def in_layout(self, order):
        """``(weights, averaging sums)`` in the layout ``order`` ("C": feature-major, "F":
        class-major), converted if they were not (the sums: the empty "not averaging" array
        without averaging)."""
        flag = "f_contiguous" if order == "F" else "c_contiguous"
        weights = self.weights
        if not getattr(weights.flags, flag):
            weights = self.weights = aligned_copy(weights, order)
        if not self.config["average"]:
            return weights, primal.NO_ACC
        acc = self.avg_acc
        if not getattr(acc.flags, flag):
            acc = self.avg_acc = aligned_copy(acc, order)
        return weights, acc

    def averaging_sums(self):
        """``avg_scale_sum``, or the empty "not averaging" array."""
        return self.avg_scale_sum if self.config["average"] else primal.NO_AVG

    def _rule(self):
        config = self.config
        return (config["rule"], config["params"], self.state, config["step_kind"],
                config["scale_free"])

    # ------------------------------------------------------------------ learning
    def learn(self, X, targets, order, predictions=None, sample_weight=None):
        """One pass (see :meth:`Model.learn`); ``sample_weight``: each row's weight in its
        round, or None.  A dense pass checks each row itself: if one is refused, nothing is
        changed and ``ValueError`` names the row."""
        if predictions is None:
            predictions = counters.NO_PREDICTIONS
        order = np.ascontiguousarray(order, dtype=np.int64)
        rule = self._rule()
        weighting = (primal.NO_WEIGHTS, primal.WEIGHT_NONE) if sample_weight is None else (
            sample_weight, self.config["weight_mode"])
        scratch = primal.pass_scratch(self.weights.shape[1])
        avg = self.averaging_sums()
        if sp.issparse(X):
            weights, acc = self.in_layout("C")
            primal.run_sparse(*csr_arrays(X), targets, order, weights, *rule, self.counts,
                              predictions, acc, avg, *weighting, *scratch)
            return
        # the pass works on class-major copies (the dense layout), kept if every row is
        # accepted: the pass checks each row itself (primal.run_dense)
        acc = self.avg_acc if self.config["average"] else primal.NO_ACC
        work, work_acc = aligned_copy(self.weights, "F"), np.array(acc, order="F")
        bad = primal.run_dense(read_only_rows(X), targets, order, work.T, *rule, self.counts,
                               predictions, work_acc.T, avg, *weighting,
                               self.config["exact_norms"], np.arange(X.shape[1]), *scratch)
        if bad >= 0:  # the pass refused row `bad` and changed nothing
            raise_refused_row(X, bad, self.config["name"], self.config["row_exponent"])
        self.weights = work
        if self.config["average"]:
            self.avg_acc = work_acc

    def learn_row(self, idx, vals, label, weight=None, dense=False):
        """One round on a checked row (see :meth:`Model.learn_row`): a dense row with
        ``dense`` (on class-major weights), else a CSR row (on feature-major ones);
        ``weight``: the example's weight in its round, entering it as the configuration's
        ``weight_mode`` says (None: no weight)."""
        rule = (*self._rule(), self.counts)
        avg = self.averaging_sums()
        weight_mode = primal.WEIGHT_NONE if weight is None else self.config["weight_mode"]
        weight = 1.0 if weight is None else weight
        if not dense:
            weights, acc = self.in_layout("C")
            if weights.shape[0] <= rows.INT32_MAX:  # (the indices' dtype of the CSR passes)
                idx = rows.int32_indices(idx)
            return primal.learn_sparse_row(vals, idx, label, weights, *rule, acc, avg, weight,
                                           weight_mode)
        weights, acc = self.in_layout("F")
        predicted = primal.learn_dense_row(vals, label, weights.T, *rule, acc.T, avg, weight,
                                           weight_mode, self.config["exact_norms"], True, idx)
        if predicted < 0:  # ‖x‖² summed in another order lands outside the accepted range
            from ..estimators.checks import row_norm, row_scale_error

            raise row_scale_error(row_norm(vals), exponent=self.config["row_exponent"])
        return predicted

    def example_round(self, dense):
        """The compiled per-example calls (:class:`onlinear._core.primal.ExampleRound`) on
        this model's arrays, for dense rows (class-major weights) or CSR rows (feature-major),
        as ``(dense, calls)``: made on first use and kept until an array or the configuration
        is rebound (then ``model.__dict__["_example"]`` no longer holds that tuple: the fast
        path checks)."""
        made = self.__dict__.get("_example")
        if made is not None and made[0] == dense:
            return made
        weights, acc = self.in_layout("F" if dense else "C")
        config = self.config
        if dense:
            calls = primal.ExampleRound(
                weights.T, *self._rule(), self.counts, acc.T, self.averaging_sums(),
                primal.WEIGHT_NONE, config["exact_norms"], np.arange(weights.shape[0]),
                True, 0)
        else:
            calls = primal.ExampleRound(
                weights, *self._rule(), self.counts, acc, self.averaging_sums(),
                primal.WEIGHT_NONE, False, np.zeros(0, np.int64), False,
                config["row_exponent"])
        self.__dict__["_example"] = made = (dense, calls)
        return made

    # ------------------------------------------------------------------ predicting
    def output_scales(self):
        """The factor of each output's raw weights in its scores: its lazy scale, divided by
        the true weights' norm for the scale-free learners (which predict with w/‖w‖)."""
        scales = self.state[SCALE].copy()
        if self.config["scale_free"]:
            norms = np.sqrt(self.state[RAW_SQNORM]) * np.abs(scales)
            scales = np.divide(scales, norms, out=np.zeros_like(scales), where=norms > 0)
        return scales

    def predicting_weights(self):
        """``(W, scales)``: the weights that predict — the averaged hypothesis (scale 1) when
        averaging, else the current raw weights and :meth:`output_scales`."""
        if not self.config["average"]:
            return self.weights, self.output_scales()
        return (averaged(self.weights, self.avg_acc, self.avg_scale_sum,
                         int(self.counts[counters.SEEN])), np.ones(self.weights.shape[1]))

    def coefficients(self):
        """The true weights ``W · scales`` (a new array, in the weights' precision)."""
        weights, scales = self.predicting_weights()
        return (weights * scales).astype(weights.dtype, copy=False)

    def scores(self, X):
        """Scores of every output: the rows times the raw weights, then each output's factor
        (:meth:`predicting_weights`; the order the engine's own rounds use); ``ValueError``
        naming a row they are not finite for (:func:`~.row_checks.refuse_unscored_rows`)."""
        from sklearn.utils.extmath import safe_sparse_dot

        weights, scales = self.predicting_weights()
        with np.errstate(over="ignore", invalid="ignore"):  # (refused by name below)
            scores = safe_sparse_dot(X, weights) * scales
            if X.dtype == np.float32 and weights.dtype == np.float32 and \
                    not np.isfinite(scores).all():
                # float32 rows times float32 weights are summed in float32, whose range ends
                # at 3.4e38: the rows it overflows on are scored again in float64, as the
                # rounds score them
                bad = ~np.isfinite(scores).all(axis=1)
                scores[bad] = safe_sparse_dot(X[bad].astype(np.float64), weights) * scales
        return refuse_unscored_rows(scores)

    def predict_row(self, idx, vals, dense=False):
        """The output index predicted for a checked row (the columns ``idx`` of a CSR row,
        or a dense row with ``dense``), as the learning round predicts it; ``ValueError`` if
        its scores are not finite (as :meth:`scores`)."""
        weights = self.weights if dense else self.weights[idx]
        if self.config["average"]:
            # the averaged hypothesis's scores, (x·W·avg − x·acc)/T, read from the row's
            # values only (not the O(d·k) averaged matrix of predicting_weights)
            acc, avg = self.avg_acc, self.avg_scale_sum
            seen = int(self.counts[counters.SEEN])
            scores = np.zeros(avg.shape[0]) if seen == 0 else (
                (vals @ weights) * avg - vals @ (acc if dense else acc[idx])) / seen
        else:
            scores = (vals @ weights) * self.state[SCALE]
        refuse_unscored_rows(scores[None, :])
        return primal.predict_index(scores, self.state, self.config["scale_free"])

    # ------------------------------------------------------------------ growing
    def grow_outputs(self, n_outputs, where):
        """New outputs get zero weights, a lazy scale of 1 and zero averaging sums; refused
        (before anything changes) for the multiplicative family, a binary model's one output
        and the rules that keep a per-output record of their run."""
        if self.config["step_kind"] != primal.ADDITIVE:
            raise ValueError(f"{self.config['name']} cannot add classes: its weights are "
                             "positive and normalized over the classes. Give every class from "
                             "the start.")
        grow_rule_outputs(self, [name for name in self.array_names if name != "counts"],
                          n_outputs, where)

    def grow_features(self, n_features, old):
        """New features get zero weights (exactly the model started that wide: an additive
        step changes only a row's non-zero features); refused for the multiplicative family,
        whose weights are normalized over all the features."""
        if self.config["step_kind"] != primal.ADDITIVE:
            raise ValueError(f"{self.config['name']} cannot grow new features: its weights are "
                             "positive and normalized over all the features (a new feature "
                             "would change every weight). Fix the number of features in "
                             "advance.")
        for name in ("weights", "avg_acc") if self.config["average"] else ("weights",):
            array = getattr(self, name)
            added = np.zeros((n_features - array.shape[0], *array.shape[1:]), dtype=array.dtype)
            setattr(self, name, np.ascontiguousarray(
                np.concatenate([array[:old], added, array[old:]])))

    # ------------------------------------------------------------------ mixing
    def mixed(self, models, weights):
        """A copy of this model whose true weights are ``Σ_i weights[i] · w_i`` over the
        primal ``models`` (of this one's shape), at scale 1 with their sizes recomputed
        exactly, and the counters summed: iterative parameter mixing (McDonald, Hall & Mann
        2010, §3, Figure 3).  Raises ``TypeError`` if a model cannot be mixed
        (:attr:`mixing_refusal`), ``ValueError`` if the shapes differ."""
        import copy

        for model in models:
            if not isinstance(model, PrimalModel) or model.mixing_refusal:
                raise TypeError(f"cannot mix: {getattr(model, 'mixing_refusal', None)}.")
            if model.weights.shape != self.weights.shape:
                raise ValueError("the models to mix must have the same shape.")
        mixed = np.zeros(self.weights.shape)
        for weight, model in zip(weights, models):
            if weight > 0:
                mixed += weight * (model.weights * model.state[SCALE])
        out = copy.deepcopy(self)
        out.weights = np.ascontiguousarray(mixed, dtype=self.weights.dtype)
        stored = np.asarray(out.weights, dtype=np.float64)  # (float32 weights: their sums)
        out.state = self.state.copy()
        out.state[SCALE] = 1.0
        out.state[RAW_SQNORM] = np.einsum("ij,ij->j", stored, stored)
        out.state[RAW_MASS] = stored.sum(axis=0)
        out.state[SIZE_ANCHOR] = 0.0
        out.counts = np.sum([m.counts for m in models], axis=0).astype(np.int64)
        return out


def grow_rule_outputs(model, names, n_outputs, where):
    """Widen the arrays ``names`` of a rule's ``model`` (primal or dual: its last axis the
    outputs) to ``n_outputs`` columns, the old ones at ``where``, the new ones zero with a lazy
    scale of 1; refused (before anything changes) for a binary rule's one output and the rules
    that keep a per-output record of their run (``config["state_rows"]`` beyond the engine's)."""
    name = model.config["name"]
    if model.state.shape[1] == 1:
        raise ValueError(f"{name} learns two classes with one weight vector (a binary rule): a "
                         "third class would change what every weight means. Give every class "
                         "from the start.")
    if model.config["state_rows"] != FIRST_RULE_ROW:
        raise ValueError(f"{name}'s rule keeps a record of its run per class (a bound over the "
                         "examples seen), which a new class does not have. Give every class "
                         "from the start.")
    for array_name in names:
        array = getattr(model, array_name)
        grown = np.zeros((*array.shape[:-1], n_outputs), dtype=array.dtype)
        grown[..., where] = array
        setattr(model, array_name, grown)
    model.state[SCALE, np.setdiff1d(np.arange(n_outputs), where)] = 1.0
