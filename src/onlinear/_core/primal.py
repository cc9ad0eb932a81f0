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

Cost of a round beyond its arithmetic.  The per-round functions are compiled with
``error_model="numpy"`` (a float division by zero gives inf/NaN as in numpy instead of raising;
every divisor here is guarded: q > 0, norms > 0, scales in range): numba keeps the reference
counts of the arrays a function receives exact on every path that can raise, and those atomic
increments were more than half of a round's time on small rows (measured with ``perf``).
For the same reason the round (:func:`one_round`) and its application are inlined into the pass,
and the rules get their scratch array from the pass instead of allocating it.

The weight bookkeeping (lazy scale, sizes, fold, row additions, exponentiated steps) is
:mod:`.weights`'s; rows are :mod:`.rows`'s; counters (``counts``, ``predictions``)
:mod:`.counters`'s.
"""
import math

import numpy as np
from numba import carray, njit

from ..rules.dispatch import compute_steps
from ..rules.layout import RAW_MASS, SCALE, squared_norm
from .borrowed import borrowed, pointer_at, read_only
from .counters import count_round
from .rows import (
    _row_ok,
    contiguous,
    int32_indices,
    row,
    row_accepted,
    row_norm_exponent,
    strictly_increasing,
)
from .weights import (
    add_to_column,
    add_to_column_pair,
    add_to_dense_column,
    average_close_round,
    averaging,
    clear_column,
    column_dots,
    column_dots_dense,
    exp_row,
    fold_column,
    rescale_column,
    scale_ok,
    scale_ok_for,
    track_size,
)

ADDITIVE = 0
MULTIPLICATIVE_ROW = 1
MULTIPLICATIVE_MATRIX = 2

#: How an example's weight (``sample_weight``) enters a round: not at all (1), scaling the
#: step the rule computed (the Perceptron family, MIRA, hard-margin PA, the multiplicative
#: family: a weight w is a step w times as long), or scaling the rule's first parameter, its C
#: (PA-I, PA-II and their support-class forms: the weighted hinge loss of the primal problem,
#: C·w·ξ, whose dual caps the step at C·w).
WEIGHT_NONE = 0
WEIGHT_STEP = 1
WEIGHT_C = 2
NO_WEIGHTS = np.zeros(0)

#: the averaging arrays of a model that does not average (:mod:`.weights`, "averaging")
NO_ACC = np.zeros((0, 0))
NO_AVG = np.zeros(0)


@njit(cache=True, error_model="numpy", inline="always")
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


@njit(cache=True, error_model="numpy")
def score(idx, vals, W, state, scores):
    """True scores ``s_r = σ_r·(W[:, r]·x)`` into ``scores``; returns ``‖x‖²``."""
    q = column_dots(idx, vals, W, scores)
    for r in range(W.shape[1]):
        scores[r] *= state[SCALE, r]
    return q


@njit(cache=True, error_model="numpy", inline="always")
def _apply_additive(idx, vals, W, state, tau, factor, unit_norm, dense, acc, avg, exact_norms,
                    scores, q):
    """``w_r ← factor_r·w_r + tau_r·x`` (then ``w_r ← w_r/‖w_r‖`` for scale-free learners, whose
    predictions only depend on directions); returns whether the model changed.  ``dense``: the
    row is the whole of ``vals`` and ``W`` is class-major (see :func:`run_dense`); the steps
    are added two columns per sweep over the row (each column's own arithmetic is unchanged:
    the columns are independent), their squared norms summed afresh in the sweep if
    ``exact_norms``, else updated from the columns' raw dot products with x and ``q = ‖x‖²``
    (:func:`~.weights.add_to_column_pair`): after the rescaling by ``c``, column r's true
    score is ``c·s_r``, its raw one that over the column's scale, whether or not the rescaling
    folded it."""
    changed = False
    m = W.shape[1]
    waiting = -1  # (dense) a column whose step waits for a second one to share its sweep
    for r in range(m):
        c = factor[r]
        if c == 1.0 and tau[r] == 0.0:
            continue
        changed = True
        if c == 0.0:
            clear_column(W, state, r, acc, avg)
        elif c != 1.0:
            rescale_column(W, state, r, c, acc, avg)
        if tau[r] == 0.0:
            continue
        if not dense:
            add_to_column(idx, vals, W, state, r, tau[r], acc, avg)
            _keep_unit_norm(W, state, r, unit_norm, acc, avg)
        elif waiting < 0:
            waiting = r
        else:
            add_to_column_pair(idx, vals, W, state, waiting, tau[waiting], r, tau[r], acc, avg,
                               exact_norms, _raw_score(state, waiting, factor, scores),
                               _raw_score(state, r, factor, scores), q)
            _keep_unit_norm(W, state, waiting, unit_norm, acc, avg)
            _keep_unit_norm(W, state, r, unit_norm, acc, avg)
            waiting = -1
    if waiting >= 0:
        add_to_dense_column(idx, vals, W, state, waiting, tau[waiting], acc, avg, exact_norms,
                            _raw_score(state, waiting, factor, scores), q)
        _keep_unit_norm(W, state, waiting, unit_norm, acc, avg)
    return changed


@njit(cache=True, error_model="numpy", inline="always")
def _raw_score(state, r, factor, scores):
    """Column r's raw dot product with the round's row after its rescaling (see
    :func:`_apply_additive`)."""
    return factor[r] * scores[r] / state[SCALE, r]


@njit(cache=True, error_model="numpy", inline="always")
def _keep_unit_norm(W, state, r, unit_norm, acc, avg):
    """A scale-free learner's column r back to unit norm (through its scale) after a step."""
    if unit_norm:
        norm = math.sqrt(squared_norm(state, r))
        if norm > 0.0:
            state[SCALE, r] /= norm
            if not scale_ok_for(W, state[SCALE, r]):
                fold_column(W, state, r, acc, avg)


@njit(cache=True, error_model="numpy")
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
        change = exp_row(idx, vals, W[:, r], tau[r])
        track_size(W, state, r, RAW_MASS, before + change)
    if not changed:
        return False
    _normalize(W, state, whole_matrix)
    for r in range(m):
        if not scale_ok(state[SCALE, r]):
            # not averaging (a global array would be a read-only constant)
            no_acc, no_avg = np.empty((0, 0)), np.empty(0)
            for s in range(m):
                fold_column(W, state, s, no_acc, no_avg)
            _normalize(W, state, whole_matrix)
            break
    return True


@njit(cache=True, error_model="numpy")
def _normalize(W, state, whole_matrix):
    """Scales ``1/mass`` of each row, or of the whole matrix, so that it sums to 1."""
    m = W.shape[1]
    if whole_matrix:
        total = 0.0
        for r in range(m):
            total += state[RAW_MASS, r]
        for r in range(m):
            state[SCALE, r] = 1.0 / total
    else:
        for r in range(m):
            state[SCALE, r] = 1.0 / state[RAW_MASS, r]


@njit(cache=True, error_model="numpy", inline="always")
def weighted_steps(rule, scores, y, q, params, state, tau, factor, order, weight, weight_mode):
    """The round's steps ``tau`` and factors ``factor`` (set here: zeros and ones, then the
    rule's, :func:`~onlinear.rules.dispatch.compute_steps`) for an example of weight
    ``weight``, which enters as ``weight_mode`` says: ``WEIGHT_C``, the rule's cap
    ``params[0]`` (the C of PA-I/PA-II) times the weight for this round; ``WEIGHT_STEP``, the
    steps times the weight.  The one call site of ``compute_steps`` in each engine: it is
    inlined (the switch over every rule), so it is written once."""
    for r in range(tau.shape[0]):
        tau[r] = 0.0
        factor[r] = 1.0
    capped = weight_mode == WEIGHT_C and weight != 1.0
    cap = params[0] if capped else 0.0
    if capped:
        params[0] = cap * weight
    compute_steps(rule, scores, y, q, params, state, tau, factor, order)
    if capped:
        params[0] = cap
    if weight_mode == WEIGHT_STEP and weight != 1.0:
        for r in range(tau.shape[0]):
            tau[r] *= weight


@njit(cache=True, error_model="numpy", inline="always")
def one_round(idx, vals, y, W, rule, params, state, step_kind, scale_free, scores, tau,
              factor, acc, avg, weight, weight_mode, dense=False, order=None, exact_norms=True,
              learning=True):
    """One online round on the row ``(idx, vals)``; returns ``(predicted index, model changed)``,
    or ``(-1, False)``, having changed nothing, for a dense row that is not accepted
    (:func:`.rows.row_accepted`).

    ``dense``: ``vals`` is a whole dense row (``idx = arange(n_features)``) and ``W`` is
    class-major, so scoring and additive steps take the vectorized path.  ``acc``, ``avg``: the
    averaging sums of :mod:`.weights` (empty: not averaging; additive steps only), closed at
    the end of the round.  ``weight``, ``weight_mode``: the example's weight and how it enters
    (``WEIGHT_*``).  ``order``: the rules' int64 scratch (see :func:`~onlinear.rules.dispatch.
    compute_steps`), one array for a whole pass.  ``exact_norms``: see
    :func:`~.weights.add_to_column_pair` (dense rows).  ``learning=False``: a prediction
    only (with ``weight = 0``), which does not close an averaging round either."""
    if dense:
        q = column_dots_dense(vals, W, state, scores)
        if not row_accepted(vals, q, W):
            return -1, False  # (the pass itself checks a dense row: see run_dense)
    else:
        q = score(idx, vals, W, state, scores)
    predicted = predict_index(scores, state, scale_free)
    changed = False
    if q != 0.0 and weight != 0.0:  # (a weight of 0: the round only predicts)
        weighted_steps(rule, scores, y, q, params, state, tau, factor, order, weight,
                       weight_mode)
        if step_kind == ADDITIVE:
            changed = _apply_additive(idx, vals, W, state, tau, factor, scale_free, dense, acc,
                                      avg, exact_norms, scores, q)
        else:
            changed = _apply_multiplicative(idx, vals, W, state, tau,
                                            step_kind == MULTIPLICATIVE_MATRIX)
    if learning and averaging(avg):
        average_close_round(state, avg)
    return predicted, changed


def pass_scratch(n_outputs):
    """``(work, order)``: the scratch arrays of a pass (:func:`run_dense`, :func:`run_sparse`)
    over a model of ``n_outputs`` outputs — the round's scores, steps and factors (the rows of
    ``work``) and the rules' int64 scratch — made by the caller, so that the pass borrows them
    (:mod:`.borrowed`) with its other arguments."""
    return np.empty((3, n_outputs)), np.empty(n_outputs, np.int64)


@njit(cache=True, error_model="numpy")
def run_dense(X, y, order, Wt, rule, params, state, step_kind, scale_free, counts, predictions,
              acc_t, avg, sample_weight, weight_mode, exact_norms, index, work, scratch):
    """Online pass over the rows ``X[order]`` (dense, C-contiguous): :func:`dense_rounds`.

    Returns −1, or the index of the first row of the pass that is not accepted (not finite, or
    a norm out of range: :func:`.rows.row_accepted`, from the ``‖x‖²`` the round computes
    anyway).  Then ``state``, ``counts`` and ``avg`` are restored, but ``Wt`` and ``acc_t`` hold
    the rounds before that row: a caller whose rows are not checked passes copies of them and
    keeps the copies only if the pass returns −1.  So no sweep over X is needed before the
    pass (a sweep over the MNIST-sized benchmark was 8 % of a pass of pa)."""
    state_before, counts_before, avg_before = state.copy(), counts.copy(), avg.copy()
    # ``learning`` computed, not the constant True: numba types a constant argument as a
    # literal, and the loop would be compiled apart from the per-example calls' specialization
    learning = order.shape[0] >= 0
    bad = dense_rounds(read_only(X), y, order, Wt, rule, params, state, step_kind, scale_free,
                       counts, predictions, acc_t, avg, sample_weight, weight_mode, exact_norms,
                       learning, index, work, scratch)
    if bad < 0:
        return -1
    state[:, :] = state_before
    counts[:] = counts_before
    avg[:] = avg_before
    return order[bad]


@njit(cache=True, error_model="numpy")
def dense_rounds(X, y, order, Wt, rule, params, state, step_kind, scale_free, counts,
                 predictions, acc_t, avg, sample_weight, weight_mode, exact_norms, learning,
                 index, work, scratch):
    """The rounds of the dense rows ``X[order]`` (C-contiguous) on the class-major weights
    ``Wt`` (shape ``(n_outputs, n_features)``, C-contiguous: the transpose of a class-major
    model's ``W``) and averaging sums ``acc_t`` (the same, or empty), changed in place: the one
    compiled loop of every dense row, a pass (:func:`run_dense`) or one example
    (:func:`learn_dense_row`), so that it is compiled once.  ``exact_norms``: the rule reads
    the squared norms (:func:`~.weights.add_to_column_pair`); ``learning=False``: the rounds
    only predict (``predictions``), changing and counting nothing; ``index =
    arange(n_features)``; ``work``, ``scratch``: :func:`pass_scratch`.

    Returns −1, or the position in ``order`` of the first row that is not accepted: that row
    changed nothing, the rounds before it stay."""
    # every array of the loop borrowed (its caller holds them): no reference counting
    X, y, order, predictions = borrowed(X), borrowed(y), borrowed(order), borrowed(predictions)
    params, state, counts, avg = borrowed(params), borrowed(state), borrowed(counts), borrowed(avg)
    sample_weight, index, scratch = borrowed(sample_weight), borrowed(index), borrowed(scratch)
    W = borrowed(Wt).T  # (n_features, n_outputs), column r contiguous: helpers index W[j, r]
    acc = borrowed(acc_t).T
    scores, tau, factor = borrowed(work[0]), borrowed(work[1]), borrowed(work[2])
    for t in range(order.shape[0]):
        i = order[t]
        weight = sample_weight[i] if sample_weight.shape[0] > 0 else 1.0
        predicted, updated = one_round(index, X[i], y[i], W, rule, params, state, step_kind,
                                       scale_free, scores, tau, factor, acc, avg,
                                       weight if learning else 0.0, weight_mode, True, scratch,
                                       exact_norms, learning)
        if predicted < 0:
            return t
        if learning:
            count_round(counts, predictions, t, predicted, y[i], updated)
        else:
            predictions[t] = predicted
    return -1


@njit(cache=True, error_model="numpy")
def run_sparse(data, indices, indptr, y, order, W, rule, params, state, step_kind,
               scale_free, counts, predictions, acc, avg, sample_weight, weight_mode, work,
               scratch):
    """Online pass over the CSR rows ``order`` of ``(data, indices, indptr)`` (``work``,
    ``scratch``: :func:`pass_scratch`)."""
    data, indices, indptr = borrowed(data), borrowed(indices), borrowed(indptr)
    y, order, W, params, state = borrowed(y), borrowed(order), borrowed(W), borrowed(params), \
        borrowed(state)
    counts, predictions, acc, avg = (borrowed(counts), borrowed(predictions), borrowed(acc),
                                     borrowed(avg))
    sample_weight, scratch = borrowed(sample_weight), borrowed(scratch)
    scores, tau, factor = borrowed(work[0]), borrowed(work[1]), borrowed(work[2])
    for t in range(order.shape[0]):
        i = order[t]
        idx, vals = row(False, W.shape[0], data, indices, indptr, i)
        weight = sample_weight[i] if sample_weight.shape[0] > 0 else 1.0
        predicted, updated = one_round(idx, vals, y[i], W, rule, params, state, step_kind,
                                       scale_free, scores, tau, factor, acc, avg, weight,
                                       weight_mode, False, scratch)
        count_round(counts, predictions, t, predicted, y[i], updated)


# ------------------------------------------------------------------ one example per call
# One example is learned by the compiled loop of the passes (:func:`dense_rounds`, or
# :func:`run_sparse`), called with its one row and the same argument types: the round is then
# compiled once for passes and examples (a round is 20–40 s of numba's compile time; a thin
# wrapper over a loop already compiled, a few seconds).  A dense row is learned on class-major
# weights with the vectorized sums of a dense pass, a CSR row on feature-major ones with the
# sums of a CSR pass; the estimators keep the model's weights in the layout of the rows it last
# learned from (``OnlineLinearClassifier._class_major``).  A dense row's round here and in a
# pass agree up to rounding, not bit for bit: the compiler may group a reassociated sum
# differently once the loop is inlined into the wrapper.

@njit(cache=True, error_model="numpy")
def learn_dense_row(x, y, Wt, rule, params, state, step_kind, scale_free, counts, acc_t, avg,
                    weight, weight_mode, exact_norms, learning, index):
    """One round on the dense row ``x`` (C-contiguous, of the model's width, float64 or
    float32) with label index ``y`` and weight ``weight`` (``weight_mode``: ``WEIGHT_*``) on
    the class-major weights ``Wt`` and averaging sums ``acc_t`` (as in :func:`dense_rounds`);
    ``learning=False``: the same round's prediction only, nothing changed or counted
    (``predict_one``, so that it predicts what ``learn_one`` would).  Returns the index
    predicted before the update, or −1, having changed nothing, if the row is not accepted
    (not finite, or a norm out of range) or not of the model's width."""
    m = Wt.shape[0]
    slots, weights = np.empty(3, np.int64), np.full(1, weight)
    return _dense_row_round(x, y, Wt, rule, params, state, step_kind, scale_free, counts, acc_t,
                            avg, weights, weight_mode, exact_norms, learning, index, slots,
                            np.empty((3, m)), np.empty(m, np.int64))


@njit(cache=True, error_model="numpy", inline="always")
def _dense_row_round(x, y, Wt, rule, params, state, step_kind, scale_free, counts, acc_t, avg,
                     weights, weight_mode, exact_norms, learning, index, slots, work, scratch):
    """:func:`learn_dense_row` with its scratch given: ``weights``, the example's weight (one
    value); ``slots``, three int64 (the label, the row's position and the prediction of the
    one-row pass); ``work``, ``scratch``: :func:`pass_scratch`."""
    n_features = Wt.shape[1]
    if x.shape[0] != n_features:
        return -1
    slots[0] = y
    slots[1] = 0
    labels, order, predictions = slots[0:1], slots[1:2], slots[2:3]
    # (the row read-only, as a pass's rows are: see .borrowed.read_only)
    bad = dense_rounds(read_only(x.reshape((1, n_features))), labels, order, Wt, rule, params,
                       state, step_kind, scale_free, counts, predictions, acc_t, avg, weights,
                       weight_mode, exact_norms, learning, index, work, scratch)
    return -1 if bad >= 0 else predictions[0]


@njit(cache=True, error_model="numpy")
def learn_sparse_row(data, indices, y, W, rule, params, state, step_kind, scale_free, counts,
                     acc, avg, weight, weight_mode):
    """One round (:func:`run_sparse`) on the checked CSR row of the contiguous values ``data``
    and column indices ``indices`` (as a CSR pass takes them: int32 or int64) with label index
    ``y`` and weight ``weight`` (``weight_mode``: ``WEIGHT_*``) on the feature-major weights
    ``W``; returns the index predicted before the update."""
    m = W.shape[1]
    return _sparse_row_round(data, indices, y, W, rule, params, state, step_kind, scale_free,
                             counts, acc, avg, np.full(1, weight), weight_mode,
                             np.empty(3, np.int64), np.zeros(2, indices.dtype),
                             np.empty((3, m)), np.empty(m, np.int64))


@njit(cache=True, error_model="numpy", inline="always")
def _sparse_row_round(data, indices, y, W, rule, params, state, step_kind, scale_free, counts,
                      acc, avg, weights, weight_mode, slots, indptr, work, scratch):
    """:func:`learn_sparse_row` with its scratch given: as :func:`_dense_row_round`, and
    ``indptr``, the two row pointers of the one-row pass (of the indices' dtype)."""
    slots[0] = y
    slots[1] = 0
    indptr[0] = 0
    indptr[1] = indices.shape[0]
    run_sparse(read_only(data), read_only(indices), read_only(indptr), slots[0:1], slots[1:2],
               W, rule, params, state, step_kind, scale_free, counts, slots[2:3], acc, avg,
               weights, weight_mode, work, scratch)
    return slots[2]


#: the model's arrays in a table (:func:`model_table`): (dtype, number of dimensions), in order
_TABLE_ARRAYS = ((np.float64, 1), (np.float64, 2), (np.int64, 1), (np.float64, 2),
                 (np.float64, 1), (np.int64, 1))
#: the table's scalars before the arrays: rule, step kind, scale-free, exact norms, weight mode
_TABLE_SCALARS = 5
#: where a table's scratch starts (after the scalars and each array's address and two sizes)
_TABLE_SCRATCH = _TABLE_SCALARS + 3 * len(_TABLE_ARRAYS)


def model_table(rule, params, state, step_kind, scale_free, counts, acc, avg, weight_mode,
                exact_norms, index):
    """The arguments of a round but the row, its label and the weights, as one int64 array —
    the scalars, then each array's address and shape, then the scratch of a call — for the
    per-example calls (:func:`learn_dense_by_table`, :func:`learn_sparse_by_table`).  numba
    unboxes every array argument at each call (about 80 ns each: two thirds of a per-example
    call's overhead with the round's sixteen arguments); the arrays of a table are read from
    their addresses instead (:func:`.borrowed.pointer_at`).  The caller keeps the arrays alive
    as long as the table is used (the per-example context holds them), and the arrays must not
    be replaced: a model drops its context whenever one of its attributes is set.

    The scratch of a call (:func:`_table_scratch`) is the table's own tail, so that a call
    allocates nothing (six small arrays were 0.14 µs of a dense call); the model's lock
    serializes the calls that write it."""
    arrays = (params, state, counts, acc, avg, index)
    table = [int(rule), int(step_kind), int(bool(scale_free)), int(bool(exact_norms)),
             int(weight_mode)]
    for array, (dtype, ndim) in zip(arrays, _TABLE_ARRAYS):
        if array.dtype != dtype or array.ndim != ndim or not array.flags.c_contiguous:
            raise TypeError(f"a table's array must be C-contiguous {np.dtype(dtype)} of {ndim} "
                            f"dimensions, not {array.dtype} {array.shape}")
        shape = array.shape + (0,) * (2 - ndim)
        table += [array.ctypes.data, *shape]
    m = state.shape[1]  # (the scratch's words: slots 3, rules' scratch m, work 3m, weight 1,
    # row pointers 1; see _table_scratch)
    return np.array(table + [0] * (5 + 4 * m), np.int64)


@njit(cache=True, error_model="numpy", inline="always")
def _from_table(table):
    """The arrays and scalars of :func:`model_table`'s ``table`` (views without a meminfo, as
    :func:`numba.carray` makes them)."""
    at = _TABLE_SCALARS
    params = carray(pointer_at(table[at]), (table[at + 1],), np.float64)
    state = carray(pointer_at(table[at + 3]), (table[at + 4], table[at + 5]), np.float64)
    counts = carray(pointer_at(table[at + 6]), (table[at + 7],), np.int64)
    acc = carray(pointer_at(table[at + 9]), (table[at + 10], table[at + 11]), np.float64)
    avg = carray(pointer_at(table[at + 12]), (table[at + 13],), np.float64)
    index = carray(pointer_at(table[at + 15]), (table[at + 16],), np.int64)
    return (table[0], params, state, table[1], table[2] != 0, counts, acc, avg, table[4],
            table[3] != 0, index)


@njit(cache=True, error_model="numpy", inline="always")
def _table_scratch(table, m):
    """The scratch at the tail of ``table`` for ``m`` outputs (:func:`model_table`), as the
    arrays of :func:`_dense_row_round` and :func:`_sparse_row_round`: ``(slots, work,
    scratch, weights, indptr)``, the float64 and int32 ones over the table's int64 words."""
    at = _TABLE_SCRATCH
    address = table.ctypes.data + 8 * at
    slots = carray(pointer_at(address), (3,), np.int64)
    scratch = carray(pointer_at(address + 8 * 3), (m,), np.int64)
    work = carray(pointer_at(address + 8 * (3 + m)), (3, m), np.float64)
    weights = carray(pointer_at(address + 8 * (3 + 4 * m)), (1,), np.float64)
    indptr = carray(pointer_at(address + 8 * (4 + 4 * m)), (2,), np.int32)
    return slots, work, scratch, weights, indptr


@njit(cache=True, error_model="numpy")
def learn_dense_by_table(x, y, learning, Wt, table):
    """:func:`learn_dense_row` with the round's other arguments and its scratch in ``table``
    (:func:`model_table`, its averaging sums class-major as ``Wt``) and weight 1: the
    per-example call of a dense row, five arguments to unbox and nothing allocated."""
    rule, params, state, step_kind, free, counts, acc_t, avg, mode, exact, index = \
        _from_table(table)
    slots, work, scratch, weights, _ = _table_scratch(table, Wt.shape[0])
    weights[0] = 1.0
    return _dense_row_round(x, y, Wt, rule, params, state, step_kind, free, counts, acc_t, avg,
                            weights, mode, exact, learning, index, slots, work, scratch)


@njit(cache=True, error_model="numpy")
def learn_sparse_by_table(indptr, indices, data, y, W, table):
    """One round on the one-row CSR matrix ``(data, indices, indptr)`` (int32 or int64
    indices) with label index ``y``, weight 1 and the round's other arguments and scratch in
    ``table`` (:func:`model_table`, its averaging sums feature-major as ``W``): the
    per-example call of a CSR row, nothing allocated for a C-contiguous row with int32
    indices.  The row is checked first (:func:`_one_csr_row`, and finite with an accepted
    norm: :func:`.rows._row_ok`): returns −1, having changed nothing, if it is not taken (the
    caller's general path then sums and sorts it, or names the problem)."""
    rule, params, state, step_kind, free, counts, acc, avg, mode, _, _ = _from_table(table)
    idx, vals, taken = _one_csr_row(indptr, indices, data, W.shape[0])
    if not (taken and _row_ok(vals, row_norm_exponent(W))):
        return -1
    slots, work, scratch, weights, pointers = _table_scratch(table, W.shape[1])
    weights[0] = 1.0
    # (int32, the indices' dtype of a pass: the caller takes int64 indices only for a model
    # narrower than 2^31 features, so they fit)
    return _sparse_row_round(vals, int32_indices(idx), y, W, rule, params, state, step_kind,
                             free, counts, acc, avg, weights, mode, slots, pointers, work,
                             scratch)


@njit(cache=True, error_model="numpy")
def predict_sparse_by_table(indptr, indices, data, W, table):
    """The index :func:`learn_sparse_by_table` would predict for the one-row CSR matrix
    ``(data, indices, indptr)`` (its scores summed as :func:`score` sums them, into the
    table's scratch), or −1 if it is not taken (:func:`_one_csr_row`) or a value is not
    finite."""
    _, _, state, _, free, _, _, _, _, _, _ = _from_table(table)
    idx, vals, taken = _one_csr_row(indptr, indices, data, W.shape[0])
    if not taken:
        return -1
    scores = _table_scratch(table, W.shape[1])[1][0]
    q = score(idx, vals, W, state, scores)
    if not np.isfinite(q):
        return -1
    return predict_index(scores, state, free)


@njit(cache=True, error_model="numpy", inline="always")
def _one_csr_row(indptr, indices, data, n_features):
    """``(column indices, values, taken)`` of a one-row CSR matrix, as contiguous arrays of the
    types a CSR pass takes (the indices in their own dtype, int32 or int64; the values
    float64 — or float32, as given; see :func:`.rows.contiguous`: the arrays may come in any
    layout, see :mod:`onlinear.estimators.fast_path`): taken if it is one canonical row
    (:func:`.rows.strictly_increasing`) within ``n_features`` columns."""
    start, stop = indptr[0], indptr[indptr.shape[0] - 1]
    idx = contiguous(indices[start:stop])
    taken = indptr.shape[0] == 2 and strictly_increasing(idx) and (
        idx.shape[0] == 0 or (idx[0] >= 0 and idx[idx.shape[0] - 1] < n_features))
    return idx, contiguous(data[start:stop]), taken
