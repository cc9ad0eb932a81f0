"""TEMPORARY (removed when the ellipsoid and block engines are compiled ahead of time): the numba
functions the not-yet-ported numba engines call (copies of the former weights, rows and counters
modules, and of a few primal functions)."""
import math

import numpy as np
from numba import njit, types
from numba.extending import overload

RAW_MASS, RAW_SQNORM, SCALE, SIZE_ANCHOR = 2, 1, 0, 3

SCALE_LOW = 1e-100
#: the averaging sums are rebased (O(size)) before a change is recorded once the sum of scales
#: exceeds this many times the current scale: the recorded changes then carry a relative error
#: of at most about 2^20·ε ≈ 2e-10, at an amortized cost of O(size/2^20) per round
AVERAGE_REBASE = 2.0 ** 20
SCALE_HIGH = 1e100
# A multiplicative exponent beyond this means η|x_j| far outside any bound's range; clamping it
# keeps the unnormalized mass finite, and the floor keeps every weight strictly positive.
MAX_EXPONENT = 300.0
MIN_WEIGHT = 1e-300

# Reassociation lets numba vectorize the sums over features; contraction fuses multiply-adds.
# No other fast-math flag: NaN and inf keep their IEEE meaning.
_VECTOR_MATH = {"reassoc", "contract"}


#: The safe range of the lazy scale of float32 weights (``dtype="float32"``): the raw values
#: are the true ones divided by the scale, and float32 ends at 2^128 (float64 at 2^1024).
SCALE_LOW_FLOAT32 = 2.0 ** -24
SCALE_HIGH_FLOAT32 = 2.0 ** 24


@njit(cache=True, error_model="numpy", inline="always")
def scale_ok(scale):
    """Whether the lazy scale is safe to keep (``SCALE_LOW < |σ| < SCALE_HIGH``; not NaN)."""
    return SCALE_LOW < abs(scale) < SCALE_HIGH


def scale_ok_for(W, scale):
    """:func:`scale_ok` for the scale of the weights ``W``: within ``SCALE_LOW_FLOAT32 …
    SCALE_HIGH_FLOAT32`` for float32 weights."""
    return scale_ok(scale)


@overload(scale_ok_for)
def _scale_ok_for(W, scale):
    if W.dtype == types.float32:
        return lambda W, scale: SCALE_LOW_FLOAT32 < abs(scale) < SCALE_HIGH_FLOAT32
    return lambda W, scale: SCALE_LOW < abs(scale) < SCALE_HIGH


def weight_float(W, value):
    """``value`` as a number of the weights' dtype: the dense sweeps (scores, ‖x‖², steps) run
    in the weights' precision, float32 for ``dtype="float32"`` (half the bytes, twice the
    values per vector instruction), float64 otherwise (where this is the plain conversion the
    sweeps always made, so float64 results are unchanged bit for bit)."""
    return np.float64(value)


@overload(weight_float)
def _weight_float(W, value):
    if W.dtype == types.float32:
        return lambda W, value: np.float32(value)
    return lambda W, value: np.float64(value)


#: The weights' memory starts on a multiple of this many bytes: a vector load that straddles
#: two cache lines costs about twice one that does not (a dense pass of pa over 784 float32
#: features took 0.057 s with the weights 16 bytes off a 32-byte boundary, 0.050 s on it).
ALIGNMENT = 64


def aligned_copy(array, order):
    """A copy of the 2-D ``array`` in ``order`` ("C" or "F") whose data starts on an
    :data:`ALIGNMENT`-byte boundary (numpy's own allocations are only 16-byte aligned)."""
    size, itemsize = array.size, array.dtype.itemsize
    buffer = np.empty(size + ALIGNMENT // itemsize, dtype=array.dtype)
    start = (-buffer.ctypes.data % ALIGNMENT) // itemsize
    flat = buffer[start:start + size]
    if order == "F":
        copy = flat.reshape(array.shape[::-1]).T
    else:
        copy = flat.reshape(array.shape)
    copy[...] = array
    return copy


# ------------------------------------------------------------------------------------- dots
@njit(cache=True, error_model="numpy")
def dot(idx, vals, w):
    """``(w·x, ‖x‖²)`` over the non-zeros of the row ``(idx, vals)``, raw units."""
    s = 0.0
    q = 0.0
    for p in range(idx.shape[0]):
        v = np.float64(vals[p])
        if v != 0.0:
            s += w[idx[p]] * v
            q += v * v
    return s, q


@njit(cache=True, error_model="numpy", inline="always")
def column_dots(idx, vals, W, out):
    """``out[r] = W[:, r]·x`` for every column (raw units, one sweep over the row's non-zeros,
    feature-major ``W``); returns ``‖x‖²`` (float64 whatever the input dtype)."""
    m = W.shape[1]
    for r in range(m):
        out[r] = 0.0
    q = 0.0
    for p in range(idx.shape[0]):
        v = np.float64(vals[p])
        if v != 0.0:
            j = idx[p]
            q += v * v
            for r in range(m):
                out[r] += W[j, r] * v
    return q


#: The dense scoring sweep sums this many outputs at once (:func:`column_dots_dense` writes out
#: its four sums).
SCORE_BLOCK = 4


@njit(cache=True, error_model="numpy", fastmath=_VECTOR_MATH)
def column_dots_dense(x, W, state, scores):
    """True scores ``σ_r·(W[:, r]·x)`` of a whole dense row and a class-major ``W`` (column r
    contiguous), vectorized, summed in the weights' precision (:func:`weight_float`); returns
    ``‖x‖²`` (float64).

    The outputs are scored :data:`SCORE_BLOCK` at a time, each value of x read (and converted)
    once for the block and ``‖x‖²`` summed in the same sweep: a round over 784 float32 features
    and 10 outputs then reads about 1.25 values per multiply-add instead of 2, and a dense pass
    of pa took 0.037 s instead of 0.051 s for its scores (measured).  Every output is summed by
    the same code, whatever its position: the last block starts at ``m − SCORE_BLOCK`` (it
    scores again some outputs of the one before, identically), and fewer outputs than a block
    are scored one at a time (``‖x‖²`` summed with each), so outputs with equal weights score
    equal bit for bit — ties the rules break by index must stay ties.
    """
    m = W.shape[1]
    if m < SCORE_BLOCK:
        q = weight_float(W, 0.0)
        for r in range(m):
            q = weight_float(W, 0.0)  # (with every output: the same sweep for each)
            s = weight_float(W, 0.0)
            for j in range(x.shape[0]):
                v = weight_float(W, x[j])
                q += v * v
                s += W[j, r] * v
            scores[r] = s * state[SCALE, r]
        return np.float64(q)
    r = 0
    while r < m:
        r = min(r, m - SCORE_BLOCK)
        q = weight_float(W, 0.0)
        s0 = weight_float(W, 0.0)
        s1 = weight_float(W, 0.0)
        s2 = weight_float(W, 0.0)
        s3 = weight_float(W, 0.0)
        for j in range(x.shape[0]):
            v = weight_float(W, x[j])
            q += v * v  # (in every block: cheaper than a sweep of its own, which reads x again)
            s0 += W[j, r] * v
            s1 += W[j, r + 1] * v
            s2 += W[j, r + 2] * v
            s3 += W[j, r + 3] * v
        scores[r] = s0 * state[SCALE, r]
        scores[r + 1] = s1 * state[SCALE, r + 1]
        scores[r + 2] = s2 * state[SCALE, r + 2]
        scores[r + 3] = s3 * state[SCALE, r + 3]
        r += SCORE_BLOCK
    return np.float64(q)


# ----------------------------------------------------------------------------- additive steps
@njit(cache=True, error_model="numpy", inline="always")
def add_row(idx, vals, w, step):
    """``w += step·x`` on the non-zeros of x (raw units: ``step = τ/σ``); returns the change of
    ``Σ_j w_j²``, as ``Σ (new − old)(new + old)`` over the touched coordinates, of the values
    stored (float32 weights round each one) and in float64."""
    change = 0.0
    for p in range(idx.shape[0]):
        v = np.float64(vals[p])
        if v != 0.0:
            j = idx[p]
            old = np.float64(w[j])
            w[j] = old + step * v
            new = np.float64(w[j])
            change += (new - old) * (new + old)
    return change


#: A column's squared norm summed in float32 (float32 weights, :func:`add_dense_row`) is kept only
#: within ``[SIZE_FLOOR, inf)``: below, squares under float32's normal range (2^-126) could be a
#: noticeable part of it, and a square over 2^128 overflows; outside, it is summed in float64.
SIZE_FLOOR = 2.0 ** -80


@njit(cache=True, error_model="numpy", fastmath=_VECTOR_MATH)
def add_dense_row(x, W, r, step):
    """``W[:, r] += step·x`` for a whole dense row and a class-major ``W``, vectorized (the
    step in the weights' precision, :func:`weight_float`); returns the column's new raw squared
    norm ``Σ_j W[j, r]²``, summed in the same sweep in the weights' precision: exact to the
    weights' rounding (a sum of squares: a relative error of at most about the number of
    values times ε, whatever came before), with no drift from step to step."""
    step = weight_float(W, step)
    size = weight_float(W, 0.0)
    for j in range(x.shape[0]):
        new = W[j, r] + step * weight_float(W, x[j])
        W[j, r] = new
        size += new * new
    return np.float64(size)


@njit(cache=True, error_model="numpy", fastmath=_VECTOR_MATH)
def add_dense_row_untracked(x, W, r, step):
    """:func:`add_dense_row` without the sum of the squared norm's change (the caller has it
    in O(1), :func:`add_to_dense_column`)."""
    step = weight_float(W, step)
    for j in range(x.shape[0]):
        W[j, r] += step * weight_float(W, x[j])


@njit(cache=True, error_model="numpy", fastmath=_VECTOR_MATH)
def add_dense_row_pair(x, W, r, step_r, s, step_s):
    """:func:`add_dense_row` for the two columns r ≠ s in one sweep: x is read (and converted)
    once for both — the additive steps of most multiclass rules change two outputs."""
    step_r = weight_float(W, step_r)
    step_s = weight_float(W, step_s)
    size_r = weight_float(W, 0.0)
    size_s = weight_float(W, 0.0)
    for j in range(x.shape[0]):
        v = weight_float(W, x[j])
        new = W[j, r] + step_r * v
        W[j, r] = new
        size_r += new * new
        new = W[j, s] + step_s * v
        W[j, s] = new
        size_s += new * new
    return np.float64(size_r), np.float64(size_s)


@njit(cache=True, error_model="numpy", fastmath=_VECTOR_MATH)
def add_dense_row_pair_untracked(x, W, r, step_r, s, step_s):
    """:func:`add_dense_row_pair` without the sums of the squared norms' changes (the caller
    has them in O(1), :func:`add_to_column_pair`)."""
    step_r = weight_float(W, step_r)
    step_s = weight_float(W, step_s)
    for j in range(x.shape[0]):
        v = weight_float(W, x[j])
        W[j, r] += step_r * v
        W[j, s] += step_s * v


# ------------------------------------------------------------------------ exponentiated steps
@njit(cache=True, error_model="numpy", inline="always")
def exp_step(w, j, exponent):
    """``w_j ← max(w_j·exp(e), MIN_WEIGHT)`` with ``e`` clamped to ``±MAX_EXPONENT``; returns
    the change of ``w_j`` (for the running mass)."""
    exponent = min(MAX_EXPONENT, max(-MAX_EXPONENT, exponent))
    old = w[j]
    new = max(old * math.exp(exponent), MIN_WEIGHT)
    w[j] = new
    return new - old


@njit(cache=True, error_model="numpy")
def exp_row(idx, vals, w, tau):
    """``w_j ← w_j·exp(τ x_j)`` (:func:`exp_step`) on the non-zeros of x; returns the change of
    the raw mass ``Σ_j w_j``."""
    change = 0.0
    for p in range(idx.shape[0]):
        v = np.float64(vals[p])
        if v != 0.0:
            change += exp_step(w, idx[p], tau * v)
    return change


@njit(cache=True, error_model="numpy")
def mass(w):
    """``Σ_j w_j`` (raw units)."""
    total = 0.0
    for j in range(w.shape[0]):
        total += w[j]
    return total


# -------------------------------------------------------------------------------------- folds
@njit(cache=True, error_model="numpy")
def fold(w, scale):
    """``w ← σ·w``: the scale multiplied into the raw values (the caller sets it to 1)."""
    for j in range(w.shape[0]):
        w[j] *= scale


@njit(cache=True, error_model="numpy")
def fold_positive(w, scale):
    """``w ← max(σ·w, MIN_WEIGHT)``: :func:`fold` for a store that must stay positive (the
    multiplicative block learners' weights, the ellipsoid's diagonal metric)."""
    for j in range(w.shape[0]):
        w[j] = max(w[j] * scale, MIN_WEIGHT)


# ------------------------------------------------------- columns of the primal state layout
@njit(cache=True, error_model="numpy")
def exact_sizes(W, state, r):
    """``RAW_SQNORM = Σ_j W[j, r]²`` and ``RAW_MASS = Σ_j W[j, r]`` recomputed exactly; the
    anchor is reset."""
    sqnorm = 0.0
    total = 0.0
    for j in range(W.shape[0]):
        w = np.float64(W[j, r])  # (float32 weights: the products in float64)
        sqnorm += w * w
        total += w
    state[RAW_SQNORM, r] = sqnorm
    state[RAW_MASS, r] = total
    state[SIZE_ANCHOR, r] = 0.0


@njit(cache=True, error_model="numpy", inline="always")
def must_reanchor(state, r, row, after):
    """Whether the running size ``after`` of ``state[row, r]`` has fallen below half of its
    largest value since it was last exact (then it must be recomputed exactly)."""
    return after < 0.5 * max(state[SIZE_ANCHOR, r], state[row, r])


@njit(cache=True, error_model="numpy", inline="always")
def keep_running(state, r, row, after):
    """Store the running size ``after`` in ``state[row, r]`` and raise the anchor to it."""
    anchor = max(state[SIZE_ANCHOR, r], state[row, r])
    state[row, r] = after
    state[SIZE_ANCHOR, r] = max(anchor, after)


@njit(cache=True, error_model="numpy", inline="always")
def track_size(W, state, r, row, after):
    """Store a column size updated by a running sum, or recompute it exactly (the guard)."""
    if must_reanchor(state, r, row, after):
        exact_sizes(W, state, r)
    else:
        keep_running(state, r, row, after)


@njit(cache=True, error_model="numpy")
def fold_column(W, state, r, acc, avg):
    """Fold the scale of column r into it (scale 1 again); its sizes become exact, and the
    averaging sums (if kept) are rebased first (they are tied to the raw units)."""
    if averaging(avg):
        average_rebase(W, W.shape[0], acc, r, avg)
    fold(W[:, r], state[SCALE, r])
    state[SCALE, r] = 1.0
    exact_sizes(W, state, r)


@njit(cache=True, error_model="numpy")
def clear_column(W, state, r, acc, avg):
    """Column r set to zero (a step with factor 0); the averaging sums keep what is removed."""
    if averaging(avg):
        average_rebase(W, W.shape[0], acc, r, avg)
    W[:, r] = 0.0
    state[SCALE, r] = 1.0
    state[RAW_SQNORM, r] = 0.0
    state[SIZE_ANCHOR, r] = 0.0


@njit(cache=True, error_model="numpy")
def rescale_column(W, state, r, c, acc, avg):
    """``w_r ← c·w_r`` through the scale, folded when it leaves the safe range."""
    state[SCALE, r] *= c
    if not scale_ok_for(W, state[SCALE, r]):
        fold_column(W, state, r, acc, avg)


@njit(cache=True, error_model="numpy", inline="always")
def _step_of(W, state, r, tau, acc, avg):
    """The raw step ``τ/σ`` of column r, the averaging sums rebased first when due (before W
    changes: the rebase moves ``W·avg``)."""
    if averaging(avg) and must_rebase(state, r, avg):
        average_rebase(W, W.shape[0], acc, r, avg)
    return tau / state[SCALE, r]


@njit(cache=True, error_model="numpy", inline="always")
def _added(idx, vals, W, state, r, step, change, acc, avg):
    """After ``step·x`` was added to column r (raw squared norm changed by ``change``): the
    size tracked, the change recorded in the averaging sums."""
    track_size(W, state, r, RAW_SQNORM, state[RAW_SQNORM, r] + change)
    if averaging(avg):
        average_row(idx, vals, acc, r, step, avg)


@njit(cache=True, error_model="numpy", inline="always")
def _added_sized(idx, vals, W, state, r, step, size, acc, avg):
    """:func:`_added` after a dense sweep that summed the column's new raw squared norm
    (:func:`add_dense_row`): it is the column's size, exact (the anchor reset), or — outside
    ``[SIZE_FLOOR, inf)`` — summed again in float64."""
    if SIZE_FLOOR <= size < np.inf:
        state[RAW_SQNORM, r] = size
        state[SIZE_ANCHOR, r] = 0.0
    else:
        exact_sizes(W, state, r)
    if averaging(avg):
        average_row(idx, vals, acc, r, step, avg)


@njit(cache=True, error_model="numpy", inline="always")
def add_to_column(idx, vals, W, state, r, tau, acc, avg):
    """``w_r ← w_r + τ·x`` (true units) on the non-zeros of the row ``(idx, vals)``, with the
    squared norm tracked (and the averaging sums, if kept); a whole dense row on class-major
    weights takes :func:`add_to_dense_column` or :func:`add_to_column_pair` instead."""
    step = _step_of(W, state, r, tau, acc, avg)
    change = add_row(idx, vals, W[:, r], step)
    _added(idx, vals, W, state, r, step, change, acc, avg)


@njit(cache=True, error_model="numpy", inline="always")
def add_to_dense_column(idx, vals, W, state, r, tau, acc, avg, exact_norms, raw, q):
    """:func:`add_to_column` on a dense row, with the column's squared norm summed afresh in
    the sweep if ``exact_norms`` (by the pair sweep, with a zero step for another column:
    every column's norm is then summed by the same instructions), else updated in O(1) from
    the column's raw dot product with x (``raw``) and ``q = ‖x‖²`` (see
    :func:`add_to_column_pair`)."""
    step = _step_of(W, state, r, tau, acc, avg)
    if exact_norms and W.shape[1] > 1:
        # summed by the pair sweep, as every other stepped column: another sweep could sum in
        # another order, and two equal columns (demoted together) must keep equal norms, or the
        # exact tie between them breaks (seen on a CPU without AVX); the partner's step is 0
        size, _ = add_dense_row_pair(vals, W, r, step, 1 if r == 0 else 0, 0.0)
        _added_sized(idx, vals, W, state, r, step, size, acc, avg)
    elif exact_norms:
        _added_sized(idx, vals, W, state, r, step, add_dense_row(vals, W, r, step), acc, avg)
    else:
        add_dense_row_untracked(vals, W, r, step)
        _added(idx, vals, W, state, r, step, step * (2.0 * raw + step * q), acc, avg)


@njit(cache=True, error_model="numpy", inline="always")
def add_to_column_pair(idx, vals, W, state, r, tau_r, s, tau_s, acc, avg, exact_norms, raw_r,
                       raw_s, q):
    """:func:`add_to_column` (dense) for the two columns r ≠ s in one sweep over the row.

    ``exact_norms`` (the rules that read the norms): each column's squared norm is summed
    afresh over its new values in the same sweep (:func:`add_dense_row`), exact to the weights'
    rounding; if not, it follows from the columns' raw dot products with x (``raw_r``,
    ``raw_s``) and ``q = ‖x‖²``, which the round has computed: ``w ← w + step·x`` changes
    ``‖w‖²`` by ``step·(2·w·x + step·q)``, O(1) instead of a second sum over the row (it was a
    fifth of a dense pass of pa, measured), but with the rounding of the dot products (a
    running sum under the re-anchoring guard).  The fresh sum costs one multiply-add per value
    of a sweep that loads and stores them anyway: a float32 pass of aromma took about the
    time it takes with no norms kept, where the float64 running sum of each value's change it
    replaces took 14 % more (measured)."""
    step_r = _step_of(W, state, r, tau_r, acc, avg)
    step_s = _step_of(W, state, s, tau_s, acc, avg)
    if exact_norms:
        size_r, size_s = add_dense_row_pair(vals, W, r, step_r, s, step_s)
        _added_sized(idx, vals, W, state, r, step_r, size_r, acc, avg)
        _added_sized(idx, vals, W, state, s, step_s, size_s, acc, avg)
    else:
        add_dense_row_pair_untracked(vals, W, r, step_r, s, step_s)
        _added(idx, vals, W, state, r, step_r, step_r * (2.0 * raw_r + step_r * q), acc, avg)
        _added(idx, vals, W, state, s, step_s, step_s * (2.0 * raw_s + step_s * q), acc, avg)


# ------------------------------------------------------------------------------- averaging
# The averaged hypothesis (1/T)·Σ_t w^(t) over the hypotheses after each of the T rounds so far,
# kept in O(1) per round and output and O(changed values) per step, through the lazy scale:
# ``avg[r]`` = Σ_t σ_r^(t) (the scale after each round, in the units of the current raw
# values) and ``acc[j, r]`` = Σ Δ_j·avg[r], taken when a raw change Δ_j was made, so that
# Σ_t w_r^(t) = W[:, r]·avg[r] − acc[:, r] (:func:`averaged`): a change made before round t
# counts in every later hypothesis, with the scales those rounds had; only differences of
# ``avg`` matter for a value changed since, so a fold or a clearing rebases
# (:func:`average_rebase`).  Used by the primal engine (``average=True``) and the kernel engine
# (its support coefficients).  Empty arrays mean "not averaging".
@njit(cache=True, error_model="numpy", inline="always")
def averaging(avg):
    """Whether the averaging sums are kept (non-empty)."""
    return avg.shape[0] > 0


@njit(cache=True, error_model="numpy", inline="always")
def average_change(acc, j, r, change, avg):
    """Record a raw change ``change`` of value (j, r)."""
    acc[j, r] += change * avg[r]


@njit(cache=True, error_model="numpy", inline="always")
def average_row(idx, vals, acc, r, step, avg):
    """Record the raw change ``step·x`` of column r (the non-zeros of the row)."""
    c = step * avg[r]
    for p in range(idx.shape[0]):
        acc[idx[p], r] += vals[p] * c


@njit(cache=True, error_model="numpy", inline="always")
def must_rebase(state, r, avg):
    """Whether the sum of scales has grown beyond ``AVERAGE_REBASE`` times the current scale:
    a change Δ recorded now as ``Δ·avg`` would then cancel against ``W·avg`` with a relative
    error of ``ε·avg/σ`` (as after many rounds, or once the scale has fallen — by a rescaling
    that did not fold)."""
    return avg[r] > AVERAGE_REBASE * abs(state[SCALE, r])


@njit(cache=True, error_model="numpy", inline="always")
def average_rebase(W, n, acc, r, avg):
    """Before the raw values of column r (its first ``n``) change units (a fold) or are removed
    (set to zero): move their part of the sum, ``W·avg``, into ``acc`` and restart ``avg`` at 0.
    The sum ``W·avg − acc`` is unchanged, and ``avg`` stays bounded: dividing it by the folded
    scale instead would grow it by 1/σ at every fold of a steadily shrinking column."""
    for i in range(n):
        acc[i, r] -= W[i, r] * avg[r]
    avg[r] = 0.0


@njit(cache=True, error_model="numpy", inline="always")
def average_close_round(state, avg):
    """End of a round: every output's current hypothesis joins the sum."""
    for r in range(avg.shape[0]):
        avg[r] += state[SCALE, r]


def averaged(W, acc, avg, rounds):
    """The averaged true values ``(W·avg − acc)/T`` after ``rounds`` = T rounds (0 before any)."""
    if rounds == 0:
        return np.zeros_like(W)
    return (W * avg - acc) / rounds


@njit(cache=True, inline="always")
def row(dense, n_features, data, indices, indptr, r):
    """Row r as ``(column indices, values)``: of the flattened dense matrix ``data`` (then
    ``indices = arange(n_features)`` and ``indptr`` is unused) or of the CSR matrix
    ``(data, indices, indptr)``."""
    if dense:
        start = r * n_features
        return indices, data[start:start + n_features]
    start = indptr[r]
    stop = indptr[r + 1]
    return indices[start:stop], data[start:stop]



SEEN, MISTAKES, UPDATES, CONSTRAINT_MISTAKES, CONSTRAINTS, TRIAL_UPDATES = 0, 1, 2, 2, 3, 4


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


@njit(cache=True, error_model="numpy")
def binary_label(n_outputs, y, r):
    if n_outputs == 1:
        return 1.0 if y == 1 else -1.0
    return 1.0 if r == y else -1.0


@njit(cache=True, error_model="numpy")
def predict_index(scores, state, scale_free):
    m = scores.shape[0]
    if m == 1:
        return 1 if scores[0] > 0.0 else 0
    best = 0
    best_value = -np.inf
    for r in range(m):
        value = scores[r]
        if scale_free:
            norm = math.sqrt(state[0, r] * state[0, r] * state[1, r])
            value = value / norm if norm > 0.0 else 0.0
        if value > best_value:
            best = r
            best_value = value
    return best


@njit(cache=True, error_model="numpy")
def score(idx, vals, W, state, scores):
    q = column_dots(idx, vals, W, scores)
    for r in range(W.shape[1]):
        scores[r] *= state[0, r]
    return q


@njit(cache=True, error_model="numpy")
def weighted_steps(rule, scores, y, q, params, state, tau, factor, order, weight, weight_mode):
    raise NotImplementedError("the kernel engine is being ported")
