"""The compiled online loop shared by every linear learner: score, predict, step, apply.

Model layout.  ``W`` has shape ``(n_features, n_outputs)`` — *feature-major*, so the outputs of
one feature are contiguous (about 4× faster than class-major for CSR rows, see design.md).
``state`` has shape ``(n_state_rows, n_outputs)``:

* ``state[SCALE, r]`` — the lazy scale factor of output r: the true weights are
  ``w_r = state[SCALE, r] · W[:, r]``;
* ``state[SQNORM, r]`` — ``‖w_r‖²``, kept current by the engine after every additive step;
* rows from ``FIRST_RULE_ROW`` on belong to the rule (MCP's ℓ, NAROMMA's ρ, …).

A row is one array of column indices and one of values: a CSR row directly, a dense row as
``arange(n_features)`` with the row itself (zeros are skipped), so both share one code path.

Each round, strictly in the given order:
  1. scores ``s_r = w_r·x`` and ``q = ‖x‖²``;
  2. prediction (before the update): one output → class 1 iff ``s > 0``; several outputs →
     ``argmax_r s_r`` (``s_r/‖w_r‖`` for scale-free learners), ties to the lowest class index;
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
from .rules.layout import SCALE, SQNORM

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


@njit(cache=True)
def predict_index(scores, state, normalize_scores):
    m = scores.shape[0]
    if m == 1:
        return 1 if scores[0] > 0.0 else 0
    best = 0
    best_value = -np.inf
    for r in range(m):
        value = scores[r]
        if normalize_scores:
            norm = math.sqrt(state[SQNORM, r])
            value = value / norm if norm > 0.0 else 0.0
        if value > best_value:
            best = r
            best_value = value
    return best


@njit(cache=True)
def _score(idx, vals, W, state, scores):
    """True scores into ``scores``; returns ``‖x‖²``."""
    m = W.shape[1]
    for r in range(m):
        scores[r] = 0.0
    q = 0.0
    for p in range(idx.shape[0]):
        v = float(vals[p])
        if v != 0.0:
            j = idx[p]
            q += v * v
            for r in range(m):
                scores[r] += W[j, r] * v
    for r in range(m):
        scores[r] *= state[SCALE, r]
    return q


@njit(cache=True)
def _fold(W, state, r):
    """Multiply the scale of output r into its column so that the scale is 1 again."""
    scale = state[SCALE, r]
    for j in range(W.shape[0]):
        W[j, r] *= scale
    state[SCALE, r] = 1.0


@njit(cache=True)
def _apply_additive(idx, vals, q, W, state, scores, tau, factor):
    """``w_r ← factor_r·w_r + tau_r·x``; returns whether the model changed."""
    changed = False
    m = W.shape[1]
    for r in range(m):
        c = factor[r]
        if c == 1.0 and tau[r] == 0.0:
            continue
        changed = True
        state[SQNORM, r] = max(0.0, c * c * state[SQNORM, r] + 2.0 * c * tau[r] * scores[r]
                               + tau[r] * tau[r] * q)
        if c == 0.0:
            W[:, r] = 0.0
            state[SCALE, r] = 1.0
        elif c != 1.0:
            state[SCALE, r] *= c
            if not (_SCALE_LOW < abs(state[SCALE, r]) < _SCALE_HIGH):
                _fold(W, state, r)
        if tau[r] == 0.0:
            continue
        step = tau[r] / state[SCALE, r]
        for p in range(idx.shape[0]):
            v = float(vals[p])
            if v != 0.0:
                W[idx[p], r] += step * v
    return changed


@njit(cache=True)
def _apply_multiplicative(idx, vals, W, state, tau, whole_matrix):
    """``w_{r,j} ← w_{r,j}·exp(tau_r x_j) / Z`` with Z the new l1 mass of the row (or matrix).

    The mass of output r in W units is ``1/scale_r`` (rows, or the whole matrix, sum to 1), so
    only the non-zeros of x are touched: ``mass ← mass + Σ_j (new_j − old_j)``.
    """
    m = W.shape[1]
    changed = False
    total_delta = 0.0
    for r in range(m):
        if tau[r] == 0.0:
            continue
        changed = True
        delta = 0.0
        for p in range(idx.shape[0]):
            v = float(vals[p])
            if v != 0.0:
                j = idx[p]
                exponent = min(_MAX_EXPONENT, max(-_MAX_EXPONENT, tau[r] * v))
                old = W[j, r]
                new = max(old * math.exp(exponent), _MIN_WEIGHT)
                W[j, r] = new
                delta += new - old
        if whole_matrix:
            total_delta += delta
        else:
            state[SCALE, r] = 1.0 / (1.0 / state[SCALE, r] + delta)
            if not (_SCALE_LOW < state[SCALE, r] < _SCALE_HIGH):
                _fold(W, state, r)
    if whole_matrix and changed:
        scale = 1.0 / (1.0 / state[SCALE, 0] + total_delta)
        for r in range(m):
            state[SCALE, r] = scale
        if not (_SCALE_LOW < scale < _SCALE_HIGH):
            for r in range(m):
                _fold(W, state, r)
    return changed


@njit(cache=True)
def one_round(idx, vals, y, W, rule, params, state, step_kind, normalize_scores, scores, tau,
              factor):
    """One online round on the row ``(idx, vals)``; returns ``(predicted index, model changed)``."""
    q = _score(idx, vals, W, state, scores)
    predicted = predict_index(scores, state, normalize_scores)
    if q == 0.0:
        return predicted, False
    for r in range(W.shape[1]):
        tau[r] = 0.0
        factor[r] = 1.0
    compute_steps(rule, scores, y, q, params, state, tau, factor)
    if step_kind == ADDITIVE:
        changed = _apply_additive(idx, vals, q, W, state, scores, tau, factor)
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
def run_dense(X, y, order, W, rule, params, state, step_kind, normalize_scores, counts, flags):
    """Online pass over the rows ``X[order]`` (dense, C-contiguous)."""
    m = W.shape[1]
    scores, tau, factor = np.empty(m), np.empty(m), np.empty(m)
    idx = np.arange(X.shape[1])
    for t in range(order.shape[0]):
        i = order[t]
        predicted, updated = one_round(idx, X[i], y[i], W, rule, params, state, step_kind,
                                       normalize_scores, scores, tau, factor)
        _count(counts, flags, t, y[i], predicted, updated)


@njit(cache=True)
def run_sparse(data, indices, indptr, y, order, W, rule, params, state, step_kind,
               normalize_scores, counts, flags):
    """Online pass over the CSR rows ``order`` of ``(data, indices, indptr)``."""
    m = W.shape[1]
    scores, tau, factor = np.empty(m), np.empty(m), np.empty(m)
    for t in range(order.shape[0]):
        i = order[t]
        start, stop = indptr[i], indptr[i + 1]
        predicted, updated = one_round(indices[start:stop], data[start:stop], y[i], W, rule,
                                       params, state, step_kind, normalize_scores, scores, tau,
                                       factor)
        _count(counts, flags, t, y[i], predicted, updated)


@njit(cache=True)
def learn_one_dense(idx, x, y, W, rule, params, state, step_kind, normalize_scores, counts):
    """The streaming step on one dense row (``idx = arange(n_features)``); returns the
    prediction made before the update."""
    m = W.shape[1]
    scores, tau, factor = np.empty(m), np.empty(m), np.empty(m)
    predicted, updated = one_round(idx, x, y, W, rule, params, state, step_kind,
                                   normalize_scores, scores, tau, factor)
    _count(counts, np.empty(0, np.int8), 0, y, predicted, updated)
    return predicted
