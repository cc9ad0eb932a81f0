"""The lazy weight store: one set of compiled functions (``_store.pxd``, inlined into each engine)
under the primal weights, the kernel
dual coefficients, the block learners' vectors and the ellipsoid's diagonal metric (in the
spirit of scikit-learn's ``utils/_weight_vector.pyx.tp``).

A store is raw values ``w`` (a 1-D array, or column r of a 2-D one) and a scale ``σ``: the true
values are ``σ·w``.  Multiplying the true values by c costs O(1) (``σ ← c·σ``); adding ``τ·x``
costs O(non-zeros of x) (``w ← w + (τ/σ)·x``); the scale is folded into w (O(size)) only when it
leaves ``[SCALE_LOW, SCALE_HIGH]``, before it can overflow or underflow.

Sizes.  The 2-D stores of the primal layout (:mod:`onlinear.rules.layout`) keep, per column, the
raw squared norm ``Σ_j w_j²`` (additive learners) and mass ``Σ_j w_j`` (multiplicative learners)
— summed afresh by a dense step of a rule that reads the norms (:func:`add_dense_row`), else —
by a running sum over the coordinates a step touches, with the exact re-anchoring guard: a
running sum keeps the absolute rounding error of the largest value it has held, so once the
size falls below half of its largest value since it was last exact (``SIZE_ANCHOR``) it is
recomputed exactly (:func:`must_reanchor`, :func:`keep_running`; the kernel engine recomputes
through the kernel).

Averaging: the sums from which the averaged hypothesis (the mean of the hypotheses after every
round) is read in O(size), kept in O(1) per round and O(changed values) per step through the
same lazy scale — see "averaging" below (the primal ``average=True``, the kernel learners).

Exponentiated steps ``w_j ← w_j·exp(e)`` clamp ``|e| ≤ MAX_EXPONENT`` and floor the result at
``MIN_WEIGHT``, so the unnormalized mass stays finite and every weight strictly positive.

Only the dense sweeps (whole dense rows on class-major weights, :mod:`onlinear._core.simd`)
reassociate their sums; everything else is IEEE arithmetic in a fixed order, the same on every
machine.  This module gives the store's functions to Python (float64 or float32 weights, float64
rows), for tests and for reading a model: the engines use the inline functions themselves.
"""
import numpy as np

from libc.stdint cimport int64_t

from ._store cimport (AVERAGE_REBASE as _AVERAGE_REBASE, MAX_EXPONENT as _MAX_EXPONENT,
                      MIN_WEIGHT as _MIN_WEIGHT, SCALE_HIGH as _SCALE_HIGH,
                      SCALE_HIGH_FLOAT32 as _SCALE_HIGH_FLOAT32, SCALE_LOW as _SCALE_LOW,
                      SCALE_LOW_FLOAT32 as _SCALE_LOW_FLOAT32, SIZE_FLOOR as _SIZE_FLOOR,
                      FIRST_RULE_ROW, Layout, add_dense, add_dense_pair, add_row as _add_row,
                      add_to_column as _add_to_column,
                      add_to_column_pair as _add_to_column_pair,
                      add_to_dense_column as _add_to_dense_column,
                      average_close_round as _average_close_round,
                      clear_column as _clear_column, exp_row as _exp_row,
                      must_reanchor as _must_reanchor, real_w,
                      rescale_column as _rescale_column, score_dense)
from ._sweeps cimport onlinear_simd_init

onlinear_simd_init()

SCALE_LOW = _SCALE_LOW
SCALE_HIGH = _SCALE_HIGH
#: The safe range of the lazy scale of float32 weights (``dtype="float32"``): the raw values
#: are the true ones divided by the scale, and float32 ends at 2^128 (float64 at 2^1024).
SCALE_LOW_FLOAT32 = _SCALE_LOW_FLOAT32
SCALE_HIGH_FLOAT32 = _SCALE_HIGH_FLOAT32
#: the averaging sums are rebased (O(size)) before a change is recorded once the sum of scales
#: exceeds this many times the current scale: the recorded changes then carry a relative error
#: of at most about 2^20·ε ≈ 2e-10, at an amortized cost of O(size/2^20) per round
AVERAGE_REBASE = _AVERAGE_REBASE
# A multiplicative exponent beyond this means η|x_j| far outside any bound's range; clamping it
# keeps the unnormalized mass finite, and the floor keeps every weight strictly positive.
MAX_EXPONENT = _MAX_EXPONENT
MIN_WEIGHT = _MIN_WEIGHT
#: A column's squared norm summed in float32 (float32 weights, :func:`add_dense_row`) is kept only
#: within ``[SIZE_FLOOR, inf)``: below, squares under float32's normal range (2^-126) could be a
#: noticeable part of it, and a square over 2^128 overflows; outside, it is summed in float64.
SIZE_FLOOR = _SIZE_FLOOR

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


def averaged(W, acc, avg, rounds):
    """The averaged true values ``(W·avg − acc)/T`` after ``rounds`` = T rounds (0 before any)."""
    if rounds == 0:
        return np.zeros_like(W)
    return (W * avg - acc) / rounds


# ------------------------------------------------------ the store's functions, from Python
cdef Layout _layout(W):
    """The layout of the 2-D weights ``W`` (any strides, in elements)."""
    cdef Layout L
    if W.ndim != 2 or W.dtype not in (np.float64, np.float32) or not W.flags.writeable:
        raise ValueError("weights must be a writable 2-D float64 or float32 array")
    L.n, L.m = W.shape
    L.sj = W.strides[0] // W.itemsize
    L.sr = W.strides[1] // W.itemsize
    return L


cdef double *_state(state, Py_ssize_t m) except NULL:
    if not (isinstance(state, np.ndarray) and state.dtype == np.float64 and state.ndim == 2
            and state.flags.c_contiguous and state.shape[1] == m
            and state.shape[0] >= FIRST_RULE_ROW):
        raise ValueError("state must be a C-contiguous float64 (rows, outputs) array")
    return <double *><size_t>state.ctypes.data


cdef double *_averaging(acc, avg, W) except? NULL:
    """The averaging sums' pointer (NULL: not averaging), ``acc`` in the layout of ``W``."""
    if avg.shape[0] == 0:
        return NULL
    if acc.shape != W.shape or acc.strides != W.strides or acc.dtype != np.float64 \
            or avg.shape[0] != W.shape[1]:
        raise ValueError("the averaging sums must have the weights' shape and layout")
    return <double *><size_t>acc.ctypes.data


cdef void *_data(W):
    return <void *><size_t>W.ctypes.data


def _row(idx, vals, n):
    idx = np.ascontiguousarray(idx, np.int64)
    vals = np.ascontiguousarray(vals, np.float64)
    if idx.shape != vals.shape or (idx.size and (idx.min() < 0 or idx.max() >= n)):
        raise ValueError("a row's indices and values must match, within the weights")
    return idx, vals


def add_row(idx, vals, w, double step):
    """``w += step·x`` on the non-zeros of the row ``(idx, vals)`` (raw units: ``step = τ/σ``);
    returns the change of ``Σ_j w_j²``, as ``Σ (new − old)(new + old)`` over the touched
    coordinates, of the values stored (float32 weights round each one) and in float64."""
    idx, vals = _row(idx, vals, w.shape[0])
    cdef const int64_t[::1] i = idx
    cdef const double[::1] v = vals
    cdef Py_ssize_t nnz = i.shape[0]
    if w.ndim != 1 or not w.flags.writeable:
        raise ValueError("w must be a writable 1-D array")
    if w.dtype == np.float32:
        return _add_row(&i[0] if nnz else <const int64_t *>NULL, &v[0] if nnz else <const double *>NULL, nnz, <float *>_data(w),
                        <Py_ssize_t>(w.strides[0] // 4), step)
    if w.dtype != np.float64:
        raise ValueError("w must be float64 or float32")
    return _add_row(&i[0] if nnz else <const int64_t *>NULL, &v[0] if nnz else <const double *>NULL, nnz, <double *>_data(w),
                    <Py_ssize_t>(w.strides[0] // 8), step)


def add_to_column(idx, vals, W, state, Py_ssize_t r, double tau, acc, avg):
    """``w_r ← w_r + τ·x`` (true units) on the non-zeros of the row ``(idx, vals)``, with the
    squared norm tracked (and the averaging sums, if kept)."""
    cdef Layout L = _layout(W)
    idx, vals = _row(idx, vals, L.n)
    cdef const int64_t[::1] i = idx
    cdef const double[::1] v = vals
    cdef Py_ssize_t nnz = i.shape[0]
    cdef double *s = _state(state, L.m)
    cdef double *a = _averaging(acc, avg, W)
    cdef double *g = NULL if a == NULL else <double *>_data(avg)
    if not 0 <= r < L.m:
        raise IndexError(r)
    if W.dtype == np.float32:
        _add_to_column(&i[0] if nnz else <const int64_t *>NULL, &v[0] if nnz else <const double *>NULL, nnz, <float *>_data(W),
                       L, s, r, tau, a, g)
    else:
        _add_to_column(&i[0] if nnz else <const int64_t *>NULL, &v[0] if nnz else <const double *>NULL, nnz, <double *>_data(W),
                       L, s, r, tau, a, g)


def rescale_column(W, state, Py_ssize_t r, double c, acc, avg):
    """``w_r ← c·w_r`` through the scale, folded when it leaves the safe range."""
    cdef Layout L = _layout(W)
    cdef double *s = _state(state, L.m)
    cdef double *a = _averaging(acc, avg, W)
    cdef double *g = NULL if a == NULL else <double *>_data(avg)
    if not 0 <= r < L.m:
        raise IndexError(r)
    if W.dtype == np.float32:
        _rescale_column(<float *>_data(W), L, s, r, c, a, g)
    else:
        _rescale_column(<double *>_data(W), L, s, r, c, a, g)


def clear_column(W, state, Py_ssize_t r, acc, avg):
    """Column r set to zero (a step with factor 0); the averaging sums keep what is removed."""
    cdef Layout L = _layout(W)
    cdef double *s = _state(state, L.m)
    cdef double *a = _averaging(acc, avg, W)
    cdef double *g = NULL if a == NULL else <double *>_data(avg)
    if not 0 <= r < L.m:
        raise IndexError(r)
    if W.dtype == np.float32:
        _clear_column(<float *>_data(W), L, s, r, a, g)
    else:
        _clear_column(<double *>_data(W), L, s, r, a, g)


def average_close_round(state, avg):
    """End of a round: every output's current hypothesis joins the averaging sums."""
    cdef double *s = _state(state, avg.shape[0])
    cdef double[::1] g = avg
    if g.shape[0]:
        _average_close_round(s, g.shape[0], &g[0])


def must_reanchor(state, Py_ssize_t r, Py_ssize_t row, double after):
    """Whether the running size ``after`` of ``state[row, r]`` has fallen below half of its
    largest value since it was last exact (then it must be recomputed exactly)."""
    cdef double *s = _state(state, state.shape[1])
    if not (0 <= r < state.shape[1] and 0 <= row < FIRST_RULE_ROW):
        raise IndexError((row, r))
    return _must_reanchor(s, state.shape[1], r, row, after)


def exp_row(idx, vals, w, double tau):
    """``w_j ← max(w_j·exp(τ x_j), MIN_WEIGHT)`` (the exponent clamped to ``±MAX_EXPONENT``) on
    the non-zeros of the row; returns the change of the raw mass ``Σ_j w_j``."""
    idx, vals = _row(idx, vals, w.shape[0])
    cdef const int64_t[::1] i = idx
    cdef const double[::1] v = vals
    cdef double[::1] target = w
    cdef Py_ssize_t nnz = i.shape[0]
    return _exp_row(&i[0] if nnz else <const int64_t *>NULL, &v[0] if nnz else <const double *>NULL, nnz, &target[0], 1, tau)


def fold_positive(double[::1] w, double scale):
    """``w ← max(σ·w, MIN_WEIGHT)``: the scale folded into a store that must stay positive (the
    multiplicative block learners' weights, the ellipsoid's diagonal metric)."""
    cdef Py_ssize_t j
    for j in range(w.shape[0]):
        w[j] = max(w[j] * scale, _MIN_WEIGHT)


def mass(const double[::1] w):
    """``Σ_j w_j`` (raw units)."""
    cdef double total = 0.0
    cdef Py_ssize_t j
    for j in range(w.shape[0]):
        total += w[j]
    return total


def dot(idx, vals, const double[::1] w):
    """``(w·x, ‖x‖²)`` over the non-zeros of the row ``(idx, vals)``, raw units."""
    idx, vals = _row(idx, vals, w.shape[0])
    cdef const int64_t[::1] i = idx
    cdef const double[::1] v = vals
    cdef double s = 0.0, q = 0.0, value
    cdef Py_ssize_t p
    for p in range(i.shape[0]):
        value = v[p]
        if value != 0.0:
            s += w[i[p]] * value
            q += value * value
    return s, q


cdef object _class_major(W, x):
    """Check ``W`` class-major (Fortran order, each column contiguous) and ``x`` of its height."""
    if not (W.ndim == 2 and W.flags.f_contiguous and W.flags.writeable
            and W.dtype in (np.float64, np.float32)):
        raise ValueError("W must be a writable Fortran-ordered float64 or float32 matrix")
    x = np.ascontiguousarray(x, np.float64)
    if x.shape != (W.shape[0],):
        raise ValueError("x must have one value per row of W")
    return x


def add_dense_row(x, W, Py_ssize_t r, double step):
    """``W[:, r] += step·x`` for a whole dense row and class-major ``W`` (vectorized, in the
    weights' precision); returns the column's new raw squared norm summed in the same sweep."""
    x = _class_major(W, x)
    cdef const double[::1] v = x
    cdef Py_ssize_t n = W.shape[0]
    if not 0 <= r < W.shape[1] or n == 0:
        raise IndexError(r)
    if W.dtype == np.float32:
        return add_dense(&v[0], <float *>_data(W) + r * n, n, step)
    return add_dense(&v[0], <double *>_data(W) + r * n, n, step)


def add_dense_row_pair(x, W, Py_ssize_t r, double step_r, Py_ssize_t s, double step_s):
    """:func:`add_dense_row` for the two columns r ≠ s in one sweep (x read once for both);
    returns their new raw squared norms."""
    x = _class_major(W, x)
    cdef const double[::1] v = x
    cdef Py_ssize_t n = W.shape[0]
    cdef double sizes[2]
    if not (0 <= r < W.shape[1] and 0 <= s < W.shape[1] and r != s and n > 0):
        raise IndexError((r, s))
    if W.dtype == np.float32:
        add_dense_pair(&v[0], <float *>_data(W) + r * n, step_r, <float *>_data(W) + s * n,
                       step_s, n, sizes)
    else:
        add_dense_pair(&v[0], <double *>_data(W) + r * n, step_r, <double *>_data(W) + s * n,
                       step_s, n, sizes)
    return sizes[0], sizes[1]


def add_to_dense_column(idx, x, W, state, Py_ssize_t r, double tau, acc, avg,
                        bint exact_norms, double raw, double q):
    """The additive step of one column for a whole dense row on class-major weights (see
    ``_store.pxd``), its squared norm summed afresh (``exact_norms``) or updated from ``raw``
    and ``q``."""
    x = _class_major(W, x)
    cdef const int64_t[::1] i = np.ascontiguousarray(idx, np.int64)
    cdef const double[::1] v = x
    cdef Layout L = _layout(W)
    cdef double *s = _state(state, L.m)
    cdef double *a = _averaging(acc, avg, W)
    cdef double *g = NULL if a == NULL else <double *>_data(avg)
    if not 0 <= r < L.m or i.shape[0] != L.n or L.n == 0:
        raise IndexError(r)
    if W.dtype == np.float32:
        _add_to_dense_column(&i[0], &v[0], <float *>_data(W), L, s, r, tau, a, g, exact_norms,
                             raw, q)
    else:
        _add_to_dense_column(&i[0], &v[0], <double *>_data(W), L, s, r, tau, a, g, exact_norms,
                             raw, q)


def add_to_column_pair(idx, x, W, state, Py_ssize_t r, double tau_r, Py_ssize_t s_,
                       double tau_s, acc, avg, bint exact_norms, double raw_r, double raw_s,
                       double q):
    """:func:`add_to_dense_column` for the two columns r ≠ s in one sweep over the row."""
    x = _class_major(W, x)
    cdef const int64_t[::1] i = np.ascontiguousarray(idx, np.int64)
    cdef const double[::1] v = x
    cdef Layout L = _layout(W)
    cdef double *st = _state(state, L.m)
    cdef double *a = _averaging(acc, avg, W)
    cdef double *g = NULL if a == NULL else <double *>_data(avg)
    if not (0 <= r < L.m and 0 <= s_ < L.m and r != s_) or i.shape[0] != L.n or L.n == 0:
        raise IndexError((r, s_))
    if W.dtype == np.float32:
        _add_to_column_pair(&i[0], &v[0], <float *>_data(W), L, st, r, tau_r, s_, tau_s, a, g,
                            exact_norms, raw_r, raw_s, q)
    else:
        _add_to_column_pair(&i[0], &v[0], <double *>_data(W), L, st, r, tau_r, s_, tau_s, a, g,
                            exact_norms, raw_r, raw_s, q)


def column_dots_dense(x, Wt, state, double[::1] scores):
    """True scores ``σ_r·(W_r·x)`` of a whole dense row ``x`` against the class-major weights
    ``Wt`` (C-contiguous ``(n_outputs, n_features)``, float64 or float32; x float64 or float32)
    into ``scores``; returns ``‖x‖²``: the dense scoring sweep of every engine
    (:mod:`onlinear._core.simd`), four outputs a sweep, every output summed alike."""
    cdef Py_ssize_t m = Wt.shape[0], d = Wt.shape[1]
    if not (Wt.ndim == 2 and Wt.flags.c_contiguous and Wt.dtype in (np.float32, np.float64)
            and x.ndim == 1 and x.shape[0] == d and x.flags.c_contiguous
            and x.dtype in (np.float32, np.float64) and scores.shape[0] == m and m > 0
            and d > 0):
        raise ValueError("x, the class-major weights and the scores do not fit each other")
    cdef double *s = _state(state, m)
    cdef void *w = _data(Wt)
    cdef void *v = _data(x)
    if x.dtype == np.float32 and Wt.dtype == np.float32:
        return score_dense(<float *>v, <float *>w, d, d, m, s, &scores[0])
    if x.dtype == np.float64 and Wt.dtype == np.float64:
        return score_dense(<double *>v, <double *>w, d, d, m, s, &scores[0])
    if x.dtype == np.float32:
        return score_dense(<float *>v, <double *>w, d, d, m, s, &scores[0])
    return score_dense(<double *>v, <float *>w, d, d, m, s, &scores[0])
