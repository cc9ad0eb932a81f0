"""The counters every compiled loop increments, in one layout.

``counts`` (int64) of a learner that plays rounds (primal, ellipsoid, kernel):
``[SEEN, MISTAKES, UPDATES]`` — examples seen, mistakes (the prediction made before the update
was wrong), updates (the model changed).  ``predictions`` (int64), when it has one entry per
round, receives the index predicted in each round (``learn_many`` returns them); when empty,
nothing.  The block learners' ``flags`` (int8, one per trial, or empty) receive
``mistake | updated << 1``.

The block learners play *trials* of several binary constraints and extend the layout: a trial
is the round (``TRIALS = SEEN``), an imperfect trial (some constraint's margin ≤ 0) its mistake
(``IMPERFECT = MISTAKES``); then the constraint counts, and the trial updates last
(``TRIAL_UPDATES = 4``, not 2: the simultaneous estimators keep their ``_counts`` in this order,
and a saved model holds it).
"""
import numpy as np

from libc.stdint cimport int8_t, int64_t

from . cimport _counting

SEEN = 0
MISTAKES = 1
UPDATES = 2
N_COUNTS = 3

TRIALS = SEEN
IMPERFECT = MISTAKES
CONSTRAINT_MISTAKES = 2
CONSTRAINTS = 3
TRIAL_UPDATES = 4
N_TRIAL_COUNTS = 5

#: ``predictions`` of a pass that keeps none
NO_PREDICTIONS = np.empty(0, np.int64)
# (the compiled loops' own copy of the layout: _counting.pxd)
assert (SEEN, MISTAKES, UPDATES, CONSTRAINT_MISTAKES, CONSTRAINTS, TRIAL_UPDATES) == (
    _counting.SEEN, _counting.MISTAKES, _counting.UPDATES, _counting.CONSTRAINT_MISTAKES,
    _counting.CONSTRAINTS, _counting.TRIAL_UPDATES)


def count_round(int64_t[::1] counts, int64_t[::1] predictions, Py_ssize_t t,
                Py_ssize_t predicted, Py_ssize_t label, bint updated):
    """Count round t, in which ``predicted`` was predicted for an example of class ``label``
    (``predictions[t] = predicted`` if predictions are kept): the engines' own counting."""
    if counts.shape[0] < N_COUNTS or not (predictions.shape[0] == 0
                                         or 0 <= t < predictions.shape[0]):
        raise ValueError("counts must have 3 entries, predictions none or round t's")
    _counting.count_round(&counts[0], &predictions[0] if predictions.shape[0] else NULL, t,
                          predicted, label, updated)


def count_trial(int64_t[::1] counts, int8_t[::1] flags, Py_ssize_t t, Py_ssize_t n_constraints,
                Py_ssize_t n_mistakes, bint updated):
    """Count trial t of ``n_constraints`` constraints, ``n_mistakes`` of them violated: the
    block engine's own counting."""
    if counts.shape[0] < N_TRIAL_COUNTS or not (flags.shape[0] == 0 or 0 <= t < flags.shape[0]):
        raise ValueError("counts must have 5 entries, flags none or trial t's")
    _counting.count_trial(&counts[0], &flags[0] if flags.shape[0] else NULL, t, n_constraints,
                          n_mistakes, updated)
