# cython: language_level=3
"""The lazy weight store, in compiled form: the functions under the primal weights, the kernel
dual coefficients, the block learners' vectors and the ellipsoid's diagonal metric (in the
spirit of scikit-learn's ``utils/_weight_vector.pyx.tp``).  :mod:`onlinear._core.weights` is
the module that documents it (the store's rules: scale, sizes with the exact re-anchoring guard,
averaging) and gives its functions to Python.

A 2-D store ``W`` of ``n`` features and ``m`` outputs is a pointer and two element strides:
``W[j, r]`` is ``W[j * L.sj + r * L.sr]`` (feature-major: ``sr = 1``; class-major: ``sj = 1``,
column r contiguous).  ``state`` is the primal state layout, C-contiguous ``(rows, m)``:
``state[row * m + r]`` (:mod:`onlinear.rules.layout`).  The averaging sums ``acc`` (float64)
share the weights' layout; ``avg`` is NULL when the model does not average.
"""
from libc.math cimport exp, fabs, INFINITY, ldexp, sqrt
from libc.stdint cimport int32_t, int64_t

from ._sweeps cimport onlinear_sweeps_dd, onlinear_sweeps_df, onlinear_sweeps_fd, \
    onlinear_sweeps_ff

ctypedef fused real_x:
    float
    double

ctypedef fused real_w:
    float
    double

ctypedef fused index_t:
    int32_t
    int64_t

# the primal state rows (onlinear.rules.layout)
cdef enum:
    SCALE = 0
    RAW_SQNORM = 1
    RAW_MASS = 2
    SIZE_ANCHOR = 3
    FIRST_RULE_ROW = 4

cdef extern from *:
    """
    #define ONLINEAR_SCALE_LOW 1e-100
    #define ONLINEAR_SCALE_HIGH 1e100
    #define ONLINEAR_SCALE_LOW_FLOAT32 0x1p-24
    #define ONLINEAR_SCALE_HIGH_FLOAT32 0x1p24
    #define ONLINEAR_AVERAGE_REBASE 0x1p20
    #define ONLINEAR_MAX_EXPONENT 300.0
    #define ONLINEAR_MIN_WEIGHT 1e-300
    #define ONLINEAR_SIZE_FLOOR 0x1p-80
    """
    const double SCALE_LOW "ONLINEAR_SCALE_LOW"
    const double SCALE_HIGH "ONLINEAR_SCALE_HIGH"
    const double SCALE_LOW_FLOAT32 "ONLINEAR_SCALE_LOW_FLOAT32"
    const double SCALE_HIGH_FLOAT32 "ONLINEAR_SCALE_HIGH_FLOAT32"
    const double AVERAGE_REBASE "ONLINEAR_AVERAGE_REBASE"
    const double MAX_EXPONENT "ONLINEAR_MAX_EXPONENT"
    const double MIN_WEIGHT "ONLINEAR_MIN_WEIGHT"
    const double SIZE_FLOOR "ONLINEAR_SIZE_FLOOR"


cdef struct Layout:
    Py_ssize_t n    # features
    Py_ssize_t m    # outputs
    Py_ssize_t sj   # element stride between features
    Py_ssize_t sr   # element stride between outputs


# ------------------------------------------------------------------------------- scale, sizes
cdef inline bint scale_ok(double scale) noexcept nogil:
    """Whether a lazy scale is safe to keep (``SCALE_LOW < |σ| < SCALE_HIGH``; not NaN)."""
    return SCALE_LOW < fabs(scale) < SCALE_HIGH


cdef inline bint scale_ok_for(const real_w *W, double scale) noexcept nogil:
    """:func:`scale_ok` for the weights ``W``: within ``2^±24`` for float32 weights."""
    if real_w is float:
        return SCALE_LOW_FLOAT32 < fabs(scale) < SCALE_HIGH_FLOAT32
    else:
        return SCALE_LOW < fabs(scale) < SCALE_HIGH


cdef inline double squared_norm(const double *state, Py_ssize_t m, Py_ssize_t r) noexcept nogil:
    """‖w_r‖² of the true weights of output r."""
    cdef double scale = state[SCALE * m + r]
    return scale * scale * state[RAW_SQNORM * m + r]


cdef inline void exact_sizes(const real_w *W, Layout L, double *state, Py_ssize_t r) noexcept nogil:
    """``RAW_SQNORM = Σ_j W[j, r]²`` and ``RAW_MASS = Σ_j W[j, r]`` recomputed exactly (in
    float64); the anchor is reset."""
    cdef double sqnorm = 0.0, total = 0.0, w
    cdef Py_ssize_t j
    for j in range(L.n):
        w = W[j * L.sj + r * L.sr]
        sqnorm += w * w
        total += w
    state[RAW_SQNORM * L.m + r] = sqnorm
    state[RAW_MASS * L.m + r] = total
    state[SIZE_ANCHOR * L.m + r] = 0.0


cdef inline bint must_reanchor(const double *state, Py_ssize_t m, Py_ssize_t r, Py_ssize_t row,
                               double after) noexcept nogil:
    """Whether the running size ``after`` of ``state[row, r]`` has fallen below half of its
    largest value since it was last exact."""
    return after < 0.5 * max(state[SIZE_ANCHOR * m + r], state[row * m + r])


cdef inline void keep_running(double *state, Py_ssize_t m, Py_ssize_t r, Py_ssize_t row,
                              double after) noexcept nogil:
    """Store the running size ``after`` in ``state[row, r]`` and raise the anchor to it."""
    cdef double anchor = max(state[SIZE_ANCHOR * m + r], state[row * m + r])
    state[row * m + r] = after
    state[SIZE_ANCHOR * m + r] = max(anchor, after)


cdef inline void track_size(const real_w *W, Layout L, double *state, Py_ssize_t r,
                            Py_ssize_t row, double after) noexcept nogil:
    """Store a column size updated by a running sum, or recompute it exactly (the guard)."""
    if must_reanchor(state, L.m, r, row, after):
        exact_sizes(W, L, state, r)
    else:
        keep_running(state, L.m, r, row, after)


# ---------------------------------------------------------------------------------- averaging
cdef inline void average_rebase(const real_w *W, Layout L, double *acc, Py_ssize_t r,
                                double *avg) noexcept nogil:
    """Before the raw values of column r change units (a fold) or are removed: move their part
    of the sum, ``W·avg``, into ``acc`` and restart ``avg[r]`` at 0."""
    cdef Py_ssize_t j, at
    for j in range(L.n):
        at = j * L.sj + r * L.sr
        acc[at] -= W[at] * avg[r]
    avg[r] = 0.0


cdef inline bint must_rebase(const double *state, Py_ssize_t m, Py_ssize_t r,
                             const double *avg) noexcept nogil:
    """Whether the sum of scales has grown beyond ``AVERAGE_REBASE`` times the current scale."""
    return avg[r] > AVERAGE_REBASE * fabs(state[SCALE * m + r])


cdef inline void average_close_round(const double *state, Py_ssize_t m, double *avg) noexcept nogil:
    """End of a round: every output's current hypothesis joins the sum."""
    cdef Py_ssize_t r
    for r in range(m):
        avg[r] += state[SCALE * m + r]


# ----------------------------------------------------------------------- rows and exponentials
cdef inline double add_row(const index_t *idx, const real_x *vals, Py_ssize_t nnz, real_w *w,
                           Py_ssize_t stride, double step) noexcept nogil:
    """``w += step·x`` on the non-zeros of the row (raw units; ``w[j]`` at ``w + j*stride``);
    returns the change of ``Σ_j w_j²`` as ``Σ (new − old)(new + old)`` over the touched values,
    of the values stored (float32 weights round each one), in float64."""
    cdef double change = 0.0, v, old, new
    cdef Py_ssize_t p, at
    for p in range(nnz):
        v = vals[p]
        if v != 0.0:
            at = idx[p] * stride
            old = w[at]
            w[at] = <real_w>(old + step * v)
            new = w[at]
            change += (new - old) * (new + old)
    return change


cdef inline double exp_step(real_w *w, Py_ssize_t at, double exponent) noexcept nogil:
    """``w ← max(w·exp(e), MIN_WEIGHT)`` with ``e`` clamped to ``±MAX_EXPONENT``; returns the
    change of w (for the running mass)."""
    exponent = min(MAX_EXPONENT, max(-MAX_EXPONENT, exponent))
    cdef double old = w[at]
    cdef double new = max(old * exp(exponent), MIN_WEIGHT)
    w[at] = <real_w>new
    return new - old


cdef inline double exp_row(const index_t *idx, const real_x *vals, Py_ssize_t nnz, real_w *w,
                           Py_ssize_t stride, double tau) noexcept nogil:
    """``w_j ← w_j·exp(τ x_j)`` (:func:`exp_step`) on the non-zeros; returns the change of the
    raw mass ``Σ_j w_j``."""
    cdef double change = 0.0, v
    cdef Py_ssize_t p
    for p in range(nnz):
        v = vals[p]
        if v != 0.0:
            change += exp_step(w, idx[p] * stride, tau * v)
    return change


# ---------------------------------------------------------- dots; positive stores (mass, fold)
cdef inline double dot(const index_t *idx, const real_x *vals, Py_ssize_t nnz, const real_w *w,
                       Py_ssize_t stride, double *sqnorm) noexcept nogil:
    """``w·x`` over the non-zeros of the row (raw units; ``w[j]`` at ``w + j*stride``); ``‖x‖²``
    into ``sqnorm``, both summed in float64."""
    cdef double s = 0.0, q = 0.0, v
    cdef Py_ssize_t p
    for p in range(nnz):
        v = vals[p]
        if v != 0.0:
            s += w[idx[p] * stride] * v
            q += v * v
    sqnorm[0] = q
    return s


cdef inline double column_dots(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                               const real_w *W, Layout L, double *out) noexcept nogil:
    """``out[r] = W[:, r]·x`` for every column, raw units (no scale: :func:`score_sparse`
    applies the state's), in one sweep over the row's non-zeros; returns ``‖x‖²`` (float64).
    Feature-major weights (``L.sr == 1``) take :func:`sparse_sweep`: the same sums in the same
    order, vectorized across the columns."""
    cdef Py_ssize_t r, p, base
    cdef double q = 0.0, v
    if L.sr == 1:
        return sparse_sweep(idx, vals, nnz, W, L.sj, L.m, out)
    for r in range(L.m):
        out[r] = 0.0
    for p in range(nnz):
        v = vals[p]
        if v != 0.0:
            base = idx[p] * L.sj
            q += v * v
            for r in range(L.m):
                out[r] += W[base + r * L.sr] * v
    return q


cdef inline double mass(const real_w *w, Py_ssize_t n, Py_ssize_t stride) noexcept nogil:
    """``Σ_j w_j`` of the n raw values at ``w + j*stride`` (float64, in order)."""
    cdef double total = 0.0
    cdef Py_ssize_t j
    for j in range(n):
        total += w[j * stride]
    return total


cdef inline void fold_positive(real_w *w, Py_ssize_t n, Py_ssize_t stride,
                               double scale) noexcept nogil:
    """``w ← max(σ·w, MIN_WEIGHT)``: the scale folded into a store that must stay positive (the
    multiplicative block learners' weights, the ellipsoid's diagonal metric); the caller resets
    the scale."""
    cdef Py_ssize_t j
    cdef double new
    for j in range(n):
        new = w[j * stride] * scale
        w[j * stride] = <real_w>(MIN_WEIGHT if MIN_WEIGHT > new else new)


# ------------------------------------------------------------------------ columns of the store
cdef inline void fold_column(real_w *W, Layout L, double *state, Py_ssize_t r, double *acc,
                             double *avg) noexcept nogil:
    """Fold the scale of column r into it (scale 1 again); its sizes become exact, and the
    averaging sums (if kept) are rebased first (they are tied to the raw units)."""
    cdef Py_ssize_t j, at
    cdef double scale = state[SCALE * L.m + r]
    if avg != NULL:
        average_rebase(W, L, acc, r, avg)
    for j in range(L.n):
        at = j * L.sj + r * L.sr
        W[at] = <real_w>(W[at] * scale)
    state[SCALE * L.m + r] = 1.0
    exact_sizes(W, L, state, r)


cdef inline void clear_column(real_w *W, Layout L, double *state, Py_ssize_t r, double *acc,
                              double *avg) noexcept nogil:
    """Column r set to zero (a step with factor 0); the averaging sums keep what is removed."""
    cdef Py_ssize_t j
    if avg != NULL:
        average_rebase(W, L, acc, r, avg)
    for j in range(L.n):
        W[j * L.sj + r * L.sr] = 0
    state[SCALE * L.m + r] = 1.0
    state[RAW_SQNORM * L.m + r] = 0.0
    state[SIZE_ANCHOR * L.m + r] = 0.0


cdef inline void rescale_column(real_w *W, Layout L, double *state, Py_ssize_t r, double c,
                                double *acc, double *avg) noexcept nogil:
    """``w_r ← c·w_r`` through the scale, folded when it leaves the safe range."""
    state[SCALE * L.m + r] *= c
    if not scale_ok_for(W, state[SCALE * L.m + r]):
        fold_column(W, L, state, r, acc, avg)


cdef inline double step_of(const real_w *W, Layout L, double *state, Py_ssize_t r, double tau,
                           double *acc, double *avg) noexcept nogil:
    """The raw step ``τ/σ`` of column r, the averaging sums rebased first when due (before W
    changes: the rebase moves ``W·avg``)."""
    if avg != NULL and must_rebase(state, L.m, r, avg):
        average_rebase(W, L, acc, r, avg)
    return tau / state[SCALE * L.m + r]


cdef inline void average_row(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                             double *acc, Layout L, Py_ssize_t r, double step,
                             const double *avg) noexcept nogil:
    """Record the raw change ``step·x`` of column r (the non-zeros of the row)."""
    cdef double c = step * avg[r]
    cdef Py_ssize_t p
    for p in range(nnz):
        acc[idx[p] * L.sj + r * L.sr] += vals[p] * c


cdef inline void added(const index_t *idx, const real_x *vals, Py_ssize_t nnz, const real_w *W,
                       Layout L, double *state, Py_ssize_t r, double step, double change,
                       double *acc, double *avg) noexcept nogil:
    """After ``step·x`` was added to column r (raw squared norm changed by ``change``): the size
    tracked, the change recorded in the averaging sums."""
    track_size(W, L, state, r, RAW_SQNORM, state[RAW_SQNORM * L.m + r] + change)
    if avg != NULL:
        average_row(idx, vals, nnz, acc, L, r, step, avg)


cdef inline void added_sized(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                             const real_w *W, Layout L, double *state, Py_ssize_t r, double step,
                             double size, double *acc, double *avg) noexcept nogil:
    """:func:`added` after a dense sweep that summed the column's new raw squared norm: it is
    the column's size, exact (the anchor reset), or — outside ``[SIZE_FLOOR, inf)`` — summed
    again in float64."""
    if SIZE_FLOOR <= size < INFINITY:
        state[RAW_SQNORM * L.m + r] = size
        state[SIZE_ANCHOR * L.m + r] = 0.0
    else:
        exact_sizes(W, L, state, r)
    if avg != NULL:
        average_row(idx, vals, nnz, acc, L, r, step, avg)


cdef inline void add_to_column(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                               real_w *W, Layout L, double *state, Py_ssize_t r, double tau,
                               double *acc, double *avg) noexcept nogil:
    """``w_r ← w_r + τ·x`` (true units) on the non-zeros of the row, with the squared norm
    tracked (and the averaging sums, if kept)."""
    cdef double step = step_of(W, L, state, r, tau, acc, avg)
    cdef double change = add_row(idx, vals, nnz, W + r * L.sr, L.sj, step)
    added(idx, vals, nnz, W, L, state, r, step, change, acc, avg)


# ------------------------------------------------------------- dense rows, class-major weights
cdef inline double score_dense(const real_x *x, const real_w *W, Py_ssize_t d, Py_ssize_t ld,
                               Py_ssize_t m, const double *scale, double *scores) noexcept nogil:
    """True scores of the dense row x against class-major weights (column r at ``W + r*ld``)
    into ``scores``; returns ``‖x‖²`` (simd.h's ``score_dense``)."""
    if real_x is float and real_w is float:
        return onlinear_sweeps_ff.score_dense(x, W, d, ld, m, scale, scores)
    elif real_x is double and real_w is double:
        return onlinear_sweeps_dd.score_dense(x, W, d, ld, m, scale, scores)
    elif real_x is float and real_w is double:
        return onlinear_sweeps_fd.score_dense(x, W, d, ld, m, scale, scores)
    else:
        return onlinear_sweeps_df.score_dense(x, W, d, ld, m, scale, scores)


cdef inline double add_dense(const real_x *x, real_w *w, Py_ssize_t d, double step) noexcept nogil:
    if real_x is float and real_w is float:
        return onlinear_sweeps_ff.add_dense(x, w, d, step)
    elif real_x is double and real_w is double:
        return onlinear_sweeps_dd.add_dense(x, w, d, step)
    elif real_x is float and real_w is double:
        return onlinear_sweeps_fd.add_dense(x, w, d, step)
    else:
        return onlinear_sweeps_df.add_dense(x, w, d, step)


cdef inline void add_dense_untracked(const real_x *x, real_w *w, Py_ssize_t d,
                                     double step) noexcept nogil:
    if real_x is float and real_w is float:
        onlinear_sweeps_ff.add_dense_untracked(x, w, d, step)
    elif real_x is double and real_w is double:
        onlinear_sweeps_dd.add_dense_untracked(x, w, d, step)
    elif real_x is float and real_w is double:
        onlinear_sweeps_fd.add_dense_untracked(x, w, d, step)
    else:
        onlinear_sweeps_df.add_dense_untracked(x, w, d, step)


cdef inline void add_dense_pair(const real_x *x, real_w *wr, double step_r, real_w *ws,
                                double step_s, Py_ssize_t d, double *sizes) noexcept nogil:
    if real_x is float and real_w is float:
        onlinear_sweeps_ff.add_dense_pair(x, wr, step_r, ws, step_s, d, sizes)
    elif real_x is double and real_w is double:
        onlinear_sweeps_dd.add_dense_pair(x, wr, step_r, ws, step_s, d, sizes)
    elif real_x is float and real_w is double:
        onlinear_sweeps_fd.add_dense_pair(x, wr, step_r, ws, step_s, d, sizes)
    else:
        onlinear_sweeps_df.add_dense_pair(x, wr, step_r, ws, step_s, d, sizes)


cdef inline void add_dense_pair_untracked(const real_x *x, real_w *wr, double step_r,
                                          real_w *ws, double step_s, Py_ssize_t d) noexcept nogil:
    if real_x is float and real_w is float:
        onlinear_sweeps_ff.add_dense_pair_untracked(x, wr, step_r, ws, step_s, d)
    elif real_x is double and real_w is double:
        onlinear_sweeps_dd.add_dense_pair_untracked(x, wr, step_r, ws, step_s, d)
    elif real_x is float and real_w is double:
        onlinear_sweeps_fd.add_dense_pair_untracked(x, wr, step_r, ws, step_s, d)
    else:
        onlinear_sweeps_df.add_dense_pair_untracked(x, wr, step_r, ws, step_s, d)


# ------------------------------------------------------------- scores, predictions, row checks
cdef inline double sparse_sweep(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                                const real_w *W, Py_ssize_t ld, Py_ssize_t m,
                                double *out) noexcept nogil:
    """Raw sums ``out[r] = Σ_p W[idx[p], r]·vals[p]`` over the row's non-zeros against
    feature-major weights (feature j's m outputs contiguous at ``W + j*ld``); returns ``‖x‖²``
    (float64 whatever the dtypes).  The sums run across the outputs in vector lanes (simd.h's
    ``score_sparse``), each in the row's order, so the result does not depend on the
    instruction set (the module must call ``onlinear_simd_init`` when it loads)."""
    if index_t is int32_t:
        if real_x is float and real_w is float:
            return onlinear_sweeps_ff.score_sparse_i32(idx, vals, nnz, W, ld, m, out)
        elif real_x is double and real_w is double:
            return onlinear_sweeps_dd.score_sparse_i32(idx, vals, nnz, W, ld, m, out)
        elif real_x is float and real_w is double:
            return onlinear_sweeps_fd.score_sparse_i32(idx, vals, nnz, W, ld, m, out)
        else:
            return onlinear_sweeps_df.score_sparse_i32(idx, vals, nnz, W, ld, m, out)
    else:
        if real_x is float and real_w is float:
            return onlinear_sweeps_ff.score_sparse_i64(idx, vals, nnz, W, ld, m, out)
        elif real_x is double and real_w is double:
            return onlinear_sweeps_dd.score_sparse_i64(idx, vals, nnz, W, ld, m, out)
        elif real_x is float and real_w is double:
            return onlinear_sweeps_fd.score_sparse_i64(idx, vals, nnz, W, ld, m, out)
        else:
            return onlinear_sweeps_df.score_sparse_i64(idx, vals, nnz, W, ld, m, out)


cdef inline void add_outer(const index_t *idx, const real_x *vals, Py_ssize_t nnz, real_w *W,
                           Py_ssize_t ld, Py_ssize_t m, const double *tau) noexcept nogil:
    """``W[idx[p], r] += τ_r·vals[p]`` for every non-zero of the row and every output, on
    feature-major weights (feature j's m outputs contiguous at ``W + j*ld``): the steps of
    several outputs in one sweep over the row, each value rounded alone (simd.h's
    ``add_outer``: the outputs in vector lanes; no result depends on the instruction set)."""
    if index_t is int32_t:
        if real_x is float and real_w is float:
            onlinear_sweeps_ff.add_outer_i32(idx, vals, nnz, W, ld, m, tau)
        elif real_x is double and real_w is double:
            onlinear_sweeps_dd.add_outer_i32(idx, vals, nnz, W, ld, m, tau)
        elif real_x is float and real_w is double:
            onlinear_sweeps_fd.add_outer_i32(idx, vals, nnz, W, ld, m, tau)
        else:
            onlinear_sweeps_df.add_outer_i32(idx, vals, nnz, W, ld, m, tau)
    else:
        if real_x is float and real_w is float:
            onlinear_sweeps_ff.add_outer_i64(idx, vals, nnz, W, ld, m, tau)
        elif real_x is double and real_w is double:
            onlinear_sweeps_dd.add_outer_i64(idx, vals, nnz, W, ld, m, tau)
        elif real_x is float and real_w is double:
            onlinear_sweeps_fd.add_outer_i64(idx, vals, nnz, W, ld, m, tau)
        else:
            onlinear_sweeps_df.add_outer_i64(idx, vals, nnz, W, ld, m, tau)


cdef inline double score_sparse(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                                const real_w *W, Layout L, const double *state,
                                double *scores) noexcept nogil:
    """True scores ``σ_r·(W[:, r]·x)`` of the row ``(idx, vals)`` (one sweep over its non-zeros,
    feature-major ``W``: ``L.sr == 1``, :func:`sparse_sweep`) into ``scores``; returns ``‖x‖²``
    (float64 whatever the dtypes)."""
    cdef Py_ssize_t r
    cdef double q = sparse_sweep(idx, vals, nnz, W, L.sj, L.m, scores)
    for r in range(L.m):
        scores[r] *= state[SCALE * L.m + r]
    return q


cdef inline Py_ssize_t predict_index(const double *scores, Py_ssize_t m, const double *state,
                                     bint scale_free) noexcept nogil:
    """The index predicted from the true scores: one output → 1 iff ``s > 0``; several →
    ``argmax_r s_r`` (``s_r/‖w_r‖`` for scale-free learners), ties to the lowest index."""
    cdef Py_ssize_t best = 0, r
    cdef double best_value = -INFINITY, value, norm
    if m == 1:
        return 1 if scores[0] > 0.0 else 0
    for r in range(m):
        value = scores[r]
        if scale_free:
            norm = sqrt(squared_norm(state, m, r))
            value = value / norm if norm > 0.0 else 0.0
        if value > best_value:
            best = r
            best_value = value
    return best


cdef extern from *:
    """
    #define ONLINEAR_SQNORM_LOW 0x1p-1010
    #define ONLINEAR_SQNORM_HIGH 0x1p1010
    #define ONLINEAR_SQNORM_LOW_FLOAT32 0x1p-64
    #define ONLINEAR_SQNORM_HIGH_FLOAT32 0x1p64
    """
    # the accepted ‖x‖² (onlinear._core.rows): [2^-1010, 2^1010], float32 weights [2^-64, 2^64]
    const double SQNORM_LOW "ONLINEAR_SQNORM_LOW"
    const double SQNORM_HIGH "ONLINEAR_SQNORM_HIGH"
    const double SQNORM_LOW_FLOAT32 "ONLINEAR_SQNORM_LOW_FLOAT32"
    const double SQNORM_HIGH_FLOAT32 "ONLINEAR_SQNORM_HIGH_FLOAT32"


cdef extern from "prefetch.h":
    # the next dense row's lines asked for before a round (its gather reads it from memory:
    # the round's arithmetic then overlaps the read, which a dense pass is bound by)
    void prefetch "onlinear_prefetch"(const void *p, Py_ssize_t bytes) noexcept nogil


cdef inline bint row_accepted(const real_x *row, Py_ssize_t n, double q,
                              const real_w *W) noexcept nogil:
    """Whether a row whose ``‖x‖²`` (``q``) is summed already (NaN and inf propagate to it) is
    finite and zero or of an accepted norm for the weights ``W`` (:mod:`onlinear._core.rows`)."""
    cdef Py_ssize_t p
    if real_w is float:
        if SQNORM_LOW_FLOAT32 <= q <= SQNORM_HIGH_FLOAT32:
            return True
    else:
        if SQNORM_LOW <= q <= SQNORM_HIGH:
            return True
    if q != 0.0:
        return False
    for p in range(n):  # ‖x‖² = 0: the zero row, or one that underflowed
        if row[p] != 0.0:
            return False
    return True


cdef inline Py_ssize_t nonzeros(const real_x *row, Py_ssize_t n, index_t *idx,
                                real_x *vals) noexcept nogil:
    """The non-zeros of the dense row (NaN included) as a row ``(idx, vals)`` of
    :mod:`.rows`, in order (room for ``n + 8`` each); returns their number.  Branch-free
    (simd.h's ``nonzeros``, eight floats or four doubles a step with AVX2): a dense row's zeros
    fall anywhere (a fifth of MNIST's values are not zero), and a loop that skips them by a
    branch mispredicts on about every other one.  For the sweeps that skip zero values anyway
    (:func:`sparse_sweep`, :func:`add_row`) it changes no result, only the work."""
    cdef Py_ssize_t j, k = 0
    if index_t is int64_t:
        if real_x is float:
            return onlinear_sweeps_ff.nonzeros(row, n, idx, vals)
        else:
            return onlinear_sweeps_dd.nonzeros(row, n, idx, vals)
    for j in range(n):
        idx[k] = j
        vals[k] = row[j]
        k += row[j] != 0
    return k


cdef inline double sum_of_squares(const real_x *row, Py_ssize_t n) noexcept nogil:
    """``Σ x_p²`` in float64 (NaN and inf propagate)."""
    cdef double q = 0.0, v
    cdef Py_ssize_t p
    for p in range(n):
        v = row[p]
        q += v * v
    return q


cdef inline bint row_ok(const real_x *row, Py_ssize_t n, int exponent) noexcept nogil:
    """Whether the row is finite and zero or of a norm in ``[2^-e, 2^e]`` (``e = exponent``)."""
    cdef double q = sum_of_squares(row, n)
    cdef Py_ssize_t p
    if ldexp(1.0, -2 * exponent) <= q <= ldexp(1.0, 2 * exponent):
        return True
    if q != 0.0:
        return False
    for p in range(n):
        if row[p] != 0.0:
            return False
    return True


# ---------------------------------------------------- steps of dense rows, class-major weights
cdef inline void add_to_dense_column(const int64_t *idx, const real_x *x, real_w *W, Layout L,
                                     double *state, Py_ssize_t r, double tau, double *acc,
                                     double *avg, bint exact_norms, double raw,
                                     double q) noexcept nogil:
    """``w_r ← w_r + τ·x`` for a whole dense row on class-major weights, its squared norm summed
    afresh in the sweep if ``exact_norms`` (by the pair sweep with a zero step for a partner:
    every column's norm is then summed by the same instructions, and two equal columns keep
    equal norms — the exact tie between them must stay), else updated in O(1) from the
    column's raw dot product with x (``raw``) and ``q = ‖x‖²``."""
    cdef double step = step_of(W, L, state, r, tau, acc, avg)
    cdef double sizes[2]
    cdef Py_ssize_t d = L.n
    if exact_norms and L.m > 1:
        add_dense_pair(x, W + r * L.sr, step, W + (1 if r == 0 else 0) * L.sr, 0.0, d, sizes)
        added_sized(idx, x, d, W, L, state, r, step, sizes[0], acc, avg)
    elif exact_norms:
        added_sized(idx, x, d, W, L, state, r, step, add_dense(x, W + r * L.sr, d, step), acc,
                    avg)
    else:
        add_dense_untracked(x, W + r * L.sr, d, step)
        added(idx, x, d, W, L, state, r, step, step * (2.0 * raw + step * q), acc, avg)


cdef inline void add_to_column_pair(const int64_t *idx, const real_x *x, real_w *W, Layout L,
                                    double *state, Py_ssize_t r, double tau_r, Py_ssize_t s,
                                    double tau_s, double *acc, double *avg, bint exact_norms,
                                    double raw_r, double raw_s, double q) noexcept nogil:
    """:func:`add_to_dense_column` for the two columns r ≠ s in one sweep over the row (x read
    once for both: the steps of most multiclass rules change two outputs).  ``exact_norms``:
    each column's squared norm summed afresh over its new values in the same sweep; if not,
    ``‖w‖²`` changes by ``step·(2·w·x + step·q)``, O(1) instead of a second sum over the row,
    under the re-anchoring guard."""
    cdef double step_r = step_of(W, L, state, r, tau_r, acc, avg)
    cdef double step_s = step_of(W, L, state, s, tau_s, acc, avg)
    cdef double sizes[2]
    cdef Py_ssize_t d = L.n
    if exact_norms:
        add_dense_pair(x, W + r * L.sr, step_r, W + s * L.sr, step_s, d, sizes)
        added_sized(idx, x, d, W, L, state, r, step_r, sizes[0], acc, avg)
        added_sized(idx, x, d, W, L, state, s, step_s, sizes[1], acc, avg)
    else:
        add_dense_pair_untracked(x, W + r * L.sr, step_r, W + s * L.sr, step_s, d)
        added(idx, x, d, W, L, state, r, step_r, step_r * (2.0 * raw_r + step_r * q), acc, avg)
        added(idx, x, d, W, L, state, s, step_s, step_s * (2.0 * raw_s + step_s * q), acc, avg)
