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
from numba import njit

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


@njit(cache=True, error_model="numpy", inline="always")
def _tally(counts, flags, t, mistake, updated, updates):
    counts[SEEN] += 1
    if mistake:
        counts[MISTAKES] += 1
    if updated:
        counts[updates] += 1
    if flags.shape[0] > 0:
        flags[t] = (1 if mistake else 0) | (2 if updated else 0)


@njit(cache=True, error_model="numpy", inline="always")
def count_round(counts, predictions, t, predicted, label, updated):
    """Count round t, in which ``predicted`` was predicted for an example of class ``label``
    (``predictions[t] = predicted`` if predictions are kept)."""
    counts[SEEN] += 1
    if predicted != label:
        counts[MISTAKES] += 1
    if updated:
        counts[UPDATES] += 1
    if predictions.shape[0] > 0:
        predictions[t] = predicted


@njit(cache=True, error_model="numpy")
def count_trial(counts, flags, t, n_constraints, n_mistakes, updated):
    """Count trial t of ``n_constraints`` constraints, ``n_mistakes`` of them violated."""
    counts[CONSTRAINTS] += n_constraints
    counts[CONSTRAINT_MISTAKES] += n_mistakes
    _tally(counts, flags, t, n_mistakes > 0, updated, TRIAL_UPDATES)
