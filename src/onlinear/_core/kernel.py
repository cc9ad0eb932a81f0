"""The compiled online loop of the dual (support-pattern) learners: the kernel form of every rule
whose update is additive in x (Crammer & Singer, end of §5.3, Eq. 21).

Learning leaves ``w_r = Σ_i α_{i,r} φ(x_i)``, so the score of a new example is
``s_r = Σ_i α_{i,r} K(x_i, x)`` and ``q = ‖φ(x)‖² = K(x, x)``.  A round computes these, calls the
same :func:`onlinear.rules.dispatch.compute_steps` as the primal engine — a rule never knows
whether it runs primal or dual — and, when some ``τ_r ≠ 0``, stores x as a support pattern with
coefficients ``τ`` (or adds ``τ`` to its coefficients if x is already one: a training row seen
again in a later epoch of ``fit`` is merged — our choice, the paper does not say how repeated
examples are stored).

Model layout (arrays owned by the estimator, grown here by amortised doubling):

* ``support`` (n_features, capacity) float64 — the support patterns as dense columns,
  feature-major like the primal ``W`` (see :func:`onlinear.kernels.kernel_row` and
  :mod:`onlinear.estimators.kernel` for why), ``support_sq`` their cached ``‖x_i‖²``;
* ``coef`` (capacity, n_outputs) — raw coefficients: ``α_{i,r} = state[SCALE, r]·coef[i, r]``,
  a store of :mod:`.weights` with the same lazy per-output scale as the primal engine, so the
  rescaling rules (MC-ROMMA's ``factor``) cost O(1) per output and not O(support);
* ``state`` — the primal layout (:mod:`onlinear.rules.layout`).  ``RAW_SQNORM`` (read by
  MC-ROMMA; kept only for the rules that read it) is kept by the running sum
  ``‖w + σφ(x)‖² = ‖w‖² + 2σ(w·φ(x)) + σ²K(x, x)`` in raw units, recomputed exactly from the
  support set (O(S²) kernel evaluations) when it falls below half of its largest value since
  the last exact value — the primal engine's guard against cancellation (the same
  :func:`.weights.must_reanchor`; skipped for a Python callable kernel, whose sum is only
  clipped at 0);
* averaging: the store's averaging sums (:mod:`.weights`, "averaging") over the coefficients:
  ``avg_scale_sum[r] = Σ_t state[SCALE, r]`` after each round t and ``acc[i, r] =
  Σ Δcoef[i, r]·avg_scale_sum[r]`` taken when the change Δ was made, so that the averaged
  hypothesis is ``(coef·avg_scale_sum − acc)/T`` (always kept: ``average`` only chooses the
  hypothesis that predicts).

``counts`` and ``predictions`` as in :mod:`.counters`.  A round is an update when the model
changed; the support patterns are counted both as distinct examples (``n_support``) and as
cumulative updates (``counts[UPDATES]``).
"""
import numpy as np
from numba import njit

from ..kernels import CALLABLE, kernel_row, kernel_self
from ..rules.dispatch import NORM_READING_RULES
from ..rules.layout import RAW_SQNORM, SCALE, SIZE_ANCHOR
from .borrowed import read_only
from .counters import count_round
from ._transition import predict_index, weighted_steps
from .rows import row
from .weights import (
    average_change,
    average_close_round,
    average_rebase,
    fold,
    keep_running,
    must_reanchor,
    must_rebase,
    scale_ok,
)

#: rules that read ‖w_r‖² from ``state`` (through ``layout.squared_norm``); only for these is it
#: kept in the dual — its exact recomputation costs O(S²) kernel evaluations.
_NORM_RULES = NORM_READING_RULES

# rows of the per-round work array
_SCORES = 0
_TAU = 1
_FACTOR = 2
_RAW = 3


@njit(cache=True)
def grow(support, support_sq, coef, acc, n_support, needed):
    """The model arrays with room for ``needed`` support patterns (capacity doubled)."""
    capacity = support.shape[1]
    if needed <= capacity:
        return support, support_sq, coef, acc
    new_capacity = max(needed, 2 * capacity, 16)
    new_support = np.zeros((support.shape[0], new_capacity))
    new_sq = np.zeros(new_capacity)
    new_coef = np.zeros((new_capacity, coef.shape[1]))
    new_acc = np.zeros((new_capacity, coef.shape[1]))
    new_support[:, :n_support] = support[:, :n_support]
    new_sq[:n_support] = support_sq[:n_support]
    new_coef[:n_support] = coef[:n_support]
    new_acc[:n_support] = acc[:n_support]
    return new_support, new_sq, new_coef, new_acc


@njit(cache=True)
def _exact_raw_sqnorm(support, support_sq, n_support, coef, r, kind, kparams):
    """``‖Σ_i coef[i, r] φ(x_i)‖²`` from the support set (O(S²) kernel evaluations)."""
    row = np.empty(n_support)
    x = np.empty(support.shape[0])
    total = 0.0
    for i in range(n_support):
        if coef[i, r] == 0.0:
            continue
        x[:] = support[:, i]
        kernel_row(support, support_sq, n_support, x, support_sq[i], kind, kparams, row)
        inner = 0.0
        for j in range(n_support):
            inner += coef[j, r] * row[j]
        total += coef[i, r] * inner
    return max(total, 0.0)


@njit(cache=True)
def _fold(coef, acc, n_support, state, avg_scale_sum, r):
    """Multiply the scale of output r into its coefficients (scale 1 again), the averaging sums
    rebased first (:func:`.weights.average_rebase`).  The sizes are rescaled, not recomputed as
    the primal fold does: exactly, they cost O(S²) kernel evaluations."""
    scale = state[SCALE, r]
    average_rebase(coef, n_support, acc, r, avg_scale_sum)
    fold(coef[:n_support, r], scale)
    state[RAW_SQNORM, r] *= scale * scale
    state[SIZE_ANCHOR, r] *= scale * scale
    state[SCALE, r] = 1.0


@njit(cache=True)
def _apply(slot, q, support, support_sq, coef, acc, n_support, state, avg_scale_sum, work,
           kind, kparams, track_norms):
    """``w_r ← factor_r·w_r + tau_r·φ(x)`` in the dual, x stored at ``slot``; returns whether
    the model changed."""
    changed = False
    for r in range(coef.shape[1]):
        c = work[_FACTOR, r]
        t = work[_TAU, r]
        if c == 1.0 and t == 0.0:
            continue
        changed = True
        raw_score = work[_RAW, r]  # Σ_i coef[i, r] K(x_i, x) before this round's step
        if c == 0.0:  # not weights.clear_column: only the first n_support slots, no exact sizes
            average_rebase(coef, n_support, acc, r, avg_scale_sum)
            for i in range(n_support):
                coef[i, r] = 0.0
            state[SCALE, r] = 1.0
            state[RAW_SQNORM, r] = 0.0
            state[SIZE_ANCHOR, r] = 0.0
            raw_score = 0.0
        elif c != 1.0:
            state[SCALE, r] *= c
            if not scale_ok(state[SCALE, r]):
                scale = state[SCALE, r]
                _fold(coef, acc, n_support, state, avg_scale_sum, r)
                raw_score *= scale
        if t == 0.0:
            continue
        step = t / state[SCALE, r]
        if must_rebase(state, r, avg_scale_sum):  # before coef changes: it moves coef·avg
            average_rebase(coef, n_support, acc, r, avg_scale_sum)
        coef[slot, r] += step
        average_change(acc, slot, r, step, avg_scale_sum)
        if not track_norms:
            continue
        after = state[RAW_SQNORM, r] + step * (2.0 * raw_score + step * q)
        if kind != CALLABLE and must_reanchor(state, r, RAW_SQNORM, after):
            state[RAW_SQNORM, r] = _exact_raw_sqnorm(support, support_sq, n_support, coef, r,
                                                     kind, kparams)
            state[SIZE_ANCHOR, r] = 0.0
        else:
            keep_running(state, r, RAW_SQNORM, max(after, 0.0))
    return changed


@njit(cache=True)
def step(x, x_sq, krow, q, y, slot, support, support_sq, coef, acc, n_support, rule, params,
         state, avg_scale_sum, kind, kparams, counts, predictions, t, weight, weight_mode):
    """One online round given ``krow[i] = K(x_i, x)`` and ``q = K(x, x)``; the model arrays must
    have room for one more support pattern.  ``slot`` is x's support index if it is one already
    (else −1).  ``weight``, ``weight_mode``: the example's weight and how it enters the rule
    (:data:`.primal.WEIGHT_C`, ``WEIGHT_STEP``), as in the primal engine; 0: predict only.
    Returns ``(support patterns, slot of x or −1, prediction before the update)``."""
    m = coef.shape[1]
    work = np.empty((4, m))
    for r in range(m):
        work[_RAW, r] = 0.0
    for i in range(n_support):
        k = krow[i]
        if k != 0.0:
            for r in range(m):
                work[_RAW, r] += k * coef[i, r]
    scores = work[_SCORES]
    for r in range(m):
        scores[r] = work[_RAW, r] * state[SCALE, r]
    predicted = predict_index(scores, state, False)
    changed = False
    if q != 0.0 and weight != 0.0:
        weighted_steps(rule, scores, y, q, params, state, work[_TAU], work[_FACTOR], None,
                       weight, weight_mode)
        any_step = False
        for r in range(m):
            if work[_TAU, r] != 0.0:
                any_step = True
        if any_step and slot < 0:
            slot = n_support
            support[:, slot] = x
            support_sq[slot] = x_sq
            coef[slot] = 0.0
            acc[slot] = 0.0
            n_support += 1
        changed = _apply(slot, q, support, support_sq, coef, acc, n_support, state,
                         avg_scale_sum, work, kind, kparams, rule in _NORM_RULES)
    average_close_round(state, avg_scale_sum)
    count_round(counts, predictions, t, predicted, y, changed)
    return n_support, slot, predicted


@njit(cache=True)
def _one_row(x, y, t, i, row_slot, support, support_sq, coef, acc, n_support, krow, rule,
             params, state, avg_scale_sum, kind, kparams, counts, predictions, weight,
             weight_mode):
    support, support_sq, coef, acc = grow(support, support_sq, coef, acc, n_support,
                                          n_support + 1)
    if krow.shape[0] < support.shape[1]:
        krow = np.empty(support.shape[1])
    q, x_sq = kernel_self(x, kind, kparams)
    kernel_row(support, support_sq, n_support, x, x_sq, kind, kparams, krow)
    slot = row_slot[i] if row_slot.shape[0] > 0 else -1
    n_support, slot, _ = step(x, x_sq, krow, q, y, slot, support, support_sq, coef, acc,
                              n_support, rule, params, state, avg_scale_sum, kind, kparams,
                              counts, predictions, t, weight, weight_mode)
    if row_slot.shape[0] > 0:
        row_slot[i] = slot
    return support, support_sq, coef, acc, n_support, krow


@njit(cache=True)
def _run(dense, n_features, data, indices, indptr, y, order, row_slot, support, support_sq, coef,
         acc, n_support, rule, params, state, avg_scale_sum, kind, kparams, counts, predictions,
         weights, weight_mode):
    # each row is scattered into a dense work row (the kernels and the support set are dense)
    x = np.zeros(n_features)
    krow = np.empty(support.shape[1])
    for t in range(order.shape[0]):
        i = order[t]
        idx, vals = row(dense, n_features, data, indices, indptr, i)
        for p in range(idx.shape[0]):
            x[idx[p]] = vals[p]
        support, support_sq, coef, acc, n_support, krow = _one_row(
            x, y[i], t, i, row_slot, support, support_sq, coef, acc, n_support, krow, rule,
            params, state, avg_scale_sum, kind, kparams, counts, predictions,
            weights[i] if weights.shape[0] > 0 else 1.0, weight_mode)
        for p in range(idx.shape[0]):
            x[idx[p]] = 0.0
    return support, support_sq, coef, acc, n_support


@njit(cache=True)
def run_dense(X, y, order, row_slot, support, support_sq, coef, acc, n_support, rule, params,
              state, avg_scale_sum, kind, kparams, counts, predictions, weights, weight_mode):
    """Online pass over the rows ``X[order]`` (dense, C-contiguous); ``row_slot[i]`` (if not
    empty) is the support index of training row i or −1.  Returns the (possibly reallocated)
    model arrays and the number of support patterns."""
    n_features = X.shape[1]
    return _run(True, n_features, read_only(X.reshape(X.size)), np.arange(n_features),
                np.empty(0, np.int64), y, order, row_slot, support, support_sq, coef, acc,
                n_support, rule, params, state, avg_scale_sum, kind, kparams, counts, predictions,
                weights, weight_mode)


@njit(cache=True)
def run_sparse(data, indices, indptr, n_features, y, order, row_slot, support, support_sq, coef,
               acc, n_support, rule, params, state, avg_scale_sum, kind, kparams, counts,
               predictions, weights, weight_mode):
    """As :func:`run_dense` on CSR rows."""
    return _run(False, n_features, read_only(data), read_only(indices), read_only(indptr), y, order,
                row_slot, support, support_sq, coef, acc, n_support, rule, params, state,
                avg_scale_sum, kind, kparams, counts, predictions, weights, weight_mode)


@njit(cache=True)
def learn_one(x, y, support, support_sq, coef, acc, n_support, rule, params, state,
              avg_scale_sum, kind, kparams, counts, weight, weight_mode):
    """The streaming step on one dense row ``x`` (a new example: never merged with a stored
    pattern).  Returns the (possibly reallocated) model arrays, the number of support patterns
    and the prediction made before the update."""
    support, support_sq, coef, acc = grow(support, support_sq, coef, acc, n_support,
                                          n_support + 1)
    krow = np.empty(support.shape[1])
    q, x_sq = kernel_self(x, kind, kparams)
    kernel_row(support, support_sq, n_support, x, x_sq, kind, kparams, krow)
    n_support, _, predicted = step(x, x_sq, krow, q, y, -1, support, support_sq, coef, acc,
                                   n_support, rule, params, state, avg_scale_sum, kind, kparams,
                                   counts, np.empty(0, np.int64), 0, weight, weight_mode)
    return support, support_sq, coef, acc, n_support, predicted
