"""The model an estimator holds: its learned arrays and the compiled engine that learns them.

An estimator (:mod:`onlinear.estimators`) is the scikit-learn/river protocol — validation,
labels, atomicity, the lock, ``fit``/``partial_fit``/``learn_one``/``predict``, persistence —
and, once started, holds a :class:`Model` in ``model_``.  The model knows nothing of labels,
hyperparameter validation or files: it is started from a *configuration* (the numbers its
engine reads, computed by the estimator from its hyperparameters), learns passes and single
rows the estimator has checked, scores rows, and names its arrays, which are the whole learned
state — what :func:`onlinear.save` writes, what a failed call restores, what
:func:`onlinear.load` checks before the engine ever reads it.

One implementation per family of engines: :class:`onlinear.models.primal.PrimalModel` (the
weights of one compiled rule), :class:`onlinear.models.dual.DualModel` (a kernel expansion),
:class:`onlinear.models.metric.MetricModel` (a centre and a metric per class: the ellipsoid
methods), :class:`onlinear.models.gaussian.GaussianModel` and the adaptive learners' models,
:class:`onlinear.models.block.BlockModel` (the simultaneous projections' prototype).

>>> from onlinear.models.protocol import Model
>>> sorted(name for name, member in vars(Model).items()  # the interface
...        if callable(member) and not name.startswith("_"))  # doctest: +NORMALIZE_WHITESPACE
['arrays', 'check', 'coefficients', 'count', 'form_held_for', 'grow_features', 'grow_outputs',
 'keep_started', 'learn', 'learn_row', 'memory', 'n_inputs', 'pass_can_fail', 'pass_context',
 'predict_row', 'predicting_weights', 'restore', 'row_round', 'scores', 'specs', 'start',
 'started_form']
"""
import copy

import numpy as np

from .._core import counters
from .invariants import check_counters
from .row_checks import refuse_unscored_rows


class Model:
    """The learned state of a started estimator and the engine that learns it (module doc).

    A subclass names its arrays in :attr:`array_names` (each an attribute of the model, and a
    member of a saved file under the same name), and implements :meth:`start`, :meth:`specs`,
    :meth:`learn`, :meth:`learn_row`, :meth:`coefficients` and, where it has invariants beyond
    shapes and finiteness, :meth:`check`.

    Parameters
    ----------
    config : dict
        The numbers the engine reads (the rule's parameter vector, the metric's layout, ...),
        computed by the estimator from its hyperparameters; read again on every call, so a
        change of hyperparameters applies from the next example on.
    """

    #: why parameter mixing (:mod:`onlinear.distributed`) refuses the model, or None
    mixing_refusal = None
    #: whether a pass over dense rows checks each row itself, changing nothing if one is
    #: refused (then the estimator does not check them first), and cannot fail once its rows
    #: and labels are checked (then ``learn_many`` learns a batch in one pass)
    checks_dense_rows = False
    #: whether a pass over dense rows checks each row itself and raises the estimators' error
    #: for a refused one, the rounds before it taken (:mod:`.row_checks`; then the estimator
    #: does not check them first, and its snapshot of a pass that can fail undoes the rounds)
    refuses_dense_rows = False
    #: whether a prediction of one row is the task's reading of :meth:`row_scores` (the block
    #: models: label sets, ranks, the sign of a block's score), rather than the output index
    #: of :meth:`predict_row` (the models of one label per example)
    task_reads_row_scores = False
    #: whether the configuration is complete; False while a hyperparameter waits for the
    #: first data (a kernel's ``gamma="scale"``: the estimator resolves it before learning)
    resolved = True
    #: the names of the learned arrays (attributes of the model), in the order they are saved;
    #: the first is the weights (its first axis the features, constant feature included)
    array_names = ("counts",)

    #: the position of each counter in ``counts`` (the fitted ``n_seen_``, ``n_mistakes_``,
    #: ``n_updates_`` and a family's own)
    counter_index = {"seen": counters.SEEN, "mistakes": counters.MISTAKES,
                     "updates": counters.UPDATES}

    def __init__(self, config):
        self.config = config
        self.counts = np.zeros(counters.N_COUNTS, dtype=np.int64)

    def count(self, name):
        """The counter ``name`` of :attr:`counter_index` (an int)."""
        return int(self.counts[self.counter_index[name]])

    # ------------------------------------------------------------------ the arrays
    def start(self, n_outputs, n_features):
        """Set up the arrays of a model of ``n_outputs`` outputs over ``n_features`` features
        (the constant feature of an intercept included) that has seen nothing."""
        raise NotImplementedError

    def memory(self, n_outputs, n_features):
        """``(bytes, what)``: the memory the arrays of such a model take, and a description of
        them for the error that refuses a model too large.  By default the arrays of
        :meth:`specs` as they start (a free dimension, a kernel model's support capacity, at
        0), so that no family's start asks numpy for more than the machine has."""
        total = 0
        for shape, dtype in self.specs(n_outputs, n_features).values():
            if not any(isinstance(size, str) for size in shape):
                total += int(np.prod(shape, dtype=np.float64)) * np.dtype(dtype).itemsize
        return total, (f"its arrays ({n_features:,} features × {n_outputs:,} outputs, "
                       f"{len(self.specs(n_outputs, n_features))} arrays)")

    def started_form(self):
        """``{hyperparameter: value}``: the configuration the model took at its start and
        keeps until a restart (``fit``), e.g. a primal model's ``average``; empty by
        default.  A call that finds the hyperparameter changed since raises."""
        return {}

    def form_held_for(self, name, value):
        """The value of :meth:`started_form`'s ``name`` that the hyperparameter's ``value``
        gives this model (itself by default; a layout's name where two names give one)."""
        return value

    def keep_started(self, config):
        """``config``, the configuration a started model is given again (a ``set_params``),
        with what the model's arrays were started in kept (its layout): a changed one is
        refused by the next call (:meth:`started_form`), never run on arrays of another
        shape.  As it is by default."""
        return config

    def specs(self, n_outputs, n_features):
        """``{name: (shape, dtype)}`` of the arrays of such a model: what a file must hold.
        A dimension given as a string is free, but the same wherever it appears."""
        return {"counts": ((counters.N_COUNTS,), np.int64)}

    def n_inputs(self):
        """The number of features the model takes (an intercept's constant feature included)."""
        return getattr(self, self.array_names[0]).shape[0]

    def arrays(self):
        """``{name: array}``: the learned state, the arrays themselves (not copies)."""
        return {name: getattr(self, name) for name in self.array_names}

    def restore(self, arrays):
        """Take ``arrays`` (checked against :meth:`specs` by the caller) as the learned state."""
        for name in self.array_names:
            setattr(self, name, arrays[name])

    def check(self):
        """Raise ``ValueError`` naming the array if the state breaks an invariant the engine
        relies on (a loaded or unpickled model): here the counters' order."""
        seen, mistakes, updates = (int(self.counts[i]) for i in (
            counters.SEEN, counters.MISTAKES, counters.UPDATES))
        check_counters(seen, mistakes, updates)

    def __setattr__(self, name, value):
        if name in self.array_names or name == "config":  # (the compiled round holds both)
            self.__dict__.pop("_round", None)
        object.__setattr__(self, name, value)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_round", None)  # (compiled: made again on first use)
        return state

    def row_round(self, exponent):
        """``learn_one``'s compiled round on this model's arrays
        (:class:`onlinear._core.row_pass.RowRound`, rows of norm in ``[2^-e, 2^e]``, ``e`` =
        ``exponent``), made on first use and kept until an array is rebound; None if the
        family has none."""
        made = self.__dict__.get("_round")
        # (a shallow copy's dict holds its original's round: made again for the copy)
        if made is None or made[0] != exponent or made[2] is not self:
            made = self.__dict__["_round"] = (exponent, self._make_round(exponent), self)
        return made[1]

    def _make_round(self, exponent):
        return None

    def __deepcopy__(self, memo):
        twin = copy.copy(self)
        for name in self.array_names:
            setattr(twin, name, getattr(self, name).copy())
        memo[id(self)] = twin
        return twin

    # ------------------------------------------------------------------ growing
    def grow_outputs(self, n_outputs, where):
        """Widen to ``n_outputs`` outputs, the old ones at positions ``where``; a family that
        cannot raises ``ValueError`` saying why (the default)."""
        raise ValueError("this model cannot add outputs.")

    def grow_features(self, n_features, old):
        """Widen to ``n_features`` features, the ``old`` first ones kept (features from ``old``
        on are new, inserted before any constant feature); refused by default."""
        raise ValueError("this model cannot grow new features.")

    # ------------------------------------------------------------------ learning and scoring
    def pass_can_fail(self, n_rows):
        """Whether a pass over ``n_rows`` rows can raise after changing the arrays in place
        (then the estimator copies them first, to restore them)."""
        return False

    def pass_context(self, X):
        """The keywords of :meth:`learn` that belong to the data set ``X`` (checked rows, the
        whole of a ``fit`` or ``stream``) rather than to one pass — none here — after any check
        of the rows the model needs before a pass changes anything."""
        return {}

    def learn(self, X, targets, order, predictions):
        """One pass over the rows ``order`` of the checked ``X`` (dense C-contiguous or
        canonical CSR), in that order, writing each round's prediction into ``predictions``
        (or the empty "no record" array)."""
        raise NotImplementedError

    def learn_row(self, idx, vals, label, weight=1.0, dense=False):
        """One round on a checked row (``idx`` its columns, ``vals`` its values; ``dense``:
        the row is a whole dense row, ``idx`` all the columns), of the example weight
        ``weight`` (given only with class weights); the output index predicted before it.
        Raises before changing anything, or not at all."""
        raise NotImplementedError

    def coefficients(self):
        """``(n_features, n_outputs)`` float array: the weights that predict, scale applied."""
        raise NotImplementedError

    def predicting_weights(self):
        """``(W, scales)``: the raw weights that predict and each output's factor (here the
        coefficients and ones)."""
        weights = self.coefficients()
        return weights, np.ones(weights.shape[1])

    def predict_row(self, idx, vals, dense=False):
        """The output index predicted for a checked row (as :meth:`learn_row` would predict
        it): the sign of the one output's score, or the highest score (ties: the lowest
        index, as in training); ``ValueError`` if its scores are not finite (as
        :meth:`scores`)."""
        scores = vals @ self.coefficients()[idx]
        refuse_unscored_rows(scores[None, :])
        if scores.shape[0] == 1:
            return int(scores[0] > 0.0)
        return int(np.argmax(scores))

    def scores(self, X):
        """Scores of every output, shape ``(n_samples, n_outputs)``; ``ValueError`` naming a
        row they are not finite for (:func:`~.row_checks.refuse_unscored_rows`)."""
        from sklearn.utils.extmath import safe_sparse_dot

        with np.errstate(over="ignore", invalid="ignore"):  # (refused by name below)
            scores = np.asarray(safe_sparse_dot(X, self.coefficients()))
        return refuse_unscored_rows(scores)
