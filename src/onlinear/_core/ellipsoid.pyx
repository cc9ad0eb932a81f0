# cython: language_level=3
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

``u = P_r x`` over a whole row is the one reassociated sum of the engine: a vectorized sweep
(``ellipsoid_simd.h``) compiled for several instruction sets and chosen when the module loads,
as the primal engine's dense sweeps are (``ONLINEAR_CPU=generic`` keeps the baseline); the rest
is IEEE arithmetic in the order written.  This module is compiled ahead of time (Cython, when
the package is installed): a first call compiles nothing.
"""
import numpy as np

from libc.stdint cimport int64_t, uint64_t

from ..rules.ellipsoid cimport (CELLIP, DECAY_UPDATES, IELLIP, INFEASIBLE, P_NORMALIZED, RAISE,
                                RESET_REQUESTED, EllipsoidStep, ellipsoid_step, memory)
from ..rules._params cimport EllipsoidParams
from ..rules.ultraconservative cimport binary_label
from ._counting cimport count_round
from .row_pass cimport RowRound
from ._sweeps cimport onlinear_simd_init
from ._store cimport (MIN_WEIGHT, SCALE_HIGH, SCALE_LOW, Layout, add_row, fold_positive, index_t,
                      nonzeros, predict_index, prefetch, real_x, row_accepted,
                      score_sparse)

cdef extern from "ellipsoid_simd.h" nogil:
    ctypedef struct metric_sweeps:
        void (*times_f)(const double *, const float *, Py_ssize_t, double *) noexcept nogil
        void (*times_d)(const double *, const double *, Py_ssize_t, double *) noexcept nogil
    metric_sweeps onlinear_metric_sweeps
    void onlinear_metric_init()
    const char *onlinear_metric_isa()

onlinear_metric_init()
onlinear_simd_init()  # (the CSR scores: _store.pxd's score_sparse)

cpdef enum:
    FULL = 0
    DIAGONAL = 1
    STACKED = 2

# the params vector: the fields of ``EllipsoidParams`` (rules/_params.pxd), read by name
cdef EllipsoidParams _fields = EllipsoidParams(0, 0, 0, 0, 0, 0, 0, 0, 0)
#: the names of the params vector's entries, in order (build it with
#: :func:`onlinear.rules.table.parameter_vector`)
PARAMETERS = tuple(_fields)
N_ELLIPSOID_PARAMS = len(PARAMETERS)

# state rows: the scale of W (always 1), the diagonal layout's lazy factor, and the updates made
# by each ellipsoid (the stacked layout's single ellipsoid counts in column 0): the t of
# IELLIP's c_t under decay="updates", kept in the model so that a resumed run goes on exactly
cpdef enum:
    DIAGONAL_SCALE = 1
    UPDATES_MADE = 2
    N_STATE_ROWS = 3


def metric_instruction_set():
    """The instruction set of the sweep ``u = P_r x`` this process uses: ``"avx512"``,
    ``"avx2"`` or ``"generic"`` (the baseline; ``ONLINEAR_CPU=generic`` in the environment
    forces it)."""
    return onlinear_metric_isa().decode()


def metric_times(const double[:, ::1] P, const real_x[::1] x, columns=None):
    """``u = P x`` for a d×d metric and a row, by the sweep the engine uses on it
    (:func:`_metric_times`): ``x`` holds d values (a row with every column), or with
    ``columns`` (increasing int64 column indices) the values at those columns only, summed in
    their order; for tests and diagnostics."""
    cdef Py_ssize_t d = P.shape[0], nnz = x.shape[0]
    cdef const int64_t[::1] idx = np.ascontiguousarray(
        np.arange(nnz) if columns is None else columns, dtype=np.int64)
    if P.shape[1] != d or (columns is None and nnz != d):
        raise ValueError(f"a metric of shape {(P.shape[0], P.shape[1])} for a row of {nnz} "
                         "values")
    if idx.shape[0] != nnz or (nnz > 0 and not (np.all(np.diff(idx) > 0) and 0 <= idx[0]
                                                and idx[nnz - 1] < d)):
        raise ValueError(f"{idx.shape[0]} increasing columns in [0, {d}) for {nnz} values")
    u = np.zeros(d)
    cdef double[::1] u_v = u
    if d > 0:
        _metric_times(&P[0, 0], d, &idx[0] if nnz > 0 else NULL,
                      &x[0] if nnz > 0 else NULL, nnz, &u_v[0])
    return u


# ---------------------------------------------------------------------------- the model
cdef struct Model:
    Py_ssize_t d            # features
    Py_ssize_t m            # outputs
    double *W               # (d, m), C-contiguous: W[j, r] = W[j * m + r]
    double *P               # the metric (layout's shape, C-contiguous)
    double *state           # (N_STATE_ROWS, m): state[row, r] = state[row * m + r]
    const EllipsoidParams *params
    double *scores          # scratch: m
    double *u               # scratch: d·(m if stacked else 1), and at least the row's nnz


cdef inline int64_t _updates_made(double made) noexcept nogil:
    """An ellipsoid's count of updates (a whole number ≥ 0, checked when a model is loaded) as
    an integer: counts beyond 2^62, which no run reaches, saturate there (and a NaN with them);
    below 0, at 0 (either way c_t stays what it would be)."""
    if not made < 4611686018427387904.0:
        return 4611686018427387904
    return <int64_t>made if made > 0.0 else 0


cdef inline EllipsoidStep _step(const EllipsoidParams *params, const double *state, Py_ssize_t m,
                                Py_ssize_t r, double margin, double v,
                                int64_t trial) noexcept nogil:
    """The step of ellipsoid r (column r of ``state``) on round ``trial`` (1-based); IELLIP's
    ``c_t`` is indexed by that round or by the ellipsoid's next update (``params.decay``)."""
    cdef int decay = <int>params.decay
    cdef int64_t t = trial if decay != DECAY_UPDATES else \
        _updates_made(state[UPDATES_MADE * m + r]) + 1
    cdef double c_t = memory(decay, t, params.b, params.c)
    return ellipsoid_step(<int>params.kind, margin, v, c_t, params.gamma, params.a,
                          <int>params.mode, <int>params.p_update)


cdef inline bint _scale_free(const EllipsoidParams *params) noexcept nogil:
    """Whether the metric's scale is immaterial: IELLIP with the printed (15), whose (10) is
    homogeneous of degree 0 in P and (15) of degree 1 (Yang, Jin & Ye §2.3; our derivation)."""
    return <int>params.kind == IELLIP and <int>params.p_update == P_NORMALIZED


cdef inline void _rank_one(double *P, const double *u, Py_ssize_t n, double p_scale,
                           double p_rank_one) noexcept nogil:
    """``P ← p_scale·P + p_rank_one·u uᵀ`` (n×n), row by row (contiguous, vectorized).  P stays
    exactly symmetric: entry (j, i) is computed by the same operations on the same operands as
    (i, j) (``P[j, i] = P[i, j]`` before, and ``u[j]·u[i] = u[i]·u[j]`` exactly)."""
    cdef Py_ssize_t i, j
    cdef double ui
    cdef double *row
    for i in range(n):
        row = P + i * n
        ui = u[i]
        for j in range(n):
            row[j] = p_scale * row[j] + p_rank_one * (ui * u[j])


cdef inline void _metric_times(const double *Pr, Py_ssize_t d, const index_t *idx,
                               const real_x *vals, Py_ssize_t nnz, double *u) noexcept nogil:
    """``u = P_r x`` for the row ``(idx, vals)`` (P_r d×d).  A row with every column (a dense
    row, or a full CSR row: its indices are then 0…d−1) takes contiguous, reassociated
    (vectorized) sums (``ellipsoid_simd.h``); others gather their columns, in order.  The one
    place where P_r x is formed, so that CELLIP's feasibility check and its step see the same
    bits."""
    cdef Py_ssize_t i = 0, p
    cdef double total
    if nnz == d:
        if real_x is float:
            onlinear_metric_sweeps.times_f(Pr, vals, d, u)
        else:
            onlinear_metric_sweeps.times_d(Pr, vals, d, u)
        return
    while i + GATHERED_ROWS <= d:
        _gathered_block(Pr + i * d, d, idx, vals, nnz, u + i, False, 0)
        i += GATHERED_ROWS
    while i < d:
        total = 0.0
        for p in range(nnz):
            total += Pr[i * d + idx[p]] * <double>vals[p]
        u[i] = total
        i += 1


cdef enum:
    GATHERED_ROWS = 8  # the rows of P_r that _gathered_block sums together


cdef inline void _gathered_block(const double *P0, Py_ssize_t stride, const index_t *idx,
                                 const real_x *vals, Py_ssize_t nnz, double *u,
                                 bint difference, Py_ssize_t minus) noexcept nogil:
    """``u[k] = Σ_p P0[k·stride + idx[p]]·vals[p]`` for the 8 rows k of P0 — or with
    ``difference``, ``Σ_p (P0[k·stride + idx[p]] − P0[k·stride + minus + idx[p]])·vals[p]``,
    the stacked layout's ``P z`` (z: x in block y, −x in block r⁻) — each row summed in the
    row's order, as :func:`_metric_times` and :func:`_stacked_step` sum a single row (the same
    operations: the same bits).  Eight independent sums in one pass over the row, where a
    single row's sum waits on each of its additions in turn: on USPS (256 features), a
    per-class round on a dense row with a zero took several times a full row's (1.2–1.8 µs a
    call on average, ~5 % of the rows), and the stacked layout's serial sums were ~4/5 of its
    round.  (``difference`` is a constant at each call: the compiler drops the other form.)"""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0
    cdef double x
    cdef const double *a
    cdef const double *b
    cdef Py_ssize_t p
    for p in range(nnz):
        x = <double>vals[p]
        a = P0 + idx[p]
        b = a + minus
        s0 += _entry(a, b, 0, difference) * x
        s1 += _entry(a, b, stride, difference) * x
        s2 += _entry(a, b, 2 * stride, difference) * x
        s3 += _entry(a, b, 3 * stride, difference) * x
        s4 += _entry(a, b, 4 * stride, difference) * x
        s5 += _entry(a, b, 5 * stride, difference) * x
        s6 += _entry(a, b, 6 * stride, difference) * x
        s7 += _entry(a, b, 7 * stride, difference) * x
    u[0] = s0
    u[1] = s1
    u[2] = s2
    u[3] = s3
    u[4] = s4
    u[5] = s5
    u[6] = s6
    u[7] = s7


cdef inline double _entry(const double *a, const double *b, Py_ssize_t k,
                          bint difference) noexcept nogil:
    """``a[k] − b[k]`` or ``a[k]`` (:func:`_gathered_block`)."""
    return a[k] - b[k] if difference else a[k]


cdef inline void _reset(double *P, Py_ssize_t n, double p1) noexcept nogil:
    """``P ← p1·I`` (n×n)."""
    cdef Py_ssize_t i
    for i in range(n * n):
        P[i] = 0.0
    for i in range(n):
        P[i * n + i] = p1


cdef inline void _keep_finite(double *P, Py_ssize_t n,
                              const EllipsoidParams *params) noexcept nogil:
    """IELLIP's predictions do not depend on the scale of P under the printed (15)
    (:func:`_scale_free`): renormalize it when its trace runs away (b = 1, or a constant c_t,
    lets it grow geometrically).  The raw reading is not scale-free, and its c_t is summable
    (the estimator refuses a constant one), so its P stays bounded."""
    cdef double trace = 0.0, factor
    cdef Py_ssize_t i
    if not _scale_free(params):
        return
    for i in range(n):
        trace += P[i * n + i]
    if trace > SCALE_HIGH:
        factor = <double>n / trace
        for i in range(n * n):
            P[i] *= factor


# ---------------------------------------------------------------------------- the steps
cdef inline bint _full_step(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                            Py_ssize_t y, Model *M, int64_t trial,
                            bint *failed) noexcept nogil:
    """One ellipsoid per output; returns whether the model changed (``failed``: a cut missed
    the ellipsoid under ``on_infeasible="raise"``, and the round stopped there)."""
    cdef Py_ssize_t m = M.m, d = M.d, r, p, i
    cdef bint changed = False
    cdef double z, margin, v
    cdef double *Pr
    cdef EllipsoidStep s
    failed[0] = False
    for r in range(m):
        z = binary_label(m, y, r)
        margin = z * M.scores[r]
        if margin > 0.0:
            continue
        Pr = M.P + r * d * d
        v = 0.0
        _metric_times(Pr, d, idx, vals, nnz, M.u)
        for p in range(nnz):
            v += <double>vals[p] * M.u[idx[p]]
        if not v > 0.0:
            continue
        s = _step(M.params, M.state, m, r, margin, v, trial)
        if s.p_scale == INFEASIBLE:
            failed[0] = True
            return changed
        for i in range(d):  # the direction P x is dense: the whole column moves
            M.W[i * m + r] += s.w_coef * z * M.u[i]
        if s.p_scale == RESET_REQUESTED:
            _reset(Pr, d, M.params.p1_scale)
        elif s.p_rank_one != 0.0 or s.p_scale != 1.0:
            _rank_one(Pr, M.u, d, s.p_scale, s.p_rank_one)
            _keep_finite(Pr, d, M.params)
        M.state[UPDATES_MADE * m + r] += 1.0
        changed = True
    return changed


cdef inline bint _diagonal_step(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                                Py_ssize_t y, Model *M, int64_t trial,
                                bint *failed) noexcept nogil:
    """``P`` holds the diagonals (m, d) up to the lazy factors ``state[DIAGONAL_SCALE, r]``."""
    cdef Py_ssize_t m = M.m, d = M.d, r, p, j
    cdef bint changed = False
    cdef double z, margin, v, x, sigma, new_sigma
    cdef double *Pr
    cdef double *u = M.u
    cdef EllipsoidStep s
    failed[0] = False
    for r in range(m):
        z = binary_label(m, y, r)
        margin = z * M.scores[r]
        if margin > 0.0:
            continue
        Pr = M.P + r * d
        sigma = M.state[DIAGONAL_SCALE * m + r]
        v = 0.0
        for p in range(nnz):
            x = <double>vals[p]
            u[p] = sigma * Pr[idx[p]] * x
            v += u[p] * x
        if not v > 0.0:
            continue
        s = _step(M.params, M.state, m, r, margin, v, trial)
        if s.p_scale == INFEASIBLE:
            failed[0] = True
            return changed
        # u[p] is the direction on x's coordinate idx[p]
        add_row(idx, <const double *>u, nnz, M.W + r, m, s.w_coef * z)
        if s.p_scale == RESET_REQUESTED:
            for j in range(d):
                Pr[j] = 1.0
            M.state[DIAGONAL_SCALE * m + r] = M.params.p1_scale
        elif s.p_rank_one != 0.0 or s.p_scale != 1.0:
            # diag(P') = p_scale·diag(P) + p_rank_one·u²: the scale goes into sigma, the
            # rank-one part touches the non-zeros only (its own loop, not add_row: the
            # increment is p_rank_one·u²/σ in this order, floored to keep P positive)
            new_sigma = s.p_scale * sigma
            for p in range(nnz):
                j = idx[p]
                Pr[j] = max(Pr[j] + s.p_rank_one * u[p] * u[p] / new_sigma, MIN_WEIGHT)
            M.state[DIAGONAL_SCALE * m + r] = new_sigma
            if not (SCALE_LOW < new_sigma < SCALE_HIGH):
                if not _scale_free(M.params):  # CELLIP, raw IELLIP: fold it into the diagonal
                    fold_positive(Pr, d, 1, new_sigma)
                # IELLIP by (15) does not depend on the scale of P ((10) and (15)): drop it
                M.state[DIAGONAL_SCALE * m + r] = 1.0
        M.state[UPDATES_MADE * m + r] += 1.0
        changed = True
    return changed


cdef inline bint _stacked_step(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                               Py_ssize_t y, Model *M, int64_t trial,
                               bint *failed) noexcept nogil:
    """The paper's multiclass form: coordinate k·d + j of the stacked vector is W[j, k]."""
    cdef Py_ssize_t m = M.m, d = M.d, n = M.m * M.d, rival = -1, r, i, p, j, k, plus, minus
    cdef double margin, total, v
    cdef const double *row
    cdef double *u = M.u
    cdef EllipsoidStep s
    failed[0] = False
    for r in range(m):
        if r != y and (rival < 0 or M.scores[r] > M.scores[rival]):
            rival = r
    margin = M.scores[y] - M.scores[rival]  # ρ(W; x, {y}) = v·z
    if margin > 0.0:
        return False
    plus = y * d
    minus = rival * d
    i = 0
    while i + GATHERED_ROWS <= n:  # u = P z, eight rows at a time (the same bits)
        _gathered_block(M.P + i * n + plus, n, idx, vals, nnz, u + i, True, minus - plus)
        i += GATHERED_ROWS
    while i < n:
        row = M.P + i * n
        total = 0.0
        for p in range(nnz):
            j = idx[p]
            total += (row[plus + j] - row[minus + j]) * <double>vals[p]
        u[i] = total
        i += 1
    v = 0.0
    for p in range(nnz):
        j = idx[p]
        v += <double>vals[p] * (u[plus + j] - u[minus + j])
    if not v > 0.0:
        return False
    s = _step(M.params, M.state, m, 0, margin, v, trial)
    if s.p_scale == INFEASIBLE:
        failed[0] = True
        return False
    for k in range(m):
        for j in range(d):
            M.W[j * m + k] += s.w_coef * u[k * d + j]
    if s.p_scale == RESET_REQUESTED:
        _reset(M.P, n, M.params.p1_scale)
    elif s.p_rank_one != 0.0 or s.p_scale != 1.0:
        _rank_one(M.P, u, n, s.p_scale, s.p_rank_one)
        _keep_finite(M.P, n, M.params)
    M.state[UPDATES_MADE * m + 0] += 1.0
    return True


cdef inline bint _infeasible(int layout, const index_t *idx, const real_x *vals,
                             Py_ssize_t nnz, Py_ssize_t y, Model *M,
                             int64_t trial) noexcept nogil:
    """Whether some output's cut misses its ellipsoid (CELLIP, ``on_infeasible="raise"``), for
    the per-output layouts, before any output steps: ``v = xᵀP_r x`` and the margin are
    computed as :func:`_full_step` / :func:`_diagonal_step` compute them (same operations in the
    same order, so the same bits), and P_r depends on output r's steps only."""
    cdef Py_ssize_t m = M.m, d = M.d, r, p
    cdef double z, margin, v, x, sigma
    cdef double *u = M.u
    for r in range(m):
        z = binary_label(m, y, r)
        margin = z * M.scores[r]
        if margin > 0.0:
            continue
        v = 0.0
        if layout == FULL:
            _metric_times(M.P + r * d * d, d, idx, vals, nnz, u)  # (all of P_r x: as the step)
            for p in range(nnz):
                v += <double>vals[p] * u[idx[p]]
        else:
            sigma = M.state[DIAGONAL_SCALE * m + r]
            for p in range(nnz):
                x = <double>vals[p]
                u[p] = sigma * M.P[r * d + idx[p]] * x
                v += u[p] * x
        if not v > 0.0:
            continue
        if _step(M.params, M.state, m, r, margin, v, trial).p_scale == INFEASIBLE:
            return True
    return False


cdef inline Py_ssize_t _round(int layout, const index_t *idx, const real_x *vals,
                              Py_ssize_t nnz, Py_ssize_t y, Model *M, int64_t trial,
                              bint *changed, bint *failed,
                              const real_x *dense_row) noexcept nogil:
    """Score, predict, then the layout's step; returns the index predicted (``changed``: the
    model changed; ``failed``: the round could not be taken, and changed nothing).
    ``dense_row`` (or NULL): the whole dense row whose non-zeros are ``(idx, vals)``, checked
    from the ``‖x‖²`` the scores sum (:mod:`.rows`); a row refused changes nothing and returns
    −1."""
    cdef Layout L
    cdef double q
    cdef Py_ssize_t predicted
    L.n = M.d
    L.m = M.m
    L.sj = M.m
    L.sr = 1
    q = score_sparse(idx, vals, nnz, M.W, L, M.state, M.scores)
    changed[0] = False
    failed[0] = False
    if dense_row != NULL and not row_accepted(dense_row, M.d, q, M.W):
        return -1
    predicted = predict_index(M.scores, M.m, M.state, False)
    if q == 0.0:
        return predicted
    if (layout != STACKED and <int>M.params.kind == CELLIP and <int>M.params.mode == RAISE
            and _infeasible(layout, idx, vals, nnz, y, M, trial)):
        failed[0] = True
        return predicted
    if layout == FULL:
        changed[0] = _full_step(idx, vals, nnz, y, M, trial, failed)
    elif layout == DIAGONAL:
        changed[0] = _diagonal_step(idx, vals, nnz, y, M, trial, failed)
    else:
        changed[0] = _stacked_step(idx, vals, nnz, y, M, trial, failed)
    return predicted


cdef inline int64_t _next_trial(const int64_t *counts) noexcept nogil:
    """The round about to be played, 1-based: ``counts[SEEN] + 1`` (wrapping as numba's int64
    did, rather than overflowing)."""
    return <int64_t>(<uint64_t>counts[0] + 1)


# --------------------------------------------------------------------------- entry points
cdef int _fill_model(Model *M, int layout, double[:, ::1] W, double[:, ::1] P,
                     double[:, ::1] state, const double[::1] params,
                     int64_t[::1] counts) except -1:
    """Check that the model's arrays fit each other and the layout (no index is checked in the
    loops), and point ``M`` at them."""
    cdef Py_ssize_t d = W.shape[0], m = W.shape[1]
    if layout not in (FULL, DIAGONAL, STACKED):
        raise ValueError(f"unknown metric layout {layout}")
    if m < 1 or (layout == STACKED and m < 2):
        raise ValueError(f"weights of {m} outputs for the layout {layout}")
    shape = {FULL: (m * d, d), DIAGONAL: (m, d), STACKED: (m * d, m * d)}[layout]
    if (P.shape[0], P.shape[1]) != shape:
        raise ValueError(f"a metric of shape {(P.shape[0], P.shape[1])} where the layout "
                         f"{layout} needs {shape}")
    if state.shape[1] != m or state.shape[0] < N_STATE_ROWS:
        raise ValueError(f"the state must have {N_STATE_ROWS} rows and a column per output")
    if params.shape[0] < N_ELLIPSOID_PARAMS or counts.shape[0] < 3:
        raise ValueError(f"{N_ELLIPSOID_PARAMS} parameters and three counts are needed")
    M.d = d
    M.m = m
    M.W = &W[0, 0] if d > 0 else NULL
    M.P = &P[0, 0] if P.shape[0] > 0 and P.shape[1] > 0 else NULL
    M.state = &state[0, 0]
    M.params = <const EllipsoidParams *>&params[0]
    return 0


cdef int _check_label(Py_ssize_t y, Py_ssize_t m) except -1:
    if not 0 <= y < max(m, 2):
        raise ValueError(f"label index {y} of a model of {m} outputs")
    return 0


cdef int _check_pass(const int64_t[::1] y, const int64_t[::1] order, Py_ssize_t n_rows,
                     int64_t[::1] predictions, Py_ssize_t m) except -1:
    cdef Py_ssize_t t
    if y.shape[0] != n_rows:
        raise ValueError(f"{y.shape[0]} labels for {n_rows} rows")
    if predictions.shape[0] not in (0, order.shape[0]):
        raise ValueError(f"predictions must have 0 or {order.shape[0]} entries")
    for t in range(order.shape[0]):
        if not 0 <= order[t] < n_rows:
            raise IndexError(f"row {order[t]} of a pass over {n_rows} rows")
    for t in range(y.shape[0]):
        _check_label(y[t], m)
    return 0


def _scratch(int layout, Py_ssize_t d, Py_ssize_t m, Py_ssize_t max_nnz):
    """``(scores, u)``: a round's scores and its direction ``u`` (every layout's, and at least
    one entry per non-zero of the longest row: the diagonal layout's)."""
    return (np.empty(max(m, 1)),
            np.empty(max(d * (m if layout == STACKED else 1), max_nnz, 1)))


def run_dense(int layout, const real_x[:, ::1] X, const int64_t[::1] y,
              const int64_t[::1] order, double[:, ::1] W, double[:, ::1] P,
              double[:, ::1] state, const double[::1] params, int64_t[::1] counts,
              int64_t[::1] predictions):
    """Online pass over the rows ``X[order]`` (dense, C-contiguous); −1, or the position t in
    ``order`` of the round that could not be taken, or — the diagonal layout, which checks each
    row from the ``‖x‖²`` its scores sum (:mod:`.rows`) — ``−2 − t`` for the position t of the
    first row refused (not finite, or a norm out of range).  Either round changed nothing, the
    rounds before it stay: a caller whose rows are not checked passes copies of the arrays.
    The diagonal layout's rounds run on each row's non-zeros, gathered first (its sweeps skip
    zeros: the same results, without a branch per value)."""
    cdef Model M
    cdef Py_ssize_t d = X.shape[1], t, i, predicted, failed_at = -1, nnz
    cdef bint changed, failed
    cdef double[::1] scores_v, u_v
    cdef const int64_t[::1] index_v
    cdef int64_t[::1] nz_idx = np.empty(d + 8, dtype=np.int64)  # (_store.nonzeros)
    cdef real_x[::1] nz_vals = np.empty(d + 8,
                                        dtype=np.float32 if real_x is float else np.float64)
    cdef const real_x *row
    _fill_model(&M, layout, W, P, state, params, counts)
    if d != M.d:
        raise ValueError(f"rows of {d} features for a model of {M.d}")
    _check_pass(y, order, X.shape[0], predictions, M.m)
    scores_v, u_v = _scratch(layout, M.d, M.m, d)
    index_v = np.arange(d, dtype=np.int64)
    M.scores = &scores_v[0]
    M.u = &u_v[0]
    cdef const int64_t *index = &index_v[0] if d > 0 else NULL
    cdef int64_t *pred_p = &predictions[0] if predictions.shape[0] > 0 else NULL
    with nogil:
        for t in range(order.shape[0]):
            i = order[t]
            row = &X[i, 0] if d > 0 else NULL
            if t + 1 < order.shape[0] and d > 0:  # (the next row read during this round)
                prefetch(&X[order[t + 1], 0], d * sizeof(real_x))
            if layout == DIAGONAL:
                nnz = nonzeros(row, d, &nz_idx[0], &nz_vals[0])
                predicted = _round(layout, &nz_idx[0], &nz_vals[0], nnz, y[i], &M,
                                   _next_trial(&counts[0]), &changed, &failed, row)
                if predicted < 0:
                    failed_at = -2 - t
                    break
            else:
                predicted = _round(layout, index, row, d, y[i], &M, _next_trial(&counts[0]),
                                   &changed, &failed, <const real_x *>NULL)
            if failed:
                failed_at = t
                break
            count_round(&counts[0], pred_p, t, predicted, y[i], changed)
    return failed_at


def run_sparse(int layout, const real_x[::1] data, const index_t[::1] indices,
               const index_t[::1] indptr, const int64_t[::1] y, const int64_t[::1] order,
               double[:, ::1] W, double[:, ::1] P, double[:, ::1] state,
               const double[::1] params, int64_t[::1] counts, int64_t[::1] predictions):
    """:func:`run_dense` on the CSR rows ``order`` of ``(data, indices, indptr)``."""
    cdef Model M
    cdef Py_ssize_t t, i, start, stop, predicted, failed_at = -1, max_nnz
    cdef bint changed, failed
    cdef double[::1] scores_v, u_v
    _fill_model(&M, layout, W, P, state, params, counts)
    max_nnz = _check_csr(data, indices, indptr, M.d)
    _check_pass(y, order, indptr.shape[0] - 1, predictions, M.m)
    scores_v, u_v = _scratch(layout, M.d, M.m, max_nnz)
    M.scores = &scores_v[0]
    M.u = &u_v[0]
    cdef int64_t *pred_p = &predictions[0] if predictions.shape[0] > 0 else NULL
    with nogil:
        for t in range(order.shape[0]):
            i = order[t]
            start = indptr[i]
            stop = indptr[i + 1]
            predicted = _round(layout, &indices[start] if stop > start else NULL,
                               &data[start] if stop > start else NULL, stop - start, y[i], &M,
                               _next_trial(&counts[0]), &changed, &failed,
                               <const real_x *>NULL)
            if failed:
                failed_at = t
                break
            count_round(&counts[0], pred_p, t, predicted, y[i], changed)
    return failed_at


cdef Py_ssize_t _check_csr(const real_x[::1] data, const index_t[::1] indices,
                           const index_t[::1] indptr, Py_ssize_t n_features) except -1:
    """Raise unless the CSR arrays are well formed within the model's width; returns the
    largest number of values in a row."""
    cdef Py_ssize_t i, p, longest = 0
    if indptr.shape[0] < 1 or indptr[0] != 0 or indptr[indptr.shape[0] - 1] > data.shape[0] \
            or data.shape[0] != indices.shape[0]:
        raise ValueError("malformed CSR arrays")
    for i in range(indptr.shape[0] - 1):
        if indptr[i + 1] < indptr[i]:
            raise ValueError("malformed CSR row pointers")
        longest = max(longest, indptr[i + 1] - indptr[i])
    for p in range(indptr[indptr.shape[0] - 1]):
        if not 0 <= indices[p] < n_features:
            raise ValueError(f"column index {indices[p]} outside a model of {n_features} "
                             "features")
    return longest


def learn_one(int layout, const index_t[::1] idx, const real_x[::1] vals, Py_ssize_t y,
              double[:, ::1] W, double[:, ::1] P, double[:, ::1] state,
              const double[::1] params, int64_t[::1] counts):
    """The streaming step on one row (column indices ``idx``, values ``vals``): the prediction
    made before the update, or −1 when the cut misses the ellipsoid (CELLIP with
    ``on_infeasible="raise"``; the round is then not taken: nothing changed)."""
    cdef Model M
    cdef Py_ssize_t nnz = idx.shape[0], p, predicted
    cdef bint changed, failed
    cdef double[::1] scores_v, u_v
    _fill_model(&M, layout, W, P, state, params, counts)
    if vals.shape[0] != nnz:
        raise ValueError("a row's values and indices differ in length")
    for p in range(nnz):
        if not 0 <= idx[p] < M.d:
            raise ValueError(f"column index {idx[p]} outside a model of {M.d} features")
    _check_label(y, M.m)
    scores_v, u_v = _scratch(layout, M.d, M.m, nnz)
    M.scores = &scores_v[0]
    M.u = &u_v[0]
    predicted = _round(layout, &idx[0] if nnz > 0 else NULL, &vals[0] if nnz > 0 else NULL,
                       nnz, y, &M, _next_trial(&counts[0]), &changed, &failed,
                       <const real_x *>NULL)
    if failed:
        return -1
    count_round(&counts[0], NULL, 0, predicted, y, changed)
    return predicted


cdef struct _RoundModel:
    Model M
    int layout
    const int64_t *counts


cdef Py_ssize_t _play(void *model, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                      Py_ssize_t y, bint *updated) noexcept nogil:
    """:func:`learn_one`'s round as :class:`~onlinear._core.row_pass.RowRound` plays it (−1:
    the cut misses the ellipsoid and raising is asked for; nothing changed)."""
    cdef _RoundModel *R = <_RoundModel *>model
    cdef bint failed = False
    cdef Py_ssize_t predicted = _round(R.layout, idx, vals, nnz, y, &R.M,
                                       _next_trial(R.counts), updated, &failed,
                                       <const double *>NULL)
    return -1 if failed else predicted


cdef class EllipsoidRound(RowRound):
    """``learn_one``'s round of an ellipsoid method in one compiled call (:class:`RowRound`):
    the arrays of :func:`learn_one`, checked once; ``exponent``: the accepted row norms."""

    cdef _RoundModel R
    cdef object scratch

    def __init__(self, int layout, double[:, ::1] W, double[:, ::1] P, double[:, ::1] state,
                 const double[::1] params, int64_t[::1] counts, int exponent=505):
        cdef double[::1] scores_v, u_v
        _fill_model(&self.R.M, layout, W, P, state, params, counts)
        self.R.layout = layout
        self.R.counts = &counts[0]
        self.scratch = _scratch(layout, self.R.M.d, self.R.M.m, self.R.M.d)
        scores_v, u_v = self.scratch
        self.R.M.scores = &scores_v[0]
        self.R.M.u = &u_v[0]
        self.play = _play
        self.model = &self.R
        self.start(self.R.M.d, self.R.M.m, exponent, counts,
                   (W.base, P.base, state.base, params.base, counts.base))
        if layout != DIAGONAL:  # (as run_dense plays a dense row: the same sums as fit's)
            self.play_dense_rows_whole()
