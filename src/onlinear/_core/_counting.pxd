# cython: language_level=3
"""The counters every compiled loop increments, in one layout (documented in
:mod:`onlinear._core.counters`)."""
from libc.stdint cimport int8_t, int64_t

cdef enum:
    SEEN = 0
    MISTAKES = 1
    UPDATES = 2
    TRIALS = 0
    IMPERFECT = 1
    CONSTRAINT_MISTAKES = 2
    CONSTRAINTS = 3
    TRIAL_UPDATES = 4


cdef inline void count_round(int64_t *counts, int64_t *predictions, Py_ssize_t t,
                             Py_ssize_t predicted, Py_ssize_t label, bint updated) noexcept nogil:
    """Count round t, in which ``predicted`` was predicted for an example of class ``label``
    (``predictions[t] = predicted`` if predictions are kept: not NULL)."""
    counts[SEEN] += 1
    if predicted != label:
        counts[MISTAKES] += 1
    if updated:
        counts[UPDATES] += 1
    if predictions != NULL:
        predictions[t] = predicted


cdef inline void count_trial(int64_t *counts, int8_t *flags, Py_ssize_t t,
                             Py_ssize_t n_constraints, Py_ssize_t n_mistakes,
                             bint updated) noexcept nogil:
    """Count trial t of ``n_constraints`` constraints, ``n_mistakes`` of them violated
    (``flags[t] = mistake | updated << 1`` if flags are kept: not NULL)."""
    counts[CONSTRAINTS] += n_constraints
    counts[CONSTRAINT_MISTAKES] += n_mistakes
    counts[TRIALS] += 1
    if n_mistakes > 0:
        counts[IMPERFECT] += 1
    if updated:
        counts[TRIAL_UPDATES] += 1
    if flags != NULL:
        flags[t] = (1 if n_mistakes > 0 else 0) | (2 if updated else 0)
