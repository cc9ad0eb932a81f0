"""CELLIP and IELLIP (Yang, Jin & Ye 2009, §2.2–2.4): a short pure-Python reference for every
metric layout, the exact algebra of one update (our derivations from Eq. 10–11 and 15), the
mistake bounds (Theorem 3 in our corrected form, Theorem 4) and long noisy streams keeping P
symmetric positive definite."""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear


# ----------------------------------------------------------------------------- references
def reference(kind, X, y, classes, *, gamma=0.1, a=None, b=0.3, c=None, scale=0.1,
              init="corrected", layout="per-class"):
    """CELLIP / IELLIP one example at a time (Yang, Jin & Ye Algorithm 1 with
    Eq. 10–11, Algorithm 2 with Eq. 15, the multiclass form of §2.4, and our diagonal variant), with
    CELLIP's default on_infeasible='reset'; returns (weights (m, d), mistakes, updates)."""
    a = (0.5 if kind == "cellip" else 1.0) if a is None else a
    c = 0.5 * (1 - b) if c is None else c
    K, d = len(classes), X.shape[1]
    m = 1 if K == 2 else K
    if kind == "cellip":
        r0 = 1 + gamma * (1 - a)
        p1 = r0 ** 2 if init == "corrected" else r0
    else:
        p1 = scale
    W = np.zeros((m, d))
    stacked = layout == "stacked" and m > 1
    if stacked:
        P = p1 * np.eye(m * d)
    elif layout == "diagonal":
        P = [p1 * np.ones(d) for _ in range(m)]
    else:
        P = [p1 * np.eye(d) for _ in range(m)]
    mistakes = updates = 0

    def step(margin, v, t):
        if kind == "cellip":
            tau = (a * gamma - margin) / np.sqrt(v)
            reset = tau >= 1
            tau = min(tau, 1 - 1e-3)
            return tau / np.sqrt(v), 1 - tau ** 2, -2 * tau * (1 - tau) / v, reset
        tau = (a * gamma - margin) / np.sqrt(v)
        ct = c * b ** (t - 1)
        if ct <= 1e-15:
            return tau / np.sqrt(v), 1.0, 0.0, False
        return tau / np.sqrt(v), 1 / (1 - ct), -ct / ((1 - ct) * v), False

    for t, (x, label) in enumerate(zip(X, y), start=1):
        yi = int(np.searchsorted(classes, label))
        s = np.array([sum(W[r, j] * x[j] for j in range(d)) for r in range(m)])
        predicted = (1 if s[0] > 0 else 0) if m == 1 else int(np.argmax(s))
        mistakes += predicted != yi
        if not np.any(x):
            continue
        changed = False
        if stacked:
            rival = max((r for r in range(m) if r != yi), key=lambda r: (s[r], -r))
            margin = s[yi] - s[rival]
            if margin <= 0:
                z = np.zeros(m * d)
                z[yi * d:(yi + 1) * d] = x
                z[rival * d:(rival + 1) * d] = -x
                u = P @ z
                v = z @ u
                wc, ps, pr, reset = step(margin, v, t)
                W += wc * u.reshape(m, d)
                P = p1 * np.eye(m * d) if reset else ps * P + pr * np.outer(u, u)
                changed = True
        else:
            for r in range(m):
                zr = (1.0 if yi == 1 else -1.0) if m == 1 else (1.0 if r == yi else -1.0)
                margin = zr * s[r]
                if margin > 0:
                    continue
                u = P[r] * x if layout == "diagonal" else P[r] @ x
                v = x @ u
                wc, ps, pr, reset = step(margin, v, t)
                W[r] += wc * zr * u
                if reset:
                    P[r] = p1 * (np.ones(d) if layout == "diagonal" else np.eye(d))
                elif layout == "diagonal":
                    P[r] = ps * P[r] + pr * u * u
                else:
                    P[r] = ps * P[r] + pr * np.outer(u, u)
                changed = True
        updates += changed
    return W, mistakes, updates


def weights(model):
    """The (m, d) weight rows as the engine keeps them."""
    return (model.model_.weights * model.model_.state[0]).T


def stream(seed, K, n=150, d=6, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(1.0, 1.5, size=(n, 1))
    X[::37] = 0.0
    y = np.argmax(X @ rng.normal(size=(d, K)), axis=1)
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, K, flip.sum())
    return X, y


CASES = [(kind, layout, K) for kind in ("cellip", "iellip")
         for layout in ("per-class", "stacked", "diagonal") for K in (2, 4)
         if not (layout == "stacked" and K == 2)]


@pytest.mark.parametrize("kind,layout,K", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_equals_the_reference(kind, layout, K, seed):
    X, y = stream(seed, K)
    model = onlinear.make(kind, matrix=layout).fit(X, y)
    W, mistakes, updates = reference(kind, X, y, np.unique(y), layout=layout)
    assert (model.n_mistakes_, model.n_updates_) == (mistakes, updates)
    np.testing.assert_allclose(weights(model), W, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind,layout,K", [c for c in CASES if c[1] != "diagonal"])
def test_learn_one_on_dense_rows_with_zeros_plays_fits_very_sums(kind, layout, K):
    # a dense row is played whole by learn_one's compiled round, zeros included, as fit's
    # dense pass plays it (the full and stacked metrics' vectorized P x): the same bits
    X, y = stream(5, K, d=11)
    rng = np.random.default_rng(5)
    X[rng.random(X.shape) < 0.3] = 0.0  # (zeros in most rows)
    classes = np.unique(y)
    fitted = onlinear.make(kind, matrix=layout).fit(X, y)
    one = onlinear.make(kind, matrix=layout)
    predictions = [one.learn_one(x, t, classes=classes) for x, t in zip(X, y)]
    assert one.__dict__.get("_fast") is not None  # (the compiled round took the calls)
    assert np.array_equal(one.coef_, fitted.coef_)
    assert np.array_equal(one.decision_function(X), fitted.decision_function(X))
    assert np.sum(np.asarray(predictions) != y) == fitted.n_mistakes_


@pytest.mark.parametrize("kind,layout,K", CASES)
def test_csr_float32_streaming_and_chunks_give_the_same_model(kind, layout, K):
    X, y = stream(3, K)
    X = X.astype(np.float32).astype(np.float64)
    classes = np.unique(y)
    base = onlinear.make(kind, matrix=layout).fit(X, y)
    variants = [onlinear.make(kind, matrix=layout).fit(sp.csr_matrix(X), y),
                onlinear.make(kind, matrix=layout).fit(X.astype(np.float32), y)]
    one = onlinear.make(kind, matrix=layout)
    predictions = [one.learn_one(x, t, classes=classes) for x, t in zip(X, y)]
    variants.append(one)
    chunks = onlinear.make(kind, matrix=layout)
    for part in np.array_split(np.arange(len(y)), 4):
        chunks.partial_fit(X[part], y[part], classes=classes)
    variants.append(chunks)
    for other in variants:
        np.testing.assert_allclose(other.coef_, base.coef_, rtol=1e-9, atol=1e-12)
        assert other.n_updates_ == base.n_updates_
    assert np.sum(np.asarray(predictions) != y) == base.n_mistakes_


# ----------------------------------------------------------------------------- one update
def _one_binary_update(kind, rng, accept=lambda w, P, x, z: True, **params):
    """A fitted binary model, then one misclassified example it accepts:
    (before, after, x, z)."""
    d = 5
    X = rng.normal(size=(20, d)) / 3
    y = (X @ rng.normal(size=d) > 0).astype(int)
    model = onlinear.make(kind, matrix="per-class", **params).fit(X, y)
    w, P = model.coef_[0].copy(), model.model_.metric.copy()
    while True:
        x = rng.normal(size=d) / 3
        z = -1.0 if w @ x > 0 else 1.0
        if accept(w, P, x, z):
            break
    model.partial_fit(x[None, :], [1 if z > 0 else 0])
    return (w, P), (model.coef_[0].copy(), model.model_.metric.copy()), x, z


@pytest.mark.parametrize("seed", range(20))
def test_cellip_update_identities(seed):
    """Our derivations from Yang, Jin & Ye Eq. 10–11 (§2.2): post-update margin aγ;
    x'P'x = (1−τ)² x'Px; det ratio (1−τ²)^(d−1)(1−τ)²; P' stays symmetric positive definite."""
    rng = np.random.default_rng(seed)
    gamma, a = 0.3, 0.5

    def cut_depth(w, P, x, z):
        return (a * gamma - z * (w @ x)) / np.sqrt(x @ P @ x)

    (w, P), (w2, P2), x, z = _one_binary_update(
        "cellip", rng, accept=lambda *round_: cut_depth(*round_) < 1, gamma=gamma, a=a)
    v = x @ P @ x
    tau = cut_depth(w, P, x, z)
    assert z * (w2 @ x) == pytest.approx(a * gamma, rel=1e-9)
    assert x @ P2 @ x == pytest.approx((1 - tau) ** 2 * v, rel=1e-9)
    d = len(x)
    ratio = np.linalg.det(P2) / np.linalg.det(P)
    assert ratio == pytest.approx((1 - tau ** 2) ** (d - 1) * (1 - tau) ** 2, rel=1e-8)
    assert np.array_equal(P2, P2.T) and np.linalg.eigvalsh(P2).min() > 0


@pytest.mark.parametrize("seed", range(20))
def test_iellip_update_identities(seed):
    """Our derivations from Eq. 10 and 15 (§2.3): post-update margin γ; x'P'x = x'Px;
    P'⁻¹ = (1−c_t)P⁻¹ + c_t g g'."""
    rng = np.random.default_rng(seed)
    gamma, b, c = 0.2, 0.9, 0.05
    (w, P), (w2, P2), x, z = _one_binary_update("iellip", rng, gamma=gamma, b=b, c=c)
    v = x @ P @ x
    assert z * (w2 @ x) == pytest.approx(gamma, rel=1e-9)
    assert x @ P2 @ x == pytest.approx(v, rel=1e-9)
    t = 21  # 20 fitted examples, then this one
    ct = c * b ** (t - 1)
    g = z * x / np.sqrt(v)
    np.testing.assert_allclose(np.linalg.inv(P2),
                               (1 - ct) * np.linalg.inv(P) + ct * np.outer(g, g), rtol=1e-8)


def test_iellip_predictions_do_not_depend_on_the_scale_of_p1():
    X, y = stream(5, 4, n=300, noise=0.2)
    a = onlinear.make("iellip", scale=0.1, matrix="stacked").fit(X, y)
    b = onlinear.make("iellip", scale=7.0, matrix="stacked").fit(X, y)
    assert np.array_equal(a.predict(X), b.predict(X)) and a.n_updates_ == b.n_updates_
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-8)


def test_iellip_without_memory_is_pa_on_mistakes():
    """c = 0 keeps P = sI: w ← w + (γ − z w·x) z x/‖x‖² on mistakes only (our derivation from
    Yang, Jin & Ye Eq. 10 and 15)."""
    X, y = stream(6, 2, n=200, noise=0.2)
    model = onlinear.make("iellip", c=0.0, gamma=0.3).fit(X, y)
    w = np.zeros(X.shape[1])
    for x, t in zip(X, y):
        z = 1.0 if t == 1 else -1.0
        if z * (w @ x) <= 0 and x @ x > 0:
            w += (0.3 - z * (w @ x)) * z * x / (x @ x)
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- bounds
def separable(seed, gamma, n=400, d=5):
    """Unit-norm x, a unit u with y u·x ≥ γ (rejection), labels ±1 as classes 0/1."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(8 * n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X = X[np.abs(X @ u) >= gamma][:n]
    return X, (X @ u > 0).astype(int), u


def _mistakes_until_an_epoch_is_clean(model, X, y, max_epochs=200):
    for _ in range(max_epochs):
        before = model.n_mistakes_ if hasattr(model, "classes_") else 0
        model.partial_fit(X, y, classes=[0, 1])
        if model.n_mistakes_ == before:
            return model.n_mistakes_
    raise AssertionError("no clean epoch")


@pytest.mark.parametrize("gamma,a", [(0.1, 0.5), (0.2, 0.5), (0.2, 0.9), (0.3, 0.9)])
@pytest.mark.parametrize("seed", [0, 1])
def test_cellip_corrected_mistake_bound(gamma, a, seed):
    """Yang, Jin & Ye Theorem 3 (§2.2, Appendix B) in our corrected (squared P_1) form:
    M ≤ 1 + 2[log(1−a) + log γ − log(1+(1−a)γ)] / log(1 − a²γ²/(1+(1−a)γ)²)."""
    X, y, u = separable(seed, gamma)
    realised = np.min(np.where(y == 1, 1, -1) * (X @ u))
    r = 1 + (1 - a) * realised
    bound = 1 + 2 * (np.log(1 - a) + np.log(realised) - np.log(r)) / np.log(
        1 - a ** 2 * realised ** 2 / r ** 2)
    mistakes = _mistakes_until_an_epoch_is_clean(
        onlinear.make("cellip", gamma=realised, a=a, on_infeasible="raise"), X, y)
    assert 1 <= mistakes <= bound


@pytest.mark.parametrize("gamma", [0.1, 0.2, 0.3])
@pytest.mark.parametrize("seed", [0, 1])
def test_iellip_theorem_4_separable(gamma, seed):
    """Yang, Jin & Ye Theorem 4 (§2.3) with Σ l_i(u) = 0 (unit-norm x, P_1 = I, c + b < 1):
    M ≤ 1/γ²."""
    X, y, u = separable(seed, gamma)
    realised = np.min(np.where(y == 1, 1, -1) * (X @ u))
    mistakes = _mistakes_until_an_epoch_is_clean(
        onlinear.make("iellip", gamma=realised, scale=1.0, b=0.3, c=0.35), X, y)
    assert 1 <= mistakes <= 1 / realised ** 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_iellip_theorem_4_with_noise(seed):
    """(18): M ≤ 1/γ² + (2/γ)(1−b)/(1−b−c) Σ_i l_i(u), unit-norm x, one pass with label noise."""
    gamma, b, c = 0.2, 0.3, 0.35
    X, y, u = separable(seed, gamma, n=600)
    rng = np.random.default_rng(seed)
    flip = rng.random(len(y)) < 0.05
    y = np.where(flip, 1 - y, y)
    losses = np.maximum(0.0, gamma - np.where(y == 1, 1, -1) * (X @ u))
    bound = 1 / gamma ** 2 + 2 / gamma * (1 - b) / (1 - b - c) * losses.sum()
    model = onlinear.make("iellip", gamma=gamma, scale=1.0, b=b, c=c).fit(X, y)
    assert 1 <= model.n_mistakes_ <= bound < len(y)


# ----------------------------------------------------------------------------- numerics
def test_cellip_says_so_when_a_cut_misses_the_ellipsoid():
    X, y = stream(7, 2, n=200, noise=0.3)
    model = onlinear.make("cellip", on_infeasible="raise")
    with pytest.raises(ValueError, match="misses the ellipsoid"):
        model.fit(X * 1e-3, y)  # tiny x: deep cuts (τ ≥ 1) as soon as the labels disagree


@pytest.mark.parametrize("name,params", [
    ("iellip", {}), ("iellip", {"b": 1.0, "c": 0.2}), ("cellip", {}),
    ("cellip", {"on_infeasible": "skip_matrix"})])
@pytest.mark.parametrize("K,layout", [(2, "per-class"), (3, "stacked"), (3, "diagonal")])
def test_a_long_noisy_stream_keeps_p_positive_definite(name, params, K, layout):
    """10⁵ rounds with 20% random labels: P symmetric positive definite, everything finite."""
    rng = np.random.default_rng(0)
    d = 5
    X = rng.normal(size=(20_000, d))
    y = np.argmax(X @ rng.normal(size=(d, K)), axis=1)
    flip = rng.random(len(y)) < 0.2
    y[flip] = rng.integers(0, K, flip.sum())
    model = onlinear.make(name, matrix=layout, n_epochs=5, **params).fit(X, y)
    assert model.n_seen_ == 100_000
    assert np.isfinite(model.coef_).all() and np.isfinite(model.model_.metric).all()
    if layout == "diagonal":
        assert np.all(model.model_.metric > 0) and np.all(model.model_.state[1] > 0)
    else:
        blocks = ([model.model_.metric] if layout == "stacked"
                  else np.split(model.model_.metric, model.model_.metric.shape[0] // d))
        for P in blocks:
            assert np.array_equal(P, P.T)
            eigenvalues = np.linalg.eigvalsh(P)
            if params.get("b") == 1.0:
                # outside Theorem 4 (c + b ≥ 1): P grows without bound in the directions no cut
                # touches while the cut directions stay, so its condition number is unbounded;
                # the trace renormalization keeps it finite and positive semi-definite to
                # rounding
                assert eigenvalues.min() > -1e-9 * eigenvalues.max()
            else:
                assert eigenvalues.min() > 0
    assert model.score(X, y) > 1.0 / K
    model._check_model()  # (what onlinear.load checks: a Cholesky factorization refused P there)


# ----------------------------------------------------------------------------- matrix="auto"
@pytest.mark.parametrize("n_classes,n_features,layout", [
    (4, 128, "stacked"),     # K·d = 512: the paper's stacked matrix
    (26, 16, "stacked"),     # Letter: K·d = 416
    (3, 256, "per-class"),   # K·d = 768 > 512, d ≤ 512
    (10, 256, "per-class"),  # USPS
    (10, 784, "diagonal"),   # MNIST: a full 784×784 matrix per class costs 24–60× pa's pass
    (2, 512, "per-class"),   # binary: one ellipsoid
    (2, 513, "diagonal"),
])
def test_auto_keeps_full_matrices_to_a_side_of_512(n_classes, n_features, layout):
    """``matrix="auto"`` picks a layout by cost (FULL_MATRIX_MAX_SIZE; the measurements in
    benchmarks/ellipsoid_layouts.py): the layout it picks is the one named, learning the same
    model bit for bit."""
    from onlinear.estimators.ellipsoid import FULL_MATRIX_MAX_SIZE

    assert FULL_MATRIX_MAX_SIZE == 512
    generator = np.random.default_rng(0)
    X = generator.normal(size=(2 * n_classes, n_features)) / (2 * np.sqrt(n_features))
    y = np.arange(2 * n_classes) % n_classes
    for name in ("iellip", "cellip"):
        auto = onlinear.make(name).fit(X, y)
        named = onlinear.make(name, matrix=layout).fit(X, y)
        assert auto.model_.config["layout"] == named.model_.config["layout"]
        assert auto.model_.metric.shape == named.model_.metric.shape
        np.testing.assert_array_equal(auto.coef_, named.coef_)


# ----------------------------------------------------------------------------- the dense sweep
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_metric_sweep_sums_every_row_alike_and_to_rounding(dtype):
    """``u = P_r x`` over a whole row is the engine's one reassociated sum (a vectorized sweep,
    four rows at a time, the last block overlapping the one before): equal rows of P give equal
    entries of u bit for bit, whatever their position (fewer rows than a block, whole blocks,
    overlaps of 1 to 3), and every entry is the exact product to rounding (each term converted
    to float64, summed in float64)."""
    from math import fsum

    from onlinear._core.ellipsoid import metric_times

    rng = np.random.default_rng(4)
    for d in list(range(1, 14)) + [37, 256]:
        row = rng.standard_normal(d)
        x = rng.standard_normal(d).astype(dtype)
        u = metric_times(np.repeat(row[None, :], d, axis=0), x)
        assert u.dtype == np.float64 and np.all(u == u[0]), (d, u)
        P = rng.standard_normal((d, d))
        u = metric_times(P, x)
        x64 = x.astype(np.float64)
        exact = np.array([fsum(P[i] * x64) for i in range(d)])
        bound = 2 * d * np.finfo(np.float64).eps * (np.abs(P) @ np.abs(x64))
        assert np.all(np.abs(u - exact) <= bound), d


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_row_with_missing_columns_is_summed_in_its_order(dtype):
    """A row without every column (a dense row with a zero, read by its non-zeros; a CSR row)
    gathers its columns: each entry of ``u = P_r x`` is the sum of its terms in the row's
    order, bit for bit (eight rows of P_r at a time, then the rows left one by one), on a P
    that is not symmetric, so that a row read for a column would show."""
    from onlinear._core.ellipsoid import metric_times

    rng = np.random.default_rng(6)
    for d in [1, 7, 8, 9, 16, 21, 37]:
        P = rng.standard_normal((d, d))
        for nnz in sorted({0, 1, d // 2, d - 1}):
            columns = np.sort(rng.choice(d, size=nnz, replace=False)).astype(np.int64)
            x = rng.standard_normal(nnz).astype(dtype)
            u = metric_times(P, x, columns)
            in_order = np.zeros(d)
            for i in range(d):
                total = 0.0
                for j, value in zip(columns, x):
                    total += float(P[i, j]) * float(value)
                in_order[i] = total
            np.testing.assert_array_equal(u, in_order, err_msg=f"d={d}, nnz={nnz}")


def test_the_metric_sweep_follows_the_primal_sweeps_instruction_set():
    """The sweep is chosen for the CPU when the module loads, as the primal engine's dense
    sweeps are, and ``ONLINEAR_CPU=generic`` keeps the baseline for both (a test run can then
    see the rounding of a machine without vector units)."""
    import os
    import subprocess
    import sys

    from onlinear._core import ellipsoid, primal

    assert ellipsoid.metric_instruction_set() == primal.simd_instruction_set()
    assert ellipsoid.metric_instruction_set() in ("generic", "avx2", "avx512")
    code = ("from onlinear._core import ellipsoid, primal; "
            "print(ellipsoid.metric_instruction_set(), primal.simd_instruction_set())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "ONLINEAR_CPU": "generic"}).stdout.split()
    assert out == ["generic", "generic"]


def test_the_compiled_entry_points_refuse_arrays_that_do_not_fit():
    """The loops check no index: every entry point checks its arrays against each other and
    the layout first (a tampered model or a wrong call raises, never reads out of bounds)."""
    from onlinear._core import ellipsoid as ee
    from onlinear.rules.table import parameter_vector

    d, m = 4, 3
    params = parameter_vector(ee.PARAMETERS, dict.fromkeys(ee.PARAMETERS, 0.0)
                              | {"gamma": 0.1, "a": 0.5, "p1_scale": 1.0})
    X = np.random.default_rng(0).normal(size=(5, d))
    A = sp.csr_matrix(X)
    y, order, none = np.arange(5) % m, np.arange(5), np.zeros(0, np.int64)

    def model(layout, P=None, state_rows=ee.N_STATE_ROWS, outputs=m):
        shape = {ee.FULL: (outputs * d, d), ee.DIAGONAL: (outputs, d),
                 ee.STACKED: (outputs * d, outputs * d)}[layout]
        return (np.zeros((d, outputs)), np.ones(shape) if P is None else P,
                np.ones((state_rows, outputs)), params, np.zeros(3, np.int64))

    for layout in (ee.FULL, ee.DIAGONAL, ee.STACKED):
        ee.run_dense(layout, X, y, order, *model(layout), none)  # (fits)
        bad = [lambda: ee.run_dense(layout, X, y, order, *model(layout, P=np.ones((d, d + 1))),
                                    none),
               lambda: ee.run_dense(layout, X, y, order, *model(layout, state_rows=2), none),
               lambda: ee.run_dense(layout, X[:, 1:].copy(), y, order, *model(layout), none),
               lambda: ee.run_dense(layout, X, y, order + 1, *model(layout), none),
               lambda: ee.run_dense(layout, X, y + 1, order, *model(layout), none),
               lambda: ee.run_dense(layout, X, y, order, *model(layout), np.zeros(2, np.int64)),
               lambda: ee.run_sparse(layout, A.data, A.indices + 1, A.indptr, y, order,
                                     *model(layout), none),
               lambda: ee.learn_one(layout, np.arange(d) + 1, X[0], 0, *model(layout)),
               lambda: ee.learn_one(layout, np.arange(d), X[0, 1:], 0, *model(layout)),
               lambda: ee.learn_one(layout, np.arange(d), X[0], m, *model(layout))]
        for call in bad:
            with pytest.raises((ValueError, IndexError)):
                call()
    with pytest.raises(ValueError):  # the stacked layout needs two outputs
        ee.learn_one(ee.STACKED, np.arange(d), X[0], 0,
                     *model(ee.STACKED, P=np.ones((d, d)), outputs=1))
    with pytest.raises(ValueError):
        ee.learn_one(7, np.arange(d), X[0], 0, *model(ee.FULL))
