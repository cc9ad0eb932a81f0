"""The compiled online loop shared by every linear learner: score, predict, step, apply.

Model layout.  ``W`` has shape ``(n_features, n_outputs)`` — *feature-major*, so the outputs of
one feature are contiguous (about 4× faster than class-major for CSR rows, see design.md).
``state`` has shape ``(n_state_rows, n_outputs)``:

* ``state[SCALE, r]`` — the lazy scale factor of output r: the true weights are
  ``w_r = state[SCALE, r] · W[:, r]``;
* ``state[RAW_SQNORM, r]`` — ``Σ_j W[j, r]²`` and ``state[RAW_MASS, r]`` — ``Σ_j W[j, r]``
  (the multiplicative family), kept current by the engine (see :mod:`onlinear.rules.layout`);
* rows from ``FIRST_RULE_ROW`` on belong to the rule (MCP's ℓ, NAROMMA's ρ, …).

A row is one array of column indices and one of values: a CSR row directly, a dense row as
``arange(n_features)`` with the row itself (zeros are skipped), so both share one code path —
except for the scoring and the additive step of a whole dense pass (:func:`run_dense`), which
work on a *class-major* copy of ``W`` (a Fortran-ordered view of the same shape, so every helper
below runs on it unchanged) with contiguous, vectorized dot products.  For CSR rows the
feature-major layout is faster; for dense rows the class-major dot product is (2.9× on the
MNIST-sized benchmark).  The vectorized sums are reassociated (``fastmath`` reassoc/contract),
so a dense pass and a CSR pass over the same data agree to rounding (~1e-15 relative), not bit
for bit; everything else (rules, counting, the per-example path) is shared.

Each round, strictly in the given order:
  1. scores ``s_r = w_r·x`` and ``q = ‖x‖²``;
  2. prediction (before the update): one output → class 1 iff ``s > 0``; several outputs →
     ``argmax_r s_r`` (``s_r/‖w_r‖`` for scale-free learners, which the engine also keeps at
     unit norm), ties to the lowest class index;
  3. unless ``x = 0`` (every rule's step is then a no-op), the rule writes per-output steps
     ``tau`` and rescaling factors ``factor``;
  4. the engine applies them — additive: ``w_r ← factor_r·w_r + tau_r·x`` in O(non-zeros of x)
     through the lazy scale; multiplicative: ``w_{r,j} ← w_{r,j}·exp(tau_r x_j)`` on the
     non-zeros, renormalized to unit l1 mass per row or for the whole matrix (lazily, through the
     scale, since the mass of the row is ``1/scale``).  A round is an *update* when the model
     changed.

Counters (``counts``): ``[examples seen, mistakes, updates]``.  ``flags``, when it has one entry
per round, receives ``mistake | updated << 1`` for the evaluation harness.
"""
import math

import numpy as np
from numba import njit

from .rules.dispatch import compute_steps
from .rules.layout import RAW_MASS, RAW_SQNORM, SCALE, SIZE_ANCHOR, squared_norm

SEEN = 0
MISTAKES = 1
UPDATES = 2

ADDITIVE = 0
MULTIPLICATIVE_ROW = 1
MULTIPLICATIVE_MATRIX = 2

# Fold the lazy scale into W before it can overflow or underflow.
_SCALE_LOW = 1e-100
_SCALE_HIGH = 1e100
# A multiplicative exponent beyond this means η|x_j| far outside any bound's range; clamping it
# keeps the unnormalized mass finite, and the floor keeps every weight strictly positive.
_MAX_EXPONENT = 300.0
_MIN_WEIGHT = 1e-300


#: Every learner accepts a row x only if x = 0 or ``2^-ROW_NORM_EXPONENT ≤ ‖x‖ ≤
#: 2^ROW_NORM_EXPONENT`` (≈ 9.5e-153 … 1.0e152), i.e. ``‖x‖²`` within ``[2^-1010, 2^1010]``.
#: The rules form ``‖x‖²``, ``1/‖x‖²``, scores ``w·x`` with ‖w‖ of the order of ``1/min‖x‖``
#: (PA-type steps) or ``T·max‖x‖`` (Perceptron-type steps), and products of two of these; the
#: bound leaves them all 2^13 of headroom below float64's 2^1024 (and keeps ``‖x‖²`` a normal
#: number: a subnormal one makes ``1/‖x‖²`` infinite, one that underflows to 0 would silently
#: turn x into the zero row).  Data at any scale in ``[1e-150, 1e150]`` times rows of norm
#: ``[0.02, 100]`` is accepted; outside, the estimators raise before learning anything.
ROW_NORM_EXPONENT = 505
_SQNORM_LOW = 2.0 ** (-2 * ROW_NORM_EXPONENT)
_SQNORM_HIGH = 2.0 ** (2 * ROW_NORM_EXPONENT)


@njit(cache=True, fastmath={"reassoc", "contract"})
def _sum_of_squares(row):
    q = 0.0
    for p in range(row.shape[0]):  # no early exit, so it vectorizes; NaN/inf propagate to q
        v = np.float64(row[p])
        q += v * v
    return q


@njit(cache=True)
def _row_ok(row):
    """Whether the 1-D ``row`` is finite and zero or of an accepted norm."""
    q = _sum_of_squares(row)
    if _SQNORM_LOW <= q <= _SQNORM_HIGH:
        return True
    if q != 0.0:
        return False  # NaN, inf, overflowing or subnormal ‖x‖²
    for p in range(row.shape[0]):  # ‖x‖² = 0: the zero row, or one that underflowed
        if row[p] != 0.0:
            return False
    return True


@njit(cache=True)
def first_bad_row_dense(X):
    """Index of the first row of the 2-D C-contiguous ``X`` that is not finite or whose norm is
    outside the accepted range (see :data:`ROW_NORM_EXPONENT`), −1 if there is none: the
    validation pass of every estimator, one sweep over X."""
    for i in range(X.shape[0]):
        if not _row_ok(X[i]):
            return i
    return -1


@njit(cache=True)
def first_bad_row_sparse(data, indptr):
    """:func:`first_bad_row_dense` for the CSR rows ``(data, indptr)``."""
    for i in range(indptr.shape[0] - 1):
        if not _row_ok(data[indptr[i]:indptr[i + 1]]):
            return i
    return -1


@njit(cache=True)
def predict_index(scores, state, scale_free):
    m = scores.shape[0]
    if m == 1:
        return 1 if scores[0] > 0.0 else 0
    best = 0
    best_value = -np.inf
    for r in range(m):
        value = scores[r]
        if scale_free:
            norm = math.sqrt(squared_norm(state, r))
            value = value / norm if norm > 0.0 else 0.0
        if value > best_value:
            best = r
            best_value = value
    return best


@njit(cache=True)
def _score(idx, vals, W, state, scores):
    """True scores into ``scores``; returns ``‖x‖²`` (in float64 whatever the input dtype)."""
    m = W.shape[1]
    for r in range(m):
        scores[r] = 0.0
    q = 0.0
    for p in range(idx.shape[0]):
        v = np.float64(vals[p])
        if v != 0.0:
            j = idx[p]
            q += v * v
            for r in range(m):
                scores[r] += W[j, r] * v
    for r in range(m):
        scores[r] *= state[SCALE, r]
    return q


# Reassociation lets numba vectorize the sums over features; contraction fuses multiply-adds.
# No other fast-math flag: NaN and inf keep their IEEE meaning.
_VECTOR_MATH = {"reassoc", "contract"}


@njit(cache=True, fastmath=_VECTOR_MATH)
def _score_dense(x, W, state, scores):
    """:func:`_score` for a whole dense row and a class-major ``W`` (column r contiguous)."""
    q = 0.0
    s = 0.0
    for j in range(x.shape[0]):  # ‖x‖² in the same sweep as the first output's score
        v = np.float64(x[j])
        q += v * v
        s += W[j, 0] * v
    scores[0] = s * state[SCALE, 0]
    for r in range(1, W.shape[1]):
        s = 0.0
        for j in range(x.shape[0]):
            s += W[j, r] * np.float64(x[j])
        scores[r] = s * state[SCALE, r]
    return q


@njit(cache=True)
def _add_row(idx, vals, W, r, step):
    """``W[:, r] += step·x`` on the non-zeros of x; returns the change of ``Σ_j W[j, r]²``."""
    change = 0.0
    for p in range(idx.shape[0]):
        v = np.float64(vals[p])
        if v != 0.0:
            j = idx[p]
            old = W[j, r]
            new = old + step * v
            W[j, r] = new
            change += (new - old) * (new + old)
    return change


@njit(cache=True, fastmath=_VECTOR_MATH)
def _add_dense_row(x, W, r, step):
    """:func:`_add_row` for a whole dense row and a class-major ``W``."""
    change = 0.0
    for j in range(x.shape[0]):
        old = W[j, r]
        new = old + step * np.float64(x[j])
        W[j, r] = new
        change += (new - old) * (new + old)
    return change


@njit(cache=True)
def _fold(W, state, r):
    """Multiply the scale of output r into its column so that the scale is 1 again."""
    scale = state[SCALE, r]
    for j in range(W.shape[0]):
        W[j, r] *= scale
    state[SCALE, r] = 1.0
    _exact_sizes(W, state, r)


@njit(cache=True)
def _exact_sizes(W, state, r):
    sqnorm = 0.0
    mass = 0.0
    for j in range(W.shape[0]):
        sqnorm += W[j, r] * W[j, r]
        mass += W[j, r]
    state[RAW_SQNORM, r] = sqnorm
    state[RAW_MASS, r] = mass
    state[SIZE_ANCHOR, r] = 0.0


@njit(cache=True)
def _track_size(W, state, r, row, after):
    """Store a column size updated by a running sum; recompute it exactly once it has fallen
    below half of its largest value since the last exact computation (see rules.layout)."""
    anchor = max(state[SIZE_ANCHOR, r], state[row, r])
    if after < 0.5 * anchor:
        _exact_sizes(W, state, r)
    else:
        state[row, r] = after
        state[SIZE_ANCHOR, r] = max(anchor, after)


@njit(cache=True)
def _apply_additive(idx, vals, W, state, tau, factor, unit_norm, dense):
    """``w_r ← factor_r·w_r + tau_r·x`` (then ``w_r ← w_r/‖w_r‖`` for scale-free learners, whose
    predictions only depend on directions); returns whether the model changed.  ``dense``: the
    row is the whole of ``vals`` and ``W`` is class-major (see :func:`run_dense`)."""
    changed = False
    m = W.shape[1]
    for r in range(m):
        c = factor[r]
        if c == 1.0 and tau[r] == 0.0:
            continue
        changed = True
        if c == 0.0:
            W[:, r] = 0.0
            state[SCALE, r] = 1.0
            state[RAW_SQNORM, r] = 0.0
            state[SIZE_ANCHOR, r] = 0.0
        elif c != 1.0:
            state[SCALE, r] *= c
            if not (_SCALE_LOW < abs(state[SCALE, r]) < _SCALE_HIGH):
                _fold(W, state, r)
        if tau[r] == 0.0:
            continue
        step = tau[r] / state[SCALE, r]
        before = state[RAW_SQNORM, r]
        if dense:
            change = _add_dense_row(vals, W, r, step)
        else:
            change = _add_row(idx, vals, W, r, step)
        _track_size(W, state, r, RAW_SQNORM, before + change)
        if unit_norm:
            norm = math.sqrt(squared_norm(state, r))
            if norm > 0.0:
                state[SCALE, r] /= norm
                if not (_SCALE_LOW < abs(state[SCALE, r]) < _SCALE_HIGH):
                    _fold(W, state, r)
    return changed


@njit(cache=True)
def _apply_multiplicative(idx, vals, W, state, tau, whole_matrix):
    """``w_{r,j} ← w_{r,j}·exp(tau_r x_j) / Z`` with Z the new l1 mass of the row (or matrix).

    The scale of a row is ``1/mass`` (rows, or the whole matrix, sum to 1), and the mass is
    updated from the touched non-zeros of x only.
    """
    m = W.shape[1]
    changed = False
    for r in range(m):
        if tau[r] == 0.0:
            continue
        changed = True
        before = state[RAW_MASS, r]
        change = 0.0
        for p in range(idx.shape[0]):
            v = np.float64(vals[p])
            if v != 0.0:
                j = idx[p]
                exponent = min(_MAX_EXPONENT, max(-_MAX_EXPONENT, tau[r] * v))
                old = W[j, r]
                new = max(old * math.exp(exponent), _MIN_WEIGHT)
                W[j, r] = new
                change += new - old
        _track_size(W, state, r, RAW_MASS, before + change)
    if not changed:
        return False
    if whole_matrix:
        total = 0.0
        for r in range(m):
            total += state[RAW_MASS, r]
        for r in range(m):
            state[SCALE, r] = 1.0 / total
    else:
        for r in range(m):
            state[SCALE, r] = 1.0 / state[RAW_MASS, r]
    for r in range(m):
        if not (_SCALE_LOW < state[SCALE, r] < _SCALE_HIGH):
            _renormalize(W, state, whole_matrix)
            break
    return True


@njit(cache=True)
def _renormalize(W, state, whole_matrix):
    """Fold the scales of a multiplicative model into W (its masses become exact again)."""
    for r in range(W.shape[1]):
        _fold(W, state, r)
    if whole_matrix:
        total = 0.0
        for r in range(W.shape[1]):
            total += state[RAW_MASS, r]
        for r in range(W.shape[1]):
            state[SCALE, r] = 1.0 / total
    else:
        for r in range(W.shape[1]):
            state[SCALE, r] = 1.0 / state[RAW_MASS, r]


@njit(cache=True)
def one_round(idx, vals, y, W, rule, params, state, step_kind, scale_free, scores, tau,
              factor, dense=False):
    """One online round on the row ``(idx, vals)``; returns ``(predicted index, model changed)``.

    ``dense``: ``vals`` is a whole dense row (``idx = arange(n_features)``) and ``W`` is
    class-major, so scoring and additive steps take the vectorized path."""
    if dense:
        q = _score_dense(vals, W, state, scores)
    else:
        q = _score(idx, vals, W, state, scores)
    predicted = predict_index(scores, state, scale_free)
    if q == 0.0:
        return predicted, False
    for r in range(W.shape[1]):
        tau[r] = 0.0
        factor[r] = 1.0
    compute_steps(rule, scores, y, q, params, state, tau, factor)
    if step_kind == ADDITIVE:
        changed = _apply_additive(idx, vals, W, state, tau, factor, scale_free, dense)
    else:
        changed = _apply_multiplicative(idx, vals, W, state, tau,
                                        step_kind == MULTIPLICATIVE_MATRIX)
    return predicted, changed


@njit(cache=True)
def _count(counts, flags, t, y, predicted, updated):
    counts[SEEN] += 1
    mistake = predicted != y
    if mistake:
        counts[MISTAKES] += 1
    if updated:
        counts[UPDATES] += 1
    if flags.shape[0] > 0:
        flags[t] = (1 if mistake else 0) | (2 if updated else 0)


@njit(cache=True)
def run_dense(X, y, order, W, rule, params, state, step_kind, scale_free, counts, flags):
    """Online pass over the rows ``X[order]`` (dense, C-contiguous), on a class-major copy of
    ``W`` (O(n_features·n_outputs) once per pass) written back at the end."""
    m = W.shape[1]
    scores, tau, factor = np.empty(m), np.empty(m), np.empty(m)
    idx = np.arange(X.shape[1])
    class_major = W.T.copy().T  # same shape, Fortran order: column r contiguous
    for t in range(order.shape[0]):
        i = order[t]
        predicted, updated = one_round(idx, X[i], y[i], class_major, rule, params, state,
                                       step_kind, scale_free, scores, tau, factor, True)
        _count(counts, flags, t, y[i], predicted, updated)
    W[:, :] = class_major


@njit(cache=True)
def run_sparse(data, indices, indptr, y, order, W, rule, params, state, step_kind,
               scale_free, counts, flags):
    """Online pass over the CSR rows ``order`` of ``(data, indices, indptr)``."""
    m = W.shape[1]
    scores, tau, factor = np.empty(m), np.empty(m), np.empty(m)
    for t in range(order.shape[0]):
        i = order[t]
        start, stop = indptr[i], indptr[i + 1]
        predicted, updated = one_round(indices[start:stop], data[start:stop], y[i], W, rule,
                                       params, state, step_kind, scale_free, scores, tau,
                                       factor)
        _count(counts, flags, t, y[i], predicted, updated)


@njit(cache=True)
def learn_one_dense(idx, x, y, W, rule, params, state, step_kind, scale_free, counts):
    """The streaming step on one dense row (``idx = arange(n_features)``); returns the
    prediction made before the update."""
    m = W.shape[1]
    scores, tau, factor = np.empty(m), np.empty(m), np.empty(m)
    predicted, updated = one_round(idx, x, y, W, rule, params, state, step_kind,
                                   scale_free, scores, tau, factor)
    _count(counts, np.empty(0, np.int8), 0, y, predicted, updated)
    return predicted
