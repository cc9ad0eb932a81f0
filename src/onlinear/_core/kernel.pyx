# cython: language_level=3
"""The compiled online loop of the dual (support-pattern) learners: the kernel form of every rule
whose update is additive in x (Crammer & Singer, end of §5.3, Eq. 21).

Learning leaves ``w_r = Σ_i α_{i,r} φ(x_i)``, so the score of a new example is
``s_r = Σ_i α_{i,r} K(x_i, x)`` and ``q = ‖φ(x)‖² = K(x, x)``.  A round computes these, calls the
same rule steps as the primal engine (:mod:`onlinear.rules.dispatch`) — a rule never knows
whether it runs primal or dual — and, when some ``τ_r ≠ 0``, stores x as a support pattern with
coefficients ``τ`` (or adds ``τ`` to its coefficients if x is already one: a training row seen
again in a later epoch of ``fit`` is merged — our choice, the paper does not say how repeated
examples are stored).

Model layout (arrays owned by the estimator, grown here by amortised doubling):

* ``support`` (n_features, capacity) float64 — the support patterns as dense columns,
  feature-major like the primal ``W`` (see :func:`kernel_row` and
  :mod:`onlinear.estimators.kernel` for why), ``support_sq`` their cached ``‖x_i‖²``;
* ``coef`` (capacity, n_outputs) — raw coefficients: ``α_{i,r} = state[SCALE, r]·coef[i, r]``,
  a store of :mod:`.weights` with the same lazy per-output scale as the primal engine, so the
  rescaling rules (MC-ROMMA's ``factor``) cost O(1) per output and not O(support);
* ``state`` — the primal layout (:mod:`onlinear.rules.layout`).  ``RAW_SQNORM`` (read by
  MC-ROMMA; kept only for the rules that read it) is kept by the running sum
  ``‖w + σφ(x)‖² = ‖w‖² + 2σ(w·φ(x)) + σ²K(x, x)`` in raw units, recomputed exactly from the
  support set (O(S²) kernel evaluations) when it falls below half of its largest value since
  the last exact value — the primal engine's guard against cancellation (skipped for a Python
  callable kernel, whose sum is only clipped at 0);
* averaging: the store's averaging sums (:mod:`.weights`, "averaging") over the coefficients:
  ``avg_scale_sum[r] = Σ_t state[SCALE, r]`` after each round t and ``acc[i, r] =
  Σ Δcoef[i, r]·avg_scale_sum[r]`` taken when the change Δ was made, so that the averaged
  hypothesis is ``(coef·avg_scale_sum − acc)/T`` (always kept: ``average`` only chooses the
  hypothesis that predicts).

``counts`` and ``predictions`` as in :mod:`.counters`.  A round is an update when the model
changed; the support patterns are counted both as distinct examples (``n_support``) and as
cumulative updates (``counts[UPDATES]``).

Compiled ahead of time (Cython): a first call compiles nothing.
"""
import numpy as np

from libc.math cimport exp, pow
from libc.stdint cimport int32_t, int64_t

cimport numpy as cnp

from ..rules._step cimport step_function
from ..rules.dispatch cimport compute_steps_c, step_of
from ._counting cimport count_round
from ._one_row cimport csr_row, dense_row
from ._store cimport (RAW_SQNORM, SCALE, SIZE_ANCHOR, Layout, average_close_round,
                      average_rebase, index_t, keep_running, must_reanchor, must_rebase,
                      predict_index, real_x, scale_ok)

from ..kernels import CALLABLE as _CALLABLE_PY, LINEAR as _LINEAR_PY, POLY as _POLY_PY
from ..kernels import RBF as _RBF_PY
from ..rules.dispatch import NORM_READING_RULES

cnp.import_array()  # (the one-row checks read numpy's C API)

cdef enum:
    LINEAR = 0
    POLY = 1
    RBF = 2
    CALLABLE = 3
    GAMMA = 0
    COEF0 = 1
    DEGREE = 2
# (the kinds are onlinear.kernels's: checked once, here)
assert (_LINEAR_PY, _POLY_PY, _RBF_PY, _CALLABLE_PY) == (LINEAR, POLY, RBF, CALLABLE)

cdef enum:
    WEIGHT_C = 2
    WEIGHT_STEP = 1


# ------------------------------------------------------------------------------- the kernels
cdef inline double from_dot(double dot, double sq_a, double sq_b, int kind,
                            const double *params) noexcept nogil:
    """K from the inner product (and, for the Gaussian, the two squared norms)."""
    cdef double distance
    if kind == LINEAR:
        return dot
    if kind == POLY:
        return pow(params[GAMMA] * dot + params[COEF0], params[DEGREE])
    distance = max(sq_a + sq_b - 2.0 * dot, 0.0)
    return exp(-params[GAMMA] * distance)


cdef inline double self_square(const double *x, Py_ssize_t n) noexcept nogil:
    cdef double sq = 0.0
    cdef Py_ssize_t j
    for j in range(n):
        sq += x[j] * x[j]
    return sq


cdef void kernel_row_c(const double *support, Py_ssize_t n_features, Py_ssize_t capacity,
                       const double *support_sq, Py_ssize_t n_support, const double *x,
                       double x_sq, int kind, const double *params, double *out) noexcept nogil:
    """``out[i] = K(x_i, x)`` for the first ``n_support`` support patterns, stored
    feature-major (``support[j, i]`` is feature j of ``x_i``, as the primal engine stores
    ``W``): the inner products are one contiguous sweep ``out += x_j·support[j, :]`` per
    non-zero ``x_j``, so a sparse x (MNIST's pixels: ~19% non-zero) reads only the rows it
    needs."""
    cdef Py_ssize_t i, j
    cdef double v
    cdef const double *row
    if n_support == 0:
        return
    for i in range(n_support):
        out[i] = 0.0
    for j in range(n_features):
        v = x[j]
        if v != 0.0:
            row = support + j * capacity
            for i in range(n_support):
                out[i] += v * row[i]
    if kind == LINEAR:
        return
    for i in range(n_support):
        out[i] = from_dot(out[i], support_sq[i], x_sq, kind, params)


def kernel_self(const double[::1] x, int kind, const double[::1] params):
    """``(K(x, x), ‖x‖²)`` of one dense row."""
    _check_params(kind, params)
    cdef double sq = self_square(&x[0], x.shape[0]) if x.shape[0] else 0.0
    return from_dot(sq, sq, sq, kind, &params[0]), sq


def kernel_row(const double[:, ::1] support, const double[::1] support_sq, Py_ssize_t n_support,
               const double[::1] x, double x_sq, int kind, const double[::1] params,
               double[::1] out):
    """``out[i] = K(x_i, x)`` for the first ``n_support`` support patterns (the columns of
    ``support``; see :func:`kernel_row_c`)."""
    _check_params(kind, params)
    if not (0 <= n_support <= support.shape[1] and support_sq.shape[0] >= n_support
            and out.shape[0] >= n_support and x.shape[0] == support.shape[0]):
        raise ValueError("kernel_row: the support set, its norms, x and out do not fit")
    if n_support == 0:
        return
    kernel_row_c(&support[0, 0], support.shape[0], support.shape[1], &support_sq[0], n_support,
                 &x[0], x_sq, kind, &params[0], &out[0])


cdef int _check_params(int kind, const double[::1] params) except -1:
    if not 0 <= kind <= RBF or params.shape[0] < 3:
        raise ValueError(f"kernel kind {kind} with {params.shape[0]} parameters")
    return 0


# ----------------------------------------------------------------------------- the model
cdef struct Dual:
    double *support       # (n_features, capacity), row stride capacity
    double *support_sq
    double *coef          # (capacity, m)
    double *acc           # (capacity, m)
    Py_ssize_t n_features
    Py_ssize_t capacity
    Py_ssize_t m
    Py_ssize_t n_support
    step_function step
    double *params
    double *state
    double *avg
    int kind
    double *kparams
    int64_t *counts
    int weight_mode
    bint track_norms
    # the round's scratch: scores, steps, factors, raw scores; the rules' int64 scratch
    double *scores
    double *tau
    double *factor
    double *raw
    int64_t *order


cdef double exact_raw_sqnorm(Dual *d, Py_ssize_t r, double *row, double *x) noexcept nogil:
    """``‖Σ_i coef[i, r] φ(x_i)‖²`` from the support set (O(S²) kernel evaluations)."""
    cdef double total = 0.0, inner
    cdef Py_ssize_t i, j, f, m = d.m
    for i in range(d.n_support):
        if d.coef[i * m + r] == 0.0:
            continue
        for f in range(d.n_features):
            x[f] = d.support[f * d.capacity + i]
        kernel_row_c(d.support, d.n_features, d.capacity, d.support_sq, d.n_support, x,
                     d.support_sq[i], d.kind, d.kparams, row)
        inner = 0.0
        for j in range(d.n_support):
            inner += d.coef[j * m + r] * row[j]
        total += d.coef[i * m + r] * inner
    return max(total, 0.0)


cdef inline Layout coef_layout(Dual *d) noexcept nogil:
    cdef Layout L
    L.n = d.n_support
    L.m = d.m
    L.sj = d.m
    L.sr = 1
    return L


cdef void fold_output(Dual *d, Py_ssize_t r) noexcept nogil:
    """Multiply the scale of output r into its coefficients (scale 1 again), the averaging sums
    rebased first.  The sizes are rescaled, not recomputed as the primal fold does: exactly,
    they cost O(S²) kernel evaluations."""
    cdef Py_ssize_t m = d.m, i
    cdef double scale = d.state[SCALE * m + r]
    average_rebase(d.coef, coef_layout(d), d.acc, r, d.avg)
    for i in range(d.n_support):
        d.coef[i * m + r] *= scale
    d.state[RAW_SQNORM * m + r] *= scale * scale
    d.state[SIZE_ANCHOR * m + r] *= scale * scale
    d.state[SCALE * m + r] = 1.0


cdef bint apply(Dual *d, Py_ssize_t slot, double q, double *row, double *x) noexcept nogil:
    """``w_r ← factor_r·w_r + tau_r·φ(x)`` in the dual, x stored at ``slot``; returns whether
    the model changed.  ``row``, ``x``: scratch for an exact recomputation of a norm."""
    cdef bint changed = False
    cdef Py_ssize_t m = d.m, r, i
    cdef double c, t, raw_score, scale, step, after
    for r in range(m):
        c = d.factor[r]
        t = d.tau[r]
        if c == 1.0 and t == 0.0:
            continue
        changed = True
        raw_score = d.raw[r]  # Σ_i coef[i, r] K(x_i, x) before this round's step
        if c == 0.0:  # not the store's clear_column: only the first n_support slots
            average_rebase(d.coef, coef_layout(d), d.acc, r, d.avg)
            for i in range(d.n_support):
                d.coef[i * m + r] = 0.0
            d.state[SCALE * m + r] = 1.0
            d.state[RAW_SQNORM * m + r] = 0.0
            d.state[SIZE_ANCHOR * m + r] = 0.0
            raw_score = 0.0
        elif c != 1.0:
            d.state[SCALE * m + r] *= c
            if not scale_ok(d.state[SCALE * m + r]):
                scale = d.state[SCALE * m + r]
                fold_output(d, r)
                raw_score *= scale
        if t == 0.0:
            continue
        step = t / d.state[SCALE * m + r]
        if must_rebase(d.state, m, r, d.avg):  # before coef changes: it moves coef·avg
            average_rebase(d.coef, coef_layout(d), d.acc, r, d.avg)
        d.coef[slot * m + r] += step
        d.acc[slot * m + r] += step * d.avg[r]
        if not d.track_norms:
            continue
        after = d.state[RAW_SQNORM * m + r] + step * (2.0 * raw_score + step * q)
        if d.kind != CALLABLE and must_reanchor(d.state, m, r, RAW_SQNORM, after):
            d.state[RAW_SQNORM * m + r] = exact_raw_sqnorm(d, r, row, x)
            d.state[SIZE_ANCHOR * m + r] = 0.0
        else:
            keep_running(d.state, m, r, RAW_SQNORM, max(after, 0.0))
    return changed


cdef Py_ssize_t step_c(Dual *d, const double *x, double x_sq, const double *krow, double q,
                       Py_ssize_t y, Py_ssize_t slot, int64_t *predictions, Py_ssize_t t,
                       double weight, Py_ssize_t *predicted, double *row,
                       double *xwork) noexcept nogil:
    """One online round given ``krow[i] = K(x_i, x)`` and ``q = K(x, x)``; the model must have
    room for one more support pattern.  ``slot`` is x's support index if it is one already
    (else −1).  ``weight``: the example's weight, entering the rule as ``weight_mode`` says
    (the primal engine's ``WEIGHT_C``, ``WEIGHT_STEP``); 0: predict only.  Returns the slot of
    x (or −1); the prediction before the update in ``predicted``."""
    cdef Py_ssize_t m = d.m, r, i, f
    cdef double k, cap = 0.0
    cdef bint changed = False, any_step, capped
    for r in range(m):
        d.raw[r] = 0.0
    for i in range(d.n_support):
        k = krow[i]
        if k != 0.0:
            for r in range(m):
                d.raw[r] += k * d.coef[i * m + r]
    for r in range(m):
        d.scores[r] = d.raw[r] * d.state[SCALE * m + r]
    predicted[0] = predict_index(d.scores, m, d.state, False)
    if q != 0.0 and weight != 0.0:
        capped = d.weight_mode == WEIGHT_C and weight != 1.0
        if capped:
            cap = d.params[0]
            d.params[0] = cap * weight
        compute_steps_c(d.step, d.scores, m, y, q, d.params, d.state, d.tau, d.factor,
                        d.order)
        if capped:
            d.params[0] = cap
        if d.weight_mode == WEIGHT_STEP and weight != 1.0:
            for r in range(m):
                d.tau[r] *= weight
        any_step = False
        for r in range(m):
            if d.tau[r] != 0.0:
                any_step = True
        if any_step and slot < 0:
            slot = d.n_support
            for f in range(d.n_features):
                d.support[f * d.capacity + slot] = x[f]
            d.support_sq[slot] = x_sq
            for r in range(m):
                d.coef[slot * m + r] = 0.0
                d.acc[slot * m + r] = 0.0
            d.n_support += 1
        changed = apply(d, slot, q, row, xwork)
    average_close_round(d.state, m, d.avg)
    count_round(d.counts, predictions, t, predicted[0], y, changed)
    return slot


# ------------------------------------------------------------------------- entry points
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


cdef class _Round:
    """A pass's (or one call's) view of the dual model: the arrays it writes, their pointers
    (renewed when the support set grows) and the round's scratch."""
    cdef Dual d
    cdef object support, support_sq, coef, acc, params, state, avg, kparams, counts
    cdef object scratch, order_scratch, krow, row, xwork
    # (the scratch's pointers, taken when it is made: numpy's ``ctypes.data`` costs about a
    # µs a read, more than a small round)
    cdef double *krow_p
    cdef double *row_p
    cdef double *xwork_p

    def __init__(self, support, support_sq, coef, acc, Py_ssize_t n_support, int rule,
                 params, state, avg, int kind, kparams, counts, int weight_mode):
        cdef Py_ssize_t m = coef.shape[1]
        self.d.step = step_of(rule)
        if self.d.step == NULL:
            raise ValueError(f"unknown rule id {rule}")
        _check_float64_c(params, 1, "params")
        _check_float64_c(state, 2, "state")
        _check_float64_c(avg, 1, "avg_scale_sum")
        _check_float64_c(kparams, 1, "kernel parameters")
        if not (isinstance(counts, np.ndarray) and counts.dtype == np.int64 and counts.ndim == 1
                and counts.shape[0] >= 3 and counts.flags.c_contiguous
                and counts.flags.writeable):
            raise ValueError("counts must be a writable int64 array of 3 entries")
        if state.shape[1] != m or state.shape[0] < 4 or avg.shape[0] != m or m < 1:
            raise ValueError("the state and the averaging scales must have a column per output")
        if kind != CALLABLE:
            _check_params(kind, kparams)
        self.params, self.state, self.avg, self.kparams, self.counts = (
            params, state, avg, kparams, counts)
        self.d.params = <double *>_pointer(params)
        self.d.state = <double *>_pointer(state)
        self.d.avg = <double *>_pointer(avg)
        self.d.kparams = <double *>_pointer(kparams)
        self.d.counts = <int64_t *>_pointer(counts)
        self.d.m = m
        self.d.kind = kind
        self.d.weight_mode = weight_mode
        self.d.track_norms = rule in NORM_READING_RULES
        self.scratch = np.empty((4, m))
        self.order_scratch = np.empty(m, np.int64)
        self.d.scores = <double *>_pointer(self.scratch)
        self.d.tau = self.d.scores + m
        self.d.factor = self.d.scores + 2 * m
        self.d.raw = self.d.scores + 3 * m
        self.d.order = <int64_t *>_pointer(self.order_scratch)
        self.xwork = np.zeros(max(support.shape[0], 1))
        self.xwork_p = <double *>_pointer(self.xwork)
        self.bind(support, support_sq, coef, acc, n_support)

    cdef bind(self, support, support_sq, coef, acc, Py_ssize_t n_support):
        m = self.d.m
        _check_float64_c(support, 2, "support")
        _check_float64_c(support_sq, 1, "support_sq")
        _check_float64_c(coef, 2, "coef")
        _check_float64_c(acc, 2, "acc")
        capacity = support.shape[1]
        if not (support_sq.shape[0] == capacity and coef.shape == (capacity, m)
                and acc.shape == (capacity, m) and 0 <= n_support <= capacity):
            raise ValueError("the support set, its norms, coefficients and averaging sums do "
                             "not fit each other")
        self.support, self.support_sq, self.coef, self.acc = support, support_sq, coef, acc
        self.d.support = <double *>_pointer(support)
        self.d.support_sq = <double *>_pointer(support_sq)
        self.d.coef = <double *>_pointer(coef)
        self.d.acc = <double *>_pointer(acc)
        self.d.n_features = support.shape[0]
        self.d.capacity = capacity
        self.d.n_support = n_support
        if self.krow is None or self.krow.shape[0] < max(capacity, 1):
            self.krow = np.empty(max(capacity, 1))
            self.row = np.empty(max(capacity, 1))
            self.krow_p = <double *>_pointer(self.krow)
            self.row_p = <double *>_pointer(self.row)

    cdef make_room(self):
        """Room for one more support pattern (the arrays reallocated by doubling)."""
        if self.d.n_support < self.d.capacity:
            return
        support, support_sq, coef, acc = grow(self.support, self.support_sq, self.coef,
                                              self.acc, self.d.n_support, self.d.n_support + 1)
        self.bind(support, support_sq, coef, acc, self.d.n_support)

    cdef Py_ssize_t one(self, const double *x, Py_ssize_t y, Py_ssize_t slot,
                        int64_t *predictions, Py_ssize_t t, double weight,
                        Py_ssize_t *predicted):
        """One round on the dense row x (of the model's width), its kernel values computed."""
        cdef double q, x_sq
        self.make_room()
        cdef double *krow = self.krow_p
        cdef double *row = self.row_p
        cdef double *xwork = self.xwork_p
        with nogil:
            x_sq = self_square(x, self.d.n_features)
            q = from_dot(x_sq, x_sq, x_sq, self.d.kind, self.d.kparams)
            kernel_row_c(self.d.support, self.d.n_features, self.d.capacity, self.d.support_sq,
                         self.d.n_support, x, x_sq, self.d.kind, self.d.kparams, krow)
            slot = step_c(&self.d, x, x_sq, krow, q, y, slot, predictions, t, weight,
                          predicted, row, xwork)
        return slot

    def model(self):
        return self.support, self.support_sq, self.coef, self.acc, self.d.n_support


cdef class DualRowRound(_Round):
    """``learn_one``'s round on a started kernel model in one compiled call (the dual model's
    :meth:`~onlinear.models.protocol.Model.row_round`): the model's arrays checked and their
    pointers taken once, so that a call checks only its row and label, as
    :class:`onlinear._core.row_pass.RowRound` does for the row engines.

    ``dense(x, y)`` takes a 1-D C-contiguous float64 row of the model's width, ``sparse(indptr,
    indices, data, y)`` a one-row canonical CSR matrix's arrays (int32 indices, float64 values,
    within the width; its values are scattered into a dense row, as the general path does);
    each plays :func:`learn_one`'s round with no example weight and returns the label index
    predicted before it, or −1 having changed nothing (a row of another kind or width, not
    finite or of a norm outside ``[2^-e, 2^e]``, a label outside the model).  When the support
    set grows, the new arrays are written into ``owner`` (the model's ``__dict__``), and
    ``owner["n_support"]`` after every round."""
    cdef object owner
    cdef int exponent
    cdef object scattered
    cdef double *scattered_p  # (its pointer: a typed memoryview of it costs a µs a call)

    def __init__(self, owner, Py_ssize_t n_support, int rule, params, int kind, kparams,
                 int weight_mode, int exponent):
        super().__init__(owner["support"], owner["support_sq"], owner["coef"], owner["acc"],
                         n_support, rule, params, owner["state"], owner["avg_scale_sum"], kind,
                         kparams, owner["counts"], weight_mode)
        self.owner, self.exponent = owner, exponent
        self.scattered = np.zeros(max(self.d.n_features, 1))
        self.scattered_p = <double *>_pointer(self.scattered)

    cdef Py_ssize_t _round(self, const double *x, Py_ssize_t y):
        cdef Py_ssize_t predicted
        before = self.support
        self.one(x, y, -1, NULL, 0, 1.0, &predicted)
        owner = self.owner
        if self.support is not before:  # (grown by doubling)
            owner["support"], owner["support_sq"] = self.support, self.support_sq
            owner["coef"], owner["acc"] = self.coef, self.acc
        owner["n_support"] = self.d.n_support
        return predicted

    def dense(self, x, Py_ssize_t y):
        cdef const double *row
        if not 0 <= y < max(self.d.m, 2):
            return -1
        row = dense_row(x, self.d.n_features, self.exponent)
        if row == NULL:
            return -1
        return self._round(row, y)

    def sparse(self, indptr, indices, data, Py_ssize_t y):
        cdef const int32_t *columns
        cdef const double *values
        cdef double *dense = self.scattered_p
        cdef Py_ssize_t n = csr_row(indptr, indices, data, self.d.n_features, self.exponent,
                                    &columns, &values), p, predicted
        if n < 0 or self.d.n_features == 0 or not 0 <= y < max(self.d.m, 2):
            return -1
        for p in range(n):
            dense[columns[p]] = values[p]
        predicted = self._round(dense, y)
        for p in range(n):
            dense[columns[p]] = 0.0
        return predicted


cdef int _check_float64_c(array, int ndim, str name) except -1:
    if not (isinstance(array, np.ndarray) and array.dtype == np.float64 and array.ndim == ndim
            and array.flags.c_contiguous and (array.flags.writeable or name == "kernel "
                                              "parameters")):
        raise ValueError(f"the dual model's {name} must be a C-contiguous float64 array of "
                         f"{ndim} dimension(s)")
    return 0


cdef void *_pointer(array):
    """The data pointer of a numpy array (checked by the caller)."""
    return <void *><size_t>array.ctypes.data


cdef int64_t *_predictions(predictions, Py_ssize_t size) except? NULL:
    if not (isinstance(predictions, np.ndarray) and predictions.dtype == np.int64
            and predictions.ndim == 1 and predictions.flags.c_contiguous
            and predictions.shape[0] in (0, size)):
        raise ValueError(f"predictions must be an int64 array of 0 or {size} entries")
    return NULL if predictions.shape[0] == 0 else <int64_t *>_pointer(predictions)


def step(const double[::1] x, double x_sq, const double[::1] krow, double q, Py_ssize_t y,
         Py_ssize_t slot, support, support_sq, coef, acc, Py_ssize_t n_support, int rule,
         params, state, avg_scale_sum, int kind, kparams, counts, predictions, Py_ssize_t t,
         double weight, int weight_mode):
    """One online round given ``krow[i] = K(x_i, x)`` and ``q = K(x, x)`` (the Python callable
    kernel's round: the values computed in Python); the model arrays must have room for one
    more support pattern.  ``slot`` is x's support index if it is one already (else −1).
    Returns ``(support patterns, slot of x or −1, prediction before the update)``."""
    cdef _Round round_ = _Round(support, support_sq, coef, acc, n_support, rule, params, state,
                                avg_scale_sum, kind, kparams, counts, weight_mode)
    cdef Py_ssize_t predicted
    if round_.d.n_support >= round_.d.capacity:
        raise ValueError("the model has no room for another support pattern (grow it first)")
    if x.shape[0] != round_.d.n_features or krow.shape[0] < round_.d.n_support:
        raise ValueError("x or its kernel values do not fit the model")
    if not (-1 <= slot < round_.d.n_support) or not 0 <= y < max(round_.d.m, 2):
        raise ValueError("slot or label out of range")
    if not (isinstance(predictions, np.ndarray) and predictions.dtype == np.int64
            and predictions.ndim == 1 and predictions.flags.c_contiguous
            and (predictions.shape[0] == 0 or 0 <= t < predictions.shape[0])):
        raise ValueError("predictions must be an int64 array (empty, or holding round t)")
    cdef int64_t *pred = NULL if predictions.shape[0] == 0 else <int64_t *>_pointer(predictions)
    slot = step_c(&round_.d, &x[0], x_sq, &krow[0] if krow.shape[0] else NULL, q, y, slot, pred,
                  t, weight, &predicted, round_.row_p, round_.xwork_p)
    return round_.d.n_support, slot, predicted


def _run(X, y, order, row_slot, support, support_sq, coef, acc, n_support, rule, params, state,
         avg_scale_sum, kind, kparams, counts, predictions, weights, weight_mode):
    """The pass of :func:`run_dense` and :func:`run_sparse` (``X`` dense, or CSR arrays)."""
    cdef _Round round_ = _Round(support, support_sq, coef, acc, n_support, rule, params, state,
                                avg_scale_sum, kind, kparams, counts, weight_mode)
    cdef const int64_t[::1] labels = np.ascontiguousarray(y, np.int64)
    cdef const int64_t[::1] rows = np.ascontiguousarray(order, np.int64)
    cdef int64_t[::1] slots = row_slot
    cdef const double[::1] sample = np.ascontiguousarray(weights, np.float64)
    cdef Py_ssize_t n_rows = labels.shape[0], t, i, slot, predicted, p
    cdef Py_ssize_t n_features = round_.d.n_features
    cdef int64_t *pred = _predictions(predictions, rows.shape[0])
    if slots.shape[0] not in (0, n_rows) or sample.shape[0] not in (0, n_rows):
        raise ValueError("row_slot and the weights must have 0 entries or one per row")
    for t in range(rows.shape[0]):
        if not 0 <= rows[t] < n_rows:
            raise IndexError(f"row {rows[t]} of a pass over {n_rows} rows")
    for t in range(n_rows):
        if not 0 <= labels[t] < max(round_.d.m, 2):
            raise ValueError(f"label index {labels[t]} of a model of {round_.d.m} outputs")
    for t in range(slots.shape[0]):
        if not -1 <= slots[t] < round_.d.capacity + n_rows:
            raise ValueError("a row's support slot is out of range")
    # each row is scattered into a dense work row (the kernels and the support set are dense)
    cdef double[::1] work = np.zeros(n_features)
    cdef const double[:, ::1] dense_rows
    cdef const double[::1] values
    cdef const int64_t[::1] columns, pointers
    cdef const double *x
    dense, data, indices, indptr = X
    if dense is not None:
        dense_rows = dense
    else:
        values = data
        columns = np.ascontiguousarray(indices, np.int64)
        pointers = np.ascontiguousarray(indptr, np.int64)
        if pointers.shape[0] != n_rows + 1 or pointers[0] != 0 \
                or pointers[n_rows] > columns.shape[0] or values.shape[0] != columns.shape[0]:
            raise ValueError("malformed CSR arrays")
        for t in range(n_rows):
            if pointers[t + 1] < pointers[t]:
                raise ValueError("malformed CSR row pointers")
    for t in range(rows.shape[0]):
        i = rows[t]
        if dense is not None:
            x = &dense_rows[i, 0] if n_features else NULL
        else:
            for p in range(pointers[i], pointers[i + 1]):
                work[columns[p]] = values[p]
            x = &work[0] if n_features else NULL
        slot = slots[i] if slots.shape[0] else -1
        slot = round_.one(x, labels[i], slot, pred, t, sample[i] if sample.shape[0] else 1.0,
                          &predicted)
        if slots.shape[0]:
            slots[i] = slot
        if dense is None:
            for p in range(pointers[i], pointers[i + 1]):
                work[columns[p]] = 0.0
    return round_.model()


def run_dense(X, y, order, row_slot, support, support_sq, coef, acc, n_support, rule, params,
              state, avg_scale_sum, kind, kparams, counts, predictions, weights, weight_mode):
    """Online pass over the rows ``X[order]`` (dense, C-contiguous); ``row_slot[i]`` (if not
    empty) is the support index of training row i or −1.  Returns the (possibly reallocated)
    model arrays and the number of support patterns."""
    X = np.ascontiguousarray(X, np.float64)
    if X.ndim != 2 or X.shape[1] != support.shape[0]:
        raise ValueError("rows of another width than the support set's")
    return _run((X, None, None, None), y, order, row_slot, support, support_sq, coef, acc,
                n_support, rule, params, state, avg_scale_sum, kind, kparams, counts,
                predictions, weights, weight_mode)


def run_sparse(data, indices, indptr, n_features, y, order, row_slot, support, support_sq, coef,
               acc, n_support, rule, params, state, avg_scale_sum, kind, kparams, counts,
               predictions, weights, weight_mode):
    """As :func:`run_dense` on CSR rows."""
    if n_features != support.shape[0] or (len(indices) and (np.min(indices) < 0 or
                                                            np.max(indices) >= n_features)):
        raise ValueError("CSR rows of another width than the support set's")
    return _run((None, np.asarray(data, np.float64), indices, indptr), y, order, row_slot,
                support, support_sq, coef, acc, n_support, rule, params, state, avg_scale_sum,
                kind, kparams, counts, predictions, weights, weight_mode)


def learn_one(x, y, support, support_sq, coef, acc, n_support, rule, params, state,
              avg_scale_sum, kind, kparams, counts, weight, weight_mode):
    """The streaming step on one dense row ``x`` (a new example: never merged with a stored
    pattern).  Returns the (possibly reallocated) model arrays, the number of support patterns
    and the prediction made before the update."""
    cdef _Round round_ = _Round(support, support_sq, coef, acc, n_support, rule, params, state,
                                avg_scale_sum, kind, kparams, counts, weight_mode)
    cdef const double[::1] row = np.ascontiguousarray(x, np.float64)
    cdef Py_ssize_t predicted
    if row.shape[0] != round_.d.n_features:
        raise ValueError("a row of another width than the support set's")
    if not 0 <= y < max(round_.d.m, 2):
        raise ValueError(f"label index {y} of a model of {round_.d.m} outputs")
    round_.one(&row[0] if row.shape[0] else NULL, y, -1, NULL, 0, weight, &predicted)
    return (*round_.model(), predicted)
