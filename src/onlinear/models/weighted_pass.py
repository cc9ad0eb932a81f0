"""Passes played in parts: over rows that carry example weights, for the models whose compiled
pass takes one weight for all its rows (:mod:`onlinear.models.gaussian`: the weight is in the
rule's parameters; :mod:`onlinear.models.adaptive`: the engine's ``weight``), or row by row.

The pass is cut into the maximal runs of consecutive rounds of equal weight; a long run is one
compiled pass, a shorter one is played row by row.  A compiled pass checks the labels of the
whole data set on every call (O(rows)), so a run is long from :data:`LONG_RUN` rounds and from
1/:data:`MAX_PASSES` of the data set's rows: at most that many passes check it, and the rest
costs one compiled row call a round.
The rounds are those of one pass of the same rules in the same order: the result does not
depend on where the runs are cut.  :func:`play_rows` is the pass of the models whose rounds run
in Python (:mod:`onlinear.models.narow`, :mod:`onlinear.models.dual_adagrad`).
"""
import numpy as np
import scipy.sparse as sp

#: the shortest run played as one compiled pass
LONG_RUN = 64
#: the most compiled passes (each checking every row's label) one weighted pass makes
MAX_PASSES = 256


def equal_weight_runs(weights):
    """``(start, stop)`` of the maximal runs of equal consecutive entries of ``weights``.

    >>> equal_weight_runs(np.array([1.0, 1.0, 0.0, 2.0, 2.0]))
    [(0, 2), (2, 3), (3, 5)]
    """
    if weights.shape[0] == 0:
        return []
    cuts = np.flatnonzero(weights[1:] != weights[:-1]) + 1
    bounds = np.concatenate(([0], cuts, [weights.shape[0]])).tolist()
    return list(zip(bounds[:-1], bounds[1:]))


def row_entries(X, i):
    """``(indices, values)`` of the non-zeros of row ``i`` of the checked ``X`` (int64,
    float64): what a compiled row round takes."""
    if sp.issparse(X):
        start, stop = X.indptr[i], X.indptr[i + 1]
        return (X.indices[start:stop].astype(np.int64),
                X.data[start:stop].astype(np.float64))
    row = X[i]
    indices = np.flatnonzero(row)
    return indices.astype(np.int64), row[indices].astype(np.float64)


def play(X, targets, order, weights, predictions, run, row):
    """One pass over the rows ``order`` of ``X`` whose example weights are ``weights`` (one per
    row of ``X``): ``run(order_part, predictions_part, weight)`` plays a long run as one pass,
    ``row(i, weight)`` one round on row ``i``; ``run`` returns its ``(mistakes, updates)``,
    ``row`` its ``(predicted index, updated)``.  ``predictions`` (or None) receives every
    round's prediction.  Returns ``(mistakes, updates)``."""
    in_order = weights[order]
    long_run = max(LONG_RUN, X.shape[0] // MAX_PASSES)
    mistakes = updates = 0
    for start, stop in equal_weight_runs(in_order):
        weight = float(in_order[start])
        if stop - start >= long_run:
            part = None if predictions is None else np.empty(stop - start, np.int64)
            wrong, stepped = run(np.ascontiguousarray(order[start:stop]), part, weight)
            if part is not None:
                predictions[start:stop] = part
            mistakes += wrong
            updates += stepped
            continue
        for t in range(start, stop):
            i = int(order[t])
            predicted, stepped = row(i, weight)
            if predictions is not None:
                predictions[t] = predicted
            mistakes += predicted != targets[i]
            updates += stepped
    return int(mistakes), int(updates)


def play_rows(X, targets, order, predictions, row):
    """One pass played row by row in Python, for the models without a compiled pass:
    ``row(indices, values, label)`` plays one round and returns ``(predicted, updated)``, or
    raises ValueError having changed nothing (re-raised naming the row).  ``predictions`` (or
    None) receives every round's prediction.  Returns ``(mistakes, updates)``."""
    mistakes = updates = 0
    for t, i in enumerate(np.asarray(order, dtype=np.int64).tolist()):
        try:
            predicted, updated = row(*row_entries(X, i), int(targets[i]))
        except ValueError as error:
            raise ValueError(f"row {i} (position {t} of the pass): {error}; the rounds before "
                             "it were taken") from None
        if predictions is not None:
            predictions[t] = predicted
        mistakes += predicted != targets[i]
        updates += updated
    return int(mistakes), int(updates)
