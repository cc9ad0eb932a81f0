"""Theorems of the rescaling learners as tests: ROMMA, aggressive ROMMA, NAROMMA, MCP and CMCP
(Bshouty & Haddad-Zaknoon §3–4; our property checks T1–T13 below), multiclass ROMMA (Crammer &
Singer 2003, Theorem 14, §7) and the multiplicative family with balanced Winnow (Crammer & Singer
Theorem 11, §6, Figure 5), plus a 10⁶-round
noisy stream through the compiled batch path.

Conventions of the library used below (see ``onlinear.estimators.maximum_cosine``): the
maximum-cosine learners store the unit direction of w (``coef_``) and the certificate ℓ per
output (``cosine_bound_``); the first non-zero example initializes an output, counts as an update
and, if the zero model's prediction (class 0) is wrong, as a mistake.  The paper's mistake count t
(rounds i ≥ 1 with y_i w_i·a_i ≤ 0) is computed here from the direction before each round, and
n_mistakes_ ≤ t + 1, which is why the bounds are asserted in their sharper "t + 1" form.
"""
import math

import numpy as np
import pytest

import onlinear

BINARY = (0, 1)
MAX_COSINE = ("romma", "aromma", "naromma", "mcp", "cmcp")


# ---------------------------------------------------------------------------------- generators
def separable_stream(seed, n, T, R=1.0, gamma_frac=0.05, order="random"):
    """Our separable data for Bshouty & Haddad-Zaknoon: w* uniform on the sphere, a uniform in the
    radius-R ball, rejected when |w*·a| < gamma_frac·R; labels 1/0 for the sign of w*·a.  Returns
    X, y, w*, realized γ (a_0 included) and realized R."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=n)
    w /= np.linalg.norm(w)
    kept = []
    count = 0
    while count < T:
        u = rng.normal(size=(4 * T, n))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        a = u * (R * rng.random(4 * T) ** (1.0 / n))[:, None]
        a = a[np.abs(a @ w) >= gamma_frac * R]
        kept.append(a)
        count += a.shape[0]
    X = np.concatenate(kept)[:T]
    margin = X @ w
    if order == "sorted":  # adversarial-ish: increasing |w*·a|
        X = X[np.argsort(np.abs(margin))]
        margin = X @ w
    y = (margin > 0).astype(np.int64)
    return X, y, w, float(np.abs(margin).min()), float(np.linalg.norm(X, axis=1).max())


def noisy_stream(seed, D, T, flip):
    """Gaussian inputs, labels sign(w·x) with a fraction ``flip`` of them flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, D))
    w = rng.normal(size=D)
    y = (X @ w > 0).astype(np.int64)
    flipped = rng.random(T) < flip
    y[flipped] = 1 - y[flipped]
    return X, y, w


def g1_stream(seed, k, n, T=300, gamma0=0.03, R0=1.0):
    """Our generator G1 (Crammer & Singer, separable): unit-Frobenius M*, x = ρu with
    ρ ~ U[0.3, 1]R0, y = argmax M*x, kept when the margin is ≥ γ0.  Returns X, y, M*, realized γ
    and R."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(k, n))
    M /= np.linalg.norm(M)
    kept = []
    count = 0
    while count < T:
        u = rng.normal(size=(20 * T, n))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        x = u * (R0 * rng.uniform(0.3, 1.0, size=20 * T))[:, None]
        s = x @ M.T
        top = np.sort(s, axis=1)
        x = x[top[:, -1] - top[:, -2] >= gamma0]
        kept.append(x)
        count += x.shape[0]
    X = np.concatenate(kept)[:T]
    s = X @ M.T
    y = np.argmax(s, axis=1)
    top = np.sort(s, axis=1)
    gamma = float((top[:, -1] - top[:, -2]).min())
    return X, y.astype(np.int64), M, gamma, float(np.linalg.norm(X, axis=1).max())


def g3_stream(seed, k, n, s=3, T=300, gamma0=2.0 / 3.0):
    """Our generator G3 (Crammer & Singer Theorem 11): x ∈ {−1, +1}^n, M*_r uniform 1/s on disjoint
    blocks of s features (rows of unit l1 norm), y = argmax, kept when the margin is ≥ γ0.  Returns
    X, y and the realized margin γ of M*."""
    assert k * s <= n
    rng = np.random.default_rng(seed)
    M = np.zeros((k, n))
    for r in range(k):
        M[r, r * s:(r + 1) * s] = 1.0 / s
    kept = []
    count = 0
    while count < T:
        x = rng.choice([-1.0, 1.0], size=(20 * T, n))
        top = np.sort(x @ M.T, axis=1)
        x = x[top[:, -1] - top[:, -2] >= gamma0 - 1e-12]
        kept.append(x)
        count += x.shape[0]
    X = np.concatenate(kept)[:T]
    scores = X @ M.T
    y = np.argmax(scores, axis=1)
    top = np.sort(scores, axis=1)
    return X, y.astype(np.int64), float((top[:, -1] - top[:, -2]).min())


# ---------------------------------------------------------------------------------- helpers
def unit(v):
    return v / np.linalg.norm(v)


class Trace:
    """Per-round record of a binary maximum-cosine learner fed with ``learn_one``: the
    prediction made before round i, and after round i the unit direction, ℓ and n_updates_."""

    def __init__(self, model, X, y):
        T, D = X.shape
        self.model = model
        self.pred = np.empty(T, dtype=np.int64)
        self.direction = np.empty((T, D))
        self.ell = np.empty(T)
        self.updates = np.empty(T, dtype=np.int64)
        for i in range(T):
            self.step(i, X[i], y[i])

    def step(self, i, x, label):
        self.pred[i] = self.model.learn_one(x, label, classes=BINARY)
        self.direction[i] = unit(self.model.coef_[0])
        self.ell[i] = self.model.cosine_bound_[0]
        self.updates[i] = self.model.n_updates_


def trace(name, X, y, **params):
    return Trace(onlinear.make(name, **params), X, y)


def paper_mistakes(tr, X, y):
    """t = #{i ≥ 1 : z_i (w_i·a_i) ≤ 0}, with w_i the direction before round i."""
    z = 2.0 * y - 1.0
    margins = z[1:] * np.einsum("ij,ij->i", tr.direction[:-1], X[1:])
    return int(np.sum(margins <= 0.0))


def epochs(X, y, n):
    return np.tile(X, (n, 1)), np.tile(y, n)


# ---------------------------------------------------------------------------------- references
def reference(name, X, y, u_form=False):
    """Straightforward float64 transcriptions of Bshouty & Haddad-Zaknoon's updates that recompute
    every norm from the weights (NAROMMA, Figure 1 / Table 2, in our ρ = 1/ℓ* form; (aggressive)
    ROMMA, Table 1, from u = 0; MCP, Figure 2; CMCP = MCP with the threshold 0).  (Aggressive)
    ROMMA is run as u = ŵ/ρ, the same algebra as Table 1's u form (``u_form=True``), which overflows
    when ‖u‖ = ℓ* passes 1e154 on noisy data.  Predictions: class 1 iff w·a > 0.  Returns the
    per-round predictions, unit directions and certificates ℓ."""
    T, D = X.shape
    pred = np.empty(T, dtype=np.int64)
    direction = np.empty((T, D))
    ell_out = np.empty(T)
    w = np.zeros(D)
    ell = 0.0
    for i in range(T):
        a = X[i]
        z = 1.0 if y[i] == 1 else -1.0
        A = a @ a
        p = w @ a
        pred[i] = 1 if p > 0.0 else 0
        if name in ("romma", "aromma") and u_form:
            U = w @ w
            if name == "romma" and z * p > 0.0:
                pass
            elif z * p >= 1.0:
                pass
            elif z * p >= A * U:
                w = (z / A) * a
            else:
                den = A * U - p * p
                if den > 1e-12 * A * U:
                    c = (A * U - z * p) / den
                    d = U * (z - p) / den
                    w = c * w + d * a
            ell = np.linalg.norm(w)
        elif name in ("romma", "aromma"):  # u = ŵ/ρ, so ‖u‖ = 1/ρ cannot overflow
            nw = np.linalg.norm(w)
            if nw == 0.0:
                w, rho = z * a, math.sqrt(A)
            else:
                g = z * p / nw
                if name == "romma" and g > 0.0:
                    pass
                elif g >= rho:
                    pass
                elif g * rho >= A:
                    w, rho = z * a, math.sqrt(A)
                elif A - g * g > 1e-12 * A:
                    v = ((A - g * rho) / (A - g * g)) * (w / nw) \
                        + ((z * rho - z * g) / (A - g * g)) * a
                    w, rho = v, rho / np.linalg.norm(v)
            w = w / np.linalg.norm(w)
            ell = 1.0 / rho if rho > 0.0 else math.inf  # ρ underflows on long noisy streams
        elif name == "naromma":
            nw = np.linalg.norm(w)
            if nw == 0.0:
                w, rho = z * a, math.sqrt(A)
            else:
                g = z * p / nw
                collinear = abs(p) >= (1.0 - 1e-12) * nw * math.sqrt(A)
                if collinear and g < 0.0:
                    pass
                elif g >= rho:
                    pass
                elif g * rho >= A:
                    w, rho = z * a, math.sqrt(A)
                else:
                    w = w + ((rho - g) / (A - g * rho)) * nw * z * a
                    rho = rho / math.sqrt(1.0 + (g - rho) ** 2 / (A - g * g))
            w = w / np.linalg.norm(w)
            ell = 1.0 / rho if rho > 0.0 else math.inf  # ρ underflows on long noisy streams
        else:  # mcp, cmcp
            nw = np.linalg.norm(w)
            if nw == 0.0:
                w, ell = z * a, 1.0 / math.sqrt(A)
            else:
                m = z * p
                threshold = 0.0 if name == "cmcp" else nw / (2.0 * ell)
                if m <= threshold:
                    eta = 0.0 if m <= 0.0 else m * ell / nw
                    w = w + (nw / (ell * A)) * z * a
                    ell = math.sqrt(ell * ell + (1.0 - 2.0 * eta) / A)
            w = w / np.linalg.norm(w)
        direction[i] = unit(w)
        ell_out[i] = ell
    return pred, direction, ell_out


def balanced_winnow(X, y, eta, normalize):
    """Balanced normalized Winnow written directly (Crammer & Singer §6, Figure 5): two positive
    weight vectors, predict 1 iff w1·x > w0·x; when the other class scores ≥ the true one,
    w_y ← w_y·exp(ηx), w_other ← w_other·exp(−ηx), then each vector (``"row"``) or the pair
    (``"matrix"``) is rescaled to unit l1 mass.  Returns predictions, w1 − w0 and #updates."""
    n = X.shape[1]
    w = np.full((2, n), 1.0 / (n if normalize == "row" else 2 * n))
    pred = np.empty(X.shape[0], dtype=np.int64)
    updates = 0
    for i, (x, label) in enumerate(zip(X, y)):
        s = w @ x
        pred[i] = 1 if s[1] > s[0] else 0
        if s[1 - label] >= s[label]:
            updates += 1
            w[label] *= np.exp(eta * x)
            w[1 - label] *= np.exp(-eta * x)
            if normalize == "row":
                w /= w.sum(axis=1, keepdims=True)
            else:
                w /= w.sum()
    return pred, w[1] - w[0], updates


# ---------------------------------------------------------------------------------- Theorem 7
def parallel_stream(seed, T, kind):
    if kind == "separable":
        X, y, *_ = separable_stream(seed, n=8, T=T, R=3.0, gamma_frac=0.05)
    else:  # noisy, general position, moderate ℓ*
        X, y, _ = noisy_stream(seed, D=20, T=T, flip=0.1)
    return X, y


@pytest.mark.parametrize("kind", ["separable", "noisy"])
@pytest.mark.parametrize("collinear_every", [0, 7])
def test_theorem7_naromma_equals_aggressive_romma(kind, collinear_every):
    """T6: same predictions every round, same n_updates_, ‖u_i‖ = ℓ*_i (rel 1e-9) and the same
    direction (1 − cos < 1e-12), with the default skip_collinear — also when every 7th round is
    an example collinear with w: parallel with the same label, at 0.5ρ (Type II: the norm
    changes) or 2ρ (Type I), and anti-parallel (skipped by both)."""
    X, y = parallel_stream(11, 1000, kind)
    aromma, naromma = onlinear.make("aromma"), onlinear.make("naromma")
    assert naromma.get_params()["skip_collinear"] == "antiparallel"
    assert aromma.learn_one(X[0], y[0], classes=BINARY) == naromma.learn_one(X[0], y[0],
                                                                              classes=BINARY)
    n_parallel_type2 = 0
    rng = np.random.default_rng(5)
    for i in range(1, X.shape[0]):
        x, label = X[i], y[i]
        if collinear_every and i % collinear_every == 0:
            d = unit(aromma.coef_[0])
            rho = 1.0 / aromma.cosine_bound_[0]
            case = rng.integers(4)
            if case == 0:  # z a ∥ +w, Type II
                x, label = 0.5 * rho * d, 1
                n_parallel_type2 += 1
            elif case == 1:  # z a ∥ +w with z = −1, Type II
                x, label = -0.5 * rho * d, 0
                n_parallel_type2 += 1
            elif case == 2:  # Type I
                x, label = 2.0 * rho * d, 1
            else:  # anti-parallel: z a ∥ −w
                x, label = 0.3 * rho * d, 0
        before = aromma.cosine_bound_[0]
        pa = aromma.learn_one(x, label)
        pn = naromma.learn_one(x, label)
        assert pa == pn, f"round {i}"
        assert aromma.n_updates_ == naromma.n_updates_, f"round {i}"
        la, ln = aromma.cosine_bound_[0], naromma.cosine_bound_[0]
        assert abs(la / ln - 1.0) < 1e-9, f"round {i}: ‖u‖ = {la}, ℓ* = {ln}"
        cos = unit(aromma.coef_[0]) @ unit(naromma.coef_[0])
        assert 1.0 - cos < 1e-12, f"round {i}"
        if collinear_every and i % collinear_every == 0 and case < 2:
            assert la == pytest.approx(2.0 * before, rel=1e-9)  # ‖u‖ = 1/‖a‖ = 2/ρ
    assert 0 < naromma.n_mistakes_ < naromma.n_updates_  # aggressive: more updates than mistakes
    if collinear_every:
        assert n_parallel_type2 > 20


def test_t13_paper_collinear_skip_breaks_the_norm_equality():
    """T13 (regression; collinear examples, Bshouty & Haddad-Zaknoon Figure 1, step 4): a parallel
    example a = ½ρ·ŵ with the same label is a Type II update for aggressive ROMMA (‖u‖ doubles) and
    for the default NAROMMA, but skip_collinear="paper" skips it, so ‖u‖ = ℓ* fails from then on."""
    X, y, *_ = separable_stream(3, n=6, T=300, R=2.0, gamma_frac=0.05)
    models = {"aromma": onlinear.make("aromma"), "default": onlinear.make("naromma"),
              "paper": onlinear.make("naromma", skip_collinear="paper")}
    for x, label in zip(X, y):
        predictions = {k: m.learn_one(x, label, classes=BINARY) for k, m in models.items()}
        assert len(set(predictions.values())) == 1
    ells = {k: m.cosine_bound_[0] for k, m in models.items()}
    assert ells["paper"] == pytest.approx(ells["aromma"], rel=1e-9)  # general position: equal
    updates = {k: m.n_updates_ for k, m in models.items()}
    assert updates["paper"] == updates["aromma"]

    rho = 1.0 / ells["aromma"]
    x = 0.5 * rho * unit(models["aromma"].coef_[0])
    for m in models.values():
        assert m.learn_one(x, 1) == 1  # correctly classified, margin below 1/ℓ*
    assert models["aromma"].cosine_bound_[0] == pytest.approx(2.0 * ells["aromma"], rel=1e-9)
    assert models["default"].cosine_bound_[0] == pytest.approx(2.0 * ells["aromma"], rel=1e-9)
    assert models["paper"].cosine_bound_[0] == ells["paper"]  # skipped: ℓ* unchanged
    assert models["aromma"].n_updates_ == updates["aromma"] + 1
    assert models["paper"].n_updates_ == updates["paper"]
    # the direction is the same for all three: only the norm equality is broken
    for m in models.values():
        assert 1.0 - unit(m.coef_[0]) @ unit(models["aromma"].coef_[0]) < 1e-12


# ---------------------------------------------------------------------------------- T4, T5, T7, T8
SEPARABLE_CASES = [
    # seed, n, R, gamma_frac, order
    (1, 2, 1.0, 0.05, "random"),
    (2, 10, 5.0, 0.02, "random"),
    (3, 30, 100.0, 0.1, "random"),
    (4, 5, 1.0, 0.05, "sorted"),
]
PASSES = 3


@pytest.fixture(scope="module")
def separable_traces():
    out = {}
    for case in SEPARABLE_CASES:
        seed, n, R, frac, order = case
        X, y, w, gamma, radius = separable_stream(seed, n, 500, R, frac, order)
        Xs, ys = epochs(X, y, PASSES)
        out[case] = (Xs, ys, w, gamma, radius,
                     {name: trace(name, Xs, ys) for name in MAX_COSINE})
    return out


@pytest.mark.parametrize("case", SEPARABLE_CASES, ids=lambda c: f"n{c[1]}-R{c[2]}-{c[4]}")
@pytest.mark.parametrize("name", MAX_COSINE)
def test_mistake_bound_t7_t8(separable_traces, case, name):
    """Theorem 10 (T7, MCP and CMCP) and T8 (ROMMA, aggressive ROMMA, NAROMMA): the paper's
    mistakes t over three passes satisfy t + 1 ≤ (R/γ)², γ and R realized with a_0 included;
    the library's count n_mistakes_ is at most t + 1."""
    X, y, w, gamma, R, traces = separable_traces[case]
    tr = traces[name]
    t = paper_mistakes(tr, X, y)
    bound = (R / gamma) ** 2
    assert t >= 1  # not vacuous
    assert t + 1 <= bound
    assert tr.model.n_mistakes_ <= t + 1
    assert tr.model.n_seen_ == X.shape[0]


@pytest.mark.parametrize("case", SEPARABLE_CASES, ids=lambda c: f"n{c[1]}-R{c[2]}-{c[4]}")
@pytest.mark.parametrize("name", MAX_COSINE)
def test_cosine_certificate_t4_and_monotone_ell_t5(separable_traces, case, name):
    """T4: cos(w*, w_i) ≥ γ·ℓ_i after every round (1e-9) — Lemmas 6, 8, 9, and for ROMMA u·u* ≥
    ‖u‖² with u* = w*/γ; T5: ℓ non-decreasing and ℓ ≤ 1/γ."""
    X, y, w, gamma, R, traces = separable_traces[case]
    tr = traces[name]
    cos = tr.direction @ w
    assert np.all(cos >= gamma * tr.ell - 1e-9), np.min(cos - gamma * tr.ell)
    assert np.all(np.diff(tr.ell) >= -1e-12 * tr.ell[1:])
    assert np.all(tr.ell <= (1.0 + 1e-9) / gamma)
    assert tr.ell[-1] > tr.ell[0]  # the certificate did grow
    assert tr.ell[0] == pytest.approx(1.0 / np.linalg.norm(X[0]), rel=1e-12)  # ℓ_1 = 1/‖a_0‖


@pytest.mark.parametrize("case", SEPARABLE_CASES[:2], ids=lambda c: f"n{c[1]}-R{c[2]}")
def test_mcp_update_rule_t11_and_cmcp_closed_form_t10(separable_traces, case):
    """T11: MCP updates iff z ŵ·a ≤ 1/(2ℓ); then ℓ² grows by (1 − 2η)/‖a‖² with
    η = max(0, z ŵ·a·ℓ) ∈ [0, ½]; every round without update has z ŵ·a > γ/2; updates ≥
    mistakes.  T10: CMCP's ℓ² = 1/‖a_0‖² + Σ_{updates} 1/‖a_j‖²."""
    X, y, w, gamma, R, traces = separable_traces[case]
    z = 2.0 * y - 1.0
    A = np.einsum("ij,ij->i", X, X)

    tr = traces["mcp"]
    m = z[1:] * np.einsum("ij,ij->i", tr.direction[:-1], X[1:])
    ell_before = tr.ell[:-1]
    updated = np.diff(tr.updates) == 1
    near = np.abs(m - 1.0 / (2.0 * ell_before)) < 1e-9 * (1.0 / ell_before)
    assert np.array_equal(updated[~near], (m <= 1.0 / (2.0 * ell_before))[~near])
    assert np.all(m[~updated] > gamma / 2.0)
    eta = np.where(m <= 0.0, 0.0, m * ell_before)
    assert np.all((eta[updated] >= 0.0) & (eta[updated] <= 0.5 + 1e-9))
    growth = tr.ell[1:] ** 2 - ell_before ** 2
    expected = np.where(updated, (1.0 - 2.0 * eta) / A[1:], 0.0)
    np.testing.assert_allclose(growth, expected, rtol=1e-7, atol=1e-12 * tr.ell.max() ** 2)
    assert np.sum(updated) > np.sum(m <= 0.0) >= 1  # non-conservative: more updates
    assert tr.model.n_updates_ >= tr.model.n_mistakes_

    tc = traces["cmcp"]
    updated = np.concatenate([[True], np.diff(tc.updates) == 1])
    np.testing.assert_allclose(tc.ell ** 2, np.cumsum(np.where(updated, 1.0 / A, 0.0)),
                               rtol=1e-12)
    mc = z[1:] * np.einsum("ij,ij->i", tc.direction[:-1], X[1:])
    assert np.array_equal(updated[1:], mc <= 0.0)  # conservative


# ---------------------------------------------------------------------------------- T9
@pytest.fixture(scope="module")
def scale_streams():
    X1, y1, *_ = separable_stream(21, n=10, T=1000, R=1.0, gamma_frac=0.02)
    X2, y2, _ = noisy_stream(22, D=50, T=1500, flip=0.2)
    return {"separable": (X1, y1), "noisy": (X2, y2)}


@pytest.mark.parametrize("kind", ["separable", "noisy"])
@pytest.mark.parametrize("name", MAX_COSINE)
def test_t9_scale_invariance(scale_streams, kind, name):
    """T9: multiplying every input by s ∈ {1e-3, 10, 1e3} leaves every prediction and the
    final direction unchanged (and divides ℓ by s on separable data)."""
    X, y = scale_streams[kind]
    base = trace(name, X, y)
    assert base.model.n_mistakes_ > 0
    for s in (1e-3, 10.0, 1e3):
        scaled = trace(name, s * X, y)
        differ = np.flatnonzero(base.pred != scaled.pred)
        assert differ.size == 0, f"s = {s}: predictions differ at rounds {differ[:5]}"
        assert base.model.n_updates_ == scaled.model.n_updates_
        assert 1.0 - base.direction[-1] @ scaled.direction[-1] < 1e-12
        if kind == "separable":
            np.testing.assert_allclose(scaled.ell * s, base.ell, rtol=1e-9)


# ---------------------------------------------------------------------------------- references
@pytest.mark.parametrize("kind", ["separable", "noisy-D20", "noisy-D10-long", "noisy-D3-long"])
@pytest.mark.parametrize("name", MAX_COSINE)
def test_matches_float64_reference_with_exact_norms(kind, name):
    """The compiled learners agree with a plain float64 transcription of the paper's
    updates that recomputes ‖w‖ from w every round: same predictions, ℓ to 1e-9 relative,
    directions to 1e-12, and coef_ of unit norm.  On the longer low-dimensional noisy streams
    this exposes the drift of the engine's incrementally tracked ‖w‖² (see the report)."""
    if kind == "separable":
        X, y, *_ = separable_stream(31, n=10, T=2000, R=5.0, gamma_frac=0.02)
    elif kind == "noisy-D20":
        X, y, _ = noisy_stream(32, D=20, T=1000, flip=0.1)
    elif kind == "noisy-D10-long":
        X, y, _ = noisy_stream(1, D=10, T=2500, flip=0.1)
    else:
        X, y, _ = noisy_stream(7, D=3, T=3000, flip=0.2)
    tr = trace(name, X, y)
    pred, direction, ell = reference(name, X, y)
    assert tr.model.n_updates_ > 1
    rel = np.abs(tr.ell / ell - 1.0)
    mismatch = np.flatnonzero(pred != tr.pred)
    norm = float(np.linalg.norm(tr.model.coef_))
    assert rel.max() < 1e-9, (f"ℓ off by {rel.max():.2e} (first > 1e-9 at round "
                              f"{np.argmax(rel > 1e-9)}); ‖coef_‖ = {norm}")
    assert mismatch.size == 0, f"first differing prediction at round {mismatch[:1]}"
    assert np.max(1.0 - np.einsum("ij,ij->i", tr.direction, direction)) < 1e-12
    assert abs(norm - 1.0) < 1e-9, f"‖coef_‖ = {norm}"


@pytest.mark.parametrize("name", ["romma", "aromma"])
def test_reference_rho_form_equals_the_spec_u_form(name):
    """The ρ-form reference used above is Table 1's u form (Bshouty & Haddad-Zaknoon): same
    predictions, ‖u‖ and direction (checked where ‖u‖ stays far from overflow)."""
    for X, y in (separable_stream(33, n=10, T=2000, R=5.0, gamma_frac=0.02)[:2],
                 noisy_stream(32, D=20, T=1000, flip=0.1)[:2]):
        pred, direction, ell = reference(name, X, y)
        pred_u, direction_u, ell_u = reference(name, X, y, u_form=True)
        assert np.array_equal(pred, pred_u)
        np.testing.assert_allclose(ell, ell_u, rtol=1e-11)
        assert np.max(1.0 - np.einsum("ij,ij->i", direction, direction_u)) < 1e-13


# ---------------------------------------------------------------------------------- MC-ROMMA
G1_CASES = [(41, 2, 5, 0.03), (42, 3, 10, 0.02), (43, 5, 20, 0.01), (44, 10, 8, 0.05)]


@pytest.mark.parametrize("scheme", ["max", "uniform", "prop"])
@pytest.mark.parametrize("case", G1_CASES, ids=lambda c: f"k{c[1]}-n{c[2]}")
def test_theorem14_mc_romma_mistake_bound(case, scheme):
    """Theorem 14 on G1 with the margin-1 comparator M*/γ: rounds with E ≠ ∅ (= n_updates_,
    ≥ n_mistakes_) summed over epochs until an epoch without update are ≤ 2R²‖M*/γ‖² = 2R²/γ²."""
    seed, k, n, gamma0 = case
    X, y, M, gamma, R = g1_stream(seed, k, n, T=300, gamma0=gamma0)
    model = onlinear.make("mc-romma", scheme=scheme)
    previous = 0
    for _ in range(500):
        model.partial_fit(X, y, classes=np.arange(k))
        if model.n_updates_ == previous:
            break
        previous = model.n_updates_
    else:
        pytest.fail("no epoch without update after 500 epochs")
    bound = 2.0 * R ** 2 / gamma ** 2
    assert model.n_updates_ >= 1
    assert model.n_mistakes_ <= model.n_updates_ <= bound
    assert np.array_equal(model.predict(X), y)


@pytest.mark.parametrize("case", [(51, 3, 6, 0.03), (52, 5, 10, 0.02)],
                         ids=lambda c: f"k{c[1]}-n{c[2]}")
def test_mc_romma_per_update_norm_growth(case):
    """Crammer & Singer §7 (Lemmas 12–13, Theorem 14; our check) on separable data, every update
    (scheme "max"): ‖M'‖² ≥ ‖M‖² + 1/(2R²), ‖M'‖² ≤ ‖M*/γ‖²; Lemma 12 (M'_y − M'_r)·x = 1 for the
    demoted r = argmax_{s≠y}; Lemma 13 M'·M = ‖M‖² — until an epoch without update."""
    seed, k, n, gamma0 = case
    X, y, M_star, gamma, R = g1_stream(seed, k, n, T=300, gamma0=gamma0)
    model = onlinear.make("mc-romma")
    model.learn_one(X[0], y[0], classes=np.arange(k))
    M = (model.coef_ * model.weight_norm_)
    assert np.linalg.norm(M) ** 2 >= 1.0 / (2.0 * R ** 2) * (1 - 1e-12)
    n_checked = 0
    for _ in range(200):
        changed = False
        for x, label in zip(X, y):
            updates = model.n_updates_
            scores = M @ x
            model.learn_one(x, label)
            if model.n_updates_ == updates:
                assert np.array_equal((model.coef_ * model.weight_norm_), M)
                continue
            changed = True
            n_checked += 1
            new = (model.coef_ * model.weight_norm_)
            old2, new2 = np.sum(M * M), np.sum(new * new)
            assert new2 >= old2 + 1.0 / (2.0 * R ** 2) * (1.0 - 1e-9)
            assert new2 <= (1.0 + 1e-9) / gamma ** 2
            wrong = np.where(np.arange(k) == label, -np.inf, scores)
            r = int(np.argmax(wrong))
            assert (new[label] - new[r]) @ x == pytest.approx(1.0, rel=1e-9)
            assert np.sum(new * M) == pytest.approx(old2, rel=1e-9)
            M = new
        if not changed:
            break
    else:
        pytest.fail("no epoch without update")
    assert n_checked >= 2


# ---------------------------------------------------------------------------------- multiplicative
G3_CASES = [(61, 3, 20), (62, 4, 30), (63, 2, 12)]


@pytest.mark.parametrize("scheme", ["uniform", "max", "prop"])
@pytest.mark.parametrize("normalize", ["row", "matrix"])
@pytest.mark.parametrize("case", G3_CASES, ids=lambda c: f"k{c[1]}-n{c[2]}")
def test_theorem11_multiplicative_mistake_bound(case, normalize, scheme):
    """Theorem 11 on G3 (Crammer & Singer §6; our explicit form from the Appendix A proof), run to
    an epoch without update: version 1 (rows of unit l1 mass, comparator margin γ/k after the
    analysis' scaling) m ≤ ln n/(ηγ/k − ln cosh η) with η = artanh(γ/k); version 2 (comparator M*/k
    of margin γ₂ = γ/k) m ≤ ln(nk)/(ηγ₂ − ln cosh η) with η = artanh(γ₂).  m counts the rounds with
    E ≠ ∅."""
    seed, k, n = case
    X, y, gamma = g3_stream(seed, k, n)
    if normalize == "row":
        rate = gamma / k
        eta = math.atanh(rate)
        bound = math.log(n) / (eta * rate - math.log(math.cosh(eta)))
    else:
        gamma2 = gamma / k
        eta = math.atanh(gamma2)
        bound = math.log(n * k) / (eta * gamma2 - math.log(math.cosh(eta)))
    model = onlinear.make("multiplicative", eta=eta, normalize=normalize, scheme=scheme)
    previous = 0
    for _ in range(300):
        model.partial_fit(X, y, classes=np.arange(k))
        if model.n_updates_ == previous:
            break
        previous = model.n_updates_
    else:
        pytest.fail("no epoch without update after 300 epochs")
    assert model.n_updates_ >= 1
    assert model.n_mistakes_ <= model.n_updates_ <= bound
    weights = model.coef_ if k > 2 else None
    if weights is not None:
        assert np.all(weights > 0.0)
        if normalize == "row":
            np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-9)
        else:
            assert weights.sum() == pytest.approx(1.0, rel=1e-9)


def winnow_stream():
    rng = np.random.default_rng(71)
    n, T = 20, 3000
    X = rng.uniform(-1.0, 1.0, size=(T, n))
    target = np.zeros(n)
    target[:3] = 1.0
    y = (X @ target > 0).astype(np.int64)
    flipped = rng.random(T) < 0.05
    y[flipped] = 1 - y[flipped]
    return X, y, rng.uniform(-1.0, 1.0, size=(500, n))


@pytest.mark.parametrize("normalize", ["row", "matrix"])
def test_two_class_multiplicative_is_winnow(normalize):
    """Crammer & Singer §6 (Figure 5): with two classes every scheme of the multiplicative family
    gives the update (τ_y, τ_other) = (1, −1): the same predictions, counts and weights as
    ``winnow``."""
    X, y, X_test = winnow_stream()
    eta = 0.3
    winnow = onlinear.make("winnow", eta=eta, normalize=normalize)
    winnow_pred = np.array([winnow.learn_one(x, label, classes=BINARY) for x, label in zip(X, y)])
    assert winnow.n_updates_ > 10
    for scheme in ("uniform", "max", "prop"):
        family = onlinear.make("multiplicative", eta=eta, normalize=normalize, scheme=scheme)
        family_pred = np.array([family.learn_one(x, label, classes=BINARY)
                                for x, label in zip(X, y)])
        assert np.array_equal(family_pred, winnow_pred)
        assert (family.n_mistakes_, family.n_updates_) == (winnow.n_mistakes_, winnow.n_updates_)
        np.testing.assert_array_equal(family.coef_, winnow.coef_)
        np.testing.assert_array_equal(family.decision_function(X_test),
                                      winnow.decision_function(X_test))


@pytest.mark.parametrize("normalize", ["row", "matrix"])
def test_winnow_equals_direct_balanced_winnow(normalize):
    """``winnow`` is the two-vector normalized Winnow written directly (``balanced_winnow``):
    same predictions every round, same number of updates, and w1 − w0 = coef_ to 1e-9."""
    X, y, X_test = winnow_stream()
    eta = 0.3
    winnow = onlinear.make("winnow", eta=eta, normalize=normalize)
    winnow_pred = np.array([winnow.learn_one(x, label, classes=BINARY) for x, label in zip(X, y)])
    pred, diff, updates = balanced_winnow(X, y, eta, normalize)
    assert np.array_equal(winnow_pred, pred)
    assert winnow.n_updates_ == updates > 10
    assert winnow.n_mistakes_ == np.sum(pred != y)
    assert np.array_equal(winnow.predict(X_test), (X_test @ diff > 0).astype(np.int64))
    np.testing.assert_allclose(winnow.coef_[0], diff, rtol=1e-9, atol=1e-12 * np.abs(diff).max())


# ---------------------------------------------------------------------------------- 10⁶ rounds
LONG_LEARNERS = [("romma", {}), ("aromma", {}), ("naromma", {}), ("mcp", {}), ("cmcp", {}),
                 ("mc-romma", {}), ("multiplicative", {"normalize": "row"}),
                 ("multiplicative", {"normalize": "matrix"}), ("winnow", {})]
LONG_IDS = [name + "-" + "-".join(p.values()) if p else name for name, p in LONG_LEARNERS]
LONG_RESULTS = {}


def long_stream(D):
    """10⁶ noisy rounds (20% flipped): one partial_fit call on a 10⁶-row array for D = 3, ten
    calls on the same 10⁵-row array for D = 50 (memory).  Returns the fitted learners and a
    clean test set."""
    if D in LONG_RESULTS:
        return LONG_RESULTS[D]
    rng = np.random.default_rng(81 + D)
    rows, calls = (10 ** 6, 1) if D == 3 else (10 ** 5, 10)
    X = rng.normal(size=(rows, D))
    w = rng.normal(size=D)
    y = (X @ w > 0).astype(np.int64)
    flipped = rng.random(rows) < 0.2
    y[flipped] = 1 - y[flipped]
    models = {}
    for (name, params), key in zip(LONG_LEARNERS, LONG_IDS):
        model = onlinear.make(name, **params)
        for _ in range(calls):
            model.partial_fit(X, y, classes=BINARY)
        models[key] = model
    X_test = rng.normal(size=(2000, D))
    LONG_RESULTS[D] = (models, X_test, (X_test @ w > 0).astype(np.int64))
    return LONG_RESULTS[D]


@pytest.mark.parametrize("D", [3, 50])
@pytest.mark.parametrize("key", LONG_IDS)
def test_long_noisy_stream_stays_finite(D, key):
    """10⁶ noisy rounds through the compiled batch path: finite weights, a certificate that is
    finite or +inf (ℓ* = 1/ρ of the ROMMA family when ρ underflows), working predictions."""
    models, X_test, y_test = long_stream(D)
    model = models[key]
    assert model.n_seen_ == 10 ** 6
    assert model.n_mistakes_ > 10 ** 5  # the noise is there
    assert np.isfinite(model.coef_).all()
    assert np.any(model.coef_ != 0.0)
    if hasattr(model, "cosine_bound_"):
        ell = model.cosine_bound_
        assert not np.isnan(ell).any() and np.all(ell > 0.0)
        if key in ("mcp", "cmcp"):
            assert np.isfinite(ell).all()
    scores = model.decision_function(X_test)
    assert np.isfinite(scores).all()
    predicted = model.predict(X_test)
    assert set(np.unique(predicted)) <= set(BINARY)
    assert model.predict_one(X_test[0]) in BINARY
    assert np.array_equal(predicted, (scores > 0).astype(np.int64))


@pytest.mark.parametrize("D", [3, 50])
@pytest.mark.parametrize("key", [k for k in LONG_IDS if k != "mc-romma"])
def test_long_noisy_stream_keeps_the_documented_invariants(D, key):
    """After 10⁶ noisy rounds the documented invariants still hold: for Bshouty & Haddad-Zaknoon's
    learners coef_ is the unit direction and every mistake (z(w·a) ≤ 0) was an update (T11; ROMMA,
    aggressive ROMMA, NAROMMA, MCP and CMCP all update on it); for the multiplicative family the
    two positive weight rows keep unit l1 mass each (``row``: Σ coef_ = 0, ‖coef_‖₁ ≤ 2) or
    together (``matrix``: ‖coef_‖₁ ≤ 1)."""
    models, _, _ = long_stream(D)
    model = models[key]
    coef = model.coef_[0]
    if key in MAX_COSINE:
        norm = float(np.linalg.norm(coef))
        assert abs(norm - 1.0) < 1e-6, f"‖coef_‖ = {norm}"
        assert model.n_updates_ >= model.n_mistakes_, \
            f"{model.n_updates_} updates < {model.n_mistakes_} mistakes"
    elif key.endswith("matrix"):
        assert np.abs(coef).sum() <= 1.0 + 1e-9
    else:  # winnow and multiplicative-row: w1 and w0 both of unit l1 mass
        assert np.abs(coef).sum() <= 2.0 + 1e-9
        assert abs(float(coef.sum())) < 1e-9, f"Σ coef_ = mass(w1) − mass(w0) = {coef.sum()}"


@pytest.mark.parametrize("D", [3, 50])
@pytest.mark.parametrize("normalize", ["row", "matrix"])
def test_long_noisy_multiclass_multiplicative_stays_normalized(D, normalize):
    """10⁶ noisy three-class rounds (20% random labels) through one partial_fit call (D = 3) or
    ten on a 10⁵-row set (D = 50): the weights stay positive and finite, every row (``row``)
    or the whole matrix (``matrix``) keeps unit l1 mass, and predictions still work."""
    rng = np.random.default_rng(91 + D)
    rows, calls = (10 ** 6, 1) if D == 3 else (10 ** 5, 10)
    X = rng.normal(size=(rows, D))
    target = rng.normal(size=(3, D))
    y = np.argmax(X @ target.T, axis=1)
    noisy = rng.random(rows) < 0.2
    y[noisy] = rng.integers(0, 3, size=int(noisy.sum()))
    model = onlinear.make("multiplicative", normalize=normalize)
    for _ in range(calls):
        model.partial_fit(X, y, classes=[0, 1, 2])
    assert model.n_seen_ == 10 ** 6 and model.n_updates_ > 10 ** 5
    weights = model.coef_
    assert np.isfinite(weights).all() and np.all(weights > 0.0)
    assert set(np.unique(model.predict(X[:1000]))) <= {0, 1, 2}
    if normalize == "row":
        np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-9)
    else:
        assert weights.sum() == pytest.approx(1.0, rel=1e-9)
