"""The online experiment protocol: progressive validation of registered algorithms on a stream.

Each round the learner predicts the label of the next example, is scored on that prediction and
then learns from the example (predict, then learn).  The harness records, every ``tick`` examples
and at the end of every epoch (of about 100 evenly spaced epochs in a longer run), the cumulative
number of mistakes, the cumulative number of updates (rounds on which the model changed) and the
seconds spent learning so far; after every epoch it measures the error on a test set if one is
given.  It repeats the run on several seeded random permutations of the stream and reports mean
± standard deviation, and can first pick the hyperparameters by a one-pass grid search on the
online mistake rate, as LIBOL does.

Algorithms are named as in :mod:`onlinear.registry` (the harness keeps no list of its own).
Results come as tidy :class:`Table` s that write CSV, JSON and Markdown with the standard library.

Examples
--------
>>> import numpy as np
>>> from onlinear.harness import evaluate
>>> X = np.array([[1., 0.], [0., 1.], [1., 1.], [-1., 0.], [0., -1.], [1., 0.]])
>>> y = np.array([1, -1, 1, -1, 1, 1])
>>> result = evaluate("perceptron", X, y, tick=2)
>>> for row in result.curves():
...     print(row["examples"], row["mistakes"], row["updates"])
2 1 2
4 2 3
6 3 4
>>> print(result.summary()[0]["mistake_rate"])
0.5
"""
from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_array

from .estimators.base import canonical_csr
from .registry import available, describe
from .tables import Table

# Parameters of every estimator that belong to the protocol, which the harness sets itself.
PROTOCOL_PARAMETERS = ("n_epochs", "shuffle", "random_state")

_WARM_UP_ROWS = 64


# ============================================================================ one run
@dataclass
class Run:
    """One algorithm with hyperparameters ``params`` (those set explicitly or chosen by a grid
    search; the others keep the registered defaults) on one ordering of the stream.

    The arrays have one entry per tick: ``examples`` seen so far (cumulative over epochs),
    the ``epoch`` (from 1) the tick falls in, cumulative ``mistakes`` and ``updates`` and the
    cumulative ``seconds`` spent learning (test evaluation excluded; the first chunk goes
    through ``partial_fit`` and so includes the model's setup and input validation).
    ``test_errors`` has one entry per epoch (empty without a test set).  ``seed`` is the seed of
    the permutation (``None`` for the stream in the given order).

    Parameters
    ----------
    algorithm : str
        Registered name of the algorithm (:func:`onlinear.available`).
    params : dict
        Hyperparameters set explicitly or chosen by a grid search.
    permutation : int
        Index of the ordering of the stream (0 for the first).
    seed : int or None
        Seed of the permutation; None for the stream in the given order.
    n_examples : int
        Training examples per epoch.
    examples : ndarray of int
        Cumulative examples seen at each tick.
    epoch : ndarray of int
        Epoch (from 1) each tick falls in.
    mistakes : ndarray of int
        Cumulative online mistakes at each tick.
    updates : ndarray of int
        Cumulative updates at each tick.
    seconds : ndarray of float
        Cumulative learning time at each tick.
    test_errors : list of float, default=[]
        Test error rate after each epoch (empty without a test set).
    """

    algorithm: str
    params: dict
    permutation: int
    seed: int | None
    n_examples: int
    examples: np.ndarray
    epoch: np.ndarray
    mistakes: np.ndarray
    updates: np.ndarray
    seconds: np.ndarray
    test_errors: list = field(default_factory=list)

    @property
    def mistake_rate(self):
        """Cumulative online mistake rate at each tick."""
        return self.mistakes / self.examples


def tick_positions(n_examples: int, epochs: int, tick: int) -> np.ndarray:
    """Cumulative example counts at which a run is recorded: every ``tick`` examples and at the
    end of every epoch — of at most about 100 evenly spaced epochs: up to 100 epochs, every
    one; beyond, the first, the last and every ⌈epochs/100⌉-th.

    >>> tick_positions(5, 2, 4).tolist()
    [4, 5, 8, 10]
    """
    _check_tick(tick)
    total = n_examples * epochs
    return np.union1d(np.arange(tick, total + 1, tick, dtype=np.int64),
                      n_examples * _recorded_epochs(epochs))


#: the most epoch ends a run records besides the first: beyond, evenly spaced ones
#: (:func:`_recorded_epochs`), as the default tick records about 100 points in all
_MAX_EPOCH_ENDS = 100


def _recorded_epochs(epochs):
    """The epochs (from 1) whose end a run of ``epochs`` records: every one up to
    :data:`_MAX_EPOCH_ENDS` epochs; beyond, the first, the last and every ⌈epochs/100⌉-th, so
    that a run's curves hold about 100 epoch ends however many epochs it makes (one per epoch
    grew a run of ``--epochs 1000000000`` by gigabytes).  A tick that falls on another epoch's
    end is recorded all the same.

    >>> _recorded_epochs(3).tolist()
    [1, 2, 3]
    >>> r = _recorded_epochs(1000)
    >>> len(r), r[:3].tolist(), r[-2:].tolist()
    (101, [1, 10, 20], [990, 1000])
    """
    stride = _epoch_stride(epochs)
    inner = np.arange(stride, epochs + 1, stride, dtype=np.int64)
    return np.union1d(inner, np.array([1, epochs], dtype=np.int64))


def _epoch_stride(epochs):
    return max(1, -(-epochs // _MAX_EPOCH_ENDS))  # (⌈epochs/100⌉ in integers: exact for any)


def _records_end(epoch, epochs):
    """Whether ``epoch``'s end is one of :func:`_recorded_epochs` (without making the list)."""
    return epoch == 1 or epoch == epochs or epoch % _epoch_stride(epochs) == 0


def _epoch_ticks(n_examples, epoch, tick, epochs):
    """The positions of :func:`tick_positions` that fall in epoch ``epoch`` (from 1) of
    ``epochs``.  A run makes them an epoch at a time: the whole list holds an entry per tick,
    gigabytes for ``--epochs 1000000000 --tick 1`` before the first example is learned."""
    start, end = (epoch - 1) * n_examples, epoch * n_examples
    first = (start // tick + 1) * tick  # the first multiple of tick after the epoch's start
    inside = np.arange(first, end, tick, dtype=np.int64)
    if end % tick == 0 or _records_end(epoch, epochs):
        return np.append(inside, np.int64(end))
    return inside


def _check_tick(tick):
    # (0 divides by zero and a negative tick records nothing: both are mistakes, said as such)
    _check_count("tick", tick)


def _check_count(name, value):
    """Refuse ``value`` unless it is a whole number at least 1 (an int, numpy's too; not a
    bool, a float or a string, which the comparisons below would take or fail on unclearly)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int at least 1; got {value!r} "
                        f"({type(value).__name__}).")
    if value < 1:
        raise ValueError(f"{name} must be at least 1; got {value}.")


def _check_grid(grid):
    """``grid`` as ``{param: list of values}``, refusing a key without values: its search
    would try no combination, and the run would go on as if the grid had not been asked.  A
    key's values must be a list (any iterable but a string or a dict): one value alone is not
    iterable, and a string would be searched character by character."""
    if not isinstance(grid, Mapping):
        raise TypeError(f"grid is {{param: [values]}}, a dict of lists of the values to try; "
                        f"got {type(grid).__name__}.")
    listed = {}
    for key, values in grid.items():
        try:
            if isinstance(values, (str, bytes, Mapping)):
                raise TypeError
            listed[key] = list(values)
        except TypeError:
            what = "a string, whose characters would be tried one by one" \
                if isinstance(values, (str, bytes)) else f"{type(values).__name__} {values!r}"
            raise TypeError(f"grid {key!r}: a grid's values are a list of the values to try; got "
                            f"{what}. Give grid={{{key!r}: [{values!r}]}} for one value (or a "
                            f"list of several; a fixed value also goes in params).") from None
    grid = listed
    empty = [k for k, v in grid.items() if not v]
    if empty:
        raise ValueError(f"grid {empty[0]!r} has no values to search; give at least one.")
    return grid


def _default_tick(total):
    return max(1, math.ceil(total / 100))


class _Stream:
    """Feeds an estimator chunks of a fixed data set in a given order and reads its counters.

    The learners of this package validate the data once and learn slices of the order through
    their public :meth:`~onlinear.estimators.base.OnlineLinearClassifier.stream` (a row met
    again in a later epoch is the same example, as in ``fit``); any other estimator with
    ``partial_fit`` and the ``n_mistakes_``/``n_updates_`` diagnostics goes through
    ``partial_fit`` chunk by chunk.
    """

    def __init__(self, estimator, X, y, classes):
        self.estimator = estimator
        self.X, self.y, self.classes = X, y, classes
        self.training = None  # the estimator's TrainingStream, from the first chunk on
        self.fast = callable(getattr(estimator, "stream", None))

    def learn(self, rows):
        """Predict-then-learn on the examples ``rows`` (indices, in order); returns seconds."""
        estimator = self.estimator
        start = time.perf_counter()
        if self.fast:
            if self.training is None:  # the whole data set is validated here, once
                self.training = estimator.stream(self.X, self.y, classes=self.classes)
            self.training.learn(rows)
        else:
            estimator.partial_fit(self.X[rows], self.y[rows], classes=self.classes)
        return time.perf_counter() - start

    def counts(self):
        e = self.estimator
        return e.n_seen_, e.n_mistakes_, e.n_updates_


def _orders(n_examples, epochs, seed):
    """The order of every epoch: the given order (``seed=None``), or permutations drawn from
    ``numpy.random.default_rng(seed)``, one per epoch."""
    if seed is None:
        for _ in range(epochs):
            yield np.arange(n_examples)
    else:
        rng = np.random.default_rng(seed)
        for _ in range(epochs):
            yield rng.permutation(n_examples)


def _run_one(name, params, X, y, classes, *, epochs, seed, permutation, tick, X_test, y_test,
             progress):
    estimator = describe(name).make(**params)
    n = X.shape[0]
    stream = _Stream(estimator, X, y, classes)
    records = {key: [] for key in ("examples", "epoch", "mistakes", "updates", "seconds")}
    test_errors = []
    elapsed = 0.0
    for epoch, order in enumerate(_orders(n, epochs, seed), start=1):
        offset = (epoch - 1) * n
        done = 0
        for position in _epoch_ticks(n, epoch, tick, epochs):
            stop = int(position - offset)
            elapsed += stream.learn(order[done:stop])
            if progress is not None:
                progress.update(stop - done)
            done = stop
            seen, mistakes, updates = stream.counts()
            for key, value in zip(records, (seen, epoch, mistakes, updates, elapsed)):
                records[key].append(value)
        if done < n:  # the rest of an epoch whose end is not recorded (_recorded_epochs)
            elapsed += stream.learn(order[done:])
            if progress is not None:
                progress.update(n - done)
        if X_test is not None:
            test_errors.append(1.0 - float(estimator.score(X_test, y_test)))
    arrays = {key: np.asarray(values, dtype=float if key == "seconds" else np.int64)
              for key, values in records.items()}
    return Run(name, dict(params), permutation, seed, n, test_errors=test_errors, **arrays)


# ============================================================================ input checks
def _check_data(X, y, X_test, y_test):
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32], order="C")
    X = canonical_csr(X)  # duplicates summed, indices sorted, in a copy (never the user's)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be one label per row of X: {X.shape[0]} rows, y has shape "
                         f"{y.shape}.")
    classes = np.unique(y)
    if classes.shape[0] < 2:
        raise ValueError(f"the training stream needs at least two classes; it has "
                         f"{classes.tolist()}.")
    if (X_test is None) != (y_test is None):
        raise ValueError("give both X_test and y_test, or neither.")
    if X_test is not None:
        X_test = check_array(X_test, accept_sparse="csr", dtype=[np.float64, np.float32])
        if X_test.shape[1] != X.shape[1]:
            raise ValueError(f"the test set has {X_test.shape[1]} features, the training set "
                             f"{X.shape[1]}.")
        y_test = np.asarray(y_test)
    return X, y, classes, X_test, y_test


def _check_params(name, params, grid=None):
    """The estimator for ``name`` with ``params``; raises ``ValueError`` on an unknown name, an
    unknown or protocol parameter, a bad value, or a parameter the algorithm takes but does not
    read with these settings (:meth:`onlinear.registry.Algorithm.unread`), before anything runs."""
    algorithm = describe(name)
    tunable = algorithm.hyperparameters
    grid = grid or {}
    for key in list(params) + list(grid):
        if key in PROTOCOL_PARAMETERS:
            raise ValueError(f"{key!r} is set by the harness (epochs, permutations, "
                             f"random_state), not as a hyperparameter.")
        if key in algorithm.fixed:
            raise ValueError(f"{name} fixes {key}={algorithm.fixed[key]!r}; choose another "
                             f"algorithm name.")
        if key not in tunable:
            known = ", ".join(k for k in tunable if k not in PROTOCOL_PARAMETERS) or "none"
            raise ValueError(f"{name} has no hyperparameter {key!r} (its hyperparameters: "
                             f"{known}).")
    overlap = set(params) & set(grid)
    if overlap:
        raise ValueError(f"{sorted(overlap)} both fixed and searched; give each once.")
    for values in itertools.product(*grid.values()):
        algorithm.make(**params, **dict(zip(grid, values)))  # bad values fail now, not later
    unread = describe(name).unread(params, grid)
    if unread:  # (a value the rule never reads would be reported as if it had been tried)
        raise ValueError(next(iter(unread.values())))
    return algorithm.make(**params)


def _grid_of(name, params, grid):
    """``(searched, unread)``: the keys of ``grid``, shared by the compared algorithms, that
    algorithm ``name`` (with ``params``) takes and reads, with their values; and ``{key:
    why}`` for those it takes but does not read (:meth:`onlinear.registry.Algorithm.unread`)."""
    tunable = describe(name).hyperparameters
    own = {k: v for k, v in grid.items() if k in tunable}
    unread = {k: why for k, why in describe(name).unread(params, own).items() if k in own}
    return {k: v for k, v in own.items() if k not in unread}, unread


def _check_grids(algorithms, params, grid):
    """Each algorithm's part of the shared ``grid`` (:func:`_grid_of`), its ``params`` and that
    part checked (:func:`_check_params`); raises ``ValueError`` for a key of ``grid`` that no
    compared algorithm searches, saying why where one takes it but does not read it."""
    grids, unread = {}, {}
    for name in algorithms:
        grids[name], ignored = _grid_of(name, params.get(name, {}), grid)
        for key, why in ignored.items():
            unread.setdefault(key, why)
        _check_params(name, params.get(name, {}), grids[name])
    unused = set(grid) - {k for g in grids.values() for k in g}
    for key in grid:
        if key in unused and key in unread:
            raise ValueError(f"no compared algorithm reads {key}: {unread[key]}")
    if unused:
        raise ValueError(f"no compared algorithm has the hyperparameter(s) {sorted(unused)}.")
    return grids


def _check_multiclass(name, classes):
    if classes.shape[0] > 2 and not describe(name).handles_multiclass:
        raise ValueError(f"{name} learns two classes only; the data has {classes.shape[0]}.")


def _warm_up(estimator, X, y, classes):
    """Play a few rows through the paths a run takes, outside the timing: a run's one-time
    costs (imports, first allocations) and a configuration's errors come before the bar."""
    rows = np.arange(min(X.shape[0], _WARM_UP_ROWS))
    stream = _Stream(clone(estimator), X, y, classes)
    half = max(1, rows.shape[0] // 2)
    stream.learn(rows[:half])
    stream.learn(rows[half:])


class _Progress:
    """A tqdm bar on stderr (disabled when stderr is not a terminal), or nothing."""

    def __init__(self, enabled, total, description):
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=description, unit="ex", unit_scale=True,
                            disable=None if enabled is True else False, leave=False)

    def describe(self, text):
        if self.bar is not None:
            self.bar.set_description(text, refresh=False)

    def update(self, n):
        if self.bar is not None:
            self.bar.update(n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _check_random_state(random_state):
    # (anything else failed inside numpy, with a cast error naming no argument)
    if random_state is None or isinstance(random_state, np.random.RandomState):
        return
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return
    raise ValueError(f"random_state must be an int, None or a numpy RandomState (the seed of "
                     f"the permutations' seeds); got {random_state!r}.")


def _draw_seeds(permutations, shuffle, random_state):
    _check_random_state(random_state)
    _check_count("permutations", permutations)
    if shuffle is None:
        shuffle = permutations > 1
    if not shuffle:
        if permutations > 1:
            raise ValueError("several permutations need shuffle=True (the given order would "
                             "repeat the same run).")
        return [None]
    if isinstance(random_state, np.random.RandomState):  # (drawn from, as scikit-learn does)
        rng = np.random.default_rng(random_state.randint(2**31 - 1))
    else:
        rng = np.random.default_rng(random_state)
    return [int(s) for s in rng.integers(0, 2**31 - 1, size=permutations)]


# ============================================================================ grid search
@dataclass
class GridSearch:
    """A one-pass grid search: every combination's online mistake rate on one ordering of the
    stream (``table``), and the combination with the lowest (``best_params``; ties go to the
    first in grid order).

    Parameters
    ----------
    algorithm : str
        Registered name of the algorithm searched.
    grid : dict
        Parameter name → list of the values tried (every combination is tried).
    best_params : dict
        The combination with the lowest online mistake rate.
    table : Table
        One row per combination with its online mistake rate.
    """

    algorithm: str
    grid: dict
    best_params: dict
    table: Table


def grid_search(algorithm: str, X, y, grid: dict, *, params: dict | None = None,
                shuffle: bool = False, random_state: int | None = None,
                progress: bool = False) -> GridSearch:
    """Pick hyperparameters of ``algorithm`` by one online pass per combination of ``grid``
    (a dict of lists: every combination is tried), choosing the lowest online mistake rate.

    The stream is taken in the given order, or (``shuffle=True``) in the first permutation that
    :func:`compare` would use with the same ``random_state``.  ``params`` are held fixed.
    Keys of ``grid`` that ``algorithm`` does not have are an error; see :func:`compare` for a
    grid shared by several algorithms.

    >>> import numpy as np
    >>> X = np.array([[1., 0.], [0., 1.], [1., 1.], [-1., 0.], [0., -1.], [1., 0.]])
    >>> y = np.array([1, -1, 1, -1, 1, 1])
    >>> search = grid_search("pa1", X, y, {"C": [0.1, 1.0]})
    >>> search.best_params
    {'C': 1.0}
    >>> search.table.column("mistakes")
    [3, 2]
    """
    X, y, classes, _, _ = _check_data(X, y, None, None)
    params = dict(params or {})
    grid = _check_grid(grid)
    seed = _draw_seeds(1, shuffle, random_state)[0]
    total = X.shape[0] * math.prod(len(v) for v in grid.values())
    _check_multiclass(algorithm, classes)
    _warm_up(_check_params(algorithm, params, grid), X, y, classes)  # before the bar starts
    bar = _Progress(progress, total, f"grid {algorithm}")
    try:
        return _grid_search(algorithm, X, y, classes, grid, params, seed, bar)
    finally:
        bar.close()


def _grid_search(name, X, y, classes, grid, params, seed, bar):
    base = _check_params(name, params, grid)
    _check_multiclass(name, classes)
    _warm_up(base, X, y, classes)
    runs = []
    for combination in _combinations(grid):
        bar.describe(f"grid {name} " + _format_params(combination))
        runs.append(_run_one(name, {**params, **combination}, X, y, classes, epochs=1,
                             seed=seed, permutation=0, tick=X.shape[0], X_test=None,
                             y_test=None, progress=bar))
    return _searched(name, grid, runs)


def _combinations(grid):
    """Every combination of ``grid``, in grid order (the order of the search's table)."""
    return [dict(zip(grid, values)) for values in itertools.product(*grid.values())]


def _searched(name, grid, runs):
    """The :class:`GridSearch` of the one-pass ``runs``, one per combination in grid order."""
    rows, best, best_rate = [], None, math.inf
    for combination, run in zip(_combinations(grid), runs):
        rate = float(run.mistake_rate[-1])
        rows.append({"algorithm": name, **combination, "mistake_rate": rate,
                     "mistakes": int(run.mistakes[-1]), "updates": int(run.updates[-1]),
                     "seconds": float(run.seconds[-1])})
        if rate < best_rate:
            best, best_rate = combination, rate
    return GridSearch(name, grid, best or {}, Table(rows))


# ============================================================================ comparisons
@dataclass
class Evaluation:
    """Every run of a comparison, with its summary and learning-curve tables.

    ``data`` names the data set; ``n_examples``, ``n_features`` and ``n_classes`` describe the
    training stream; ``searches`` holds the grid search of each tuned algorithm.

    Parameters
    ----------
    runs : list of Run
        Every run, in the order they ran.
    data : str
        Name of the data set.
    n_examples, n_features, n_classes : int
        Size of the training stream: examples, features and classes.
    epochs : int
        Passes over the training stream in every run.
    permutations : int
        Orderings of the stream per algorithm.
    shuffled : bool
        Whether the orderings are random permutations (otherwise the stream's own order).
    searches : dict, default={}
        Algorithm name → its :class:`GridSearch`, for the tuned algorithms.
    """

    runs: list
    data: str
    n_examples: int
    n_features: int
    n_classes: int
    epochs: int
    permutations: int
    shuffled: bool
    searches: dict = field(default_factory=dict)

    @property
    def algorithms(self):
        """The algorithms in the order they ran."""
        return list(dict.fromkeys(run.algorithm for run in self.runs))

    def _runs_of(self, name):
        return [run for run in self.runs if run.algorithm == name]

    def summary(self):
        """One row per algorithm: the final cumulative online mistake rate, total updates, test
        error after the last epoch and learning seconds, each as the mean over permutations and
        its sample standard deviation (``*_std``, 0 for a single run)."""
        rows = []
        for name in self.algorithms:
            runs = self._runs_of(name)
            row = {"algorithm": name, "params": _format_params(runs[0].params) or None,
                   "examples": int(runs[0].examples[-1]), "epochs": self.epochs,
                   "permutations": len(runs)}
            measures = {
                "mistake_rate": [float(r.mistake_rate[-1]) for r in runs],
                "mistakes": [float(r.mistakes[-1]) for r in runs],
                "updates": [float(r.updates[-1]) for r in runs],
                "test_error": [r.test_errors[-1] for r in runs if r.test_errors],
                "seconds": [float(r.seconds[-1]) for r in runs],
            }
            for key, values in measures.items():
                mean, std = mean_std(values)
                row[key], row[f"{key}_std"] = mean, std
            rows.append(row)
        return Table(rows)

    def curves(self):
        """The learning curves, tidy: one row per algorithm, permutation and tick, with the
        test error on the rows that end an epoch (when a test set was given)."""
        rows = []
        for run in self.runs:
            for i, examples in enumerate(run.examples.tolist()):
                # (the epochs' ends are the multiples of the stream's length: no dict of one
                # entry per epoch, which a run of a billion epochs could not hold)
                epoch_end = examples // run.n_examples if examples % run.n_examples == 0 \
                    else None
                test_error = (run.test_errors[epoch_end - 1]
                              if epoch_end is not None and run.test_errors else None)
                rows.append({
                    "algorithm": run.algorithm, "permutation": run.permutation,
                    "seed": run.seed, "epoch": int(run.epoch[i]), "examples": examples,
                    "mistakes": int(run.mistakes[i]),
                    "mistake_rate": float(run.mistakes[i] / examples),
                    "updates": int(run.updates[i]), "seconds": float(run.seconds[i]),
                    "test_error": test_error,
                })
        return Table(rows, ["algorithm", "permutation", "seed", "epoch", "examples", "mistakes",
                            "mistake_rate", "updates", "seconds", "test_error"])

    def mean_curves(self):
        """Per algorithm, the curves averaged over permutations: a dict of arrays ``examples``,
        ``mistake_rate``, ``updates``, ``seconds`` (means) and ``*_std`` (sample std)."""
        out = {}
        for name in self.algorithms:
            runs = self._runs_of(name)
            curve = {"examples": runs[0].examples.copy()}
            for key in ("mistake_rate", "updates", "seconds"):
                stack = np.vstack([np.asarray(getattr(r, key), dtype=float) for r in runs])
                curve[key] = stack.mean(axis=0)
                curve[f"{key}_std"] = (stack.std(axis=0, ddof=1) if len(runs) > 1
                                       else np.zeros(stack.shape[1]))
            out[name] = curve
        return out

    def searched(self):
        """Every grid search's table, stacked (empty without a grid)."""
        rows = [row for search in self.searches.values() for row in search.table]
        return Table(rows)

    def describe(self):
        """One line: the data, the stream and the protocol."""
        order = (f"{self.permutations} seeded permutation{'s' * (self.permutations > 1)}"
                 if self.shuffled else "given order")
        return (f"{self.data}: {self.n_examples:,} examples, {self.n_features:,} features, "
                f"{self.n_classes} classes; {self.epochs} epoch{'s' * (self.epochs > 1)}, "
                f"{order}")

    def report(self):
        """The summary as aligned text for a terminal, with mean ± std over permutations."""
        summary = self.summary()
        spread = self.permutations > 1
        has_test = any(row["test_error"] is not None for row in summary)
        has_params = any(row["params"] for row in summary)
        header = ["algorithm"] + ["params"] * has_params + ["mistake rate", "updates"]
        header += ["test error"] * has_test + ["seconds"]
        lines = []
        for row in summary:
            cells = [row["algorithm"]] + [row["params"] or ""] * has_params
            cells.append(_pm(row["mistake_rate"], row["mistake_rate_std"], "%", spread))
            cells.append(_pm(row["updates"], row["updates_std"], "d", spread))
            if has_test:
                cells.append(_pm(row["test_error"], row["test_error_std"], "%", spread))
            cells.append(_pm(row["seconds"], row["seconds_std"], "s", spread))
            lines.append(cells)
        widths = [max(len(h), *(len(c[i]) for c in lines)) for i, h in enumerate(header)]
        left = 1 + has_params

        def line(cells):
            return "  ".join(c.ljust(w) if i < left else c.rjust(w)
                             for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

        return "\n".join([self.describe(), line(header)] + [line(c) for c in lines]) + "\n"


def mean_std(values):
    """Mean and sample standard deviation (ddof=1; 0 for one value, ``None`` for none)."""
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    mean = math.fsum(values) / len(values)
    if len(values) == 1:
        return mean, 0.0
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))


def _pm(mean, std, kind, spread):
    if mean is None:
        return ""

    def fmt(value):
        if kind == "%":
            return f"{value:.2%}"
        if kind == "d":
            return f"{value:.0f}" if not spread else f"{value:.1f}"
        return f"{value:.3f}"

    return f"{fmt(mean)} ± {fmt(std)}" if spread else fmt(mean)


def _params_by_algorithm(params, algorithms):
    """``params`` of :func:`compare`, ``{algorithm: {param: value}}``, as dicts; a flat
    ``{param: value}`` — the form :func:`evaluate` takes — is refused showing compare's form
    (it used to fail on ``dict(value)``, naming nothing)."""
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise TypeError(f"params is {{algorithm: {{param: value}}}}, a dict of dicts; got "
                        f"{type(params).__name__}.")
    flat = {key: value for key, value in params.items() if not isinstance(value, Mapping)}
    for key, value in flat.items():
        if key in algorithms:
            raise TypeError(f"params[{key!r}] must be a dict of {key}'s hyperparameters "
                            f"({{param: value}}); got {value!r}.")
    if flat:
        shown = {algorithms[0] if algorithms else "pa1": flat}
        raise TypeError(f"compare's params is {{algorithm: {{param: value}}}}, the hyperparameters "
                        f"of each algorithm; got {flat!r}, which names no algorithm. Give "
                        f"params={shown!r} (evaluate() takes one algorithm's params directly, as "
                        f"params={flat!r}).")
    return {name: dict(p) for name, p in params.items()}


def _format_params(params):
    """``{"C": 0.01, "variant": "exact"}`` → ``"C=0.01 variant=exact"``."""
    return " ".join(f"{k}={v}" for k, v in params.items())


def compare(X, y, algorithms: Iterable[str] | None = None, *, X_test=None, y_test=None,
            params: dict | None = None, grid: dict | None = None, epochs: int = 1,
            permutations: int = 1, shuffle: bool | None = None,
            random_state: int | None = None, tick: int | None = None, progress: bool = False,
            data: str = "data", client=None, runner=None) -> Evaluation:
    """Run each of ``algorithms`` (registry names) online over the stream ``(X, y)``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_examples, n_features)
        The training stream (dense or CSR), seen in the given order or permuted.
    y : array-like of shape (n_examples,)
        Its labels.
    algorithms : str or list of str, optional
        Registered names (one name alone: that algorithm); default every registered algorithm
        that can learn the data (``available("multiclass")`` for more than two classes, all of
        them for two).
    X_test, y_test : array-like, optional
        A test set, scored after every epoch.
    params : dict, optional
        ``{name: {param: value}}``: hyperparameters per algorithm (a flat ``{param: value}``,
        the form :func:`evaluate` takes, is an error).  One the algorithm takes but
        does not read with its settings (``C`` of the hard ``pa``, whose rule has no slack) is
        an error, as an unknown one is.
    grid : dict, optional
        ``{param: [values]}``: before the runs, each algorithm is tuned on the keys it has and
        reads by a one-pass :func:`grid_search` (on the first permutation), and then runs with
        the best values.  A key no compared algorithm has, or reads, is an error.
    epochs : int, default=1
        Passes over the stream; the cumulative counts run on across epochs.
    permutations : int, default=1
        Runs per algorithm, each on its own seeded random order of the stream (the same orders
        for every algorithm).
    shuffle : bool, optional
        Permute the stream (default: only when ``permutations > 1``); with one permutation and
        ``shuffle=False`` the stream is seen in the given order.
    random_state : int or numpy RandomState, optional
        Seed of the permutations' seeds (a RandomState is drawn from).
    tick : int, optional
        Record every ``tick`` examples (and at every epoch's end); default about 100 points.
    progress : bool, default=False
        Show a tqdm progress bar on stderr (only when stderr is a terminal).  Every path the
        runs take is played on a few rows before the bar starts, so the bar counts examples
        learned, not one-time costs.
    data : str, default="data"
        A name for the data set, used in reports.
    client : distributed.Client, optional
        Run the independent cells (grid-search combinations, then permutations) on its Dask
        cluster, the data scattered to every worker once (:mod:`onlinear.distributed.grid`).
        Every count, curve and test error equals the serial run's; only the seconds differ.
        Needs ``onlinear[dask]``; the scheduler's address is refused (connect with
        ``distributed.Client(address)``).  (The same as ``runner=DaskRunner(client)``.)
    runner : object, optional
        What runs the cells (:class:`Cells`): :class:`SerialRunner` (the default, without
        ``client``) or :class:`onlinear.distributed.grid.DaskRunner`; any object with a
        ``run(cells, bar)`` method and a ``warms_up_here`` attribute.

    Returns
    -------
    Evaluation
        The runs, their curves and the summary table.

    Raises
    ------
    ValueError
        Bad names, parameters or values, before any run starts.
    TypeError
        ``params``, ``grid`` or ``client`` not of their form (a flat ``params``, one value
        instead of a grid's list, an address instead of a client), before any run starts.
    ImportError
        With ``client``, when dask is missing.
    """
    X, y, classes, X_test, y_test = _check_data(X, y, X_test, y_test)
    if algorithms is None:
        algorithms = available("multiclass") if classes.shape[0] > 2 else available()
    if isinstance(algorithms, str):  # (list() would split the name into letters)
        algorithms = [algorithms]
    algorithms = list(algorithms)
    if not algorithms:
        raise ValueError("no algorithm to compare.")
    # (the runs of a name given twice would be merged into one row, as if permutations)
    repeated = sorted({name for name in algorithms if algorithms.count(name) > 1})
    if repeated:
        raise ValueError(f"{', '.join(map(repr, repeated))} given more than once; give each "
                         "algorithm once (use permutations for several runs).")
    _check_count("epochs", epochs)
    params = _params_by_algorithm(params, algorithms)
    for name in params:
        if name not in algorithms:
            describe(name)
            raise ValueError(f"params given for {name}, which is not compared.")
    grid = _check_grid(grid or {})
    grids = _check_grids(algorithms, params, grid)
    for name in algorithms:
        _check_multiclass(name, classes)
    seeds = _draw_seeds(permutations, shuffle, random_state)
    n = X.shape[0]
    if tick is None:
        tick = _default_tick(n * epochs)
    _check_tick(tick)

    if runner is None:
        if client is None:
            runner = SerialRunner()
        else:
            from .distributed.grid import DaskRunner

            runner = DaskRunner(client)
    cells = Cells(algorithms, grids, params, seeds, X, y, classes, X_test, y_test, epochs, tick)
    if runner.warms_up_here:  # compile (or load) every path first: the bar counts examples only
        for name in algorithms:
            first = {k: v[0] for k, v in grids[name].items() if v}
            cells.warm_up(name, {**params.get(name, {}), **first})
    search_rounds = sum(n * math.prod(len(v) for v in g.values()) for g in grids.values() if g)
    bar = _Progress(progress, search_rounds + len(algorithms) * len(seeds) * epochs * n,
                    "onlinear")
    try:
        runs, searches = runner.run(cells, bar)
    finally:
        bar.close()
    return Evaluation(runs, data, n, X.shape[1], int(classes.shape[0]), epochs, len(seeds),
                      seeds[0] is not None, searches)


@dataclass
class Cells:
    """The independent cells of one :func:`compare` call, for a runner to run.

    A *cell* is one run: an algorithm with its hyperparameters on one seeded ordering of the
    stream — a grid-search cell (one pass per combination of the algorithm's grid, on the first
    ordering, no test set) or a permutation cell (``epochs`` passes on ordering ``index``, the
    test set scored after each).  The runs of an algorithm's permutation cells take the grid
    search's best combination (:meth:`choose`) once all its search cells are back.

    A runner (:class:`SerialRunner`, :class:`onlinear.distributed.grid.DaskRunner`) decides
    where the cells run and in what order, through these methods only; the results equal the
    serial run's cell by cell whatever the runner.

    Parameters
    ----------
    algorithms : list of str
        The algorithms, in the order of the runs.
    grids : dict
        Algorithm → its grid (``{param: [values]}``, empty when not tuned).
    params : dict
        Algorithm → its fixed hyperparameters.
    seeds : list
        The permutations' seeds (``[None]`` for the given order).
    X, y, classes, X_test, y_test
        The validated stream, its classes and the test set (``None`` without one); ``X`` and
        the others are ``None`` in a copy made by :meth:`without_data`.
    epochs, tick : int
        As for :func:`compare`.
    """

    algorithms: list
    grids: dict
    params: dict
    seeds: list
    X: object
    y: object
    classes: object
    X_test: object
    y_test: object
    epochs: int
    tick: int

    @property
    def data(self):
        """``(X, y, classes, X_test, y_test)``: what a cell reads besides its own arguments."""
        return self.X, self.y, self.classes, self.X_test, self.y_test

    def without_data(self):
        """A copy without the data (to ship to workers that get the data once, separately)."""
        return Cells(self.algorithms, self.grids, self.params, self.seeds, None, None, None,
                     None, None, self.epochs, self.tick)

    def with_data(self, data):
        """A copy holding ``data`` (the tuple of :attr:`data`)."""
        return Cells(self.algorithms, self.grids, self.params, self.seeds, *data, self.epochs,
                     self.tick)

    def combinations(self, name):
        """The grid-search combinations of algorithm ``name``, in grid order (none when it is
        not tuned)."""
        return _combinations(self.grids[name]) if self.grids[name] else []

    def cell_params(self, name, index, search, best=None):
        """The hyperparameters of a cell: the fixed ones with search combination ``index``, or
        with the search's ``best`` combination for a permutation cell."""
        fixed = self.params.get(name, {})
        if search:
            return {**fixed, **self.combinations(name)[index]}
        return {**fixed, **(best or {})}

    def run(self, name, params, index, search, progress=None):
        """One cell: a grid-search pass of combination ``index`` (``search``) or permutation
        ``index``, with ``params`` (:meth:`cell_params`).  Returns its :class:`Run`."""
        if search:
            return _run_one(name, params, self.X, self.y, self.classes, epochs=1,
                            seed=self.seeds[0], permutation=0, tick=self.X.shape[0],
                            X_test=None, y_test=None, progress=progress)
        return _run_one(name, params, self.X, self.y, self.classes, epochs=self.epochs,
                        seed=self.seeds[index], permutation=index, tick=self.tick,
                        X_test=self.X_test, y_test=self.y_test, progress=progress)

    def choose(self, name, runs):
        """The :class:`GridSearch` of algorithm ``name`` from its search cells' ``runs`` (one
        per combination, in grid order): the combination of the lowest mistake rate."""
        return _searched(name, self.grids[name], runs)

    def warm_up(self, name, params):
        """Compile (or load) the paths algorithm ``name`` with ``params`` takes, on a few rows,
        outside any cell's timing."""
        _warm_up(describe(name).make(**params), self.X, self.y, self.classes)


class SerialRunner:
    """Runs the cells of :func:`compare` one after another in this process: per algorithm, its
    grid search's cells and then its permutation cells."""

    #: the cells' compiled paths are warmed up in this process before the progress bar starts
    warms_up_here = True

    def run(self, cells, bar):
        """``(runs, searches)``: the :class:`Run` of every permutation cell (by algorithm, then
        permutation) and algorithm → :class:`GridSearch` for the tuned ones."""
        runs, searches = [], {}
        for name in cells.algorithms:
            best = None
            if cells.grids[name]:
                searched = []
                for index, combination in enumerate(cells.combinations(name)):
                    bar.describe(f"grid {name} " + _format_params(combination))
                    searched.append(cells.run(name, cells.cell_params(name, index, True), index,
                                              True, progress=bar))
                searches[name] = cells.choose(name, searched)
                best = searches[name].best_params
            params = cells.cell_params(name, 0, False, best)
            cells.warm_up(name, params)
            for permutation in range(len(cells.seeds)):
                bar.describe(name if len(cells.seeds) == 1 else f"{name} #{permutation + 1}")
                runs.append(cells.run(name, params, permutation, False, progress=bar))
        return runs, searches


def evaluate(algorithm: str, X, y, *, params: dict | None = None, grid: dict | None = None,
             **options) -> Evaluation:
    """:func:`compare` for one algorithm, with its ``params`` given directly
    (``evaluate("pa1", X, y, params={"C": 0.01})``)."""
    return compare(X, y, [algorithm], params={algorithm: dict(params or {})}, grid=grid,
                   **options)
