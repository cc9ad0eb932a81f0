# cython: language_level=3
"""The compiled online loop shared by every linear learner: score, predict, step, apply.

Model layout.  ``W`` has shape ``(n_features, n_outputs)`` — *feature-major* (C order), so the
outputs of one feature are contiguous (about 4× faster than class-major for CSR rows, see
design.md) — or, for dense rows, *class-major*: the pass takes ``Wt``, the C-contiguous
``(n_outputs, n_features)`` transpose of a Fortran-ordered ``W``, whose columns are contiguous
for the vectorized sums of :mod:`onlinear._core.simd` (2.9× faster than feature-major on the
MNIST-sized benchmark).  ``state`` has shape ``(n_state_rows, n_outputs)``:

* ``state[SCALE, r]`` — the lazy scale factor of output r: the true weights are
  ``w_r = state[SCALE, r] · W[:, r]``;
* ``state[RAW_SQNORM, r]`` — ``Σ_j W[j, r]²`` and ``state[RAW_MASS, r]`` — ``Σ_j W[j, r]``
  (the multiplicative family), kept current by the engine (see :mod:`onlinear.rules.layout`);
* rows from ``FIRST_RULE_ROW`` on belong to the rule (MCP's ℓ, NAROMMA's ρ, …).

Each round, strictly in the given order:
  1. scores ``s_r = w_r·x`` and ``q = ‖x‖²``;
  2. prediction (before the update): one output → class 1 iff ``s > 0``; several outputs →
     ``argmax_r s_r`` (``s_r/‖w_r‖`` for scale-free learners, which the engine also keeps at
     unit norm), ties to the lowest class index;
  3. unless ``x = 0`` (every rule's step is then a no-op), the rule writes per-output steps
     ``tau`` and rescaling factors ``factor`` (:mod:`onlinear.rules.dispatch`);
  4. the engine applies them — additive: ``w_r ← factor_r·w_r + tau_r·x`` in O(non-zeros of x)
     through the lazy scale; multiplicative: ``w_{r,j} ← w_{r,j}·exp(tau_r x_j)`` on the
     non-zeros, renormalized to unit l1 mass per row or for the whole matrix (lazily, through the
     scale, since the mass of the row is ``1/scale``).  A round is an *update* when the model
     changed.

The dense sweeps (scores, steps) reassociate their sums (:mod:`onlinear._core.simd`), so a
dense pass and a CSR pass over the same data agree to rounding (~1e-15 relative), not bit for
bit; everything else (rules, counting, the per-example path) is shared.  The weight bookkeeping
(lazy scale, sizes, fold, row additions, exponentiated steps, averaging) is the store's
(``_store.pxd``, documented in :mod:`.weights`); counters (``counts``, ``predictions``) are laid
out as :mod:`.counters` says.

This module is compiled ahead of time (Cython, when the package is installed): a first call
compiles nothing.
"""
import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, fabs, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memcpy

from ..rules._step cimport step_function
from ..rules.dispatch cimport compute_steps_c, step_of
from ._store cimport (FIRST_RULE_ROW, RAW_MASS, SCALE, Layout, add_row, add_to_column_pair,
                      add_to_dense_column, added, average_close_round, clear_column, exp_row, fold_column,
                      index_t, predict_index as predict_index_c, prefetch, real_w, real_x, rescale_column, row_accepted,
                      row_ok, scale_ok, scale_ok_for, score_dense, score_sparse, squared_norm,
                      step_of as raw_step_of, track_size)
from ._counting cimport count_round
from ._sweeps cimport onlinear_simd_init, onlinear_simd_isa

cnp.import_array()
onlinear_simd_init()

ADDITIVE = 0
MULTIPLICATIVE_ROW = 1
MULTIPLICATIVE_MATRIX = 2
cdef enum:
    _ADDITIVE = 0
    _MULTIPLICATIVE_ROW = 1
    _MULTIPLICATIVE_MATRIX = 2

#: How an example's weight (``sample_weight``) enters a round: not at all (1), scaling the
#: step the rule computed (the Perceptron family, MIRA, hard-margin PA, the multiplicative
#: family: a weight w is a step w times as long), or scaling the rule's first parameter, its C
#: (PA-I, PA-II and their support-class forms: the weighted hinge loss of the primal problem,
#: C·w·ξ, whose dual caps the step at C·w).
WEIGHT_NONE = 0
WEIGHT_STEP = 1
WEIGHT_C = 2
cdef enum:
    _WEIGHT_NONE = 0
    _WEIGHT_STEP = 1
    _WEIGHT_C = 2

NO_WEIGHTS = np.zeros(0)
#: the averaging arrays of a model that does not average (:mod:`.weights`, "averaging")
NO_ACC = np.zeros((0, 0))
NO_AVG = np.zeros(0)


def simd_instruction_set():
    """The instruction set of the dense sweeps this process uses: ``"avx512"``, ``"avx2"`` or
    ``"generic"`` (the baseline; ``ONLINEAR_CPU=generic`` in the environment forces it)."""
    return onlinear_simd_isa().decode()


# ------------------------------------------------------------------------------ one round
cdef struct Rule:
    step_function step
    double *params
    double *state
    int step_kind
    bint scale_free
    bint exact_norms
    int weight_mode


cdef struct Scratch:
    double *scores
    double *tau
    double *factor
    int64_t *order


cdef inline void weighted_steps(Rule *rule, Py_ssize_t m, Py_ssize_t y, double q,
                                Scratch *s, double weight) noexcept nogil:
    """The round's steps ``tau`` and factors ``factor`` for an example of weight ``weight``,
    which enters as the rule's ``weight_mode`` says: ``WEIGHT_C``, the rule's cap ``params[0]``
    (the C of PA-I/PA-II) times the weight for this round; ``WEIGHT_STEP``, the steps times the
    weight."""
    cdef bint capped = rule.weight_mode == _WEIGHT_C and weight != 1.0
    cdef double cap = rule.params[0] if capped else 0.0
    cdef Py_ssize_t r
    if capped:
        rule.params[0] = cap * weight
    compute_steps_c(rule.step, s.scores, m, y, q, rule.params, rule.state, s.tau, s.factor,
                    s.order)
    if capped:
        rule.params[0] = cap
    if rule.weight_mode == _WEIGHT_STEP and weight != 1.0:
        for r in range(m):
            s.tau[r] *= weight
    if rule.scale_free:
        tame_scale_free_steps(rule.state, m, q, s.tau, s.factor)


#: A scale-free step ``c·w + τ·x`` whose row part outweighs the column part by more than this
#: (``|τ|·‖x‖ > HUGE_STEP·|c|·‖w‖``) is taken as ``(c/|τ|)·w + sign(τ)·x``.
cdef double HUGE_STEP = 2.0 ** 100


cdef inline void tame_scale_free_steps(const double *state, Py_ssize_t m, double q, double *tau,
                                       double *factor) noexcept nogil:
    """A scale-free learner's step with its row part divided out when it dwarfs the column.

    Only the direction of ``c·w + τ·x`` counts (the engine puts the column back to unit norm),
    and ``(c/|τ|)·w + sign(τ)·x`` has the same one.  Two accepted rows whose norms differ by
    more than ~1e150 give a τ whose raw step ``τ/σ`` (or ``τ²‖x‖²``) overflows — ``w`` became
    ``[nan, inf]`` — or τ = inf itself (MCP's ``‖w‖/(ℓ‖x‖²)``); divided out, the step is the
    row itself and the column's factor a tiny number (folded through the lazy scale), which is
    the exact direction to rounding (the column's part underflows only below ~1e-308 of the
    row's, where it is below rounding anyway).  Steps within ``HUGE_STEP`` are untouched."""
    cdef Py_ssize_t r
    cdef double norm_w
    for r in range(m):
        if tau[r] == 0.0 or factor[r] == 0.0:
            continue
        norm_w = sqrt(squared_norm(state, m, r))
        if norm_w == 0.0:
            continue
        if not (fabs(tau[r]) * sqrt(q) <= HUGE_STEP * fabs(factor[r]) * norm_w):
            factor[r] = factor[r] / fabs(tau[r])
            tau[r] = 1.0 if tau[r] > 0.0 else -1.0


cdef inline void keep_unit_norm(real_w *W, Layout L, double *state, Py_ssize_t r,
                                bint unit_norm, double *acc, double *avg) noexcept nogil:
    """A scale-free learner's column r back to unit norm (through its scale) after a step."""
    cdef double norm
    if unit_norm:
        norm = sqrt(squared_norm(state, L.m, r))
        if norm > 0.0:
            state[SCALE * L.m + r] /= norm
            if not scale_ok_for(W, state[SCALE * L.m + r]):
                fold_column(W, L, state, r, acc, avg)


cdef inline double raw_score(const double *state, Py_ssize_t m, Py_ssize_t r,
                             const double *factor, const double *scores) noexcept nogil:
    """Column r's raw dot product with the round's row after its rescaling: after the
    rescaling by c, its true score is c·s_r, its raw one that over the column's scale, whether
    or not the rescaling folded it."""
    return factor[r] * scores[r] / state[SCALE * m + r]


cdef inline bint apply_additive_dense(const int64_t *idx, const real_x *x, real_w *W, Layout L,
                                      double *state, const double *tau, const double *factor,
                                      bint unit_norm, double *acc, double *avg,
                                      bint exact_norms, const double *scores,
                                      double q) noexcept nogil:
    """``w_r ← factor_r·w_r + tau_r·x`` on class-major weights for a whole dense row (then
    ``w_r ← w_r/‖w_r‖`` for scale-free learners); the steps are added two columns per sweep
    over the row; returns whether the model changed."""
    cdef bint changed = False
    cdef Py_ssize_t m = L.m, r, waiting = -1
    cdef double c
    for r in range(m):
        c = factor[r]
        if c == 1.0 and tau[r] == 0.0:
            continue
        changed = True
        if c == 0.0:
            clear_column(W, L, state, r, acc, avg)
        elif c != 1.0:
            rescale_column(W, L, state, r, c, acc, avg)
        if tau[r] == 0.0:
            continue
        if waiting < 0:
            waiting = r
        else:
            add_to_column_pair(idx, x, W, L, state, waiting, tau[waiting], r, tau[r], acc, avg,
                               exact_norms, raw_score(state, m, waiting, factor, scores),
                               raw_score(state, m, r, factor, scores), q)
            keep_unit_norm(W, L, state, waiting, unit_norm, acc, avg)
            keep_unit_norm(W, L, state, r, unit_norm, acc, avg)
            waiting = -1
    if waiting >= 0:
        add_to_dense_column(idx, x, W, L, state, waiting, tau[waiting], acc, avg, exact_norms,
                            raw_score(state, m, waiting, factor, scores), q)
        keep_unit_norm(W, L, state, waiting, unit_norm, acc, avg)
    return changed


cdef inline bint apply_additive_sparse(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                                       real_w *W, Layout L, double *state, const double *tau,
                                       const double *factor, bint unit_norm, double *acc,
                                       double *avg) noexcept nogil:
    """:func:`apply_additive_dense` for a row of non-zeros on feature-major weights: each
    stepped column in O(non-zeros of x) (:func:`add_to_column` of the store)."""
    cdef bint changed = False
    cdef Py_ssize_t r
    cdef double c, step
    for r in range(L.m):
        c = factor[r]
        if c == 1.0 and tau[r] == 0.0:
            continue
        changed = True
        if c == 0.0:
            clear_column(W, L, state, r, acc, avg)
        elif c != 1.0:
            rescale_column(W, L, state, r, c, acc, avg)
        if tau[r] == 0.0:
            continue
        step = raw_step_of(W, L, state, r, tau[r], acc, avg)
        added(idx, vals, nnz, W, L, state, r, step,
              add_row(idx, vals, nnz, W + r * L.sr, L.sj, step), acc, avg)
        keep_unit_norm(W, L, state, r, unit_norm, acc, avg)
    return changed


cdef inline void normalize(double *state, Py_ssize_t m, bint whole_matrix) noexcept nogil:
    """Scales ``1/mass`` of each row, or of the whole matrix, so that it sums to 1."""
    cdef double total = 0.0
    cdef Py_ssize_t r
    if whole_matrix:
        for r in range(m):
            total += state[RAW_MASS * m + r]
        for r in range(m):
            state[SCALE * m + r] = 1.0 / total
    else:
        for r in range(m):
            state[SCALE * m + r] = 1.0 / state[RAW_MASS * m + r]


cdef inline bint apply_multiplicative(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                                      real_w *W, Layout L, double *state, const double *tau,
                                      bint whole_matrix) noexcept nogil:
    """``w_{r,j} ← w_{r,j}·exp(tau_r x_j) / Z`` with Z the new l1 mass of the row (or matrix).
    The scale of a row is ``1/mass`` (rows, or the whole matrix, sum to 1), and the mass is
    updated from the touched non-zeros of x only."""
    cdef Py_ssize_t m = L.m, r, s
    cdef bint changed = False
    cdef double before, change
    for r in range(m):
        if tau[r] == 0.0:
            continue
        changed = True
        before = state[RAW_MASS * m + r]
        change = exp_row(idx, vals, nnz, W + r * L.sr, L.sj, tau[r])
        track_size(W, L, state, r, RAW_MASS, before + change)
    if not changed:
        return False
    normalize(state, m, whole_matrix)
    for r in range(m):
        if not scale_ok(state[SCALE * m + r]):
            for s in range(m):  # (not averaging: the multiplicative family has no average)
                fold_column(W, L, state, s, NULL, NULL)
            normalize(state, m, whole_matrix)
            break
    return True


cdef inline Py_ssize_t dense_round(const int64_t *index, const real_x *x, Py_ssize_t y,
                                   real_w *W, Layout L, Rule *rule, Scratch *s, double *acc,
                                   double *avg, double weight, bint learning,
                                   bint *changed) noexcept nogil:
    """One round on the whole dense row ``x`` (``index = arange(n_features)``) on class-major
    weights; returns the index predicted (before the update), or −1, having changed nothing,
    if the row is not accepted (not finite, or a norm out of range).  ``weight = 0``: the round
    only predicts; ``learning=False``: nor does it close an averaging round."""
    cdef Py_ssize_t m = L.m, predicted
    cdef double q = score_dense(x, W, L.n, L.sr, m, rule.state, s.scores)
    changed[0] = False
    if not row_accepted(x, L.n, q, W):
        return -1
    predicted = predict_index_c(s.scores, m, rule.state, rule.scale_free)
    if q != 0.0 and weight != 0.0:  # (a weight of 0: the round only predicts)
        weighted_steps(rule, m, y, q, s, weight)
        if rule.step_kind == _ADDITIVE:
            changed[0] = apply_additive_dense(index, x, W, L, rule.state, s.tau, s.factor,
                                              rule.scale_free, acc, avg, rule.exact_norms,
                                              s.scores, q)
        else:
            changed[0] = apply_multiplicative(index, x, L.n, W, L, rule.state, s.tau,
                                              rule.step_kind == _MULTIPLICATIVE_MATRIX)
    if learning and avg != NULL:
        average_close_round(rule.state, m, avg)
    return predicted


cdef inline Py_ssize_t sparse_round(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                                    Py_ssize_t y, real_w *W, Layout L, Rule *rule, Scratch *s,
                                    double *acc, double *avg, double weight, bint learning,
                                    bint *changed) noexcept nogil:
    """:func:`dense_round` for a checked row of non-zeros on feature-major weights."""
    cdef Py_ssize_t m = L.m, predicted
    cdef double q = score_sparse(idx, vals, nnz, W, L, rule.state, s.scores)
    changed[0] = False
    predicted = predict_index_c(s.scores, m, rule.state, rule.scale_free)
    if q != 0.0 and weight != 0.0:
        weighted_steps(rule, m, y, q, s, weight)
        if rule.step_kind == _ADDITIVE:
            changed[0] = apply_additive_sparse(idx, vals, nnz, W, L, rule.state, s.tau,
                                               s.factor, rule.scale_free, acc, avg)
        else:
            changed[0] = apply_multiplicative(idx, vals, nnz, W, L, rule.state, s.tau,
                                              rule.step_kind == _MULTIPLICATIVE_MATRIX)
    if learning and avg != NULL:
        average_close_round(rule.state, m, avg)
    return predicted


# --------------------------------------------------------------------------- entry points
# The entry points check every array with numpy's C API (type, dimensions, layout, shape) before
# the loop runs with bounds checks off, and take their data pointers directly: a typed
# memoryview or a fused function's dispatch per argument cost about 10 µs a call, which a small
# batch of learn_many paid on every call.
cdef inline void *data_or_null(object array):
    """The data pointer of a numpy array, NULL when it is empty."""
    cdef cnp.ndarray a = <cnp.ndarray>array
    return NULL if cnp.PyArray_SIZE(a) == 0 else cnp.PyArray_DATA(a)


cdef enum:
    F8 = 1
    F4 = 2
    I8 = 3
    I4 = 4


cdef int _code(cnp.ndarray a) noexcept:
    """The element type of ``a`` among those the loops take (0: another)."""
    cdef int kind = cnp.PyArray_TYPE(a)
    cdef Py_ssize_t size = cnp.PyArray_ITEMSIZE(a)
    if kind == cnp.NPY_DOUBLE:
        return F8
    if kind == cnp.NPY_FLOAT:
        return F4
    if kind == cnp.NPY_INT or kind == cnp.NPY_LONG or kind == cnp.NPY_LONGLONG:
        return I8 if size == 8 else (I4 if size == 4 else 0)
    return 0


cdef cnp.ndarray _array(object obj, int ndim, int code, bint writable, str name):
    """``obj`` checked: a C-contiguous numpy array of ``ndim`` dimensions whose element type is
    ``code`` (F8, F4, I8, I4; 0: float64 or float32), writable if asked."""
    cdef cnp.ndarray a
    if not cnp.PyArray_Check(obj):
        raise TypeError(f"{name} must be a numpy array, not {type(obj).__name__}")
    a = <cnp.ndarray>obj
    cdef int found = _code(a)
    if cnp.PyArray_NDIM(a) != ndim or not cnp.PyArray_IS_C_CONTIGUOUS(a) or found == 0 \
            or (code == 0 and found not in (F8, F4)) or (code != 0 and found != code) \
            or (writable and not cnp.PyArray_ISWRITEABLE(a)):
        raise ValueError(f"{name} must be a C-contiguous{' writable' if writable else ''} "
                         f"array of {ndim} dimension(s) and the loops' type; got "
                         f"{(<object>a).dtype} {(<object>a).shape}")
    return a


cdef int _index_code(cnp.ndarray a, str name) except -1:
    cdef int code = _code(a)
    if cnp.PyArray_NDIM(a) != 1 or not cnp.PyArray_IS_C_CONTIGUOUS(a) or code not in (I8, I4):
        raise ValueError(f"{name} must be C-contiguous int32 or int64")
    return code


cdef struct Pass:
    Rule rule
    Scratch scratch
    int64_t *counts
    int64_t *predictions   # NULL: not kept
    double *acc            # NULL: not averaging
    double *avg
    const double *sample_weight   # NULL: every weight 1
    const int64_t *y
    const int64_t *order
    Py_ssize_t n_order
    Py_ssize_t n_rows
    Py_ssize_t m


cdef int fill_pass(Pass *P, Py_ssize_t m, Py_ssize_t n_rows, int rule_id, params, state,
                   int step_kind, bint scale_free, bint exact_norms, int weight_mode, counts,
                   predictions, acc, avg, sample_weight, y, order, work, scratch,
                   Py_ssize_t w_rows, Py_ssize_t w_cols) except -1:
    """Check the arrays of a pass over ``n_rows`` rows on a model of ``m`` outputs (weights of
    shape ``(w_rows, w_cols)``, for the averaging sums) and fill ``P``."""
    cdef cnp.ndarray a
    cdef Py_ssize_t t
    P.m = m
    P.n_rows = n_rows
    P.rule.step = step_of(rule_id)
    if P.rule.step == NULL:
        raise ValueError(f"unknown rule id {rule_id}")
    a = _array(params, 1, F8, True, "params")
    P.rule.params = <double *>data_or_null(a)
    a = _array(state, 2, F8, True, "state")
    if cnp.PyArray_DIM(a, 1) != m or cnp.PyArray_DIM(a, 0) < FIRST_RULE_ROW or m < 1:
        raise ValueError("the state must have a column per output and the engine's rows")
    P.rule.state = <double *>cnp.PyArray_DATA(a)
    P.rule.step_kind = step_kind
    P.rule.scale_free = scale_free
    P.rule.exact_norms = exact_norms
    P.rule.weight_mode = weight_mode
    a = _array(counts, 1, I8, True, "counts")
    if cnp.PyArray_DIM(a, 0) < 3:
        raise ValueError("counts must have three entries")
    P.counts = <int64_t *>cnp.PyArray_DATA(a)
    a = _array(y, 1, I8, False, "the labels")
    if cnp.PyArray_DIM(a, 0) != n_rows:
        raise ValueError(f"{cnp.PyArray_DIM(a, 0)} labels for {n_rows} rows")
    P.y = <const int64_t *>data_or_null(a)
    for t in range(n_rows):
        if not 0 <= P.y[t] < max(m, 2):
            raise ValueError(f"label index {P.y[t]} of a model of {m} outputs")
    a = _array(order, 1, I8, False, "the order")
    P.n_order = cnp.PyArray_DIM(a, 0)
    P.order = <const int64_t *>data_or_null(a)
    for t in range(P.n_order):
        if not 0 <= P.order[t] < n_rows:
            raise IndexError(f"row {P.order[t]} of a pass over {n_rows} rows")
    a = _array(predictions, 1, I8, True, "predictions")
    if cnp.PyArray_DIM(a, 0) not in (0, P.n_order):
        raise ValueError("predictions must have no entry or one per round")
    P.predictions = <int64_t *>data_or_null(a)
    a = _array(sample_weight, 1, F8, False, "the example weights")
    if cnp.PyArray_DIM(a, 0) not in (0, n_rows):
        raise ValueError("the example weights must be none or one per row")
    P.sample_weight = <const double *>data_or_null(a)
    a = _array(avg, 1, F8, True, "the averaging scales")
    P.avg = <double *>data_or_null(a)
    if cnp.PyArray_DIM(a, 0) not in (0, m):
        raise ValueError("the averaging scales must be none or one per output")
    a = _array(acc, 2, F8, True, "the averaging sums")
    P.acc = <double *>data_or_null(a)
    if (P.acc == NULL) != (P.avg == NULL) or (P.acc != NULL and (
            cnp.PyArray_DIM(a, 0) != w_rows or cnp.PyArray_DIM(a, 1) != w_cols)):
        raise ValueError("the averaging sums must have the weights' shape, with the scales")
    a = _array(work, 2, F8, True, "the pass's work array")
    if cnp.PyArray_DIM(a, 0) < 3 or cnp.PyArray_DIM(a, 1) < m:
        raise ValueError(f"the pass's scratch must hold {m} outputs (pass_scratch)")
    P.scratch.scores = <double *>cnp.PyArray_DATA(a)
    P.scratch.tau = P.scratch.scores + cnp.PyArray_DIM(a, 1)
    P.scratch.factor = P.scratch.tau + cnp.PyArray_DIM(a, 1)
    a = _array(scratch, 1, I8, True, "the rules' scratch")
    if cnp.PyArray_DIM(a, 0) < m:
        raise ValueError(f"the pass's scratch must hold {m} outputs (pass_scratch)")
    P.scratch.order = <int64_t *>cnp.PyArray_DATA(a)
    return 0


def pass_scratch(n_outputs):
    """``(work, order)``: the scratch arrays of a pass (:func:`run_dense`, :func:`run_sparse`)
    over a model of ``n_outputs`` outputs — the round's scores, steps and factors (the rows of
    ``work``) and the rules' int64 scratch — made once per pass, so that a round allocates
    nothing."""
    return np.empty((3, max(n_outputs, 1))), np.empty(max(n_outputs, 1), np.int64)


cdef Py_ssize_t _dense_rounds(const real_x *X, Py_ssize_t d, real_w *Wt, Py_ssize_t ld,
                              Pass *P, bint learning, const int64_t *index) noexcept nogil:
    """The rounds of the dense rows ``X[order]`` (C-contiguous, ``d`` columns) on the
    class-major weights ``Wt`` (``(m, d)``, row stride ``ld``); returns −1, or the position in
    the order of the first row that is not accepted (that row changed nothing, the rounds
    before it stay)."""
    cdef Layout L
    cdef Py_ssize_t t, i, predicted
    cdef double weight
    cdef bint updated
    L.n = d
    L.m = P.m
    L.sj = 1
    L.sr = ld
    for t in range(P.n_order):
        i = P.order[t]
        if t + 1 < P.n_order:  # (the next row read during this round)
            prefetch(X + P.order[t + 1] * d, d * sizeof(real_x))
        weight = P.sample_weight[i] if P.sample_weight != NULL else 1.0
        predicted = dense_round(index, X + i * d, P.y[i], Wt, L, &P.rule, &P.scratch, P.acc,
                                P.avg, weight if learning else 0.0, learning, &updated)
        if predicted < 0:
            return t
        if learning:
            count_round(P.counts, P.predictions, t, predicted, P.y[i], updated)
        elif P.predictions != NULL:
            P.predictions[t] = predicted
    return -1


cdef Py_ssize_t _dense_call(cnp.ndarray X, cnp.ndarray Wt, Pass *P,
                            const int64_t *index) noexcept nogil:
    cdef Py_ssize_t d = cnp.PyArray_DIM(Wt, 1)
    cdef Py_ssize_t ld = cnp.PyArray_STRIDE(Wt, 0) // cnp.PyArray_ITEMSIZE(Wt)
    cdef void *x = cnp.PyArray_DATA(X)
    cdef void *w = cnp.PyArray_DATA(Wt)
    if cnp.PyArray_ITEMSIZE(X) == 4:
        if cnp.PyArray_ITEMSIZE(Wt) == 4:
            return _dense_rounds(<const float *>x, d, <float *>w, ld, P, True, index)
        return _dense_rounds(<const float *>x, d, <double *>w, ld, P, True, index)
    if cnp.PyArray_ITEMSIZE(Wt) == 4:
        return _dense_rounds(<const double *>x, d, <float *>w, ld, P, True, index)
    return _dense_rounds(<const double *>x, d, <double *>w, ld, P, True, index)


def run_dense(X, y, order, Wt, int rule, params, state, int step_kind, bint scale_free, counts,
              predictions, acc_t, avg, sample_weight, int weight_mode, bint exact_norms, index,
              work, scratch):
    """Online pass over the rows ``X[order]`` (dense, C-contiguous, float64 or float32) on the
    class-major weights ``Wt`` (C-contiguous ``(n_outputs, n_features)``, float64 or float32)
    and averaging sums ``acc_t`` (the same shape, or empty: not averaging).

    Returns −1, or the index of the first row of the pass that is not accepted (not finite, or
    a norm out of range: :mod:`.rows`, from the ``‖x‖²`` the round computes anyway).  Then
    ``state``, ``counts`` and ``avg`` are restored, but ``Wt`` and ``acc_t`` hold the rounds
    before that row: a caller whose rows are not checked passes copies of them and keeps the
    copies only if the pass returns −1.  So no sweep over X is needed before the pass."""
    cdef Pass P
    cdef cnp.ndarray x = _array(X, 2, 0, False, "X")
    cdef cnp.ndarray w = _array(Wt, 2, 0, True, "the weights")
    cdef cnp.ndarray idx = _array(index, 1, I8, False, "the dense index")
    cdef Py_ssize_t m = cnp.PyArray_DIM(w, 0), d = cnp.PyArray_DIM(w, 1), bad
    if cnp.PyArray_DIM(x, 1) != d or cnp.PyArray_DIM(idx, 0) != d or d == 0:
        raise ValueError(f"rows of {cnp.PyArray_DIM(x, 1)} features, weights of {d}, an index "
                         f"of {cnp.PyArray_DIM(idx, 0)}")
    fill_pass(&P, m, cnp.PyArray_DIM(x, 0), rule, params, state, step_kind, scale_free,
              exact_norms, weight_mode, counts, predictions, acc_t, avg, sample_weight, y,
              order, work, scratch, m, d)
    state_before, counts_before, avg_before = state.copy(), counts.copy(), avg.copy()
    cdef const int64_t *index_p = <const int64_t *>cnp.PyArray_DATA(idx)
    with nogil:
        bad = _dense_call(x, w, &P, index_p)
    if bad < 0:
        return -1
    state[...] = state_before
    counts[...] = counts_before
    avg[...] = avg_before
    return P.order[bad]


cdef void _sparse_rounds(const real_x *data, const index_t *indices, const index_t *indptr,
                         real_w *W, Py_ssize_t n, Pass *P) noexcept nogil:
    """The rounds of the checked CSR rows (``order``) on the feature-major weights ``W``."""
    cdef Layout L
    cdef Py_ssize_t t, i, start, stop, predicted
    cdef bint updated
    L.n = n
    L.m = P.m
    L.sj = P.m
    L.sr = 1
    for t in range(P.n_order):
        i = P.order[t]
        start = indptr[i]
        stop = indptr[i + 1]
        predicted = sparse_round(indices + start, data + start, stop - start, P.y[i], W, L,
                                 &P.rule, &P.scratch, P.acc, P.avg,
                                 P.sample_weight[i] if P.sample_weight != NULL else 1.0, True,
                                 &updated)
        count_round(P.counts, P.predictions, t, predicted, P.y[i], updated)


cdef int _check_csr(const index_t *indices, const index_t *indptr, Py_ssize_t n_rows,
                    Py_ssize_t nnz, Py_ssize_t n_features) except -1:
    cdef Py_ssize_t i, p
    if indptr[0] != 0 or indptr[n_rows] > nnz:
        raise ValueError("malformed CSR arrays")
    for i in range(n_rows):
        if indptr[i + 1] < indptr[i]:
            raise ValueError("malformed CSR row pointers")
    for p in range(indptr[n_rows]):
        if not 0 <= indices[p] < n_features:
            raise ValueError(f"column index {indices[p]} outside a model of {n_features} "
                             "features")
    return 0


cdef void _sparse_pass_call(int xcode, int icode, int wcode, void *data, void *indices,
                            void *indptr, void *W, Py_ssize_t n, Pass *P) noexcept nogil:
    if icode == I4:
        if xcode == F8:
            if wcode == F8:
                _sparse_rounds(<const double *>data, <const int32_t *>indices,
                               <const int32_t *>indptr, <double *>W, n, P)
            else:
                _sparse_rounds(<const double *>data, <const int32_t *>indices,
                               <const int32_t *>indptr, <float *>W, n, P)
        elif wcode == F8:
            _sparse_rounds(<const float *>data, <const int32_t *>indices,
                           <const int32_t *>indptr, <double *>W, n, P)
        else:
            _sparse_rounds(<const float *>data, <const int32_t *>indices,
                           <const int32_t *>indptr, <float *>W, n, P)
    else:
        if xcode == F8:
            if wcode == F8:
                _sparse_rounds(<const double *>data, <const int64_t *>indices,
                               <const int64_t *>indptr, <double *>W, n, P)
            else:
                _sparse_rounds(<const double *>data, <const int64_t *>indices,
                               <const int64_t *>indptr, <float *>W, n, P)
        elif wcode == F8:
            _sparse_rounds(<const float *>data, <const int64_t *>indices,
                           <const int64_t *>indptr, <double *>W, n, P)
        else:
            _sparse_rounds(<const float *>data, <const int64_t *>indices,
                           <const int64_t *>indptr, <float *>W, n, P)


def run_sparse(data, indices, indptr, y, order, W, int rule, params, state, int step_kind,
               bint scale_free, counts, predictions, acc, avg, sample_weight, int weight_mode,
               work, scratch):
    """Online pass over the CSR rows ``order`` of ``(data, indices, indptr)`` (checked: finite,
    of accepted norms, canonical; float64 or float32 values, int32 or int64 indices and
    pointers of one dtype) on the feature-major weights ``W`` (C-contiguous) and averaging sums
    ``acc`` (the same shape, or empty)."""
    cdef Pass P
    cdef cnp.ndarray v = _array(data, 1, 0, False, "the CSR values")
    cdef cnp.ndarray ind = <cnp.ndarray>indices if cnp.PyArray_Check(indices) else None
    cdef cnp.ndarray ptr = <cnp.ndarray>indptr if cnp.PyArray_Check(indptr) else None
    cdef cnp.ndarray w = _array(W, 2, 0, True, "the weights")
    if ind is None or ptr is None:
        raise TypeError("the CSR indices and pointers must be numpy arrays")
    cdef int icode = _index_code(ind, "the CSR indices")
    if _index_code(ptr, "the CSR row pointers") != icode or cnp.PyArray_DIM(ptr, 0) < 1 \
            or cnp.PyArray_DIM(ind, 0) != cnp.PyArray_DIM(v, 0):
        raise ValueError("the CSR arrays must be of one index dtype, values and indices alike "
                         "long")
    cdef Py_ssize_t n_rows = cnp.PyArray_DIM(ptr, 0) - 1, n = cnp.PyArray_DIM(w, 0)
    cdef Py_ssize_t m = cnp.PyArray_DIM(w, 1), nnz = cnp.PyArray_DIM(v, 0)
    fill_pass(&P, m, n_rows, rule, params, state, step_kind, scale_free, False, weight_mode,
              counts, predictions, acc, avg, sample_weight, y, order, work, scratch, n, m)
    if icode == I4:
        _check_csr(<const int32_t *>cnp.PyArray_DATA(ind), <const int32_t *>cnp.PyArray_DATA(ptr),
                   n_rows, nnz, n)
    else:
        _check_csr(<const int64_t *>cnp.PyArray_DATA(ind), <const int64_t *>cnp.PyArray_DATA(ptr),
                   n_rows, nnz, n)
    cdef int xcode = _code(v), wcode = _code(w)
    cdef void *vp = cnp.PyArray_DATA(v)
    cdef void *ip = cnp.PyArray_DATA(ind)
    cdef void *pp = cnp.PyArray_DATA(ptr)
    cdef void *wp = cnp.PyArray_DATA(w)
    with nogil:
        _sparse_pass_call(xcode, icode, wcode, vp, ip, pp, wp, n, &P)


# ------------------------------------------------------------------ one example per call
NO_INDEX = np.zeros(0, np.int64)
_ONE_ROW = np.zeros(1, np.int64)


def learn_dense_row(x, Py_ssize_t y, Wt, int rule, params, state, int step_kind,
                    bint scale_free, counts, acc_t, avg, double weight, int weight_mode,
                    bint exact_norms, bint learning, index):
    """One round on the dense row ``x`` (of the model's width, float64 or float32) with label
    index ``y`` and weight ``weight`` on the class-major weights ``Wt`` and averaging sums
    ``acc_t`` (as in :func:`run_dense`); ``learning=False``: the same round's prediction only,
    nothing changed or counted (``predict_one``, so that it predicts what ``learn_one`` would).
    Returns the index predicted before the update, or −1, having changed nothing, if the row is
    not accepted (not finite, or a norm out of range) or not of the model's width."""
    cdef Pass P
    cdef cnp.ndarray row = _array(x, 1, 0, False, "x")
    cdef cnp.ndarray w = _array(Wt, 2, 0, True, "the weights")
    cdef cnp.ndarray idx = _array(index, 1, I8, False, "the dense index")
    cdef Py_ssize_t m = cnp.PyArray_DIM(w, 0), d = cnp.PyArray_DIM(w, 1), predicted
    cdef Layout L
    cdef bint updated
    if cnp.PyArray_DIM(row, 0) != d or cnp.PyArray_DIM(idx, 0) != d or d == 0:
        return -1
    work, scratch = pass_scratch(m)
    fill_pass(&P, m, 1, rule, params, state, step_kind, scale_free, exact_norms, weight_mode,
              counts, NO_INDEX, acc_t, avg, NO_WEIGHTS, np.array([y], np.int64), _ONE_ROW,
              work, scratch, m, d)
    L.n = d
    L.m = m
    L.sj = 1
    L.sr = cnp.PyArray_STRIDE(w, 0) // cnp.PyArray_ITEMSIZE(w)
    cdef const int64_t *ip = <const int64_t *>cnp.PyArray_DATA(idx)
    cdef void *xp = cnp.PyArray_DATA(row)
    cdef void *wp = cnp.PyArray_DATA(w)
    cdef double wt = weight if learning else 0.0
    if cnp.PyArray_ITEMSIZE(row) == 4:
        if cnp.PyArray_ITEMSIZE(w) == 4:
            predicted = dense_round(ip, <const float *>xp, y, <float *>wp, L, &P.rule,
                                    &P.scratch, P.acc, P.avg, wt, learning, &updated)
        else:
            predicted = dense_round(ip, <const float *>xp, y, <double *>wp, L, &P.rule,
                                    &P.scratch, P.acc, P.avg, wt, learning, &updated)
    elif cnp.PyArray_ITEMSIZE(w) == 4:
        predicted = dense_round(ip, <const double *>xp, y, <float *>wp, L, &P.rule, &P.scratch,
                                P.acc, P.avg, wt, learning, &updated)
    else:
        predicted = dense_round(ip, <const double *>xp, y, <double *>wp, L, &P.rule, &P.scratch,
                                P.acc, P.avg, wt, learning, &updated)
    if predicted >= 0 and learning:
        count_round(P.counts, NULL, 0, predicted, y, updated)
    return predicted


def learn_sparse_row(data, indices, Py_ssize_t y, W, int rule, params, state, int step_kind,
                     bint scale_free, counts, acc, avg, double weight, int weight_mode):
    """One round on the checked CSR row of the values ``data`` and column indices ``indices``
    (canonical, within the model's width) with label index ``y`` and weight ``weight`` on the
    feature-major weights ``W``; returns the index predicted before the update."""
    data = np.ascontiguousarray(data)
    indices = np.ascontiguousarray(indices)
    ptr = np.array([0, indices.shape[0]], indices.dtype)
    predictions = np.zeros(1, np.int64)
    work, scratch = pass_scratch(W.shape[1])
    if not _canonical_py(indices, W.shape[0]):
        raise ValueError("a CSR row's indices must increase within the model's width")
    run_sparse(data, indices, ptr, np.array([y], np.int64), _ONE_ROW, W, rule, params, state,
               step_kind, scale_free, counts, predictions, acc, avg,
               np.array([weight]) if weight != 1.0 else NO_WEIGHTS, weight_mode, work, scratch)
    return int(predictions[0])


def _canonical_py(indices, Py_ssize_t n):
    cdef cnp.ndarray a = _array(indices, 1, _code(<cnp.ndarray>indices) or I8, False,
                                "the CSR indices")
    if _code(a) == I4:
        return _canonical(<const int32_t *>data_or_null(a), cnp.PyArray_DIM(a, 0), n)
    if _code(a) == I8:
        return _canonical(<const int64_t *>data_or_null(a), cnp.PyArray_DIM(a, 0), n)
    raise ValueError("the CSR indices must be int32 or int64")


def predict_index(const double[::1] scores, double[:, ::1] state, bint scale_free):
    """The index predicted from the true ``scores`` (see :func:`predict_index` in
    ``_store.pxd``): one output → 1 iff ``s > 0``; several → the argmax (of ``s_r/‖w_r‖`` for
    scale-free learners), ties to the lowest index."""
    if state.shape[1] != scores.shape[0] or scores.shape[0] == 0:
        raise ValueError("one score per output")
    return predict_index_c(&scores[0], scores.shape[0], &state[0, 0], scale_free)


# ------------------------------------------------------------- the per-example fast path
cdef struct Example:
    Rule rule
    Scratch scratch
    Layout L
    double *acc
    double *avg
    int64_t *counts
    int64_t *index
    int exponent


cdef inline bint _finite_scores(const double *scores, Py_ssize_t m) noexcept nogil:
    """Whether the ``m`` scores of a prediction are all finite (a finite row's can overflow
    against large weights): their sum times 0 is 0, else NaN (0·inf)."""
    cdef Py_ssize_t r
    cdef double zero = 0.0
    for r in range(m):
        zero += scores[r] * 0.0
    return zero == 0.0


cdef inline Py_ssize_t _dense_example(const real_x *x, real_w *W, Example *e, Py_ssize_t y,
                                      bint learning) noexcept nogil:
    cdef bint updated
    cdef Py_ssize_t predicted = dense_round(e.index, x, y, W, e.L, &e.rule, &e.scratch, e.acc,
                                            e.avg, 1.0 if learning else 0.0, learning,
                                            &updated)
    if predicted >= 0 and learning:
        count_round(e.counts, NULL, 0, predicted, y, updated)
    elif predicted >= 0 and not _finite_scores(e.scratch.scores, e.L.m):
        return -1  # (a prediction of scores that overflowed: the general path names the row)
    return predicted


cdef inline bint _canonical(const index_t *idx, Py_ssize_t nnz, Py_ssize_t n) noexcept nogil:
    """Whether the column indices increase strictly within ``0 … n − 1`` (a canonical CSR
    row: a repeated column is the sum of its entries, so ‖x‖² would not be the sum of the
    squared entries)."""
    cdef Py_ssize_t p
    cdef bint ok = True
    for p in range(1, nnz):
        ok &= idx[p] > idx[p - 1]
    return ok and (nnz == 0 or (idx[0] >= 0 and idx[nnz - 1] < n))


cdef inline Py_ssize_t _sparse_example(const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                                       real_w *W, Example *e, Py_ssize_t y, bint learning,
                                       ) noexcept nogil:
    """One round (``learning``) or its prediction on a CSR row, −1 if the row is not taken
    (not canonical within the model's width, not finite, or a norm out of range)."""
    cdef bint updated
    cdef Py_ssize_t predicted
    if not _canonical(idx, nnz, e.L.n):
        return -1
    if learning:
        if not row_ok(vals, nnz, e.exponent):
            return -1
        predicted = sparse_round(idx, vals, nnz, y, W, e.L, &e.rule, &e.scratch, e.acc,
                                 e.avg, 1.0, True, &updated)
        count_round(e.counts, NULL, 0, predicted, y, updated)
        return predicted
    cdef double q = score_sparse(idx, vals, nnz, W, e.L, e.rule.state, e.scratch.scores)
    if not q == q or q == INFINITY or not _finite_scores(e.scratch.scores, e.L.m):
        return -1  # (the general path names the row)
    return predict_index_c(e.scratch.scores, e.L.m, e.rule.state, e.rule.scale_free)


cdef class ExampleRound:
    """The per-example calls of one started primal model for one kind of row (see
    :mod:`onlinear.estimators.fast_path`): dense rows on its class-major weights (``Wt``, the
    C-contiguous transpose of Fortran-ordered weights) or CSR rows on its feature-major ones
    (``W``).  It holds the model's arrays (so that the pointers it reads stay valid) and its
    rule's constants; each call checks its row (kind, dtype, width) and returns the index
    predicted before the update, or −1, having changed nothing, when the row is not one it
    takes (the estimator's general path then takes the call: converts it, or names the
    problem).  A round only writes into the arrays it holds; the estimator drops the object
    whenever it rebinds one of them.

    Parameters
    ----------
    weights : ndarray
        ``Wt`` (dense) or ``W`` (CSR), float64 or float32, C-contiguous.
    rule, params, state, step_kind, scale_free, counts, acc, avg, weight_mode, exact_norms
        The round's other arguments, as :func:`run_dense` takes them (``acc`` in the weights'
        layout, or empty).
    index : ndarray
        ``arange(n_features)`` (int64) for dense rows; ignored for CSR rows.
    dense : bool
        The kind of row served.
    exponent : int
        The accepted row norms' exponent (:mod:`.rows`) of a CSR row (a dense row's is checked
        by the round itself).
    """
    cdef Example e
    cdef readonly object arrays  # the model's arrays the calls write, held while used
    cdef bint dense, float32
    cdef void *W

    def __init__(self, weights, int rule, params, state, int step_kind, bint scale_free, counts,
                 acc, avg, int weight_mode, bint exact_norms, index, bint dense, int exponent):
        if not (isinstance(weights, np.ndarray) and weights.ndim == 2
                and weights.dtype in (np.float32, np.float64) and weights.flags.c_contiguous
                and weights.flags.writeable):
            raise TypeError("the weights must be a writable C-contiguous float32 or float64 "
                            "matrix")
        m = weights.shape[0] if dense else weights.shape[1]
        n = weights.shape[1] if dense else weights.shape[0]
        work, scratch = pass_scratch(m)
        index = np.asarray(index, np.int64)
        cdef Pass P
        fill_pass(&P, m, 0, rule, params, state, step_kind, scale_free, exact_norms,
                  weight_mode, counts, NO_INDEX, acc, avg, NO_WEIGHTS, NO_INDEX, NO_INDEX, work,
                  scratch, weights.shape[0], weights.shape[1])
        if dense and index.shape[0] != n:
            raise ValueError("the dense index must have one entry per feature")
        self.e.rule = P.rule
        self.e.scratch = P.scratch
        self.arrays = (weights, params, state, counts, acc, avg, index, work, scratch)
        self.dense = dense
        self.float32 = weights.dtype == np.float32
        self.W = cnp.PyArray_DATA(<cnp.ndarray>weights)
        self.e.L.n = n
        self.e.L.m = m
        if dense:
            self.e.L.sj = 1
            self.e.L.sr = weights.strides[0] // weights.itemsize
        else:
            self.e.L.sj = weights.strides[0] // weights.itemsize
            self.e.L.sr = 1
        self.e.acc = P.acc
        self.e.avg = P.avg
        self.e.counts = P.counts
        self.e.index = <int64_t *>data_or_null(index)
        self.e.exponent = exponent

    def learn_dense(self, x, Py_ssize_t y, bint learning=True):
        """One round on the dense row ``x`` with label index ``y`` (``learning=False``: its
        prediction only, nothing changed or counted); −1 for a row not taken."""
        cdef cnp.ndarray a
        cdef int kind
        if not (self.dense and cnp.PyArray_Check(x)):
            return -1
        a = <cnp.ndarray>x
        if cnp.PyArray_NDIM(a) != 1 or cnp.PyArray_DIM(a, 0) != self.e.L.n \
                or not cnp.PyArray_IS_C_CONTIGUOUS(a) or self.e.L.n == 0:
            return -1
        if not 0 <= y < max(self.e.L.m, 2):
            return -1
        kind = cnp.PyArray_TYPE(a)
        if kind == cnp.NPY_FLOAT64:
            if self.float32:
                return _dense_example(<double *>cnp.PyArray_DATA(a), <float *>self.W, &self.e,
                                      y, learning)
            return _dense_example(<double *>cnp.PyArray_DATA(a), <double *>self.W, &self.e, y,
                                  learning)
        if kind == cnp.NPY_FLOAT32:
            if self.float32:
                return _dense_example(<float *>cnp.PyArray_DATA(a), <float *>self.W, &self.e,
                                      y, learning)
            return _dense_example(<float *>cnp.PyArray_DATA(a), <double *>self.W, &self.e, y,
                                  learning)
        return -1

    def learn_sparse(self, indptr, indices, data, Py_ssize_t y, bint learning=True):
        """One round on the one-row CSR matrix ``(data, indices, indptr)`` (float64 or float32
        values, int32 or int64 indices, contiguous) with label index ``y``
        (``learning=False``: its prediction only); −1 for a row not taken."""
        cdef cnp.ndarray p, i, v
        cdef Py_ssize_t start, stop, nnz
        cdef int vkind, ikind, pkind
        cdef char *ip
        cdef char *vp
        if self.dense or not (cnp.PyArray_Check(indptr) and cnp.PyArray_Check(indices)
                              and cnp.PyArray_Check(data)):
            return -1
        p, i, v = <cnp.ndarray>indptr, <cnp.ndarray>indices, <cnp.ndarray>data
        if cnp.PyArray_NDIM(p) != 1 or cnp.PyArray_DIM(p, 0) != 2 or cnp.PyArray_NDIM(i) != 1 \
                or cnp.PyArray_NDIM(v) != 1 or not cnp.PyArray_IS_C_CONTIGUOUS(i) \
                or not cnp.PyArray_IS_C_CONTIGUOUS(v) or not cnp.PyArray_IS_C_CONTIGUOUS(p):
            return -1
        if not 0 <= y < max(self.e.L.m, 2):
            return -1
        pkind = cnp.PyArray_TYPE(p)
        if pkind == cnp.NPY_INT32:
            start, stop = (<int32_t *>cnp.PyArray_DATA(p))[0], (<int32_t *>cnp.PyArray_DATA(p))[1]
        elif pkind == cnp.NPY_INT64:
            start, stop = (<int64_t *>cnp.PyArray_DATA(p))[0], (<int64_t *>cnp.PyArray_DATA(p))[1]
        else:
            return -1
        if not (0 <= start <= stop <= cnp.PyArray_DIM(i, 0) and stop <= cnp.PyArray_DIM(v, 0)):
            return -1
        nnz = stop - start
        ikind, vkind = cnp.PyArray_TYPE(i), cnp.PyArray_TYPE(v)
        ip = <char *>cnp.PyArray_DATA(i)
        vp = <char *>cnp.PyArray_DATA(v)
        if ikind == cnp.NPY_INT32:
            if vkind == cnp.NPY_FLOAT64:
                return _sparse_call(&self.e, self.W, self.float32, <int32_t *>ip + start,
                                    <double *>vp + start, nnz, y, learning)
            if vkind == cnp.NPY_FLOAT32:
                return _sparse_call(&self.e, self.W, self.float32, <int32_t *>ip + start,
                                    <float *>vp + start, nnz, y, learning)
        elif ikind == cnp.NPY_INT64:
            if vkind == cnp.NPY_FLOAT64:
                return _sparse_call(&self.e, self.W, self.float32, <int64_t *>ip + start,
                                    <double *>vp + start, nnz, y, learning)
            if vkind == cnp.NPY_FLOAT32:
                return _sparse_call(&self.e, self.W, self.float32, <int64_t *>ip + start,
                                    <float *>vp + start, nnz, y, learning)
        return -1


cdef Py_ssize_t _sparse_call(Example *e, void *W, bint float32, const index_t *idx,
                             const real_x *vals, Py_ssize_t nnz, Py_ssize_t y,
                             bint learning) noexcept:
    if float32:
        return _sparse_example(idx, vals, nnz, <float *>W, e, y, learning)
    return _sparse_example(idx, vals, nnz, <double *>W, e, y, learning)
