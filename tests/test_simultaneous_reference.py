"""The block engine's simultaneous-projection schemes against short pure-numpy references.

The reference is written from Amit, Shalev-Shwartz & Singer (§2–§8), not from the library: one
general block learner (rows X^t, labels ±1, one weight vector), a block at a time, that computes
margins, hinge losses and the scheme's λ (§4–5, Fig. 3 with its misprint corrected), with SimOpt
solved by *bisection* on its water-filling threshold (the library sorts), and the multiplicative
reduced problem (Eq. 23) maximised by bisection on the full-vector derivative (the library uses
Appendix C's closed form for {−1, 0, 1} instances).  Label sets and ordinal trials are checked
by running the same reference on the explicit virtual rows of §3.1 / §9.2 (our Kesler form
``φ(x, r) − φ(x, s)``) and §3.2 (``(x, −e_j)``), which the engine never materialises.

Conventions shared with the library: a constraint is a mistake iff its margin is ≤ 0; zero rows
take no step; MaxPA ties go to the lowest index; label-set pairs are ordered (relevant r
ascending, irrelevant s ascending).

Engine and reference run in lockstep (:func:`lockstep`): every trial starts both from the
engine's current weights, and the trial's new weights (to 1e−9) and counts (exactly) must agree.
A trial on which the reference meets a decision within 1e−9 of its boundary — a margin at 0 or a
loss at 0, which these schemes' steps are discontinuous in — is decided by round-off, which
differs between CPUs and BLAS kernels (an exact tie of two classes that received the same steps
is ±1e−17 in one summation order and 0 in another; after a projection a repeated row sits at
margin 1 ± 1 ulp).  Such trials are skipped, never more than a tenth of them, and the stream goes
on from the engine's weights, so one tie cannot spoil the comparison of the trials after it.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from onlinear._core import blocks as be

SCHEMES = ("simperc", "conproj", "simproj", "simopt", "maxpa")
RTOL = 1e-9


# =============================================================================================
# Reference
# =============================================================================================
NEAR_TIES = []  # (kind, value) of every decision the reference took at a rounding-level tie


def exact_dots(A, v):
    """``A @ v`` with each row's sum correctly rounded (``math.fsum``): the same on every CPU and
    BLAS kernel, and bitwise equal for equal rows (BLAS kernels round rows differently by their
    position in a block, which turns an exact tie between two equal classes into ±1e−17)."""
    return np.array([math.fsum(row * v) for row in np.atleast_2d(A)])


def _record_near_ties(m, moving, threshold, tol=1e-9):
    """A constraint is a mistake iff m ≤ 0 and active iff its loss (threshold − m) > 0.  A value
    within ``tol`` of either boundary (and not an exact structural 0: untouched classes, ω = 0)
    is decided by round-off, which differs between CPUs and BLAS kernels: record it."""
    for value, nonzero in zip(m, moving):
        if not nonzero:
            continue
        if 0 < abs(value) <= tol:
            NEAR_TIES.append(("mistake", float(value)))
        if abs(threshold - value) <= tol * threshold:
            NEAR_TIES.append(("loss", float(threshold - value)))
def ref_simopt(loss, v, c, cap):
    """max Σ(λℓ − ½vλ²) over {λ ≥ 0, Σ c λ ≤ cap}: λ = [ℓ − θc]_+/v, θ by bisection."""
    act = (v > 0) & (loss > 0)
    lam = np.zeros_like(loss)
    lam[act] = loss[act] / v[act]
    if (c * lam).sum() <= cap:
        return lam
    lo, hi = 0.0, float((loss[act] / c[act]).max())
    for _ in range(200):
        theta = 0.5 * (lo + hi)
        used = (c[act] * np.maximum(0.0, loss[act] - theta * c[act]) / v[act]).sum()
        lo, hi = (theta, hi) if used > cap else (lo, theta)
    lam[act] = np.maximum(0.0, loss[act] - 0.5 * (lo + hi) * c[act]) / v[act]
    return lam


def ref_lambda(scheme, loss, v, mistake, c, cap, alpha, max_rule="hinge"):
    """λ of one set.  ``alpha``: per-row reduced maximiser (additive: min{cap/c, ℓ/v})."""
    act = (v > 0) & (loss > 0)
    lam = np.zeros_like(loss)
    if scheme == "simopt":
        return ref_simopt(loss, v, c, cap)
    if scheme == "maxpa":
        if act.any():
            crit = np.where(act, loss if max_rule == "hinge" else loss / np.sqrt(np.where(v > 0, v, 1)), -np.inf)
            j = int(np.argmax(crit))
            lam[j] = alpha[j]
        return lam
    support = act & (mistake if scheme in ("simperc", "conproj") else True)
    if support.any():
        step = cap / c if scheme == "simperc" else alpha
        lam[support] = step[support] / support.sum()
    return lam


def ref_mult_alpha(omega, z, gamma, cap):
    """argmax_{α∈[0,cap]} γα − log Σ_i ω_i e^{α z_i} by bisection on the derivative (Eq. 23)."""
    def slope(a):
        e = omega * np.exp(a * z - max(0.0, (a * z).max()))
        return gamma - (z * e).sum() / e.sum()
    if slope(0.0) <= 0:
        return 0.0
    if slope(cap) >= 0:
        return cap
    lo, hi = 0.0, cap
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if slope(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)


def ref_block_step(omega, X, y, scheme, C, kind="additive", gamma=0.5, parts=None,
                   coupling=None, max_rule="hinge", margins=None):
    """One trial of the general-block learner; returns (new ω, λ, number of mistakes).
    ``margins`` overrides ``y_j ω·x_j`` when the caller computes them from class scores."""
    k = X.shape[0]
    Z = y[:, None] * X
    m = exact_dots(Z, omega) if margins is None else margins
    _record_near_ties(m, (X ** 2).sum(axis=1) > 0, 1.0 if kind == "additive" else gamma)
    mistakes = int((m <= 0).sum())
    c = np.ones(k) if coupling is None else coupling
    parts = np.zeros(k, int) if parts is None else parts
    r = parts.max() + 1
    lam = np.zeros(k)
    if kind == "additive":
        loss = np.maximum(0.0, 1.0 - m)
        v = (X ** 2).sum(axis=1)
    else:
        loss = np.maximum(0.0, gamma - m)
        v = np.abs(X).max(axis=1) ** 2
    for set_id in range(r):
        idx = np.flatnonzero(parts == set_id)
        cap = C / r
        if kind == "additive":
            with np.errstate(divide="ignore", invalid="ignore"):
                alpha = np.minimum(cap / c[idx], np.where(v[idx] > 0, loss[idx] / v[idx], 0.0))
        else:
            alpha = np.array([ref_mult_alpha(omega, Z[j], gamma, cap)
                              if loss[j] > 0 and v[j] > 0 else 0.0 for j in idx])
        lam[idx] = ref_lambda(scheme, loss[idx], v[idx], m[idx] <= 0, c[idx], cap, alpha,
                              max_rule)
    step = lam @ Z
    if kind == "additive":
        omega = omega + step
    else:
        omega = omega * np.exp(step)
        omega = omega / omega.sum()
    return omega, lam, mistakes


def lockstep(n_trials, reference_step, engine_step, omega, rtol=RTOL):
    """Run the engine and the reference trial by trial from the engine's weights (see the module
    docstring); ``reference_step(t, ω)`` and ``engine_step(t, ω)`` return (new ω, counts of the
    trial).  Returns the engine's final weights and summed counts."""
    totals = np.zeros(5, np.int64)
    skipped = 0
    for t in range(n_trials):
        NEAR_TIES.clear()
        expected, expected_counts = reference_step(t, omega)
        new, counts = engine_step(t, omega)
        if NEAR_TIES:
            skipped += 1
        else:
            np.testing.assert_allclose(new, expected, rtol=rtol, atol=1e-12,
                                       err_msg=f"trial {t}")
            np.testing.assert_array_equal(counts, expected_counts, err_msg=f"trial {t}")
        totals += counts
        omega = new
    assert skipped <= n_trials // 10, f"{skipped} of {n_trials} trials at a rounding-level tie"
    return omega, totals


def initial_weights(n, kind):
    return np.zeros(n) if kind in ("additive", 0) else np.full(n, 1.0 / n)


def lockstep_blocks(X, y, block_ptr, scheme, C, kind="additive", gamma=0.5, parts=None,
                    coupling=None, max_rule="hinge", sparse=False, dtype=np.float64, rtol=RTOL):
    """General blocks: the engine's ``run_blocks_*`` one trial at a time against
    :func:`ref_block_step`."""
    engine_kind = 0 if kind == "additive" else 1
    rows = sp.csr_matrix(X.astype(dtype)) if sparse else np.ascontiguousarray(X, dtype=dtype)
    no_parts = np.empty(0, np.int64) if parts is None else parts
    no_coupling = np.empty(0) if coupling is None else coupling
    params = be.make_params(C=C, gamma=gamma, max_rule=max_rule)

    def reference_step(t, omega):
        lo, hi = block_ptr[t], block_ptr[t + 1]
        new, lam, mistakes = ref_block_step(
            omega, X[lo:hi], y[lo:hi], scheme, C, kind, gamma=gamma, max_rule=max_rule,
            parts=None if parts is None else parts[lo:hi],
            coupling=None if coupling is None else coupling[lo:hi])
        return new, [1, mistakes > 0, mistakes, hi - lo, (lam > 0).any()]

    def engine_step(t, omega):
        w, scale, counts = omega.copy(), np.ones(1), np.zeros(5, np.int64)
        args = (y, block_ptr, no_parts, no_coupling, np.array([t]), w, scale, be.SCHEMES[scheme],
                engine_kind, params, counts, np.zeros(1, np.int8))
        if sparse:
            be.run_blocks_sparse(rows.data, rows.indices, rows.indptr, *args)
        else:
            be.run_blocks_dense(rows, *args)
        return w * scale[0], counts

    return lockstep(len(block_ptr) - 1, reference_step, engine_step,
                    initial_weights(X.shape[1], kind), rtol)


# =============================================================================================
# Streams
# =============================================================================================
def gaussian_blocks(seed, n_blocks=60, n_features=6, k_max=6, ternary=False):
    """Recipe G blocks of varying size, with zero rows and duplicated rows mixed in."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, k_max + 1, n_blocks)
    block_ptr = np.concatenate([[0], np.cumsum(sizes)])
    rows = block_ptr[-1]
    if ternary:
        X = rng.choice([-1.0, 0.0, 1.0], size=(rows, n_features))
    else:
        X = rng.normal(size=(rows, n_features))
    X[rng.random(rows) < 0.05] = 0.0
    dup = np.flatnonzero(rng.random(rows) < 0.1)
    X[dup[dup > 0]] = X[dup[dup > 0] - 1]
    u = rng.normal(size=n_features)
    y = np.where(X @ u >= 0, 1.0, -1.0)
    y[rng.random(rows) < 0.1] *= -1
    return X, y, block_ptr


def random_parts(rng, block_ptr):
    parts = np.empty(block_ptr[-1], np.int64)
    for t in range(len(block_ptr) - 1):
        k = block_ptr[t + 1] - block_ptr[t]
        r = rng.choice([1, min(2, k), k])
        parts[block_ptr[t]:block_ptr[t + 1]] = rng.permutation(np.arange(k) % r)
    return parts


def run_engine_blocks(X, y, block_ptr, scheme, C, kind=0, gamma=0.5, parts=None,
                      coupling=None, sparse=False, max_rule="hinge", dtype=np.float64):
    n = X.shape[1]
    w = np.zeros(n) if kind == 0 else np.ones(n)
    scale = np.array([1.0 if kind == 0 else 1.0 / n])
    counts = np.zeros(5, np.int64)
    order = np.arange(len(block_ptr) - 1)
    flags = np.zeros(len(order), np.int8)
    args = (y, block_ptr, np.empty(0, np.int64) if parts is None else parts,
            np.empty(0) if coupling is None else coupling, order, w, scale,
            be.SCHEMES[scheme], kind, be.make_params(C=C, gamma=gamma, max_rule=max_rule),
            counts, flags)
    if sparse:
        Xs = sp.csr_matrix(X.astype(dtype))
        be.run_blocks_sparse(Xs.data, Xs.indices, Xs.indptr, *args)
    else:
        be.run_blocks_dense(np.ascontiguousarray(X, dtype=dtype), *args)
    assert counts[be.IMPERFECT] == (flags & 1).sum()
    assert counts[be.TRIAL_UPDATES] == (flags >> 1).sum()
    return w * scale[0], counts


# =============================================================================================
# General blocks
# =============================================================================================
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("seed", (0, 1))
@pytest.mark.parametrize("C", (0.1, 2.0))
def test_general_blocks_additive(scheme, seed, C):
    X, y, bp = gaussian_blocks(seed)
    for sparse in (False, True):
        lockstep_blocks(X, y, bp, scheme, C, sparse=sparse)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_general_blocks_float32_rows(scheme):
    X, y, bp = gaussian_blocks(3)
    X = X.astype(np.float32).astype(np.float64)
    for sparse in (False, True):
        lockstep_blocks(X, y, bp, scheme, 0.5, sparse=sparse, dtype=np.float32)


def test_maxpa_distance_rule():
    X, y, bp = gaussian_blocks(4)
    w, _ = lockstep_blocks(X, y, bp, "maxpa", 0.7, max_rule="distance")
    hinge, _ = run_engine_blocks(X, y, bp, "maxpa", 0.7)
    assert not np.allclose(w, hinge)  # the option changes something on this stream


@pytest.mark.parametrize("scheme", SCHEMES)
def test_decomposed_and_coupled(scheme):
    """§7 partitions (budget C/r_t per set) and §10 weights (box C/c_j)."""
    rng = np.random.default_rng(5)
    X, y, bp = gaussian_blocks(5)
    parts = random_parts(rng, bp)
    coupling = rng.uniform(0.5, 2.0, len(y))
    for sparse in (False, True):
        lockstep_blocks(X, y, bp, scheme, 1.5, parts=parts, coupling=coupling, sparse=sparse)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("ternary", (True, False))
def test_general_blocks_multiplicative(scheme, ternary):
    """Fig. 6 with the closed form ({−1,0,1} rows) and the 1-D solve (real rows)."""
    X, y, bp = gaussian_blocks(6, n_blocks=40, n_features=8, ternary=ternary)  # 1/8 exact
    if not ternary:
        X = np.round(4 * X) / 4  # dyadic values: sums exact, so score ties stay ties
    parts = random_parts(np.random.default_rng(6), bp)
    for kw in ({}, {"parts": parts}):
        for sparse in (False, True):
            lockstep_blocks(X, y, bp, scheme, 0.8, kind="multiplicative", gamma=0.3,
                            sparse=sparse, rtol=1e-7, **kw)
            w, _ = run_engine_blocks(X, y, bp, scheme, 0.8, kind=1, gamma=0.3, sparse=sparse,
                                     **kw)
            assert abs(w.sum() - 1.0) < 1e-12 and (w > 0).all()


def test_reductions_at_block_size_one():
    """k_t = 1 (our reduction check): SimProj = SimOpt = MaxPA = PA-I; SimPerc = Perceptron
    with step C."""
    X, y, _ = gaussian_blocks(7)
    bp = np.arange(len(y) + 1)
    base, _ = run_engine_blocks(X, y, bp, "simproj", 0.3)
    for scheme in ("simopt", "maxpa"):
        np.testing.assert_allclose(run_engine_blocks(X, y, bp, scheme, 0.3)[0], base,
                                   rtol=1e-12)
    w = np.zeros(X.shape[1])
    for x, label in zip(X, y):
        if label * (w @ x) <= 0 and x.any():
            w = w + 0.3 * label * x
    np.testing.assert_allclose(run_engine_blocks(X, y, bp, "simperc", 0.3)[0], w, rtol=1e-12)


# =============================================================================================
# Label sets: against the explicit Kesler virtual rows
# =============================================================================================
def label_pairs(labels):
    """(r, s), r ≠ s, with r relevant (1) or the calibration label (2) and s irrelevant (0) or
    the calibration label."""
    return [(r, s) for r in np.flatnonzero(labels >= 1) for s in np.flatnonzero(labels != 1)
            if r != s]


def kesler_rows(x, labels):
    k = len(labels)
    d = len(x)
    rows = []
    for r, s in label_pairs(labels):
        row = np.zeros(d * k)
        row[r * d:(r + 1) * d] = x
        row[s * d:(s + 1) * d] = -x
        rows.append(row)
    return np.array(rows).reshape(-1, d * k)


def label_stream(seed, n=50, d=5, k=4, multilabel=True, ternary=False, calibrated=False):
    rng = np.random.default_rng(seed)
    X = rng.choice([-1.0, 0.0, 1.0], size=(n, d)) if ternary else rng.normal(size=(n, d))
    X[rng.random(n) < 0.05] = 0.0
    if multilabel:
        Y = (rng.random((n, k)) < 0.4).astype(np.uint8)
    else:
        Y = np.eye(k, dtype=np.uint8)[rng.integers(0, k, n)]
    if calibrated:
        Y[:, -1] = 2
    return X, Y


def structured_parts(pairs, decompose):
    """§7 partition of a label-set trial's pairs: one set, one per relevant label, singletons."""
    if decompose == "none":
        return np.zeros(len(pairs), int)
    if decompose == "singletons":
        return np.arange(len(pairs))
    firsts = sorted({r for r, _ in pairs})
    return np.array([firsts.index(r) for r, _ in pairs])


def lockstep_labelsets(X, Y, scheme, C, kind="additive", gamma=0.5, decompose="none",
                       sparse=False, rtol=RTOL):
    """Label sets: the engine's ``run_labelsets_*`` one row at a time against the reference on
    the row's explicit Kesler rows.  Returns the engine's final (d, k) weights and counts."""
    d, k = X.shape[1], Y.shape[1]
    engine_kind = 0 if kind == "additive" else 1
    rows = sp.csr_matrix(X) if sparse else np.ascontiguousarray(X)
    params = be.make_params(C=C, gamma=gamma, decompose=decompose)

    def reference_step(t, omega):
        x, labels = X[t], Y[t]
        kesler = kesler_rows(x, labels)
        if len(kesler) == 0:
            return omega, [1, 0, 0, 0, 0]
        # margins as score differences s_r − s_s (Kesler rows' dot products round differently,
        # and a tie between two untouched classes must stay an exact tie)
        scores = exact_dots(omega.reshape(k, d), x)
        margins = np.array([scores[r] - scores[s] for r, s in label_pairs(labels)])
        new, lam, mistakes = ref_block_step(
            omega, kesler, np.ones(len(kesler)), scheme, C, kind, gamma=gamma, margins=margins,
            parts=structured_parts(label_pairs(labels), decompose))
        return new, [1, mistakes > 0, mistakes, len(kesler), (lam > 0).any()]

    def engine_step(t, omega):
        W = np.ascontiguousarray(omega.reshape(k, d).T)
        scale, counts = np.ones(1), np.zeros(5, np.int64)
        args = (Y, np.array([t]), W, scale, be.SCHEMES[scheme], engine_kind, params, counts,
                np.empty(0, np.int8))
        if sparse:
            be.run_labelsets_sparse(rows.data, rows.indices, rows.indptr, *args, np.empty(0))
        else:
            be.run_labelsets_dense(rows, *args, np.empty(0))
        return (W * scale[0]).T.ravel(), counts

    omega, counts = lockstep(len(X), reference_step, engine_step, initial_weights(d * k, kind),
                             rtol)
    return omega.reshape(k, d).T, counts


def run_engine_labelsets(X, Y, scheme, C, kind=0, gamma=0.5, sparse=False, decompose="none"):
    d, k = X.shape[1], Y.shape[1]
    W = np.zeros((d, k)) if kind == 0 else np.ones((d, k))
    scale = np.array([1.0 if kind == 0 else 1.0 / (d * k)])
    counts = np.zeros(5, np.int64)
    args = (Y, np.arange(len(X)), W, scale, be.SCHEMES[scheme], kind,
            be.make_params(C=C, gamma=gamma, decompose=decompose), counts, np.empty(0, np.int8))
    if sparse:
        Xs = sp.csr_matrix(X)
        be.run_labelsets_sparse(Xs.data, Xs.indices, Xs.indptr, *args, np.empty(0))
    else:
        be.run_labelsets_dense(np.ascontiguousarray(X), *args, np.empty(0))
    return W * scale[0], counts


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("multilabel,calibrated", ((False, False), (True, False), (False, True),
                                                   (True, True)))
def test_labelsets_additive(scheme, multilabel, calibrated):
    """Multiclass, multilabel, and both with a calibration label (Y = 2, last column)."""
    X, Y = label_stream(8, multilabel=multilabel, calibrated=calibrated)
    for sparse in (False, True):
        lockstep_labelsets(X, Y, scheme, 0.4, sparse=sparse)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("ternary", (True, False))
def test_labelsets_multiplicative(scheme, ternary):
    X, Y = label_stream(9, n=30, d=4, ternary=ternary)  # ω¹ = 1/16 exact
    if not ternary:
        X = np.round(4 * X) / 4  # dyadic values: sums exact, so score ties stay ties
    lockstep_labelsets(X, Y, scheme, 0.7, kind="multiplicative", gamma=0.2, rtol=1e-7)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("decompose", ("per_label", "singletons"))
@pytest.mark.parametrize("kind", (0, 1))
def test_labelsets_decomposed(scheme, decompose, kind):
    """§7 on label sets: one set per relevant label, or singletons, each with budget C/r_t."""
    # (calibrated rows: see the module docstring on ties)
    X, Y = label_stream(15, n=40, d=4, ternary=kind == 1, calibrated=True)
    name = "additive" if kind == 0 else "multiplicative"
    lockstep_labelsets(X, Y, scheme, 0.9, kind=name, gamma=0.3, decompose=decompose,
                       rtol=1e-7 if kind else RTOL)
    W, _ = run_engine_labelsets(X, Y, scheme, 0.9, kind=kind, gamma=0.3, decompose=decompose)
    whole, _ = run_engine_labelsets(X, Y, scheme, 0.9, kind=kind, gamma=0.3)
    assert not np.allclose(W, whole)


# =============================================================================================
# Ordinal: against the explicit rows (x, −e_j)
# =============================================================================================
def lockstep_ordinal(X, ranks, n_ranks, scheme, C, decompose="none", sparse=False):
    """Ordinal trials: the engine's ``run_ordinal_*`` one example at a time against the
    reference on the explicit rows (x, −e_j).  Returns the engine's final (w, b) and counts."""
    d = X.shape[1]
    rows = sp.csr_matrix(X) if sparse else np.ascontiguousarray(X)
    params = be.make_params(C=C, decompose=decompose)

    def reference_step(t, omega):
        x, rank = X[t], ranks[t]
        explicit = np.hstack([np.tile(x, (n_ranks - 1, 1)), -np.eye(n_ranks - 1)])
        labels = np.where(np.arange(n_ranks - 1) < rank, 1.0, -1.0)
        parts = None if decompose == "none" else np.arange(n_ranks - 1)
        new, lam, mistakes = ref_block_step(omega, explicit, labels, scheme, C, parts=parts)
        return new, [1, mistakes > 0, mistakes, n_ranks - 1, (lam > 0).any()]

    def engine_step(t, omega):
        w, b, counts = omega[:d].copy(), omega[d:].copy(), np.zeros(5, np.int64)
        args = (ranks, np.array([t]), w, b, be.SCHEMES[scheme], params, counts,
                np.empty(0, np.int8))
        if sparse:
            be.run_ordinal_sparse(rows.data, rows.indices, rows.indptr, *args, np.empty(0))
        else:
            be.run_ordinal_dense(rows, *args, np.empty(0))
        return np.concatenate([w, b]), counts

    omega, counts = lockstep(len(X), reference_step, engine_step, np.zeros(d + n_ranks - 1))
    return omega[:d], omega[d:], counts


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("decompose", ("none", "singletons"))
def test_ordinal(scheme, decompose):
    rng = np.random.default_rng(10)
    X = rng.normal(size=(80, 5))
    X[rng.random(80) < 0.05] = 0.0
    ranks = np.clip(np.round(X @ rng.normal(size=5) + 2), 0, 4).astype(np.int64)
    for sparse in (False, True):
        lockstep_ordinal(X, ranks, 5, scheme, 0.6, decompose, sparse=sparse)


def test_order_is_respected():
    """Trials run strictly in ``order``: a reversed order equals the engine (checked against the
    reference) on the reversed stream, and differs from the forward run."""
    X, y, bp = gaussian_blocks(11, n_blocks=30)
    sizes = np.diff(bp)
    order = np.arange(30)[::-1].copy()
    Xr = np.vstack([X[bp[t]:bp[t + 1]] for t in order])
    yr = np.concatenate([y[bp[t]:bp[t + 1]] for t in order])
    bpr = np.concatenate([[0], np.cumsum(sizes[order])])
    lockstep_blocks(Xr, yr, bpr, "simproj", 0.5)
    expected, _ = run_engine_blocks(Xr, yr, bpr, "simproj", 0.5)
    w, scale = np.zeros(X.shape[1]), np.ones(1)
    be.run_blocks_dense(X, y, bp, np.empty(0, np.int64), np.empty(0), order, w, scale,
                        be.SIMPROJ, 0, be.make_params(C=0.5), np.zeros(5, np.int64),
                        np.empty(0, np.int8))
    np.testing.assert_allclose(w, expected, rtol=RTOL, atol=1e-12)
    forward, _ = run_engine_blocks(X, y, bp, "simproj", 0.5)
    assert not np.allclose(w, forward)


@pytest.mark.parametrize("scheme", ("simperc", "simproj"))
def test_multiplicative_stays_on_the_simplex_under_large_steps(scheme):
    """Large C drives some weights towards 0 and others towards all the mass: the engine's
    clamped exponent, floor and exact recount keep ω a finite, positive probability vector, and
    on label sets the Kesler simplex spans all of W."""
    X, y, bp = gaussian_blocks(12, n_blocks=300, n_features=8, ternary=True)
    w, counts = run_engine_blocks(X, y, bp, scheme, 50.0, kind=1, gamma=0.9)
    assert np.isfinite(w).all() and (w > 0).all() and abs(w.sum() - 1.0) < 1e-12
    assert counts[be.TRIAL_UPDATES] > 0
    X, Y = label_stream(13, n=300, d=6, k=5, ternary=True)
    W, counts = run_engine_labelsets(X, Y, scheme, 50.0, kind=1, gamma=0.9)
    assert np.isfinite(W).all() and (W > 0).all() and abs(W.sum() - 1.0) < 1e-12
    assert counts[be.TRIAL_UPDATES] > 0


@pytest.mark.parametrize("scheme", ("simproj", "maxpa", "simopt"))
def test_labelsets_with_several_calibration_labels(scheme):
    """Any number of labels marked 2 (each on both sides): rows with many of them have more
    pairs than any 0/1 split, and the engine's per-pass buffers are sized from the rows."""
    X, Y = label_stream(16, n=60, d=4, k=6)
    rng = np.random.default_rng(16)
    Y[rng.random(Y.shape) < 0.4] = 2
    Y[0] = 2  # a row of calibration labels only: 6·5 pairs
    for sparse in (False, True):
        lockstep_labelsets(X, Y, scheme, 0.5, sparse=sparse)

