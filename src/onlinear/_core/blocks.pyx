"""The compiled online loop of the simultaneous-projection learners (Amit, Shalev-Shwartz &
Singer, "Online Learning of Complex Prediction Problems Using Simultaneous Projections"; section
numbers below are theirs): each trial is a block of binary constraints, scored, counted, and
updated by one dual step λ computed by :mod:`onlinear.rules.simultaneous`.

One trial routine (:func:`_trial`) serves every task; trials run strictly in ``order``, each
predicting (computing every margin) before updating, in three steps:

1. the task's **gather** reads its constraints off the model's scores: each constraint's
   margin, squared norm (the multiplicative form: ‖·‖_∞²), set id and coupling weight;
2. the **shared part** counts the mistakes and, when some loss is positive, computes λ: the
   scheme on each set with budget C/r_t (decomposed losses, §7, Fig. 5), the exact and
   structured solvers with the task's Gram kind, or the multiplicative α of Eq. 23;
3. the task's **scatter** adds the steps Σ_j λ_j y_j φ_j to the model.

A task is named by a code (``TASK_BLOCKS``, ``TASK_LABEL_SETS``, ``TASK_ORDINAL``; each task
class of :mod:`onlinear.tasks` names its own as ``engine_task``), and hands the trial a
:c:struct:`Task`, its model and targets:

* **general blocks** (the paper's single-prototype setting, §2): trial t is rows
  ``block_ptr[t]:block_ptr[t+1]`` of X with labels ±1, optional partition ids (decomposable loss,
  §7) and coupling weights c_j (the weighted coupling of §10); one weight vector ``w``; Gram
  ``y_i y_j x_i·x_j`` (``DENSE_GRAM``).  Additive and multiplicative.
* **label sets** (multiclass and multilabel of §3.1 and §9.2 as multi-prototype Kesler blocks —
  our derivation: the multi-prototype setting is the class-dependent map φ(x, r) = e_r ⊗ x):
  ``W`` (n_features, k) feature-major, relevance an (n, k) uint8 indicator (1 relevant,
  0 irrelevant, 2 a calibration label that sits between them, see :func:`_labelset_pairs`); the
  constraints are the pairs (relevant r, irrelevant s), margin ``s_r − s_s``, squared norm
  ``2‖x‖²``, Gram ``‖x‖²([r = r'] + [s = s'] − [r = s'] − [s = r'])`` (``KESLER_GRAM``) — all
  from the k scores and ‖x‖², without materialising a virtual row; the update is one
  coefficient per class.  Additive and multiplicative (one simplex over all of W).
* **ordinal** (§3.2): ``w`` and thresholds ``b``; constraint j is ``(x, −e_j)`` with label +1 for
  j < rank, else −1: margin ``y_j(w·x − b_j)``, squared norm ``‖x‖² + 1``, Gram
  ``y_i y_j(‖x‖² + [i = j])`` (``ORDINAL_GRAM``).  Additive only: the reduction's thresholds are
  unbounded reals, which the simplex of the multiplicative form does not hold.

One pass routine (:func:`_pass`) runs the trials of any task; the entry points (a pass over a
CSR or a dense matrix per task, the per-row rounds of ``learn_one``) check their task's arrays
and fill its :c:struct:`Task`.  :func:`gathered` returns what step 1 gathers of one trial, for
the tests that compare it with the tasks' own ``constraints()``.

The true model is ``scale[0] * w`` (``scale`` a length-1 array).  The additive form leaves the
scale at 1; the multiplicative form keeps ``w > 0`` unnormalized and ``scale = 1/Σw`` (so ω is on
the simplex), updated from the touched coordinates only and recomputed exactly when the mass has
halved (a running sum keeps the rounding error of the largest value it held).  Dots, row
additions, exponentiated steps and folds are the store's (``_store.pxd``, documented in
:mod:`.weights`); a row is ``(column indices, values)`` as :mod:`.rows` says (a dense row: all
of its values, with ``arange(n_features)``).

Decomposed losses (§7, Fig. 5): general blocks take a partition id per row; label-set and ordinal
trials take ``params[P_DECOMPOSE]`` (:func:`make_params`'s ``decompose``): one set, one set per
relevant label (ordinal: per threshold), or singletons — each set with budget C/r_t.

Conventions: a constraint is a *mistake* iff its margin is ≤ 0 (ties are mistakes; the paper
leaves this implicit, its Lemma 3 needs it); constraints of squared norm 0 (zero rows) count as
mistakes but take no step (our choice: no step can fix them).  ``counts`` (int64, 5) is incremented:
``[TRIALS, IMPERFECT, CONSTRAINT_MISTAKES, CONSTRAINTS, TRIAL_UPDATES]`` — the trial layout
of :mod:`.counters`; ``flags`` (int8, one per trial run,
or empty) receives ``imperfect | updated << 1``.  The multiplicative form supports
SimPerc, ConProj, SimProj, SimOpt and MaxPA (the paper's §8 defines no exact solver for it);
OPTIMAL and SOPOPO with ``kind = UPDATE_MULTIPLICATIVE`` raise.

Compiled ahead of time (Cython): every trial runs on raw pointers in scratch made once per
call (:class:`Work`), so that a pass allocates nothing per trial but the exact solver's KKT
system.  The entry points check their arrays (shapes, dtypes, indices, block pointers,
relevance values) before the loop: no index is checked inside it.
"""
import numpy as np

cimport numpy as cnp
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc

from ..rules.simultaneous cimport (UPDATE_ADDITIVE, UPDATE_MULTIPLICATIVE, N_PARAMS, OPTIMAL, P_C,
                                   P_DECOMPOSE, P_GAMMA, P_MAX_ITER, P_MAX_RULE, P_TOL, SIMOPT,
                                   SIMPERC, SINGLETONS, SOPOPO, WHOLE, SortScratch,
                                   mult_alpha_closed_form_c, mult_alpha_numeric_c,
                                   mult_set_lambda_c, py_max, set_lambda_c, sopopo_steps_c)
from ..solvers.block_dual cimport (DENSE_GRAM, KESLER_GRAM, ORDINAL_GRAM, DualScratch,
                                   carve_dual_scratch, dual_ints, dual_reals, group_sets,
                                   solve_structured_c)
from ._counting cimport count_trial
from ._one_row cimport csr_row, dense_row
from ._sweeps cimport onlinear_simd_init
from ._store cimport (SCALE_HIGH, SCALE_LOW, Layout, add_outer, add_row, column_dots, dot,
                      exp_step, fold_positive, index_t, mass, nonzeros, prefetch, real_x,
                      row_accepted)

from ..rules import simultaneous as _rules

# re-exported from onlinear.rules.simultaneous: the constants (here C constants as well, so
# they are set on the module by name) and the steps
for _name in ("UPDATE_ADDITIVE", "CONPROJ", "MAX_DISTANCE", "MAX_HINGE", "MAXPA", "UPDATE_MULTIPLICATIVE",
              "N_PARAMS", "OPTIMAL", "P_C", "P_DECOMPOSE", "P_GAMMA", "P_MAX_ITER", "P_MAX_RULE",
              "P_TOL", "SCHEMES", "SIMOPT", "SIMPERC", "SIMPROJ", "SINGLETONS", "SOPOPO", "WHOLE",
              "make_params", "mult_alpha_closed_form", "mult_alpha_numeric", "mult_set_lambda",
              "set_lambda", "sopopo_steps"):
    globals()[_name] = getattr(_rules, _name)
del _name

cnp.import_array()
onlinear_simd_init()  # (the label sets' scores: _store.pxd's sparse_sweep)

# The trial layout of the counters (onlinear._core.counters), re-exported: a trial is the
# round (TRIALS = SEEN), an imperfect trial its mistake (IMPERFECT = MISTAKES), then the
# constraint counts, and the trial updates last.
from .counters import (CONSTRAINT_MISTAKES, CONSTRAINTS, IMPERFECT,  # noqa: F401
                       N_TRIAL_COUNTS, TRIAL_UPDATES, TRIALS)
cdef Py_ssize_t _N_TRIAL_COUNTS = 5

cdef enum:
    # the tasks whose constraints the trial gathers (onlinear.tasks: each class's engine_task)
    TASK_BLOCKS = 0
    TASK_LABEL_SETS = 1
    TASK_ORDINAL = 2

for _name, _code in (("TASK_BLOCKS", TASK_BLOCKS), ("TASK_LABEL_SETS", TASK_LABEL_SETS),
                     ("TASK_ORDINAL", TASK_ORDINAL)):
    globals()[_name] = _code
del _name, _code


# =============================================================================================
# Shared pieces
# =============================================================================================
cdef struct Work:
    # the scratch of one call, for trials of at most K constraints (see _make_work)
    double *margin
    double *loss
    double *sqnorm
    double *coupling
    double *gain
    double *alpha
    double *ones
    double *lam
    double *signs
    double *caps
    double *sub_loss      # the gathered arrays of one set of a decomposed trial
    double *sub_a
    double *sub_b
    double *sub_c
    double *sub_lam
    unsigned char *mistake
    unsigned char *sub_mistake
    int64_t *local
    int64_t *set_start
    int64_t *set_members
    int64_t *fill
    int64_t *pairs        # K × 2
    double *G             # K × K: general blocks' exact solves (else NULL)
    SortScratch sort
    DualScratch dual
    double *buffer        # n_features, zero between trials (general blocks)
    int64_t *touched      # n_features
    double *row_weights   # 2 × the longest row
    double *row_values
    double *scores        # m each (label sets)
    double *tau
    double *pos
    double *neg
    int64_t *moving


cdef class _Block:
    """One allocation of scratch, freed with the object."""
    cdef void *memory

    def __dealloc__(self):
        free(self.memory)


cdef _Block _make_work(Work *wk, Py_ssize_t K, Py_ssize_t n_features, Py_ssize_t longest_row,
                       Py_ssize_t m, bint gram):
    """Fill ``wk`` with scratch for trials of at most K constraints over rows of at most
    ``longest_row`` values, n_features features and m classes (``gram``: room for an explicit
    Gram matrix), in one zeroed allocation; returns its holder (keep it while ``wk`` is in
    use)."""
    K = max(K, 1)
    m = max(m, 1)
    longest_row = max(longest_row, 1)
    cdef Py_ssize_t n_gram = K * K if gram else 0
    cdef Py_ssize_t n_reals = 16 * K + n_gram + n_features + 4 * longest_row + 4 * m
    cdef Py_ssize_t n_ints = 9 * K + 1 + n_features + m
    cdef Py_ssize_t n_dual_reals = dual_reals(K, m), n_dual_ints = dual_ints(K, K)
    cdef _Block holder = _Block.__new__(_Block)
    holder.memory = calloc(8 * (n_reals + n_ints + n_dual_reals + n_dual_ints) + 2 * K, 1)
    if holder.memory == NULL:
        raise MemoryError(f"the scratch of trials of {K} constraints")
    cdef double *r = <double *>holder.memory
    cdef int64_t *i = <int64_t *>(r + n_reals + n_dual_reals)
    cdef unsigned char *flags = <unsigned char *>(i + n_ints + n_dual_ints)
    carve_dual_scratch(&wk.dual, r + n_reals, i + n_ints, K, K)
    wk.margin, wk.loss, wk.sqnorm, wk.coupling = r, r + K, r + 2 * K, r + 3 * K
    wk.gain, wk.alpha, wk.ones, wk.lam = r + 4 * K, r + 5 * K, r + 6 * K, r + 7 * K
    wk.signs, wk.caps, wk.sub_loss, wk.sub_a = r + 8 * K, r + 9 * K, r + 10 * K, r + 11 * K
    wk.sub_b, wk.sub_c, wk.sub_lam, wk.sort.keys = r + 12 * K, r + 13 * K, r + 14 * K, r + 15 * K
    r += 16 * K
    wk.G = r if gram else NULL
    r += n_gram
    wk.buffer = r
    r += n_features
    wk.row_weights, wk.row_values = r, r + 2 * longest_row
    r += 4 * longest_row
    wk.scores, wk.tau, wk.pos, wk.neg = r, r + m, r + 2 * m, r + 3 * m
    wk.local, wk.set_members, wk.fill, wk.pairs = i, i + K, i + 2 * K, i + 3 * K
    wk.sort.members, wk.sort.order, wk.sort.tmp = i + 5 * K, i + 6 * K, i + 7 * K
    wk.set_start = i + 8 * K
    i += 9 * K + 1
    wk.touched = i
    wk.moving = i + n_features
    wk.mistake, wk.sub_mistake = flags, flags + K
    cdef Py_ssize_t j
    for j in range(K):
        wk.ones[j] = 1.0
    return holder


cdef inline int _as_int(double value) noexcept nogil:
    """``int(value)`` of a small parameter (an id), −1 when it is not one."""
    if not -1e9 < value < 1e9:
        return -1
    return <int>value


cdef inline void _row(bint dense, Py_ssize_t n_features, const real_x *data,
                      const index_t *indices, const index_t *indptr, Py_ssize_t r,
                      const index_t **idx, const real_x **vals, Py_ssize_t *nnz) noexcept nogil:
    """Row r as ``(column indices, values)``: of the dense matrix ``data`` (C order; then
    ``indices = arange(n_features)`` and ``indptr`` is unused) or of the CSR matrix
    ``(data, indices, indptr)`` (:mod:`.rows`)."""
    if dense:
        idx[0] = indices
        vals[0] = data + r * n_features
        nnz[0] = n_features
    else:
        idx[0] = indices + indptr[r]
        vals[0] = data + indptr[r]
        nnz[0] = indptr[r + 1] - indptr[r]


cdef void _renormalized(double *w_flat, Py_ssize_t n, double *scale, double mass_before,
                        double change) noexcept nogil:
    """Set ``scale = 1/mass`` after a multiplicative step; exact recount once the running mass
    has halved, and a fold of the scale into w when it leaves a safe range.

    The guard compares with the mass before this step, not with an anchor (the largest mass
    since it was last exact, :func:`.weights.must_reanchor`): these models keep no size state
    — the mass is ``1/scale`` and ``scale`` a length-1 array, which the estimators hold (and
    save) as it is."""
    cdef double total = mass_before + change
    if not (total > 0.5 * mass_before):
        total = mass(w_flat, n, 1)
    scale[0] = 1.0 / total
    if not (SCALE_LOW < scale[0] < SCALE_HIGH):
        fold_positive(w_flat, n, 1, scale[0])
        scale[0] = 1.0 / mass(w_flat, n, 1)


cdef inline int _decomposition(const double *params, Py_ssize_t n_params) noexcept nogil:
    """The decomposition mode of label-set and ordinal trials (``params`` built by
    :func:`make_params`; a shorter vector from before the option means none)."""
    if n_params > P_DECOMPOSE:
        return _as_int(params[P_DECOMPOSE])
    return WHOLE


cdef Py_ssize_t _structured_parts(int mode, const int64_t *pairs, Py_ssize_t k,
                                  int64_t *local) noexcept nogil:
    """Set id of each constraint of a label-set (``pairs`` given) or ordinal trial (``pairs``
    NULL), written into ``local[:k]``, and the number of sets: one set, one per relevant label
    (pairs are ordered by r), or singletons."""
    cdef Py_ssize_t p, n_sets
    if mode == WHOLE or k == 0:
        for p in range(k):
            local[p] = 0
        return 1
    if mode == SINGLETONS or pairs == NULL:
        for p in range(k):
            local[p] = p
        return k
    local[0] = 0
    n_sets = 1
    for p in range(1, k):
        if pairs[2 * p] != pairs[2 * (p - 1)]:
            n_sets += 1
        local[p] = n_sets - 1
    return n_sets


cdef Py_ssize_t _sets_of(const int64_t *parts, Py_ssize_t lo, Py_ssize_t hi,
                         int64_t *local) noexcept nogil:
    """Partition ids of rows lo..hi−1 (``parts`` NULL → one set) into ``local``; returns the
    number of sets."""
    cdef Py_ssize_t k = hi - lo, j, n_sets = 0
    if parts == NULL:
        for j in range(k):
            local[j] = 0
        return 1
    for j in range(k):
        local[j] = parts[lo + j]
        n_sets = max(n_sets, local[j] + 1)
    return n_sets


cdef void _lambda_by_sets(int scheme, int kind, const double *loss, const double *alpha,
                          const double *sqnorm, const unsigned char *mistake,
                          const double *coupling, const int64_t *local, Py_ssize_t k,
                          Py_ssize_t n_sets, double C, int max_rule, double *lam,
                          Work *wk) noexcept nogil:
    """Run the scheme on each set with budget C/r_t and gather λ (Amit et al. §7: Fig. 5 does
    not state the cap; it is what the per-set dual constraint of Eq. 18 needs)."""
    cdef double cap
    cdef Py_ssize_t l, i, n, j
    cdef const int64_t *members
    if n_sets == 1:
        if kind == UPDATE_ADDITIVE:
            set_lambda_c(scheme, loss, sqnorm, mistake, coupling, k, C, max_rule, lam, &wk.sort)
        else:
            mult_set_lambda_c(scheme, loss, alpha, mistake, sqnorm, wk.ones, k, C, max_rule, lam,
                              &wk.sort)
        return
    cap = C / n_sets
    group_sets(local, k, n_sets, wk.set_start, wk.set_members, wk.fill)
    for l in range(n_sets):
        members = wk.set_members + wk.set_start[l]
        n = wk.set_start[l + 1] - wk.set_start[l]
        if n == 0:
            continue
        for i in range(n):
            j = members[i]
            wk.sub_loss[i] = loss[j]
            wk.sub_mistake[i] = mistake[j]
            if kind == UPDATE_ADDITIVE:
                wk.sub_a[i] = sqnorm[j]
                wk.sub_c[i] = coupling[j]
            else:
                wk.sub_a[i] = alpha[j]
                wk.sub_b[i] = sqnorm[j]
        if kind == UPDATE_ADDITIVE:
            set_lambda_c(scheme, wk.sub_loss, wk.sub_a, wk.sub_mistake, wk.sub_c, n, cap,
                         max_rule, wk.sub_lam, &wk.sort)
        else:
            mult_set_lambda_c(scheme, wk.sub_loss, wk.sub_a, wk.sub_mistake, wk.sub_b, wk.ones,
                              n, cap, max_rule, wk.sub_lam, &wk.sort)
        for i in range(n):
            lam[members[i]] = wk.sub_lam[i]



# =============================================================================================
# What a task hands the trial, and its gathers (step 1)
# =============================================================================================
cdef struct Task:
    int code                  # TASK_BLOCKS, TASK_LABEL_SETS or TASK_ORDINAL
    # the model
    double *w                 # w (general blocks, ordinal) or W (label sets, feature-major)
    double *scale             # its scale, one entry (ordinal: NULL, none)
    Layout L                  # label sets: W's layout
    double *b                 # ordinal: the thresholds, n_thresholds of them
    Py_ssize_t n_thresholds
    # the targets of a pass
    const int64_t *block_ptr  # general blocks: the trials' rows, and per row a label ±1,
    const double *labels      # a set id (or NULL: one set) and a coupling weight (or NULL: 1)
    const int64_t *parts
    const double *coupling
    const uint8_t *Y          # label sets: the relevance rows (n × L.m)
    const int64_t *ranks      # ordinal: the ranks
    int decompose             # label sets, ordinal: params' decomposition (_decomposition)
    # the targets of the trial (label sets, ordinal: set by the pass)
    const uint8_t *relevant
    int64_t rank
    # left by the gather for the steps and the scatter
    Py_ssize_t n_sets
    double q                  # ‖x‖² of the trial's row (label sets, ordinal; else 0)
    double score              # ordinal: w·x
    Py_ssize_t n_rel          # label sets: the relevant labels
    bint simple               # label sets, multiplicative: x ∈ {0, ±1}^n


cdef Py_ssize_t _gather(Task *T, bint dense, Py_ssize_t n_features, const real_x *data,
                        const index_t *indices, const index_t *indptr, Py_ssize_t lo,
                        Py_ssize_t hi, int kind, Work *wk, const real_x *dense_row,
                        const index_t **idx, const real_x **vals,
                        Py_ssize_t *nnz) noexcept nogil:
    """Step 1: the task's constraints of the trial on rows lo..hi−1 (label sets, ordinal: the
    one row lo, left in ``idx``, ``vals``, ``nnz``) into ``wk.margin``, ``wk.sqnorm``,
    ``wk.local`` (set ids; their number into ``T.n_sets``) and ``wk.coupling``; returns their
    number, or −1 for a dense row refused (:func:`_gather_labelset`)."""
    if T.code == TASK_BLOCKS:
        return _gather_block(T, dense, n_features, data, indices, indptr, lo, hi, kind, wk)
    _row(dense, n_features, data, indices, indptr, lo, idx, vals, nnz)
    if T.code == TASK_LABEL_SETS:
        return _gather_labelset(T, idx[0], vals[0], nnz[0], kind, wk, dense_row)
    return _gather_ordinal(T, idx[0], vals[0], nnz[0], wk)


cdef Py_ssize_t _gather_block(Task *T, bint dense, Py_ssize_t n_features, const real_x *data,
                              const index_t *indices, const index_t *indptr, Py_ssize_t lo,
                              Py_ssize_t hi, int kind, Work *wk) noexcept nogil:
    """General blocks (§2): constraint j is row lo + j, margin ``y_j ω·x_j``."""
    cdef Py_ssize_t k = hi - lo, j, p, nnz
    cdef const index_t *idx
    cdef const real_x *vals
    cdef double raw, size, v
    for j in range(k):
        _row(dense, n_features, data, indices, indptr, lo + j, &idx, &vals, &nnz)
        raw = dot(idx, vals, nnz, T.w, 1, &size)
        if kind != UPDATE_ADDITIVE:  # the multiplicative steps read ‖x‖_∞²
            size = 0.0
            for p in range(nnz):
                v = vals[p]
                if v != 0.0:
                    size = py_max(size, v * v)
        wk.margin[j] = T.labels[lo + j] * T.scale[0] * raw
        wk.sqnorm[j] = size
        wk.coupling[j] = T.coupling[lo + j] if T.coupling != NULL else 1.0
    T.n_sets = _sets_of(T.parts, lo, hi, wk.local)
    T.q = 0.0
    return k


cdef Py_ssize_t _labelset_pairs(const uint8_t *relevant, Py_ssize_t n_classes, int64_t *pairs,
                                Py_ssize_t *n_rel_out) noexcept nogil:
    """The constraints of a label-set trial as class pairs (r, s), r ≠ s, with
    ``relevant[r] ∈ {1, 2}`` and ``relevant[s] ∈ {0, 2}``: 1 = relevant, 0 = irrelevant, 2 = the
    calibration (threshold) label, ranked below every relevant label and above every irrelevant
    one.  Ordered by r, then s; without a 2 these are the pairs of Y × Ȳ in row-major order.
    Written into ``pairs`` (room for n_rel·n_irr pairs, row-major); returns their number
    (n_rel·n_irr − n_both), n_rel into ``n_rel_out``."""
    cdef Py_ssize_t n_rel = 0, c, r, s, p = 0
    for c in range(n_classes):
        if relevant[c] >= 1:
            n_rel += 1
    for r in range(n_classes):
        if relevant[r] >= 1:
            for s in range(n_classes):
                if relevant[s] != 1 and s != r:
                    pairs[2 * p] = r
                    pairs[2 * p + 1] = s
                    p += 1
    n_rel_out[0] = n_rel
    return p


cdef Py_ssize_t _gather_labelset(Task *T, const index_t *idx, const real_x *vals,
                                 Py_ssize_t nnz, int kind, Work *wk,
                                 const real_x *dense_row) noexcept nogil:
    """Label sets (§3.1, §9.2): the pairs (r, s) of the relevance row ``T.relevant`` (into
    ``wk.pairs``), margin ``s_r − s_s`` from the class scores (left in ``wk.scores``, before
    the update), squared norm ``2‖x‖²`` (multiplicative: ‖(e_r − e_s) ⊗ x‖_∞² = ‖x‖_∞², and
    the class masses on x's ±1 coordinates for Appendix C's closed form).  ``dense_row`` (or
    NULL): the whole dense row whose non-zeros are ``(idx, vals)``, checked here from the
    ``‖x‖²`` the scores sum anyway (:mod:`.rows`): −1 if refused."""
    cdef Py_ssize_t m = T.L.m, p, c, k
    cdef double q, qinf = 0.0, v
    cdef int64_t i
    cdef double *W = T.w
    cdef double *scores = wk.scores
    for c in range(m):
        wk.tau[c] = 0.0
        wk.pos[c] = 0.0
        wk.neg[c] = 0.0
    q = column_dots(idx, vals, nnz, W, T.L, scores)
    if dense_row != NULL and not row_accepted(dense_row, T.L.n, q, W):
        return -1
    T.simple = True
    if kind == UPDATE_MULTIPLICATIVE:
        for p in range(nnz):
            v = vals[p]
            if v != 0.0:
                i = idx[p]
                qinf = py_max(qinf, v * v)
                if v != 1.0 and v != -1.0:
                    T.simple = False
                for c in range(m):
                    if v == 1.0:
                        wk.pos[c] += W[i * T.L.sj + c]
                    elif v == -1.0:
                        wk.neg[c] += W[i * T.L.sj + c]
    for c in range(m):
        scores[c] *= T.scale[0]
        wk.pos[c] *= T.scale[0]
        wk.neg[c] *= T.scale[0]
    k = _labelset_pairs(T.relevant, m, wk.pairs, &T.n_rel)
    for p in range(k):
        wk.margin[p] = scores[wk.pairs[2 * p]] - scores[wk.pairs[2 * p + 1]]
        wk.sqnorm[p] = 2.0 * q if kind == UPDATE_ADDITIVE else qinf
        wk.coupling[p] = 1.0
    T.n_sets = _structured_parts(T.decompose, wk.pairs, k, wk.local)
    T.q = q
    return k


cdef Py_ssize_t _gather_ordinal(Task *T, const index_t *idx, const real_x *vals,
                                Py_ssize_t nnz, Work *wk) noexcept nogil:
    """Ordinal (§3.2): constraint j is ``(x, −e_j)`` with sign ``y_j`` (+1 below the rank,
    into ``wk.signs``), margin ``y_j(w·x − b_j)``, squared norm ``‖x‖² + 1``; each threshold
    is its own binary problem: "per label" means singletons here."""
    cdef Py_ssize_t k = T.n_thresholds, j
    cdef double q
    T.score = dot(idx, vals, nnz, T.w, 1, &q)
    for j in range(k):
        wk.signs[j] = 1.0 if j < T.rank else -1.0
        wk.margin[j] = wk.signs[j] * (T.score - T.b[j])
        wk.sqnorm[j] = q + 1.0
        wk.coupling[j] = 1.0
    T.n_sets = _structured_parts(T.decompose, NULL, k, wk.local)
    T.q = q
    return k


# =============================================================================================
# The trial: the task's gather, the shared steps (step 2), the task's scatter (step 3)
# =============================================================================================
cdef bint _trial(Task *T, bint dense, Py_ssize_t n_features, const real_x *data,
                 const index_t *indices, const index_t *indptr, Py_ssize_t lo, Py_ssize_t hi,
                 int scheme, int kind, const double *params, double *lam, Work *wk,
                 Py_ssize_t *n_constraints, Py_ssize_t *mistakes,
                 const real_x *dense_row) noexcept nogil:
    """One trial of the task ``T`` on rows lo..hi−1 (label sets, ordinal: the row lo); writes
    λ into ``lam[:k]``; returns whether it updated, the number of constraints and of mistakes
    into ``n_constraints`` (−1: a dense row refused, nothing changed) and ``mistakes``."""
    cdef const index_t *idx = NULL
    cdef const real_x *vals = NULL
    cdef Py_ssize_t nnz = 0, k, j, n_mistakes = 0
    cdef double worst = 0.0, target = 1.0 if kind == UPDATE_ADDITIVE else params[P_GAMMA]
    cdef bint updated = False
    k = _gather(T, dense, n_features, data, indices, indptr, lo, hi, kind, wk, dense_row, &idx,
                &vals, &nnz)
    n_constraints[0] = k
    mistakes[0] = 0
    if k <= 0:
        return False
    for j in range(k):
        wk.loss[j] = py_max(0.0, target - wk.margin[j])
        wk.mistake[j] = wk.margin[j] <= 0.0
        n_mistakes += wk.mistake[j]
        if wk.sqnorm[j] > 0.0:
            worst = py_max(worst, wk.loss[j])
        lam[j] = 0.0
    mistakes[0] = n_mistakes
    # (C = 0, an example of weight 0, predicts only: the scheme's λ would be 0 up to
    # rounding only, SimOpt's θ = Σℓ/v / Σ1/v leaving residues)
    if worst <= 0.0 or params[P_C] == 0.0:
        return False
    _steps(T, dense, n_features, data, indices, indptr, lo, idx, vals, nnz, scheme, kind,
           params, k, lam, wk)
    for j in range(k):
        if lam[j] > 0.0:
            updated = True
    if not updated:
        return False
    if T.code == TASK_BLOCKS:
        _scatter_block(T, dense, n_features, data, indices, indptr, lo, k, kind, lam, wk)
    elif T.code == TASK_LABEL_SETS:
        _scatter_labelset(T, idx, vals, nnz, kind, k, lam, wk)
    else:
        _scatter_ordinal(T, idx, vals, nnz, k, lam, wk)
    return True


cdef void _steps(Task *T, bint dense, Py_ssize_t n_features, const real_x *data,
                 const index_t *indices, const index_t *indptr, Py_ssize_t lo,
                 const index_t *idx, const real_x *vals, Py_ssize_t nnz, int scheme, int kind,
                 const double *params, Py_ssize_t k, double *lam, Work *wk) noexcept nogil:
    """Step 2: λ of the k gathered constraints, each set with budget C/r_t (§7)."""
    cdef Py_ssize_t j, n_sets = T.n_sets, nnz_j
    cdef double C = params[P_C], gamma = params[P_GAMMA], cap = C / n_sets
    cdef const index_t *idx_j
    cdef const real_x *vals_j
    if kind == UPDATE_ADDITIVE and (scheme == OPTIMAL or scheme == SOPOPO):
        for j in range(k):
            wk.gain[j] = 1.0 - wk.margin[j]
            if wk.sqnorm[j] <= 0.0:
                # no budget on a constraint no step can satisfy (our choice, the paper does
                # not discuss zero rows)
                wk.gain[j] = 0.0
        if (T.code == TASK_LABEL_SETS and scheme == SOPOPO and T.n_rel == 1
                and k == T.L.m - 1 and n_sets == 1):
            # single-label multiclass: Sopopo's closed form (pairs (y, s) in the order of s)
            sopopo_steps_c(wk.gain, k, T.q, C, lam, &wk.sort)
            return
        for j in range(n_sets):
            wk.caps[j] = cap
        if T.code == TASK_BLOCKS:
            _gram(dense, n_features, data, indices, indptr, lo, lo + k, T.labels, wk.buffer,
                  wk.G)
        solve_structured_c(wk.G if T.code == TASK_BLOCKS else NULL,
                           DENSE_GRAM if T.code == TASK_BLOCKS else
                           KESLER_GRAM if T.code == TASK_LABEL_SETS else ORDINAL_GRAM,
                           wk.pairs if T.code == TASK_LABEL_SETS else NULL, T.q,
                           wk.signs if T.code == TASK_ORDINAL else NULL, wk.gain, k, wk.local,
                           wk.coupling, wk.caps, n_sets, params[P_TOL], params[P_MAX_ITER], lam,
                           &wk.dual)
        return
    if kind == UPDATE_MULTIPLICATIVE:
        for j in range(k):
            wk.alpha[j] = 0.0
        if scheme != SIMPERC and scheme != SIMOPT:
            for j in range(k):
                if wk.loss[j] > 0.0 and wk.sqnorm[j] > 0.0:
                    if T.code == TASK_BLOCKS:
                        _row(dense, n_features, data, indices, indptr, lo + j, &idx_j, &vals_j,
                             &nnz_j)
                        wk.alpha[j] = _mult_alpha_row(idx_j, vals_j, nnz_j, T.labels[lo + j],
                                                      T.w, T.scale[0], gamma, cap, wk)
                    else:
                        wk.alpha[j] = _mult_alpha_pair(idx, vals, nnz, T.w, T.L, T.scale[0],
                                                       wk.pairs[2 * j], wk.pairs[2 * j + 1],
                                                       T.simple, wk.pos, wk.neg, gamma, cap, wk)
    _lambda_by_sets(scheme, kind, wk.loss, wk.alpha if kind == UPDATE_MULTIPLICATIVE else wk.loss,
                    wk.sqnorm, wk.mistake, wk.coupling, wk.local, k, n_sets, C,
                    _as_int(params[P_MAX_RULE]), lam, wk)


cdef double _mult_alpha_row(const index_t *idx, const real_x *vals, Py_ssize_t n, double label,
                            const double *w, double scale, double gamma, double cap,
                            Work *wk) noexcept nogil:
    """The reduced maximiser of Eq. 23 for one row: Appendix C's closed form when every
    non-zero of the row is ±1, the 1-D concave solve otherwise."""
    cdef bint simple = True
    cdef double wplus = 0.0, wminus = 0.0, touched = 0.0, z, omega
    cdef double *weights = wk.row_weights
    cdef double *values = wk.row_values
    cdef Py_ssize_t p
    for p in range(n):
        z = label * <double>vals[p]
        omega = scale * w[idx[p]] if z != 0.0 else 0.0  # zeros belong to the rest
        weights[p] = omega
        values[p] = z
        touched += omega
        if z == 1.0:
            wplus += omega
        elif z == -1.0:
            wminus += omega
        elif z != 0.0:
            simple = False
    if simple:
        return mult_alpha_closed_form_c(wplus, wminus, gamma, cap)
    return mult_alpha_numeric_c(weights, values, n, py_max(0.0, 1.0 - touched), gamma, cap)



cdef double _mult_alpha_pair(const index_t *idx, const real_x *vals, Py_ssize_t n,
                             const double *W, Layout L, double scale, Py_ssize_t r,
                             Py_ssize_t s, bint simple, const double *pos, const double *neg,
                             double gamma, double cap, Work *wk) noexcept nogil:
    """Reduced maximiser for the pair instance (e_r − e_s) ⊗ x: closed form from the class masses
    on x's +1 / −1 coordinates (W⁺ = P_r + N_s, W⁻ = P_s + N_r) when x ∈ {0, ±1}^n."""
    cdef double *weights = wk.row_weights
    cdef double *values = wk.row_values
    cdef double touched = 0.0, v, keep
    cdef Py_ssize_t p, i
    if simple:
        return mult_alpha_closed_form_c(pos[r] + neg[s], pos[s] + neg[r], gamma, cap)
    for p in range(n):
        v = vals[p]
        i = idx[p]
        keep = 1.0 if v != 0.0 else 0.0  # coordinates with x_i = 0 belong to the rest
        weights[2 * p] = keep * scale * W[i * L.sj + r]
        values[2 * p] = v
        weights[2 * p + 1] = keep * scale * W[i * L.sj + s]
        values[2 * p + 1] = -v
        touched += weights[2 * p] + weights[2 * p + 1]
    return mult_alpha_numeric_c(weights, values, 2 * n, py_max(0.0, 1.0 - touched), gamma, cap)



cdef void _gram(bint dense, Py_ssize_t n_features, const real_x *data, const index_t *indices,
                const index_t *indptr, Py_ssize_t lo, Py_ssize_t hi, const double *labels,
                double *buffer, double *G) noexcept nogil:
    """``G_ij = y_i y_j x_i·x_j`` of rows lo..hi−1 (k × k, row-major), through a dense scatter of
    row i."""
    cdef Py_ssize_t k = hi - lo, i, j, p, nnz, nnz2
    cdef const index_t *idx
    cdef const real_x *vals
    cdef const index_t *idx2
    cdef const real_x *vals2
    cdef double g
    for i in range(k):
        _row(dense, n_features, data, indices, indptr, lo + i, &idx, &vals, &nnz)
        for p in range(nnz):
            buffer[idx[p]] += <double>vals[p]
        for j in range(i, k):
            _row(dense, n_features, data, indices, indptr, lo + j, &idx2, &vals2, &nnz2)
            g = 0.0
            for p in range(nnz2):
                g += buffer[idx2[p]] * <double>vals2[p]
            g *= labels[lo + i] * labels[lo + j]
            G[i * k + j] = g
            G[j * k + i] = g
        for p in range(nnz):
            buffer[idx[p]] = 0.0



cdef void _scatter_block(Task *T, bint dense, Py_ssize_t n_features, const real_x *data,
                         const index_t *indices, const index_t *indptr, Py_ssize_t lo,
                         Py_ssize_t k, int kind, const double *lam, Work *wk) noexcept nogil:
    """Step 3, general blocks: ω += Σ_j λ_j y_j x_j (multiplicative: one exp step per touched
    coordinate)."""
    cdef Py_ssize_t j, p, nnz, n_touched
    cdef const index_t *idx
    cdef const real_x *vals
    cdef double inv, coef, v, mass_before, change
    cdef int64_t i
    cdef double *w = T.w
    cdef double *buffer = wk.buffer
    if kind == UPDATE_ADDITIVE:
        inv = 1.0 / T.scale[0]
        for j in range(k):
            if lam[j] > 0.0:
                _row(dense, n_features, data, indices, indptr, lo + j, &idx, &vals, &nnz)
                add_row(idx, vals, nnz, w, 1, lam[j] * T.labels[lo + j] * inv)
        return
    # accumulate τ = Σ_j λ_j y_j x_j on the touched coordinates, then one exp step each
    # (not the store's exp_row: the exponent of a coordinate sums over the block's rows)
    n_touched = 0
    for j in range(k):
        if lam[j] > 0.0:
            _row(dense, n_features, data, indices, indptr, lo + j, &idx, &vals, &nnz)
            coef = lam[j] * T.labels[lo + j]
            for p in range(nnz):
                v = vals[p]
                if v != 0.0:
                    i = idx[p]
                    if buffer[i] == 0.0:
                        wk.touched[n_touched] = i
                        n_touched += 1
                    buffer[i] += coef * v
                    if buffer[i] == 0.0:
                        buffer[i] = 1e-320  # keep it marked as touched
    mass_before = 1.0 / T.scale[0]
    change = 0.0
    for p in range(n_touched):
        i = wk.touched[p]
        change += exp_step(w, i, buffer[i])
        buffer[i] = 0.0
    _renormalized(w, n_features, T.scale, mass_before, change)


cdef void _scatter_labelset(Task *T, const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                            int kind, Py_ssize_t k, const double *lam, Work *wk) noexcept nogil:
    """Step 3, label sets: one coefficient τ_c = Σ λ (r = c) − Σ λ (s = c) per class, then
    W[:, c] += τ_c x (multiplicative: one exp step per touched entry, one simplex over W)."""
    cdef Py_ssize_t n_classes = T.L.m, p, c, a, n_active
    cdef double inv, v, mass_before, change
    cdef double *tau = wk.tau
    cdef double *W = T.w
    cdef double *row
    for p in range(k):
        if lam[p] > 0.0:
            tau[wk.pairs[2 * p]] += lam[p]
            tau[wk.pairs[2 * p + 1]] -= lam[p]
    if kind == UPDATE_ADDITIVE:
        inv = 1.0 / T.scale[0]
        n_active = 0
        for c in range(n_classes):
            tau[c] *= inv
            if tau[c] != 0.0:
                wk.moving[n_active] = c  # the classes that move
                n_active += 1
        # one sweep over x for all the moving classes (not one add_row per class: W is
        # feature-major, the classes of a feature are contiguous); a sweep over every class
        # beats scattered updates of the moving ones from about an eighth of them on (measured
        # on Reuters' 119 columns: 8 ≈ 16 < 4 < 2)
        if 8 * n_active > n_classes:
            # every class, in vector lanes (adding 0 changes nothing)
            add_outer(idx, vals, nnz, W, T.L.sj, n_classes, tau)
        else:
            for p in range(nnz):
                v = vals[p]
                if v != 0.0:
                    row = W + idx[p] * T.L.sj
                    for a in range(n_active):
                        c = wk.moving[a]
                        row[c] += tau[c] * v
        return
    mass_before = 1.0 / T.scale[0]
    change = 0.0
    for p in range(nnz):
        v = vals[p]
        if v != 0.0:
            row = W + idx[p] * T.L.sj
            for c in range(n_classes):
                if tau[c] != 0.0:
                    change += exp_step(row, c, tau[c] * v)
    _renormalized(W, T.L.n * n_classes, T.scale, mass_before, change)


cdef void _scatter_ordinal(Task *T, const index_t *idx, const real_x *vals, Py_ssize_t nnz,
                           Py_ssize_t k, const double *lam, Work *wk) noexcept nogil:
    """Step 3, ordinal: w += (Σ_j λ_j y_j) x, b_j −= λ_j y_j."""
    cdef Py_ssize_t j
    cdef double coef = 0.0
    for j in range(k):
        if lam[j] > 0.0:
            coef += lam[j] * wk.signs[j]
            T.b[j] -= lam[j] * wk.signs[j]
    if coef != 0.0:
        add_row(idx, vals, nnz, T.w, 1, coef)


# =============================================================================================
# The pass, and the entry points of each task
# =============================================================================================
cdef Py_ssize_t _pass(Task *T, bint dense, Py_ssize_t n_features, const real_x *data,
                      const index_t *indices, const index_t *indptr, const int64_t *order,
                      Py_ssize_t n_order, int scheme, int kind, double *params, int64_t *counts,
                      int8_t *flags, const double *weights, Work *wk, index_t *nz_idx,
                      real_x *nz_vals) noexcept nogil:
    """The trials ``order`` (rows; general blocks: blocks), counted; returns −1, or the
    position in the order of the first row refused (dense label sets: :func:`_gather_labelset`),
    the trials before it kept.  ``nz_idx`` (or NULL; dense label-set rows, additive steps):
    room for each row's non-zeros, gathered first (:func:`.nonzeros`; the trial's sweeps skip
    zeros, so the results are those of the whole row)."""
    cdef double C = params[P_C]
    cdef Py_ssize_t t, i, lo, hi, k, n_mistakes, bad = -1
    cdef const real_x *dense_row = NULL
    cdef bint updated
    for t in range(n_order):
        i = order[t]
        lo, hi = i, i + 1
        if T.code == TASK_BLOCKS:
            lo, hi = T.block_ptr[i], T.block_ptr[i + 1]
        elif T.code == TASK_LABEL_SETS:
            T.relevant = T.Y + i * T.L.m
            if dense:
                dense_row = data + i * n_features
        else:
            T.rank = T.ranks[i]
        if weights != NULL:  # an example's weight scales its trial's budget C
            params[P_C] = C * weights[i]
        if nz_idx != NULL:
            if t + 1 < n_order:  # (the next row read during this trial)
                prefetch(data + order[t + 1] * n_features, n_features * sizeof(real_x))
            updated = _row_trial(T, n_features, nz_idx, nz_vals,
                                 nonzeros(dense_row, n_features, nz_idx, nz_vals), scheme, kind,
                                 params, wk, &k, &n_mistakes, dense_row)
        else:
            updated = _trial(T, dense, n_features, data, indices, indptr, lo, hi, scheme, kind,
                             params, wk.lam, wk, &k, &n_mistakes, dense_row)
        if k < 0:
            bad = t
            break
        count_trial(counts, flags, t, k, n_mistakes, updated)
    params[P_C] = C
    return bad


cdef bint _row_trial(Task *T, Py_ssize_t n_features, const index_t *idx, const real_x *vals,
                     Py_ssize_t nnz, int scheme, int kind, const double *params, Work *wk,
                     Py_ssize_t *n_constraints, Py_ssize_t *mistakes,
                     const real_x *dense_row) noexcept nogil:
    """:func:`_trial` on the one row ``(idx, vals)`` (a CSR matrix of that row)."""
    cdef index_t ptr[2]
    ptr[0] = 0
    ptr[1] = nnz
    return _trial(T, False, n_features, vals, idx, ptr, 0, 1, scheme, kind, params, wk.lam, wk,
                  n_constraints, mistakes, dense_row)


cdef Py_ssize_t _run(Pass P, bint dense, Py_ssize_t n_features, const real_x *data,
                     const index_t *indices, const index_t *indptr, Py_ssize_t longest_row,
                     int scheme, int kind, double[::1] params, int64_t[::1] counts,
                     index_t *nz_idx, real_x *nz_vals) except -2:
    """:func:`_pass` over the checked arrays ``P``, in scratch made for them."""
    _check_kind(scheme, kind)
    cdef Work wk
    cdef Py_ssize_t bad
    cdef bint blocks = P.T.code == TASK_BLOCKS
    holder = _make_work(&wk, P.most, n_features if blocks else 0, longest_row,
                        P.T.L.m if P.T.code == TASK_LABEL_SETS else 1,
                        blocks and kind == UPDATE_ADDITIVE and (scheme == OPTIMAL
                                                                or scheme == SOPOPO))
    P.T.decompose = _decomposition(&params[0], params.shape[0])
    with nogil:
        bad = _pass(&P.T, dense, n_features, data, indices, indptr, P.order, P.n_order, scheme,
                    kind, &params[0], &counts[0], P.flags, P.weights, &wk, nz_idx, nz_vals)
    return bad


cdef Py_ssize_t _sparse(Pass P, const real_x[::1] data, const index_t[::1] indices,
                        const index_t[::1] indptr, Py_ssize_t n_features, int scheme, int kind,
                        double[::1] params, int64_t[::1] counts) except -2:
    """The pass over checked CSR rows (:func:`_check_csr`)."""
    return _run(P, False, n_features, &data[0] if data.shape[0] else NULL,
                &indices[0] if indices.shape[0] else NULL, &indptr[0], _longest_row(indptr),
                scheme, kind, params, counts, <index_t *>NULL, <real_x *>NULL)


cdef Py_ssize_t _dense(Pass P, const real_x[:, ::1] X, Py_ssize_t n_features, int scheme,
                       int kind, double[::1] params, int64_t[::1] counts) except -2:
    """The pass over dense rows, C-contiguous, of the model's ``n_features`` (label sets,
    additive steps: their non-zeros)."""
    if X.shape[1] != n_features:
        raise ValueError(f"rows of {X.shape[1]} features, a model of {n_features}")
    cdef bint gather = P.T.code == TASK_LABEL_SETS and kind == UPDATE_ADDITIVE
    cdef const int64_t[::1] index = np.arange(n_features, dtype=np.int64)
    cdef int64_t[::1] nz_idx = np.empty(n_features + 8, dtype=np.int64)  # (_store.nonzeros)
    cdef real_x[::1] nz_vals = np.empty(n_features + 8,
                                        dtype=np.float32 if real_x is float else np.float64)
    return _run(P, True, n_features, &X[0, 0] if X.shape[0] * n_features else NULL,
                &index[0] if n_features else NULL, <const int64_t *>NULL, n_features, scheme,
                kind, params, counts, &nz_idx[0] if gather else NULL,
                &nz_vals[0] if gather else NULL)


def run_blocks_sparse(const real_x[::1] data, const index_t[::1] indices,
                      const index_t[::1] indptr, labels, block_ptr, parts, coupling, order,
                      double[::1] w, double[::1] scale, int scheme, int kind,
                      double[::1] params, int64_t[::1] counts, int8_t[::1] flags):
    """Online pass over the general blocks ``order`` of a CSR matrix (see the module doc)."""
    _check_csr(data, indices, indptr, w.shape[0])
    _sparse(_check_blocks(indptr.shape[0] - 1, labels, block_ptr, parts, coupling, order, w,
                          scale, params, counts, flags),
            data, indices, indptr, w.shape[0], scheme, kind, params, counts)


def run_blocks_dense(const real_x[:, ::1] X, labels, block_ptr, parts, coupling, order,
                     double[::1] w, double[::1] scale, int scheme, int kind, double[::1] params,
                     int64_t[::1] counts, int8_t[::1] flags):
    """Online pass over the general blocks ``order`` of a dense, C-contiguous X."""
    _dense(_check_blocks(X.shape[0], labels, block_ptr, parts, coupling, order, w, scale, params,
                         counts, flags),
           X, w.shape[0], scheme, kind, params, counts)


def step_block_dense(const real_x[:, ::1] Xb, labels, parts, coupling, double[::1] w,
                     double[::1] scale, int scheme, int kind, double[::1] params,
                     double[::1] lam):
    """One general-block trial on the dense rows ``Xb`` (in place); λ is written to ``lam``.
    Returns ``(imperfect, n_mistakes, updated)``.  For tests and diagnostics.

    Examples
    --------
    >>> import numpy as np
    >>> w, scale, lam = np.zeros(2), np.ones(1), np.empty(2)
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> step_block_dense(X, np.ones(2), np.empty(0, np.int64), np.empty(0), w, scale,
    ...                  SIMPROJ, UPDATE_ADDITIVE, make_params(C=1.0), lam)
    (True, 2, True)
    >>> lam.tolist(), w.tolist()
    ([0.5, 0.125], [0.5, 0.25])
    """
    cdef Py_ssize_t n_features = Xb.shape[1], k = Xb.shape[0], n_constraints, n_mistakes
    cdef bint updated
    _check_kind(scheme, kind)
    if w.shape[0] != n_features or lam.shape[0] < k:
        raise ValueError(f"rows of {n_features} features, a weight vector of {w.shape[0]}, "
                         f"{lam.shape[0]} entries of λ for {k} rows")
    cdef Pass P = _check_blocks(k, labels, [0, k], parts, coupling, np.zeros(1, np.int64), w,
                                scale, params, np.zeros(N_TRIAL_COUNTS, np.int64), None)
    cdef const int64_t[::1] index = np.arange(n_features, dtype=np.int64)
    cdef Work wk
    holder = _make_work(&wk, k, n_features, n_features, 1,
                        kind == UPDATE_ADDITIVE and (scheme == OPTIMAL or scheme == SOPOPO))
    updated = _trial(&P.T, True, n_features, &Xb[0, 0] if k * n_features else NULL,
                     &index[0] if n_features else NULL, <const int64_t *>NULL, 0, k, scheme,
                     kind, &params[0], &lam[0] if k else NULL, &wk, &n_constraints, &n_mistakes,
                     <const real_x *>NULL)
    return n_mistakes > 0, n_mistakes, updated


def run_labelsets_sparse(const real_x[::1] data, const index_t[::1] indices,
                         const index_t[::1] indptr, Y, order, double[:, ::1] W,
                         double[::1] scale, int scheme, int kind, double[::1] params,
                         int64_t[::1] counts, int8_t[::1] flags, weights):
    """Online pass over the CSR rows ``order`` with relevance indicator Y (n, k) uint8;
    ``weights`` (empty: none) scale each example's budget C."""
    _check_csr(data, indices, indptr, W.shape[0])
    _sparse(_check_labelsets(indptr.shape[0] - 1, Y, order, W, scale, params, counts, flags,
                             weights),
            data, indices, indptr, W.shape[0], scheme, kind, params, counts)


def run_labelsets_dense(const real_x[:, ::1] X, Y, order, double[:, ::1] W, double[::1] scale,
                        int scheme, int kind, double[::1] params, int64_t[::1] counts,
                        int8_t[::1] flags, weights):
    """Online pass over the dense rows ``X[order]`` with relevance indicator Y (n, k) uint8;
    ``weights`` as in :func:`run_labelsets_sparse`.

    Returns −1, or the index of the first row of the pass that is not accepted (not finite, or
    a norm out of range: :mod:`.rows`, from the ``‖x‖²`` the trial sums anyway); that row
    changed nothing, but ``W``, ``scale``, ``counts`` and ``flags`` hold the trials before it:
    a caller whose rows are not checked passes copies and keeps them only on −1."""
    cdef Pass P = _check_labelsets(X.shape[0], Y, order, W, scale, params, counts, flags,
                                   weights)
    cdef Py_ssize_t bad = _dense(P, X, W.shape[0], scheme, kind, params, counts)
    return -1 if bad < 0 else P.order[bad]


def run_ordinal_sparse(const real_x[::1] data, const index_t[::1] indices,
                       const index_t[::1] indptr, ranks, order, double[::1] w, double[::1] b,
                       int scheme, double[::1] params, int64_t[::1] counts, int8_t[::1] flags,
                       weights):
    """Online ordinal pass over the CSR rows ``order`` (ranks 0..k−1, ``b`` has k−1 entries);
    ``weights`` (empty: none) scale each example's budget C."""
    _check_csr(data, indices, indptr, w.shape[0])
    _sparse(_check_ordinal(indptr.shape[0] - 1, ranks, order, w, b, params, counts, flags,
                           weights),
            data, indices, indptr, w.shape[0], scheme, UPDATE_ADDITIVE, params, counts)


def run_ordinal_dense(const real_x[:, ::1] X, ranks, order, double[::1] w, double[::1] b,
                      int scheme, double[::1] params, int64_t[::1] counts, int8_t[::1] flags,
                      weights):
    """Online ordinal pass over the dense rows ``X[order]``; ``weights`` as in
    :func:`run_ordinal_sparse`."""
    _dense(_check_ordinal(X.shape[0], ranks, order, w, b, params, counts, flags, weights), X,
           w.shape[0], scheme, UPDATE_ADDITIVE, params, counts)


def gathered(int task, X, targets, weights, scale, thresholds, int kind, double[::1] params,
             parts=None, coupling=None):
    """What the trial's step 1 gathers of one trial of ``task`` (a ``TASK_*`` code) on the
    dense rows ``X``, without a step: general blocks, the block's rows with ``targets`` their
    ±1 labels (``parts``, ``coupling`` optional); label sets, one row with ``targets`` its
    relevance row; ordinal, one row with ``targets`` its rank.  ``weights`` (w or W), ``scale``
    (label sets, general blocks) and ``thresholds`` (ordinal) are the model's.  Returns a dict
    of the constraints' ``margin``, ``sqnorm``, ``set`` and ``coupling`` arrays — for the tests
    that hold them against the tasks' ``constraints()``."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2 or (task != TASK_BLOCKS and X.shape[0] != 1):
        raise ValueError(f"rows of shape {X.shape}: a block's rows, or one row")
    cdef const double[:, ::1] rows = X
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k, nnz, j
    cdef const int64_t[::1] index = np.arange(d, dtype=np.int64)
    cdef const int64_t *idx
    cdef const double *vals
    cdef int64_t[::1] no_counts = np.zeros(N_TRIAL_COUNTS, np.int64)
    cdef Pass P
    if task == TASK_BLOCKS:
        P = _check_blocks(n, targets, [0, n], parts, coupling, np.zeros(1, np.int64), weights,
                          scale, params, no_counts, None)
    elif task == TASK_LABEL_SETS:
        P = _check_labelsets(1, np.atleast_2d(targets), np.zeros(1, np.int64), weights, scale,
                             params, no_counts, None, None)
        P.T.relevant = P.T.Y
    elif task == TASK_ORDINAL:
        P = _check_ordinal(1, np.atleast_1d(targets), np.zeros(1, np.int64), weights,
                           thresholds, params, no_counts, None, None)
        P.T.rank = P.T.ranks[0]
    else:
        raise ValueError(f"no task of code {task}")
    if (P.T.L.n if task == TASK_LABEL_SETS else np.shape(weights)[0]) != d:
        raise ValueError(f"rows of {d} features, weights of shape {np.shape(weights)}")
    cdef Work wk
    holder = _make_work(&wk, P.most, d, d, P.T.L.m if task == TASK_LABEL_SETS else 1, False)
    P.T.decompose = _decomposition(&params[0], params.shape[0])
    k = _gather(&P.T, True, d, &rows[0, 0] if n * d else NULL, &index[0] if d else NULL,
                <const int64_t *>NULL, 0, n if task == TASK_BLOCKS else 1, kind, &wk,
                <const double *>NULL, &idx, &vals, &nnz)
    k = max(k, 0)
    return {"margin": np.array([wk.margin[j] for j in range(k)]),
            "sqnorm": np.array([wk.sqnorm[j] for j in range(k)]),
            "set": np.array([wk.local[j] for j in range(k)], dtype=np.int64),
            "coupling": np.array([wk.coupling[j] for j in range(k)])}


# =============================================================================================
# One row at a time: learn_one's trials
# =============================================================================================
cdef inline Py_ssize_t _pair_bound(const uint8_t *relevant, Py_ssize_t n_classes) noexcept nogil:
    """An upper bound on the pairs of a label-set trial: (labels that can be relevant) ×
    (labels that can be irrelevant), the calibration label counted on both sides."""
    cdef Py_ssize_t n_rel = 0, n_irr = 0, c
    for c in range(n_classes):
        if relevant[c] >= 1:
            n_rel += 1
        if relevant[c] != 1:
            n_irr += 1
    return n_rel * n_irr


cdef object _relevance_row(object relevant, Py_ssize_t m):
    """One relevance row of the model's m classes (values 0, 1 or 2) as C-contiguous uint8."""
    cdef const uint8_t[::1] row
    cdef Py_ssize_t c
    if not (isinstance(relevant, np.ndarray) and relevant.dtype == np.uint8
            and relevant.ndim == 1 and relevant.flags.c_contiguous):
        relevant = np.asarray(relevant)
        if relevant.dtype != np.uint8:
            if relevant.size and not np.isin(relevant, (0, 1, 2)).all():
                raise ValueError("relevance values must be 0, 1 or 2")
            relevant = relevant.astype(np.uint8)
        relevant = np.ascontiguousarray(relevant)
    row = relevant
    if row.ndim != 1 or row.shape[0] != m:
        raise ValueError(f"a relevance row of {row.shape[0]} values for {m} classes")
    for c in range(m):
        if row[c] > 2:
            raise ValueError("relevance values must be 0, 1 or 2")
    return row


cdef object _one_row(object idx, object vals):
    """``(column indices, values)`` of one row as the compiled trials take them: int64 or int32,
    and float64 or float32, C-contiguous 1-D arrays of one length (converted if need be)."""
    if not (cnp.PyArray_Check(idx) and cnp.PyArray_NDIM(<cnp.ndarray>idx) == 1
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>idx)
            and cnp.PyArray_TYPE(<cnp.ndarray>idx) in (cnp.NPY_INT64, cnp.NPY_INT32)):
        idx = np.ascontiguousarray(idx, dtype=np.int64)
    if not (cnp.PyArray_Check(vals) and cnp.PyArray_NDIM(<cnp.ndarray>vals) == 1
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>vals)
            and cnp.PyArray_TYPE(<cnp.ndarray>vals) in (cnp.NPY_FLOAT64, cnp.NPY_FLOAT32)):
        vals = np.ascontiguousarray(vals, dtype=np.float64)
    if idx.ndim != 1 or vals.ndim != 1 or idx.shape[0] != vals.shape[0]:
        raise ValueError(f"a row of {np.shape(idx)} indices and {np.shape(vals)} values")
    return idx, vals


cdef int _check_columns(const index_t *idx, Py_ssize_t nnz, Py_ssize_t n_features) except -1:
    cdef Py_ssize_t p
    for p in range(nnz):
        if not 0 <= idx[p] < n_features:
            raise ValueError(f"column {idx[p]} of a model of {n_features} features")
    return 0


cdef int _counted_row(Task *T, Py_ssize_t n_features, const index_t *idx, const real_x *vals,
                      Py_ssize_t nnz, int scheme, int kind, const double *params,
                      int64_t *counts, Work *wk) except -1:
    """One checked trial of one row, counted."""
    cdef Py_ssize_t k, n_mistakes
    cdef bint updated
    _check_columns(idx, nnz, n_features)
    updated = _row_trial(T, n_features, idx, vals, nnz, scheme, kind, params, wk, &k,
                         &n_mistakes, <const real_x *>NULL)
    count_trial(counts, NULL, 0, k, n_mistakes, updated)
    return 0


cdef int _learn_one(Task *T, Py_ssize_t n_features, idx, vals, int scheme, int kind,
                    double[::1] params, int64_t[::1] counts, Py_ssize_t most, Py_ssize_t m,
                    double *scores) except -1:
    """:func:`_counted_row` on the row ``(idx, vals)`` of any of its dtypes (:func:`_one_row`),
    in scratch for ``most`` constraints of ``m`` classes; ``scores`` (or NULL) receives the
    label sets' class scores before the trial."""
    idx, vals = _one_row(idx, vals)
    cdef Py_ssize_t nnz = idx.shape[0]
    cdef Work wk
    holder = _make_work(&wk, most, 0, nnz, m, False)
    T.decompose = _decomposition(&params[0], params.shape[0])
    cdef void *ip = cnp.PyArray_DATA(<cnp.ndarray>idx)
    cdef void *vp = cnp.PyArray_DATA(<cnp.ndarray>vals)
    cdef bint int64 = cnp.PyArray_TYPE(<cnp.ndarray>idx) == cnp.NPY_INT64
    cdef bint float64 = cnp.PyArray_TYPE(<cnp.ndarray>vals) == cnp.NPY_FLOAT64
    if int64 and float64:
        _counted_row(T, n_features, <const int64_t *>ip, <const double *>vp, nnz, scheme, kind,
                     &params[0], &counts[0], &wk)
    elif int64:
        _counted_row(T, n_features, <const int64_t *>ip, <const float *>vp, nnz, scheme, kind,
                     &params[0], &counts[0], &wk)
    elif float64:
        _counted_row(T, n_features, <const int32_t *>ip, <const double *>vp, nnz, scheme, kind,
                     &params[0], &counts[0], &wk)
    else:
        _counted_row(T, n_features, <const int32_t *>ip, <const float *>vp, nnz, scheme, kind,
                     &params[0], &counts[0], &wk)
    if scores != NULL:
        for nnz in range(m):
            scores[nnz] = wk.scores[nnz]
    return 0


cdef Py_ssize_t _top(const double *scores, Py_ssize_t m) noexcept nogil:
    """The index of the top score (np.argmax: the first maximum, NaN above every number)."""
    cdef Py_ssize_t best = 0, p
    for p in range(1, m):
        if scores[best] != scores[best]:
            break
        if scores[p] > scores[best] or scores[p] != scores[p]:
            best = p
    return best


def learn_one_labelset(idx, vals, relevant, double[:, ::1] W, double[::1] scale, int scheme,
                       int kind, double[::1] params, int64_t[::1] counts, double[::1] scores):
    """The streaming step on one row (column indices ``idx``, values ``vals``, relevance row
    ``relevant``): ``scores`` receives the class scores before the update (the prediction);
    returns the index of the top score (the first one on a tie: the multiclass prediction)."""
    cdef Py_ssize_t m = W.shape[1]
    _check_kind(scheme, kind)
    if scores.shape[0] != m or scale.shape[0] < 1 or params.shape[0] < N_PARAMS - 1 \
            or counts.shape[0] < _N_TRIAL_COUNTS:
        raise ValueError(f"{scores.shape[0]} scores for {m} classes; the scale is an array of "
                         f"one entry, params has {N_PARAMS - 1} or more entries "
                         f"(make_params), counts {N_TRIAL_COUNTS}")
    cdef const uint8_t[::1] rel = _relevance_row(relevant, m)
    cdef Task T = _labelset_model(W, scale)
    T.relevant = &rel[0] if m else NULL
    _learn_one(&T, W.shape[0], idx, vals, scheme, kind, params, counts,
               _pair_bound(&rel[0], m) if m else 1, m, &scores[0] if m else NULL)
    return _top(&scores[0], m) if m else 0


def learn_one_ordinal(idx, vals, int64_t rank, double[::1] w, double[::1] b, int scheme,
                      double[::1] params, int64_t[::1] counts):
    """The streaming step on one row: returns the score ``w·x`` before the update (the
    prediction is the first threshold not below it)."""
    if params.shape[0] < N_PARAMS - 1 or counts.shape[0] < _N_TRIAL_COUNTS:
        raise ValueError(f"params must have {N_PARAMS - 1} or more entries (make_params), "
                         f"counts {N_TRIAL_COUNTS}")
    cdef Task T = _ordinal_model(w, b)
    T.rank = rank
    _learn_one(&T, w.shape[0], idx, vals, scheme, UPDATE_ADDITIVE, params, counts, b.shape[0], 1,
               NULL)
    return T.score


cdef class _Round:
    """``learn_one``'s trial of one row on a started model in one compiled call: the model's
    arrays checked once, when the object is made, and the trial's scratch held, so that a call
    checks only its row and label — as :class:`onlinear._core.row_pass.RowRound` does for the
    row engines.

    ``dense(x, y)`` takes a 1-D C-contiguous float64 row of the model's width (all its values,
    zeros included), ``sparse(indptr, indices, data, y)`` a one-row canonical CSR matrix's
    arrays (int32 indices, float64 values, within the width).  Each returns what the task
    predicted before the trial, or −1 having changed nothing — a row of another kind or width,
    not finite or of a norm outside ``[2^-e, 2^e]`` (``e = exponent``), or a label outside the
    model — so that the caller's general path takes the call and names the problem."""
    cdef object arrays
    cdef Task T
    cdef double *params
    cdef Py_ssize_t n_params, d
    cdef int64_t *counts
    cdef int scheme, kind, exponent
    cdef Work wk
    cdef _Block holder
    cdef int64_t *index
    cdef uint8_t *relevance
    cdef double label

    def __cinit__(self, *args, **kwargs):
        self.index = NULL
        self.relevance = NULL

    def __dealloc__(self):
        free(self.index)
        free(self.relevance)

    cdef int _start(self, Task T, Py_ssize_t d, Py_ssize_t most, double[::1] scale, int scheme,
                    int kind, double[::1] params, int64_t[::1] counts, int exponent,
                    object arrays) except -1:
        cdef Py_ssize_t j, m = T.L.m if T.code == TASK_LABEL_SETS else 1
        _check_kind(scheme, kind)
        if scale.shape[0] < 1 or params.shape[0] < N_PARAMS - 1 \
                or counts.shape[0] < _N_TRIAL_COUNTS or m < 1:
            raise ValueError(f"the scale is an array of one entry, params has {N_PARAMS - 1} "
                             f"or more entries (make_params), counts {N_TRIAL_COUNTS}, and "
                             "the weights a column per label")
        self.arrays, self.T, self.d = arrays, T, d
        self.params, self.n_params, self.counts = &params[0], params.shape[0], &counts[0]
        self.scheme, self.kind, self.exponent = scheme, kind, exponent
        self.holder = _make_work(&self.wk, most, d if T.code == TASK_BLOCKS else 0, d, m,
                                 T.code == TASK_BLOCKS and kind == UPDATE_ADDITIVE
                                 and (scheme == OPTIMAL or scheme == SOPOPO))
        self.index = <int64_t *>malloc((d + 1) * sizeof(int64_t))
        self.relevance = <uint8_t *>calloc(m, 1)
        if self.index == NULL or self.relevance == NULL:
            raise MemoryError()
        for j in range(d):  # (a dense row's columns)
            self.index[j] = j
        self.T.labels, self.T.relevant = &self.label, self.relevance
        return 0

    cdef bint _target(self, Py_ssize_t y):
        """The trial's target from the label's index ``y``; False if there is none."""
        if self.T.code == TASK_BLOCKS:
            self.label = 1.0 if y == 1 else -1.0
            return 0 <= y <= 1
        if not 0 <= y < self.T.L.m:
            return False
        self.relevance[y] = 1
        self.T.decompose = _decomposition(self.params, self.n_params)
        return True

    cdef Py_ssize_t _counted(self, Py_ssize_t y, Py_ssize_t k, Py_ssize_t n_mistakes,
                             bint updated):
        count_trial(self.counts, NULL, 0, k, n_mistakes, updated)
        if self.T.code == TASK_BLOCKS:
            # the score before the trial: its margin y·scale·(ω·x), y = ±1
            return 1 if self.label * self.wk.margin[0] > 0.0 else 0
        self.relevance[y] = 0
        return _top(self.wk.scores, self.T.L.m)

    def dense(self, x, Py_ssize_t y):
        cdef const double *row = dense_row(x, self.d, self.exponent)
        cdef Py_ssize_t k, n_mistakes
        cdef bint updated
        if row == NULL or not self._target(y):
            return -1
        with nogil:
            updated = _row_trial(&self.T, self.d, <const int64_t *>self.index, row, self.d,
                                 self.scheme, self.kind, self.params, &self.wk, &k, &n_mistakes,
                                 <const double *>NULL)
        return self._counted(y, k, n_mistakes, updated)

    def sparse(self, indptr, indices, data, Py_ssize_t y):
        cdef const int32_t *columns = NULL
        cdef const double *values = NULL
        cdef Py_ssize_t n = csr_row(indptr, indices, data, self.d, self.exponent, &columns,
                                    &values)
        cdef Py_ssize_t k, n_mistakes
        cdef bint updated
        if n < 0 or not self._target(y):
            return -1
        with nogil:
            updated = _row_trial(&self.T, self.d, columns if n else <const int32_t *>NULL,
                                 values if n else <const double *>NULL, n, self.scheme,
                                 self.kind, self.params, &self.wk, &k, &n_mistakes,
                                 <const double *>NULL)
        return self._counted(y, k, n_mistakes, updated)


cdef class BlockRowRound(_Round):
    """The :class:`_Round` of a general-block model (§2, one prototype): ``y`` is the label's
    index, 1 the positive side (+1), 0 the negative one (−1); returns the index predicted
    before the trial (1 where the score ω·x is positive), the very trial a one-row
    :func:`run_blocks_sparse` plays."""

    def __init__(self, double[::1] w, double[::1] scale, int scheme, int kind,
                 double[::1] params, int64_t[::1] counts, int exponent):
        self._start(_block_model(w, scale), w.shape[0], 1, scale, scheme, kind, params, counts,
                    exponent, (w, scale, params, counts))


cdef class LabelSetRound(_Round):
    """The :class:`_Round` of a label-set model's multiclass trial (its pairs: the true label
    against each other one): ``y`` is the index of the true label; returns the index of the
    top score before the trial (ties: the lowest), the very trial :func:`learn_one_labelset`
    plays on that row with the relevance row ``e_y``."""

    def __init__(self, double[:, ::1] W, double[::1] scale, int scheme, int kind,
                 double[::1] params, int64_t[::1] counts, int exponent):
        self._start(_labelset_model(W, scale), W.shape[0], W.shape[1] - 1, scale, scheme, kind,
                    params, counts, exponent, (W, scale, params, counts))




# =============================================================================================
# The entry points' checks: every index the loops read is checked here
# =============================================================================================
cdef int _check_kind(int scheme, int kind) except -1:
    if kind == UPDATE_MULTIPLICATIVE and (scheme == OPTIMAL or scheme == SOPOPO):
        raise ValueError("the multiplicative form has no exact solver (optimal/sopopo)")
    return 0


cdef int _check_csr(const real_x[::1] data, const index_t[::1] indices,
                    const index_t[::1] indptr, Py_ssize_t n_features) except -1:
    """Row pointers rising from 0 within the stored values, column indices within the model's
    width."""
    cdef Py_ssize_t r, p
    if indptr.shape[0] < 1 or indptr[0] < 0 or data.shape[0] != indices.shape[0]:
        raise ValueError("a CSR matrix's row pointers must not be negative, its values and "
                         "indices be as many")
    for r in range(indptr.shape[0] - 1):
        if indptr[r + 1] < indptr[r]:
            raise ValueError("a CSR matrix's row pointers must not decrease")
    if indptr[indptr.shape[0] - 1] > indices.shape[0]:
        raise ValueError("a CSR matrix's row pointers run past its values")
    for p in range(indices.shape[0]):
        if not 0 <= indices[p] < n_features:
            raise ValueError(f"column {indices[p]} of a model of {n_features} features")
    return 0


cdef Py_ssize_t _longest_row(const index_t[::1] indptr):
    cdef Py_ssize_t r, longest = 0
    for r in range(indptr.shape[0] - 1):
        longest = max(longest, indptr[r + 1] - indptr[r])
    return longest


cdef object _vector(object array, object dtype, Py_ssize_t size, str name):
    """``array`` as a C-contiguous array of ``dtype`` with 0 (when ``size`` is not −1: none) or
    ``size`` entries (−1: any number)."""
    array = np.ascontiguousarray(array if array is not None else np.zeros(0, dtype), dtype=dtype)
    if array.ndim != 1 or (size >= 0 and array.shape[0] not in (0, size)):
        raise ValueError(f"{name}: {size} entries expected, got shape {array.shape}")
    return array


cdef int _check_common(Py_ssize_t n_rows, const int64_t[::1] order, double[::1] scale,
                       double[::1] params, int64_t[::1] counts, object flags) except -1:
    cdef Py_ssize_t t
    for t in range(order.shape[0]):
        if not 0 <= order[t] < n_rows:
            raise IndexError(f"trial {order[t]} of a pass over {n_rows}")
    if scale is not None and scale.shape[0] < 1:
        raise ValueError("the scale is an array of one entry")
    if params.shape[0] < N_PARAMS - 1 or counts.shape[0] < _N_TRIAL_COUNTS:
        raise ValueError(f"params must have {N_PARAMS - 1} or more entries (make_params), "
                         f"counts {N_TRIAL_COUNTS}")
    if flags is not None and 0 < flags.shape[0] < order.shape[0]:
        raise ValueError(f"flags: none or one per trial ({order.shape[0]}), got "
                         f"{flags.shape[0]}")
    return 0




cdef Task _block_model(double[::1] w, double[::1] scale):
    """The Task of general blocks on the model ``(w, scale)`` (no targets yet)."""
    cdef Task T
    T.code = TASK_BLOCKS
    T.w = &w[0] if w.shape[0] else NULL
    T.scale = &scale[0]
    T.labels, T.parts, T.coupling = NULL, NULL, NULL
    return T


cdef Task _labelset_model(double[:, ::1] W, double[::1] scale):
    """The Task of label sets on the model ``(W, scale)``, W feature-major."""
    cdef Task T
    T.code = TASK_LABEL_SETS
    T.w = &W[0, 0] if W.shape[0] * W.shape[1] else NULL
    T.scale = &scale[0]
    T.L.n, T.L.m, T.L.sj, T.L.sr = W.shape[0], W.shape[1], W.shape[1], 1
    return T


cdef Task _ordinal_model(double[::1] w, double[::1] b):
    """The Task of ordinal regression on the model ``(w, b)`` (no scale)."""
    cdef Task T
    T.code = TASK_ORDINAL
    T.w = &w[0] if w.shape[0] else NULL
    T.scale = NULL
    T.b = &b[0] if b.shape[0] else NULL
    T.n_thresholds = b.shape[0]
    return T


cdef class Pass:
    """The checked arrays of a pass, the task they make and pointers into them."""
    cdef object arrays
    cdef Task T
    cdef const int64_t *order
    cdef Py_ssize_t n_order
    cdef Py_ssize_t most  # the most constraints of a trial
    cdef int8_t *flags
    cdef const double *weights


cdef Pass _pass_of(Task T, object arrays, const int64_t[::1] trials, Py_ssize_t most,
                   int8_t[::1] flags, const double[::1] weight):
    cdef Pass P = Pass()
    P.T = T
    P.arrays = arrays
    P.order = &trials[0] if trials.shape[0] else NULL
    P.n_order = trials.shape[0]
    P.most = most
    P.flags = &flags[0] if flags is not None and flags.shape[0] else NULL
    P.weights = &weight[0] if weight is not None and weight.shape[0] else NULL
    return P


cdef Pass _check_blocks(Py_ssize_t n_rows, labels, block_ptr, parts, coupling, order,
                        double[::1] w, double[::1] scale, double[::1] params,
                        int64_t[::1] counts, int8_t[::1] flags):
    """Labels (one per row, as float64), block pointers rising within the rows, parts (none,
    or one set id per row, 0 ≤ id < its block's size), coupling (none, or one per row), the
    trials ``order`` within the blocks."""
    cdef const double[::1] lab = _vector(labels, np.float64, -1, "labels")
    cdef const int64_t[::1] ptr = _vector(block_ptr, np.int64, -1, "block_ptr")
    cdef const int64_t[::1] part = _vector(parts, np.int64, n_rows, "parts")
    cdef const double[::1] coup = _vector(coupling, np.float64, n_rows, "coupling")
    cdef const int64_t[::1] trials = _vector(order, np.int64, -1, "order")
    cdef Py_ssize_t t, j, longest = 0
    if lab.shape[0] != n_rows:
        raise ValueError(f"{lab.shape[0]} labels for {n_rows} rows")
    if ptr.shape[0] < 1 or ptr[0] < 0 or ptr[ptr.shape[0] - 1] > n_rows:
        raise ValueError(f"block_ptr must rise within the rows ({n_rows})")
    for t in range(ptr.shape[0] - 1):
        if ptr[t + 1] < ptr[t]:
            raise ValueError(f"block_ptr must rise within the rows ({n_rows})")
        longest = max(longest, ptr[t + 1] - ptr[t])
        if part.shape[0]:
            for j in range(ptr[t], ptr[t + 1]):
                if not 0 <= part[j] < ptr[t + 1] - ptr[t]:
                    raise ValueError(f"part {part[j]} of a trial of {ptr[t + 1] - ptr[t]} rows")
    _check_common(ptr.shape[0] - 1, trials, scale, params, counts, flags)
    cdef Task T = _block_model(w, scale)
    T.block_ptr = &ptr[0]
    T.labels = &lab[0] if lab.shape[0] else NULL
    T.parts = &part[0] if part.shape[0] else NULL
    T.coupling = &coup[0] if coup.shape[0] else NULL
    return _pass_of(T, (lab, ptr, part, coup, trials), trials, longest, flags, None)


cdef Pass _check_labelsets(Py_ssize_t n_rows, Y, order, double[:, ::1] W, double[::1] scale,
                           double[::1] params, int64_t[::1] counts, int8_t[::1] flags,
                           weights):
    """The relevance matrix (n_rows × the model's classes, values 0, 1 or 2), the trials'
    rows, the example weights; the largest number of pairs of a trial."""
    Y = np.ascontiguousarray(Y)
    if Y.ndim != 2 or Y.shape[0] != n_rows or Y.shape[1] != W.shape[1]:
        raise ValueError(f"a relevance matrix of shape {Y.shape} for {n_rows} rows and "
                         f"{W.shape[1]} classes")
    if Y.dtype != np.uint8:
        if Y.size and not np.isin(Y, (0, 1, 2)).all():
            raise ValueError("relevance values must be 0, 1 or 2")
        Y = Y.astype(np.uint8)
    cdef const uint8_t[:, ::1] rel = Y
    cdef const int64_t[::1] trials = _vector(order, np.int64, -1, "order")
    cdef const double[::1] weight = _vector(weights, np.float64, n_rows, "weights")
    cdef Py_ssize_t i, c, t, m = W.shape[1], most = 1
    for i in range(rel.shape[0]):
        for c in range(m):
            if rel[i, c] > 2:
                raise ValueError("relevance values must be 0, 1 or 2")
    _check_common(n_rows, trials, scale, params, counts, flags)
    for t in range(trials.shape[0]):  # the buffers must hold every trial's pairs
        most = max(most, _pair_bound(&rel[trials[t], 0], m) if m else 0)
    cdef Task T = _labelset_model(W, scale)
    T.Y = &rel[0, 0] if rel.shape[0] * m else NULL
    return _pass_of(T, (rel, trials, weight), trials, most, flags, weight)


cdef Pass _check_ordinal(Py_ssize_t n_rows, ranks, order, double[::1] w, double[::1] b,
                         double[::1] params, int64_t[::1] counts, int8_t[::1] flags, weights):
    """One rank per row, the trials' rows, the example weights."""
    cdef const int64_t[::1] rank = _vector(ranks, np.int64, -1, "ranks")
    cdef const int64_t[::1] trials = _vector(order, np.int64, -1, "order")
    cdef const double[::1] weight = _vector(weights, np.float64, n_rows, "weights")
    if rank.shape[0] != n_rows:
        raise ValueError(f"{rank.shape[0]} ranks for {n_rows} rows")
    _check_common(n_rows, trials, None, params, counts, flags)
    cdef Task T = _ordinal_model(w, b)
    T.ranks = &rank[0] if rank.shape[0] else NULL
    return _pass_of(T, (rank, trials, weight), trials, b.shape[0], flags, weight)
