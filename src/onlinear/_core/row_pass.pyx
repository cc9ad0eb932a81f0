# cython: language_level=3
"""The online pass of the engines whose round runs on a row's non-zeros: it checks the rows,
labels and order once (the rounds check nothing), and plays ``round(model, idx, vals, nnz, y)``
on each row of ``order`` in turn, without the GIL.

Rows are dense (C-contiguous float32/float64) or CSR (canonical: sorted indices, no duplicates;
int32/int64 indices).  A dense row is gathered to its non-zeros first (branch-free, by the
vectorised sweep of ``simd.h``) and a CSR row copied without its stored zeros to the same
(int64, float64) buffers, so that a dense row and its CSR form run the very same arithmetic:
identical results.  A round returns the label index it predicted, or −1 to stop the pass (a
value that is not finite), whose position the pass reports.

A dense pass checks each row itself, after gathering it (a sweep over X before the pass would
read every row from memory once more: as long as pa's whole pass on MNIST-sized rows): a row
that is not finite, or whose ``‖x‖²`` is outside the accepted range (:mod:`.rows`), stops the
pass before its round, the rounds before it taken, and :func:`run_rows_of` raises
:class:`RefusedRow` naming it (the model names the problem as the estimators' row check does,
and the estimator's snapshot undoes the rounds taken).

Averaging (``average=True`` of the held learners).  :func:`averaged_round` plays an engine's
round and keeps the sums from which the averaged hypothesis — the mean of the hypotheses after
every round, (1/T)·Σ_{t=1}^T w_t, rounds that change nothing included — is read: with R the
rounds closed since the last rebase and ``acc`` = Σ R_t·Δ_t (Δ_t the change of round t, R_t the
R before it), Σ_t w_t = R·w − acc, so the average is (R·w − acc)/T
(:func:`onlinear._core.weights.averaged`, the primal engine's sums at a scale of 1).  A round
records its change on the values it may move — the row's non-zeros in every class, O(K·nnz),
or all d·K values for a round that moves every weight (a full covariance's Σx) — from a copy
taken before it, so the engine's round itself is unchanged.  An engine whose weights also move off the rows it is played on,
its steps there deferred and taken when a row reaches them again (a regularized AdaGrad), gives
``deferred``: called before each round on that round's row, it subtracts from ``acc`` what the
hypotheses of the deferred rounds add to the sum beyond the stale value the sums saw there,
Σ_i (w_i − w_0) (the round then records the jump from w_0 as any change).  Once R reaches
``AVERAGE_REBASE`` (2^20) the sums are rebased (acc ← acc − R·w, R ← 0; O(d·K), amortized
O(d·K/2^20) a round): the recorded changes then carry a relative error of at most about
2^20·ε, as the primal engine's.
"""
import numpy as np
import scipy.sparse as sp

from .rows import check_csr_structure

from libc.stdint cimport int32_t, int64_t

cimport numpy as cnp
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from ._one_row cimport csr_row, dense_row
from ._store cimport (AVERAGE_REBASE, SQNORM_HIGH, SQNORM_LOW, index_t, nonzeros, prefetch,
                      real_x)
from ._sweeps cimport onlinear_simd_init

onlinear_simd_init()  # (a dense row's non-zeros: _store.pxd's nonzeros, simd.h)
cnp.import_array()  # (the one-row checks read numpy's C API)


class RefusedRow(ValueError):
    """A dense pass stopped before row ``row`` of X (position ``position`` of its order): not
    finite, or of a norm outside the accepted range; the rounds before it were taken."""

    def __init__(self, row, position):
        super().__init__(f"X row {row} (position {position} of the pass) is not finite or of a "
                         "norm outside the accepted range; the rounds before it were taken")
        self.row, self.position = row, position


cpdef check_pass(X, const int64_t[::1] y, const int64_t[::1] order, predictions,
                 Py_ssize_t n_features, Py_ssize_t n_classes):
    """Raise ValueError unless ``X`` (rows), ``y`` (label indices in 0 … max(n_classes, 2) − 1),
    ``order`` (row numbers) and ``predictions`` (None or int64 of len(order)) fit each other and
    a model of ``n_features`` features."""
    cdef Py_ssize_t t, top = max(n_classes, 2)
    if sp.issparse(X):
        if X.format != "csr":
            raise ValueError(f"sparse rows must be CSR, got {X.format!r}")
        if X.dtype not in (np.float32, np.float64):
            raise ValueError(f"rows must be float32 or float64, got {X.dtype}")
        check_csr_structure(X)
        if not X.has_canonical_format:
            raise ValueError("CSR rows must be canonical (sorted indices, no duplicates): "
                             "call X.sum_duplicates() first")
    else:
        if not isinstance(X, np.ndarray) or X.dtype not in (np.float32, np.float64):
            raise ValueError("dense rows must be a float32 or float64 numpy array")
        if X.ndim != 2 or not X.flags.c_contiguous:
            raise ValueError("dense rows must be a C-contiguous 2-D array")
    if X.shape[1] != n_features:
        raise ValueError(f"rows of {X.shape[1]} features for a model of {n_features}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"{y.shape[0]} labels for {X.shape[0]} rows")
    if predictions is not None and (not isinstance(predictions, np.ndarray)
                                    or predictions.dtype != np.int64
                                    or predictions.shape != (order.shape[0],)):
        raise ValueError(f"predictions must be an int64 array of {order.shape[0]} entries")
    for t in range(y.shape[0]):
        if not 0 <= y[t] < top:
            raise ValueError(f"label index {y[t]} (row {t}) of a model of {top} classes")
    for t in range(order.shape[0]):
        if not 0 <= order[t] < X.shape[0]:
            raise ValueError(f"row {order[t]} of a pass over {X.shape[0]} rows")


cpdef check_state(str name, array, tuple shape, dtype=np.float64):
    """Raise ValueError unless the state array ``array`` is a writeable C-contiguous numpy
    array of ``dtype`` and ``shape`` (the engines update it in place, unchecked)."""
    if (not isinstance(array, np.ndarray) or array.dtype != dtype
            or not array.flags.c_contiguous or not array.flags.writeable):
        raise ValueError(f"{name} must be a writeable C-contiguous {np.dtype(dtype).name} "
                         "numpy array")
    if array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape}, expected {shape}")


cdef bint reaches_every_feature(X, const int64_t[::1] order, Py_ssize_t n_features):
    """Whether a pass over the rows ``X[order]`` steps on about as many non-zeros as there are
    features (the rows' mean count of stored values times the rounds): then state kept beside
    the model for the pass, or a scan of it, costs less than the pass saves by it; a short
    pass on wide rows would spend more on the d·K values than it saves."""
    if n_features <= 0 or X.shape[0] == 0:
        return False
    stored = X.nnz if sp.issparse(X) else X.shape[0] * X.shape[1]
    return order.shape[0] * (stored / X.shape[0]) >= n_features


# ---------------------------------------------------------------------------------- averaging
#: the room ``before`` starts with for a round on a row's non-zeros (grown for longer rows)
cdef Py_ssize_t FIRST_ROOM = 4096


cdef int start_averaging(Averaging *A, row_round play, void *model, double *hypothesis,
                         Py_ssize_t d, Py_ssize_t K, bint everywhere, acc,
                         rounds) except -1:
    """Point ``A`` at the engine's round and model, its hypothesis (d, K) and the averaging
    sums ``acc`` ((d, K) float64) and ``rounds`` ((1,) float64), checked; its scratch is
    freed by :func:`stop_averaging`."""
    cdef double[:, ::1] acc_v
    cdef double[::1] rounds_v
    check_state("avg_acc", acc, (d, K))
    check_state("avg_rounds", rounds, (1,))
    if not (rounds[0] >= 0.0):
        raise ValueError("avg_rounds must be ≥ 0")
    acc_v = acc
    rounds_v = rounds
    A.play, A.model, A.hypothesis, A.deferred = play, model, hypothesis, NULL
    A.acc = &acc_v[0, 0] if d * K > 0 else NULL
    A.rounds = &rounds_v[0]
    A.d, A.K, A.everywhere, A.out_of_memory = d, K, everywhere, False
    A.capacity = K * (d if everywhere else min(d, FIRST_ROOM))
    A.before = <double *>malloc(max(A.capacity, 1) * sizeof(double))
    if A.before == NULL:
        raise MemoryError()
    return 0


cdef void stop_averaging(Averaging *A) noexcept:
    free(A.before)
    A.before = NULL
    A.capacity = 0


cdef Py_ssize_t averaged_round(void *averaging, const int64_t *idx, const double *vals,
                               Py_ssize_t nnz, Py_ssize_t y, bint *updated) noexcept nogil:
    """The engine's round on ``A.model``, its change recorded in the averaging sums (module
    doc); −1 when the round stopped (then only deferred changes were taken, and recorded), or
    no room was left for the copy before it (``A.out_of_memory``, nothing changed)."""
    cdef Averaging *A = <Averaging *>averaging
    cdef Py_ssize_t K = A.K, n = A.d * K if A.everywhere else nnz * K, i, p, k, at
    cdef double R = A.rounds[0]
    cdef double *room
    if n > A.capacity:
        room = <double *>realloc(A.before, n * sizeof(double))
        if room == NULL:
            A.out_of_memory = True
            return -1
        A.before, A.capacity = room, n
    if R >= AVERAGE_REBASE:
        for i in range(A.d * K):
            A.acc[i] -= R * A.hypothesis[i]
        R = A.rounds[0] = 0.0
    if A.deferred != NULL:
        A.deferred(A.model, idx, nnz, A.acc)
    if A.everywhere:
        memcpy(A.before, A.hypothesis, n * sizeof(double))
    else:
        for p in range(nnz):
            memcpy(A.before + p * K, A.hypothesis + idx[p] * K, K * sizeof(double))
    cdef Py_ssize_t predicted = A.play(A.model, idx, vals, nnz, y, updated)
    if R > 0.0:  # (a stopped round may have taken its row's deferred changes)
        if A.everywhere:
            for i in range(n):
                A.acc[i] += R * (A.hypothesis[i] - A.before[i])
        else:
            for p in range(nnz):
                for k in range(K):
                    at = idx[p] * K + k
                    A.acc[at] += R * (A.hypothesis[at] - A.before[p * K + k])
    if predicted >= 0:
        A.rounds[0] = R + 1.0
    return predicted


cdef tuple run_rows_of(row_round play, void *model, Averaging *A, X, const int64_t[::1] y,
                       const int64_t[::1] order, int64_t[::1] predictions):
    """:func:`run_rows` of the engine's ``play`` on ``model``, or, once ``A`` is started
    (:func:`start_averaging`), of :func:`averaged_round` on ``A``; MemoryError if a round
    found no room for its copy (the rounds before it taken)."""
    if A.before == NULL:
        result = run_rows(play, model, X, y, order, predictions)
    else:
        result = run_rows(averaged_round, A, X, y, order, predictions)
        if A.out_of_memory:
            raise MemoryError("no room for the averaging's copy of a round's values; the "
                              "rounds before it were taken")
    if result[2] <= -2:  # (a dense row refused)
        raise RefusedRow(int(order[-2 - result[2]]), -2 - result[2])
    return result


cdef Py_ssize_t play_row_of(row_round play, void *model, Averaging *A, indices, values,
                            Py_ssize_t y, Py_ssize_t n_features, Py_ssize_t n_classes,
                            bint *updated) except -2:
    """:func:`play_row` as :func:`run_rows_of` plays a pass (MemoryError, changing nothing,
    if the round found no room for its copy)."""
    if A.before == NULL:
        return play_row(play, model, indices, values, y, n_features, n_classes, updated)
    predicted = play_row(averaged_round, A, indices, values, y, n_features, n_classes, updated)
    if A.out_of_memory:
        raise MemoryError("no room for the averaging's copy of the round's values")
    return predicted


cdef Py_ssize_t play_row(row_round play, void *model, indices, values, Py_ssize_t y,
                         Py_ssize_t n_features, Py_ssize_t n_classes,
                         bint *updated) except -2:
    """One round of ``play`` on the row with ``values`` at the column ``indices`` (1-D, any
    integer and float dtypes; no repeated index), label index ``y``: the label index predicted,
    or −1 when the round stopped (nothing changed).  The row is checked (lengths, indices
    within the model and not repeated, the label) and its zero values dropped, as a pass does;
    no array is allocated when the indices are int64 and increasing and the values float64."""
    cdef const int64_t[::1] idx = np.ascontiguousarray(indices, dtype=np.int64).reshape(-1)
    cdef const double[::1] vals = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    cdef Py_ssize_t n = idx.shape[0], p, kept = 0, predicted
    cdef bint increasing = True
    if vals.shape[0] != n:
        raise ValueError("a row's values and indices differ in length")
    for p in range(n):
        if not 0 <= idx[p] < n_features:
            raise ValueError(f"column index {idx[p]} outside a model of {n_features} features")
        if p > 0 and idx[p] <= idx[p - 1]:
            increasing = False
    if not increasing and np.unique(np.asarray(idx)).shape[0] != n:
        raise ValueError("a row's column indices repeat (sum the duplicates first)")
    if not 0 <= y < max(n_classes, 2):
        raise ValueError(f"label index {y} of a model of {max(n_classes, 2)} classes")
    cdef int64_t *row_idx = <int64_t *>malloc((n + 1) * sizeof(int64_t))
    cdef double *row_vals = <double *>malloc((n + 1) * sizeof(double))
    try:
        if row_idx == NULL or row_vals == NULL:
            raise MemoryError()
        for p in range(n):  # the zeros dropped, as the passes drop them
            row_idx[kept] = idx[p]
            row_vals[kept] = vals[p]
            kept += vals[p] != 0
        predicted = play(model, row_idx, row_vals, kept, y, updated)
    finally:
        free(row_idx)
        free(row_vals)
    return predicted


cdef tuple run_rows(row_round play, void *model, X, const int64_t[::1] y,
                    const int64_t[::1] order, int64_t[::1] predictions):
    """``(n_mistakes, n_updates, failed)``: ``failed`` is the position in ``order`` of the round
    that stopped the pass, ``−2 − position`` of a dense row refused before its round
    (:func:`_dense`), or −1.  The arguments must have passed :func:`check_pass`."""
    cdef const float[:, ::1] X32
    cdef const double[:, ::1] X64
    if not sp.issparse(X):
        if X.dtype == np.float32:
            X32 = X
            return _dense(play, model, X32, y, order, predictions)
        X64 = X
        return _dense(play, model, X64, y, order, predictions)
    cdef const float[::1] data32
    cdef const double[::1] data64
    cdef const int32_t[::1] indices32, indptr32
    cdef const int64_t[::1] indices64, indptr64
    wide = X.indices.dtype == np.int64 or X.indptr.dtype == np.int64
    if wide:
        indices64 = X.indices.astype(np.int64, copy=False)
        indptr64 = X.indptr.astype(np.int64, copy=False)
    else:
        indices32 = X.indices
        indptr32 = X.indptr
    if X.dtype == np.float32:
        data32 = X.data
        if wide:
            return _sparse(play, model, data32, indices64, indptr64, y, order, predictions)
        return _sparse(play, model, data32, indices32, indptr32, y, order, predictions)
    data64 = X.data
    if wide:
        return _sparse(play, model, data64, indices64, indptr64, y, order, predictions)
    return _sparse(play, model, data64, indices32, indptr32, y, order, predictions)


cdef inline bint _counted(Py_ssize_t predicted, Py_ssize_t label, bint updated, Py_ssize_t t,
                          int64_t *kept, int64_t *counts) noexcept nogil:
    """Count round t (False, counting nothing, when the round stopped the pass)."""
    if predicted < 0:
        return False
    counts[0] += predicted != label
    counts[1] += updated
    if kept != NULL:
        kept[t] = predicted
    return True


cdef tuple _dense(row_round play, void *model, const real_x[:, ::1] X, const int64_t[::1] y,
                  const int64_t[::1] order, int64_t[::1] predictions):
    cdef Py_ssize_t d = X.shape[1], t, i, j, nnz, predicted, failed = -1
    cdef int64_t[2] counts = [0, 0]  # mistakes, updates
    cdef bint updated
    cdef double q0, q1, q2, q3, q
    cdef int64_t[::1] idx = np.empty(d + 8, np.int64)
    cdef double[::1] vals = np.empty(d + 8)
    cdef real_x[::1] raw = np.empty(d + 8, np.float32 if real_x is float else np.float64)
    cdef int64_t *kept = &predictions[0] if predictions is not None \
        and predictions.shape[0] > 0 else NULL
    with nogil:
        for t in range(order.shape[0]):
            i = order[t]
            nnz = nonzeros(&X[i, 0], d, &idx[0], &raw[0]) if d > 0 else 0
            for j in range(nnz):
                vals[j] = raw[j]
            # the row's check: its ‖x‖² in four partial sums (any order serves a range check,
            # and the chains run side by side; NaN and inf reach the sum), accepted within
            # [2^-e, 2^e] or zero with no non-zero (a square that underflowed is refused)
            q0 = q1 = q2 = q3 = 0.0
            j = 0
            while j + 4 <= nnz:
                q0 += vals[j] * vals[j]
                q1 += vals[j + 1] * vals[j + 1]
                q2 += vals[j + 2] * vals[j + 2]
                q3 += vals[j + 3] * vals[j + 3]
                j += 4
            while j < nnz:
                q0 += vals[j] * vals[j]
                j += 1
            q = (q0 + q1) + (q2 + q3)
            if nnz and not SQNORM_LOW <= q <= SQNORM_HIGH:
                failed = -2 - t
                break
            if t + 1 < order.shape[0] and d > 0:
                prefetch(&X[order[t + 1], 0], d * sizeof(real_x))
            predicted = play(model, &idx[0], &vals[0], nnz, y[i], &updated)
            if not _counted(predicted, y[i], updated, t, kept, counts):
                failed = t
                break
    return counts[0], counts[1], failed


cdef tuple _sparse(row_round play, void *model, const real_x[::1] data,
                   const index_t[::1] indices, const index_t[::1] indptr, const int64_t[::1] y,
                   const int64_t[::1] order, int64_t[::1] predictions):
    cdef Py_ssize_t t, i, p, start, nnz, predicted, failed = -1, longest = 0
    cdef int64_t[2] counts = [0, 0]  # mistakes, updates
    cdef bint updated
    for i in range(indptr.shape[0] - 1):
        longest = max(longest, indptr[i + 1] - indptr[i])
    cdef int64_t[::1] idx = np.empty(max(longest, 1), np.int64)
    cdef double[::1] vals = np.empty(max(longest, 1))
    cdef int64_t *kept = &predictions[0] if predictions is not None \
        and predictions.shape[0] > 0 else NULL
    with nogil:
        for t in range(order.shape[0]):
            i = order[t]
            start = indptr[i]
            nnz = 0
            for p in range(start, indptr[i + 1]):
                # stored zeros dropped (branch-free), as a dense row's zeros are
                idx[nnz] = indices[p]
                vals[nnz] = data[p]
                nnz += data[p] != 0
            predicted = play(model, &idx[0], &vals[0], nnz, y[i], &updated)
            if not _counted(predicted, y[i], updated, t, kept, counts):
                failed = t
                break
    return counts[0], counts[1], failed


cdef class RowRound:
    """``learn_one``'s round on a started model in one compiled call: the model's arrays
    checked once, when the object is made (an engine's subclass points ``model`` at its
    checked state), and its scratch held, so that a call checks only its row and label.

    ``dense(x, y)`` takes a 1-D C-contiguous float64 row of the model's width, ``sparse(indptr,
    indices, data, y)`` a one-row canonical CSR matrix's arrays (int32 indices, float64 values,
    within the width); each returns the label index predicted before the round, or −1 having
    changed nothing — a row of another kind or width, not finite, of a norm outside ``[2^-e,
    2^e]`` (``e``, the model's accepted range), or whose round is not finite — so that the
    caller's general path takes the call and names the problem.  The model's counters
    (``counts``: seen, mistakes, updates) are kept here."""

    def __cinit__(self, *args, **kwargs):
        self.idx = NULL
        self.vals = NULL
        self.columns = NULL
        self.every_column = False

    def __dealloc__(self):
        free(self.idx)
        free(self.vals)
        free(self.columns)

    cdef int start(self, Py_ssize_t d, Py_ssize_t K, int exponent, int64_t[::1] counts,
                   object arrays) except -1:
        """The width, classes, accepted norms, counters and the arrays to keep alive; the
        row buffers (room for ``d + 8``, as ``nonzeros`` writes)."""
        if counts.shape[0] < 3:
            raise ValueError("counts must have 3 entries (seen, mistakes, updates)")
        self.d, self.K, self.exponent, self.counts, self.arrays = d, K, exponent, counts, arrays
        self.idx = <int64_t *>malloc((d + 8) * sizeof(int64_t))
        self.vals = <double *>malloc((d + 8) * sizeof(double))
        if self.idx == NULL or self.vals == NULL:
            raise MemoryError()
        return 0

    cdef int play_dense_rows_whole(self) except -1:
        """Play a dense row whole (columns 0…d−1, its zeros included) rather than its
        non-zeros: for an engine whose dense pass does (the ellipsoid methods' full and
        stacked metrics), so that ``learn_one`` plays the very sums of ``fit``.  After
        :meth:`start`."""
        cdef Py_ssize_t j
        self.columns = <int64_t *>malloc((self.d + 1) * sizeof(int64_t))
        if self.columns == NULL:
            raise MemoryError()
        for j in range(self.d):
            self.columns[j] = j
        self.every_column = True
        return 0

    cdef void after(self):
        """An engine's own bookkeeping after a round (its repair counts...)."""

    cdef Py_ssize_t _play(self, Py_ssize_t kept, Py_ssize_t y):
        return self._play_row(self.idx, self.vals, kept, y)

    cdef Py_ssize_t _play_row(self, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                              Py_ssize_t y):
        cdef bint updated = False
        cdef Py_ssize_t predicted
        if not 0 <= y < max(self.K, 2):
            return -1
        with nogil:
            predicted = self.play(self.model, idx, vals, nnz, y, &updated)
        if predicted < 0:
            return -1
        self.after()
        self.counts[0] += 1
        self.counts[1] += predicted != y
        self.counts[2] += updated
        return predicted

    def dense(self, x, Py_ssize_t y):
        cdef const double *row = dense_row(x, self.d, self.exponent)
        if row == NULL:
            return -1
        if self.every_column:
            return self._play_row(self.columns, row, self.d, y)
        return self._play(nonzeros(row, self.d, self.idx, self.vals), y)

    def sparse(self, indptr, indices, data, Py_ssize_t y):
        cdef const int32_t *columns
        cdef const double *values
        cdef Py_ssize_t n = csr_row(indptr, indices, data, self.d, self.exponent, &columns,
                                    &values), p
        cdef Py_ssize_t kept = 0
        if n < 0:
            return -1
        for p in range(n):  # (its zeros dropped)
            self.idx[kept] = columns[p]
            self.vals[kept] = values[p]
            kept += values[p] != 0.0
        return self._play(kept, y)
