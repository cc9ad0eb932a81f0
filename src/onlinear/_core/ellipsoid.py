"""The compiled online loops of the ellipsoid learners (Yang, Jin & Ye, "Online Learning by
Ellipsoid Method", ICML 2009).

They share the scoring, prediction and counting of :mod:`.primal`; what differs is the
step's *direction*: ``P x`` (a metric) instead of ``x``, and the rank-one update of P itself —
O(d·nnz + d²) per update, which the additive engine's O(nnz) contract cannot hold.  Three
layouts of the metric:

* ``full`` — one d×d matrix per output, stacked as the rows ``r·d … (r+1)·d − 1`` of a
  (m·d)×d array (binary: one; multiclass: one ellipsoid per class, one-vs-rest — ours, the
  scalable form);
* ``diagonal`` — one diagonal per output with a lazy scale, O(nnz) per update (ours, for
  high-dimensional sparse data; it keeps IELLIP's post-update margin but not the theorems);
* ``stacked`` — the paper's multi-label extension (Yang, Jin & Ye §2.4): one (K·d)×(K·d)
  matrix over the stacked vector (w_1, …, w_K), cut direction z with x in block y and −x in
  block r⁻.

Rows are ``(idx, vals)`` pairs as in the additive engine (:mod:`.rows`).  ``W`` is a store of
:mod:`.weights` whose scale (``state[SCALE]``) stays 1: no ellipsoid step rescales w, so steps add
to the raw values directly.  The diagonal metric is a positive store with its own lazy factor
(``state[DIAGONAL_SCALE]``, row 1 of this engine's state, where the primal layout keeps
``RAW_SQNORM``: no rule of the table runs here, and no ellipsoid step reads ‖w‖).  Row 2
(``state[UPDATES_MADE]``) counts the updates of each ellipsoid — IELLIP's t under
``decay="updates"`` — so that a saved or resumed model goes on with the same c_t.

A run returns −1, or the position in ``order`` of a round CELLIP could not take (τ ≥ 1 with
``on_infeasible="raise"``); the model then holds the state from before that round — also with
one ellipsoid per output, whose outputs step one after the other: in that mode
:func:`_infeasible` first checks every output's cut (with the very arithmetic of the step), so a
round is taken whole or not at all.  (The estimator restores the state from before the *call*,
see :class:`onlinear.estimators.base.OnlineLinearClassifier`.)
"""

import numpy as np
from numba import njit

from ..rules.ellipsoid import (CELLIP, DECAY_UPDATES, IELLIP, INFEASIBLE, P_NORMALIZED, RAISE,
                               RESET_REQUESTED, ellipsoid_step, memory)
from ._transition import binary_label
from .borrowed import read_only
from .counters import SEEN
from ._transition import count_round
from ._transition import predict_index, score
from ._transition import row
from ._transition import _VECTOR_MATH, MIN_WEIGHT, SCALE_HIGH, SCALE_LOW, add_row, fold_positive

FULL = 0
DIAGONAL = 1
STACKED = 2

# params vector
GAMMA, A, B, C, MODE, P1_SCALE, KIND, DECAY, P_UPDATE = range(9)
N_PARAMS = 9

# state rows: the scale of W (always 1), the diagonal layout's lazy factor, and the updates made
# by each ellipsoid (the stacked layout's single ellipsoid counts in column 0): the t of
# IELLIP's c_t under decay="updates", kept in the model so that a resumed run goes on exactly
DIAGONAL_SCALE = 1
UPDATES_MADE = 2
N_STATE_ROWS = 3


@njit(cache=True)
def _step(params, state, r, margin, v, trial):
    """The step of ellipsoid r (column r of ``state``) on round ``trial`` (1-based); IELLIP's
    ``c_t`` is indexed by that round or by the ellipsoid's next update (``params[DECAY]``)."""
    t = trial if int(params[DECAY]) != DECAY_UPDATES else int(state[UPDATES_MADE, r]) + 1
    c_t = memory(int(params[DECAY]), t, params[B], params[C])
    return ellipsoid_step(int(params[KIND]), margin, v, c_t, params[GAMMA], params[A],
                          int(params[MODE]), int(params[P_UPDATE]))


@njit(cache=True)
def _scale_free(params):
    """Whether the metric's scale is immaterial: IELLIP with the printed (15), whose (10) is
    homogeneous of degree 0 in P and (15) of degree 1 (Yang, Jin & Ye §2.3; our derivation)."""
    return int(params[KIND]) == IELLIP and int(params[P_UPDATE]) == P_NORMALIZED


@njit(cache=True)
def _rank_one(P, u, p_scale, p_rank_one):
    """``P ← p_scale·P + p_rank_one·u uᵀ``, row by row (contiguous, vectorized).  P stays
    exactly symmetric: entry (j, i) is computed by the same operations on the same operands as
    (i, j) (``P[j, i] = P[i, j]`` before, and ``u[j]·u[i] = u[i]·u[j]`` exactly)."""
    n = u.shape[0]
    for i in range(n):
        row = P[i]
        ui = u[i]
        for j in range(n):
            row[j] = p_scale * row[j] + p_rank_one * (ui * u[j])


@njit(cache=True, fastmath=_VECTOR_MATH)
def _metric_times(Pr, idx, vals, u):
    """``u = P_r x`` for the row ``(idx, vals)``.  A row with every column (a dense row, or a
    full CSR row: its indices are then 0…d−1) takes contiguous, reassociated (vectorized) sums;
    others gather their columns.  The one place where P_r x is formed, so that CELLIP's
    feasibility check and its step see the same bits."""
    d = Pr.shape[0]
    if idx.shape[0] == d:
        for i in range(d):
            row = Pr[i]
            total = 0.0
            for j in range(d):
                total += row[j] * np.float64(vals[j])
            u[i] = total
    else:
        for i in range(d):
            total = 0.0
            for p in range(idx.shape[0]):
                total += Pr[i, idx[p]] * np.float64(vals[p])
            u[i] = total


@njit(cache=True)
def _reset(P, p1):
    P[:, :] = 0.0
    for i in range(P.shape[0]):
        P[i, i] = p1


@njit(cache=True)
def _keep_finite(P, params):
    """IELLIP's predictions do not depend on the scale of P under the printed (15)
    (:func:`_scale_free`): renormalize it when its trace runs away (b = 1, or a constant c_t,
    lets it grow geometrically).  The raw reading is not scale-free, and its c_t is summable
    (the estimator refuses a constant one), so its P stays bounded."""
    if not _scale_free(params):
        return
    trace = 0.0
    for i in range(P.shape[0]):
        trace += P[i, i]
    if trace > SCALE_HIGH:
        P *= P.shape[0] / trace


@njit(cache=True)
def _full_step(idx, vals, y, W, P, state, params, trial, scores, u):
    """One ellipsoid per output; returns ``(changed, failed)``."""
    m = W.shape[1]
    d = W.shape[0]
    changed = False
    for r in range(m):
        z = binary_label(m, y, r)
        margin = z * scores[r]
        if margin > 0.0:
            continue
        Pr = P[r * d:(r + 1) * d]
        v = 0.0
        _metric_times(Pr, idx, vals, u)
        for p in range(idx.shape[0]):
            v += np.float64(vals[p]) * u[idx[p]]
        if not v > 0.0:
            continue
        w_coef, p_scale, p_rank_one = _step(params, state, r, margin, v, trial)
        if p_scale == INFEASIBLE:
            return changed, True
        for i in range(d):  # the direction P x is dense: the whole column moves
            W[i, r] += w_coef * z * u[i]
        if p_scale == RESET_REQUESTED:
            _reset(Pr, params[P1_SCALE])
        elif p_rank_one != 0.0 or p_scale != 1.0:
            _rank_one(Pr, u, p_scale, p_rank_one)
            _keep_finite(Pr, params)
        state[UPDATES_MADE, r] += 1.0
        changed = True
    return changed, False


@njit(cache=True)
def _diagonal_step(idx, vals, y, W, P, state, params, trial, scores, u):
    """``P`` holds the diagonals (m, d) up to the lazy factors ``state[DIAGONAL_SCALE, r]``."""
    m = W.shape[1]
    changed = False
    for r in range(m):
        z = binary_label(m, y, r)
        margin = z * scores[r]
        if margin > 0.0:
            continue
        sigma = state[DIAGONAL_SCALE, r]
        v = 0.0
        for p in range(idx.shape[0]):
            x = np.float64(vals[p])
            u[p] = sigma * P[r, idx[p]] * x
            v += u[p] * x
        if not v > 0.0:
            continue
        w_coef, p_scale, p_rank_one = _step(params, state, r, margin, v, trial)
        if p_scale == INFEASIBLE:
            return changed, True
        add_row(idx, u, W[:, r], w_coef * z)  # u[p] is the direction on x's coordinate idx[p]
        if p_scale == RESET_REQUESTED:
            P[r, :] = 1.0
            state[DIAGONAL_SCALE, r] = params[P1_SCALE]
        elif p_rank_one != 0.0 or p_scale != 1.0:
            # diag(P') = p_scale·diag(P) + p_rank_one·u²: the scale goes into sigma, the
            # rank-one part touches the non-zeros only (its own loop, not add_row: the
            # increment is p_rank_one·u²/σ in this order, floored to keep P positive)
            new_sigma = p_scale * sigma
            for p in range(idx.shape[0]):
                j = idx[p]
                P[r, j] = max(P[r, j] + p_rank_one * u[p] * u[p] / new_sigma, MIN_WEIGHT)
            state[DIAGONAL_SCALE, r] = new_sigma
            if not (SCALE_LOW < new_sigma < SCALE_HIGH):
                if not _scale_free(params):  # CELLIP, raw IELLIP: fold it into the diagonal
                    fold_positive(P[r], new_sigma)
                # IELLIP by (15) does not depend on the scale of P ((10) and (15)): drop it
                state[DIAGONAL_SCALE, r] = 1.0
        state[UPDATES_MADE, r] += 1.0
        changed = True
    return changed, False


@njit(cache=True)
def _stacked_step(idx, vals, y, W, P, state, params, trial, scores, u):
    """The paper's multiclass form: coordinate k·d + j of the stacked vector is W[j, k]."""
    d, m = W.shape
    rival = -1
    for r in range(m):
        if r != y and (rival < 0 or scores[r] > scores[rival]):
            rival = r
    margin = scores[y] - scores[rival]  # ρ(W; x, {y}) = v·z
    if margin > 0.0:
        return False, False
    plus = y * d
    minus = rival * d
    for i in range(m * d):
        total = 0.0
        for p in range(idx.shape[0]):
            j = idx[p]
            total += (P[i, plus + j] - P[i, minus + j]) * np.float64(vals[p])
        u[i] = total
    v = 0.0
    for p in range(idx.shape[0]):
        j = idx[p]
        v += np.float64(vals[p]) * (u[plus + j] - u[minus + j])
    if not v > 0.0:
        return False, False
    w_coef, p_scale, p_rank_one = _step(params, state, 0, margin, v, trial)
    if p_scale == INFEASIBLE:
        return False, True
    for k in range(m):
        for j in range(d):
            W[j, k] += w_coef * u[k * d + j]
    if p_scale == RESET_REQUESTED:
        _reset(P, params[P1_SCALE])
    elif p_rank_one != 0.0 or p_scale != 1.0:
        _rank_one(P, u, p_scale, p_rank_one)
        _keep_finite(P, params)
    state[UPDATES_MADE, 0] += 1.0
    return True, False


@njit(cache=True)
def _infeasible(layout, idx, vals, y, P, state, params, trial, scores, u):
    """Whether some output's cut misses its ellipsoid (CELLIP, ``on_infeasible="raise"``), for
    the per-output layouts, before any output steps: ``v = xᵀP_r x`` and the margin are
    computed as :func:`_full_step` / :func:`_diagonal_step` compute them (same operations in the
    same order, so the same bits), and P_r depends on output r's steps only."""
    m = scores.shape[0]
    for r in range(m):
        z = binary_label(m, y, r)
        margin = z * scores[r]
        if margin > 0.0:
            continue
        v = 0.0
        if layout == FULL:
            d = P.shape[1]
            _metric_times(P[r * d:(r + 1) * d], idx, vals, u)  # (all of P_r x: as the step)
            for p in range(idx.shape[0]):
                v += np.float64(vals[p]) * u[idx[p]]
        else:
            sigma = state[DIAGONAL_SCALE, r]
            for p in range(idx.shape[0]):
                x = np.float64(vals[p])
                u[p] = sigma * P[r, idx[p]] * x
                v += u[p] * x
        if not v > 0.0:
            continue
        if _step(params, state, r, margin, v, trial)[1] == INFEASIBLE:
            return True
    return False


@njit(cache=True)
def _round(layout, idx, vals, y, W, P, state, params, trial, scores, u):
    """Score, predict, then the layout's step; returns ``(predicted, changed, failed)``."""
    q = score(idx, vals, W, state, scores)
    predicted = predict_index(scores, state, False)
    if q == 0.0:
        return predicted, False, False
    if (layout != STACKED and int(params[KIND]) == CELLIP and int(params[MODE]) == RAISE
            and _infeasible(layout, idx, vals, y, P, state, params, trial, scores, u)):
        return predicted, False, True
    if layout == FULL:
        changed, failed = _full_step(idx, vals, y, W, P, state, params, trial, scores, u)
    elif layout == DIAGONAL:
        changed, failed = _diagonal_step(idx, vals, y, W, P, state, params, trial, scores, u)
    else:
        changed, failed = _stacked_step(idx, vals, y, W, P, state, params, trial, scores, u)
    return predicted, changed, failed


@njit(cache=True)
def _run(layout, dense, n_features, data, indices, indptr, y, order, W, P, state, params, counts,
         predictions):
    m = W.shape[1]
    scores = np.empty(m)
    u = np.empty(W.shape[0] * (m if layout == STACKED else 1))
    for t in range(order.shape[0]):
        i = order[t]
        idx, vals = row(dense, n_features, data, indices, indptr, i)
        predicted, updated, failed = _round(layout, idx, vals, y[i], W, P, state, params,
                                            counts[SEEN] + 1, scores, u)
        if failed:
            return t
        count_round(counts, predictions, t, predicted, y[i], updated)
    return -1


@njit(cache=True)
def run_dense(layout, X, y, order, W, P, state, params, counts, predictions):
    """Online pass over the rows ``X[order]`` (dense, C-contiguous); −1 or the position in
    ``order`` of the round that could not be taken."""
    n_features = X.shape[1]
    return _run(layout, True, n_features, read_only(X.reshape(X.size)), np.arange(n_features),
                np.empty(0, np.int64), y, order, W, P, state, params, counts, predictions)


@njit(cache=True)
def run_sparse(layout, data, indices, indptr, y, order, W, P, state, params, counts,
               predictions):
    """:func:`run_dense` on the CSR rows ``order`` of ``(data, indices, indptr)``."""
    return _run(layout, False, W.shape[0], read_only(data), read_only(indices), read_only(indptr),
                y, order, W, P, state, params, counts, predictions)


@njit(cache=True)
def learn_one(layout, idx, vals, y, W, P, state, params, counts):
    """The streaming step on one row (column indices ``idx``, values ``vals``): the prediction
    made before the update, or −1 when the cut misses the ellipsoid (CELLIP with
    ``on_infeasible="raise"``; the round is then not taken: nothing changed)."""
    m = W.shape[1]
    scores = np.empty(m)
    u = np.empty(W.shape[0] * (m if layout == STACKED else 1))
    predicted, updated, failed = _round(layout, idx, vals, y, W, P, state, params,
                                        counts[SEEN] + 1, scores, u)
    if failed:
        return -1
    count_round(counts, np.empty(0, np.int64), 0, predicted, y, updated)
    return predicted
