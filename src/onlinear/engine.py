"""The compiled online loop shared by every linear learner: score, predict, step, apply.

Model layout: ``W`` has shape ``(n_features, n_outputs)`` — *feature-major*, so the outputs of one
feature are contiguous (about 4× faster than class-major for CSR rows, see design.md) — and the
true weights are ``state[0] * W``.  The lazy scale factor ``state[0]`` lets ROMMA-type rules
rescale the whole model in O(1): a rule returns ``c`` and the engine applies
``M ← c·M + tau ⊗ x`` as ``scale ← c·scale; W += (tau/scale) ⊗ x`` — O(non-zeros of x).

Each round, strictly in the given order:
  1. scores ``s_r = scale · Σ_j W[j, r] x_j`` and ``q = ‖x‖²``;
  2. prediction (before the update): one output → class 1 iff ``s > 0``; several outputs →
     ``argmax_r s_r`` with ties going to the lowest class index (numpy's convention);
  3. unless ``x = 0`` (every rule's step is then a no-op), the rule computes ``tau`` and ``c``;
  4. the step is applied; a round is an *update* when the model changed.

Counters (``counts``): ``[examples seen, mistakes, updates]``.  ``flags``, when it has one entry
per round, receives ``mistake | updated << 1`` for the evaluation harness.
"""
import numpy as np
from numba import njit

from .rules.dispatch import compute_steps

SEEN = 0
MISTAKES = 1
UPDATES = 2

# Fold the lazy scale into W before it can overflow or underflow.
_SCALE_LOW = 1e-100
_SCALE_HIGH = 1e100


@njit(cache=True)
def predict_index(scores):
    m = scores.shape[0]
    if m == 1:
        return 1 if scores[0] > 0.0 else 0
    best = 0
    for r in range(1, m):
        if scores[r] > scores[best]:
            best = r
    return best


@njit(cache=True)
def _active_outputs(tau, active):
    n_active = 0
    for r in range(tau.shape[0]):
        if tau[r] != 0.0:
            active[n_active] = r
            n_active += 1
    return n_active


@njit(cache=True)
def _rescale(W, state, c):
    """Apply the rule's whole-model rescaling ``M ← c·M`` lazily; fold when extreme."""
    if c == 1.0:
        return
    state[0] *= c
    if not (_SCALE_LOW < abs(state[0]) < _SCALE_HIGH):
        W *= state[0]
        state[0] = 1.0


@njit(cache=True)
def dense_round(x, y, W, rule, params, state, scores, tau, active):
    """One online round on a dense row; returns ``(predicted index, model changed)``."""
    m = W.shape[1]
    scale = state[0]
    for r in range(m):
        scores[r] = 0.0
    q = 0.0
    for j in range(x.shape[0]):
        v = float(x[j])
        if v != 0.0:
            q += v * v
            for r in range(m):
                scores[r] += W[j, r] * v
    for r in range(m):
        scores[r] *= scale
    predicted = predict_index(scores)
    if q == 0.0:
        return predicted, False
    c = compute_steps(rule, scores, y, q, params, state, tau)
    _rescale(W, state, c)
    n_active = _active_outputs(tau, active)
    if n_active == 0:
        return predicted, c != 1.0
    inv_scale = 1.0 / state[0]
    for a in range(n_active):
        tau[active[a]] *= inv_scale
    for j in range(x.shape[0]):
        v = float(x[j])
        if v != 0.0:
            for a in range(n_active):
                r = active[a]
                W[j, r] += tau[r] * v
    return predicted, True


@njit(cache=True)
def sparse_round(indices, values, y, W, rule, params, state, scores, tau, active):
    """One online round on a CSR row given by its column ``indices`` and ``values``."""
    m = W.shape[1]
    scale = state[0]
    for r in range(m):
        scores[r] = 0.0
    q = 0.0
    for p in range(indices.shape[0]):
        v = float(values[p])
        j = indices[p]
        q += v * v
        for r in range(m):
            scores[r] += W[j, r] * v
    for r in range(m):
        scores[r] *= scale
    predicted = predict_index(scores)
    if q == 0.0:
        return predicted, False
    c = compute_steps(rule, scores, y, q, params, state, tau)
    _rescale(W, state, c)
    n_active = _active_outputs(tau, active)
    if n_active == 0:
        return predicted, c != 1.0
    inv_scale = 1.0 / state[0]
    for a in range(n_active):
        tau[active[a]] *= inv_scale
    for p in range(indices.shape[0]):
        v = float(values[p])
        j = indices[p]
        for a in range(n_active):
            r = active[a]
            W[j, r] += tau[r] * v
    return predicted, True


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
def run_dense(X, y, order, W, rule, params, state, counts, flags):
    """Online pass over the rows ``X[order]`` (dense, C-contiguous)."""
    m = W.shape[1]
    scores = np.empty(m)
    tau = np.empty(m)
    active = np.empty(m, np.int64)
    for t in range(order.shape[0]):
        i = order[t]
        predicted, updated = dense_round(X[i], y[i], W, rule, params, state, scores, tau, active)
        _count(counts, flags, t, y[i], predicted, updated)


@njit(cache=True)
def run_sparse(data, indices, indptr, y, order, W, rule, params, state, counts, flags):
    """Online pass over the CSR rows ``order`` of ``(data, indices, indptr)``."""
    m = W.shape[1]
    scores = np.empty(m)
    tau = np.empty(m)
    active = np.empty(m, np.int64)
    for t in range(order.shape[0]):
        i = order[t]
        start, stop = indptr[i], indptr[i + 1]
        predicted, updated = sparse_round(indices[start:stop], data[start:stop], y[i], W, rule,
                                          params, state, scores, tau, active)
        _count(counts, flags, t, y[i], predicted, updated)


@njit(cache=True)
def learn_one_dense(x, y, W, rule, params, state, counts):
    """The streaming step: one round on one dense row; returns the prediction made before it."""
    m = W.shape[1]
    scores = np.empty(m)
    tau = np.empty(m)
    active = np.empty(m, np.int64)
    predicted, updated = dense_round(x, y, W, rule, params, state, scores, tau, active)
    _count(counts, np.empty(0, np.int8), 0, y, predicted, updated)
    return predicted
