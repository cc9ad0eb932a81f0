"""Every registered learner against a slow, independent reference implementation.

The references below are written from the papers (Crammer & Singer 2003, §3–5 and the
one-vs-rest Perceptron baseline of §8; Matsushima et al. 2010, §2–3, with the corrected SPA-I /
SPA-II), not from the library code: plain numpy, one example at a time, the model a
``(n_outputs, n_features)`` matrix ``M`` of class prototypes.  They share only the library's
documented conventions:

* weights start at 0, the prediction is made before the update: one output → class 1 iff its
  score is > 0; several outputs → argmax, ties to the lowest class index;
* ``x = 0`` never updates; a round is an *update* when the model changed; a *mistake* is a wrong
  pre-update prediction;
* ``coef_`` is ``M`` for more than two classes, and for two classes a single row: ``M[0]`` of a
  binary learner, ``M[1] − M[0]`` of a two-prototype model.

The streams mix dense Gaussian rows with duplicates, all-zero rows and rows whose only feature
has never been seen before (every score exactly 0: a tie between all the classes).
"""
import numpy as np
import pytest
import scipy.sparse as sp
from certificates import kkt_certificate
from scipy.optimize import minimize
from sklearn.utils import check_random_state

import onlinear

KS = (2, 3, 7)
SEEDS = (0, 1)
N, D = 300, 10
RTOL = 1e-10

# Hyperparameter settings per registered name; every setting is checked on every stream.
PARAMS = {
    "perceptron": [{}, {"beta": 0.5}],
    "ovr-perceptron": [{}, {"beta": 0.5}],
    "perceptron-uniform": [{}, {"beta": 0.5}],
    "perceptron-max": [{}, {"beta": 0.5}],
    "perceptron-prop": [{}, {"beta": 0.5}],
    "kesler": [{}, {"beta": 0.5}],
    "mira": [{}, {"beta": 1.0}],
    "binary-mira": [{}, {"beta": 1.0}],
    "pa": [{}, {"variant": "printed"}],
    "pa1": [{"C": 0.05}, {"C": 0.05, "variant": "printed"}, {"C": 5.0, "variant": "printed"}],
    "pa2": [{"C": 0.05}, {"C": 0.05, "variant": "printed"}, {"C": 5.0}],
    "spa": [{}, {"variant": "printed"}],
    "spa1": [{"C": 0.05}, {"C": 5.0}, {"C": 5.0, "variant": "printed"}],
    "spa2": [{"C": 0.05}, {"C": 0.05, "variant": "printed"}, {"C": 5.0, "variant": "printed"}],
}


# =============================================================================================
# Reference learners.  Each rule maps (M, x, y, scores s, q = ‖x‖²) to the new model.
# =============================================================================================
def _labels(m, y):
    """±1 label of every output of a binary learner: one output is positive for class 1,
    one-vs-rest output r is positive for class r."""
    if m == 1:
        return np.array([1.0 if y == 1 else -1.0])
    z = -np.ones(m)
    z[y] = 1.0
    return z


def score(M, x):
    """``M x`` accumulated feature by feature (identical rows get identical scores, which a
    BLAS product does not promise: exact ties must stay exact)."""
    s = np.zeros(M.shape[0])
    for j in np.flatnonzero(x):
        s = s + M[:, j] * x[j]
    return s


def ref_perceptron(M, x, y, s, q, beta=0.0):
    """Rosenblatt, per output: ``w ← w + z x`` iff ``z (w·x) ≤ β`` (Crammer & Singer §3, §8)."""
    M = M.copy()
    for r, z in enumerate(_labels(M.shape[0], y)):
        if z * s[r] <= beta:
            M[r] += z * x
    return M


def ref_binary_mira(M, x, y, s, q, beta=0.01):
    """Figure 4, aggressive form: ``τ = G(−(z(w·x) − β/2)/‖x‖²)``, G the clip to [0, 1]."""
    M = M.copy()
    for r, z in enumerate(_labels(M.shape[0], y)):
        tau = min(max(-(z * s[r] - beta / 2) / q, 0.0), 1.0)
        if tau > 0:
            M[r] += tau * z * x
    return M


def ref_additive(M, x, y, s, q, scheme, beta=0.0):
    """Figure 2 with β deducted from the true score (§8): E = {r ≠ y : s_r ≥ s_y − β}."""
    K = M.shape[0]
    by = s[y] - beta
    wrong = [r for r in range(K) if r != y]
    E = [r for r in wrong if s[r] >= by]
    if not E:
        return M
    tau = np.zeros(K)
    tau[y] = 1.0
    excess = {r: max(s[r] - by, 0.0) for r in wrong}
    total = sum(excess.values())
    if scheme == "max":
        top = max(s[r] for r in wrong)
        tau[min(r for r in wrong if s[r] == top)] = -1.0
    elif scheme == "prop" and total > 0:
        for r in wrong:
            tau[r] = -excess[r] / total
    else:  # uniform, and prop's 0/0 fallback
        tau[E] = -1.0 / len(E)
    return M + np.outer(tau, x)


def ref_kesler(M, x, y, s, q, beta=0.0):
    """Kesler's construction run literally: for r ≠ y ascending, a binary Perceptron step on
    the expanded vector (x in block y, −x in block r) when it is misclassified (≥, margin β)."""
    M = M.copy()
    for r in range(M.shape[0]):
        if r == y:
            continue
        s_r, s_y = score(M[[r, y]], x)
        if s_r >= s_y - beta:
            M[y] += x
            M[r] -= x
    return M


def _project_on_simplex(v):
    """Euclidean projection of v onto {p ≥ 0, Σp = 1} (sort-based, exact)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    j = np.arange(1, v.shape[0] + 1)
    rho = j[u - (css - 1) / j > 0][-1]
    return np.maximum(v - (css[rho - 1] - 1) / rho, 0.0)


def ref_mira(M, x, y, s, q, beta=0.01):
    """Figure 3 with margin β (§5.3) solved exactly (our simplex-projection form of
    Crammer & Singer's Eq. 15): B̃ = s − β e_y, no update when max_{r≠y} B̃_r ≤ B̃_y, else
    ``τ = e_y − Π_simplex(B̃/A + e_y)``, then the clean-up."""
    K = M.shape[0]
    B = s.copy()
    B[y] -= beta
    others = np.arange(K) != y
    if B[others].max() <= B[y]:
        return M
    e = np.zeros(K)
    e[y] = 1.0
    tau = e - _project_on_simplex(B / q + e)
    tau[others & (B <= B[y])] = 0.0
    tau[y] = -tau[others].sum()
    return M + np.outer(tau, x)


def ref_pa(M, x, y, s, q, kind, C=1.0, variant="exact"):
    """Matsushima et al. §2 PA update, max-loss form; the printed C convention halves C."""
    K = M.shape[0]
    wrong = [v for v in range(K) if v != y]
    top = max(s[v] for v in wrong)
    r = min(v for v in wrong if s[v] == top)
    L = max(0.0, 1.0 - (s[y] - s[r]))
    if L == 0:
        return M
    if kind == "pa":
        tau = L / (2 * q)
    elif variant == "exact":
        tau = min(C, L / (2 * q)) if kind == "pa1" else L / (2 * q + 1 / (2 * C))
    else:  # as printed: PA-I min(C/2, L/(2q)), PA-II ½·L/(q + 1/(2C))
        tau = min(C / 2, L / (2 * q)) if kind == "pa1" else 0.5 * L / (q + 1 / (2 * C))
    M = M.copy()
    M[y] += tau * x
    M[r] -= tau * x
    return M


def ref_spa(M, x, y, s, q, kind, C=1.0, variant="exact"):
    """Matsushima et al. §3 support-class update; ``variant="printed"`` uses Table 2 as printed
    (SPA-I: its support test and its "+C" step; SPA-II: its step with 1/(2C))."""
    K = M.shape[0]
    loss = {v: max(0.0, 1.0 - (s[y] - s[v])) for v in range(K) if v != y}
    sigma = sorted((v for v in loss if loss[v] > 0), key=lambda v: -loss[v])
    h = 1 / (2 * C)
    S, A = [], 0.0
    for k, v in enumerate(sigma, start=1):
        lk = loss[v]
        if kind == "spa":
            ok = A < k * lk
        elif kind == "spa1" and variant == "exact":
            ok = A < min(k * lk, (k - 1) * lk + C * q)
        elif kind == "spa1":
            ok = A < min((k + 1) * C / q - lk, k * lk)
        else:
            ok = A < lk * (k * q + (k - 1) * h) / (q + h)
        if not ok:
            break
        S.append(v)
        A += lk
    n = len(S)
    if n == 0:
        return M
    if kind == "spa":
        theta = A / (n + 1)
    elif kind == "spa1" and variant == "exact":
        theta = max(A / (n + 1), (A - C * q) / n)
    elif kind == "spa1":
        theta = max(A / n + C * q / n, A / (n + 1))
    elif variant == "exact":
        theta = (q + h) * A / ((n + 1) * q + n * h)
    else:
        theta = (q + h) * A / ((n + 1) * q + h)
    M = M.copy()
    for v in S:
        tau = max(0.0, loss[v] - theta) / q
        M[y] += tau * x
        M[v] -= tau * x
    return M


BINARY = {"perceptron", "binary-mira"}


def reference_rule(name, params):
    p = dict(params)
    if name in ("perceptron", "ovr-perceptron"):
        return lambda M, x, y, s, q: ref_perceptron(M, x, y, s, q, p.get("beta", 0.0))
    if name == "binary-mira":
        return lambda M, x, y, s, q: ref_binary_mira(M, x, y, s, q, p.get("beta", 0.01))
    if name.startswith("perceptron-"):
        scheme = name.split("-")[1]
        return lambda M, x, y, s, q: ref_additive(M, x, y, s, q, scheme, p.get("beta", 0.0))
    if name == "kesler":
        return lambda M, x, y, s, q: ref_kesler(M, x, y, s, q, p.get("beta", 0.0))
    if name == "mira":
        return lambda M, x, y, s, q: ref_mira(M, x, y, s, q, p.get("beta", 0.01))
    rule = ref_pa if name.startswith("pa") else ref_spa
    return lambda M, x, y, s, q: rule(M, x, y, s, q, name, p.get("C", 1.0),
                                      p.get("variant", "exact"))


class Reference:
    """The online protocol around a reference rule."""

    def __init__(self, name, params, K, n_features):
        self.rule = reference_rule(name, params)
        m = 1 if name in BINARY and K == 2 else K
        self.M = np.zeros((m, n_features))
        self.mistakes = self.updates = self.seen = 0
        self.predictions = []

    def learn(self, x, y):
        s = score(self.M, x)
        predicted = int(s[0] > 0) if s.shape[0] == 1 else int(np.argmax(s))
        q = float(score(x[None, :], x)[0])
        if q > 0:
            new = self.rule(self.M, x, y, s, q)
            if not np.array_equal(new, self.M):
                self.updates += 1
            self.M = new
        self.seen += 1
        self.mistakes += predicted != y
        self.predictions.append(predicted)
        return predicted

    @property
    def coef(self):
        if self.M.shape[0] == 2:
            return (self.M[1] - self.M[0])[None, :]
        return self.M


_CACHE = {}


def reference(name, params, K, X, y, orders):
    """The reference after online passes over ``X[order]`` for each order in ``orders``."""
    key = (name, tuple(sorted(params.items())), K, X.tobytes(), y.tobytes(),
           tuple(o.tobytes() for o in orders))
    if key not in _CACHE:
        ref = Reference(name, params, K, X.shape[1])
        for order in orders:
            for i in order:
                ref.learn(X[i], y[i])
        _CACHE[key] = ref
    return _CACHE[key]


# =============================================================================================
# Streams
# =============================================================================================
def make_stream(seed, K, n=N, d=D):
    """Gaussian classes in R^d (30 % of the entries zeroed) with, at fixed random places:
    duplicates of earlier rows (at least 15 rounds later), all-zero rows, and three rows whose
    only feature is a column no earlier row used (all scores exactly 0)."""
    rng = np.random.default_rng([seed, K])
    y = rng.permutation(np.arange(n) % K)
    prototypes = rng.normal(size=(K, d))
    X = prototypes[y] + rng.normal(scale=1.5, size=(n, d))
    X *= np.exp(rng.uniform(np.log(0.1), np.log(2.0), size=(n, 1)))  # ‖x‖² from ~0.1 to ~200
    X[rng.random((n, d)) < 0.3] = 0.0
    fresh_rows = np.sort(rng.choice(np.arange(20, 150), size=3, replace=False))
    for col, row in zip(range(d - 3, d), fresh_rows):
        X[:row, col] = 0.0
        X[row] = 0.0
        X[row, col] = rng.choice([-1, 1]) * rng.uniform(0.5, 2.0)
    special = set(fresh_rows.tolist())
    candidates = [i for i in range(30, n) if i not in special]
    zero_rows = rng.choice(candidates, size=6, replace=False)
    X[zero_rows] = 0.0
    special |= set(zero_rows.tolist())
    candidates = [i for i in range(30, n) if i not in special]
    for i in rng.choice(candidates, size=12, replace=False):
        j = rng.integers(0, i - 15)
        X[i], y[i] = X[j], y[j]
    return np.ascontiguousarray(X), y.astype(np.int64)


def duplicates_apart(X, order, gap=15):
    """Whether every two visits of equal non-zero rows in ``X[order]`` are ``gap`` rounds apart.
    A row seen again right after an exact step on it sits on the margin boundary up to
    round-off, where only bit-identical arithmetic could agree; the streams avoid that."""
    last = {}
    for t, i in enumerate(order):
        key = X[i].tobytes()
        if X[i].any() and t - last.get(key, -gap) < gap:
            return False
        last[key] = t
    return True


def shuffle_seed(X, n_epochs):
    """The first ``random_state`` ≥ 100 whose shuffled epochs keep the duplicates apart."""
    for state in range(100, 10_000):
        rng = check_random_state(state)
        if duplicates_apart(X, np.concatenate([rng.permutation(len(X))
                                               for _ in range(n_epochs)])):
            return state
    raise AssertionError("no random_state keeps the duplicates apart")


_STREAMS = {}


def stream(seed, K):
    if (seed, K) not in _STREAMS:
        _STREAMS[(seed, K)] = make_stream(seed, K)
    return _STREAMS[(seed, K)]


def settings(name):
    """(seed, params) pairs checked for ``name``."""
    return [(seed, params) for seed in SEEDS for params in PARAMS[name]]


# The learners of the ultraconservative and passive-aggressive families; the rescaling and
# multiplicative learners have their references in test_reference_rescaling.py.
CASES = [pytest.param(name, K, id=f"{name}-K{K}") for name in PARAMS for K in KS]


def test_every_additive_registered_learner_has_a_reference():
    additive_families = {onlinear.registry.CRAMMER_SINGER, onlinear.registry.MATSUSHIMA}
    expected = {name for name in onlinear.available()
                if onlinear.describe(name).paper in additive_families
                and name not in ("mc-romma", "multiplicative", "winnow")}
    assert expected == set(PARAMS)


# =============================================================================================
# Comparison helpers
# =============================================================================================
def assert_same_model(est, ref, what=""):
    expected = ref.coef
    assert est.coef_.shape == expected.shape, what
    scale = max(1.0, np.abs(expected).max())
    np.testing.assert_allclose(est.coef_, expected, rtol=RTOL, atol=RTOL * scale, err_msg=what)
    assert (est.n_seen_, est.n_mistakes_, est.n_updates_) == (ref.seen, ref.mistakes,
                                                             ref.updates), what


def assert_same_estimators(a, b, what=""):
    """The same model up to rounding: the same online counts, and weights equal to ~1e-13 (a
    dense pass sums with reassociated vector instructions, a CSR or per-example pass in feature
    order — see onlinear._core.primal — so they agree to rounding, not bit for bit)."""
    scale = max(1.0, np.abs(b.coef_).max())
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-13 * scale, err_msg=what)
    assert (a.n_seen_, a.n_mistakes_, a.n_updates_) == (b.n_seen_, b.n_mistakes_,
                                                       b.n_updates_), what


def csr_variants(X):
    """The CSR forms of X: int32 indices, int64 indices, and unsorted indices with explicitly
    stored zeros (including a row whose only stored entries are zeros)."""
    A = sp.csr_matrix(X)
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    B = sp.csr_matrix(X)
    B.indices, B.indptr = B.indices.astype(np.int64), B.indptr.astype(np.int64)
    assert A.indices.dtype == np.int32 and B.indices.dtype == np.int64
    rows, cols, vals = [], [], []
    for i in range(X.shape[0]):
        nz = np.flatnonzero(X[i])[::-1]  # reversed: unsorted within each row
        extra = [c for c in range(X.shape[1]) if X[i, c] == 0][:2]
        for c in list(nz) + extra:
            rows.append(i)
            cols.append(c)
            vals.append(X[i, c])
    indptr = np.searchsorted(rows, np.arange(X.shape[0] + 1))
    C = sp.csr_matrix((np.array(vals), np.array(cols), indptr), shape=X.shape)
    assert not C.has_sorted_indices and (C.data == 0).any()
    return {"csr-int32": A, "csr-int64": B, "csr-unsorted-explicit-zeros": C}


# =============================================================================================
# The references themselves: exact per-round solutions of their problems (certified by KKT)
# =============================================================================================
def _problem(kind, K, y, s, q, C, beta):
    """The per-round problem in the step coefficients, as (objective, gradient, A_ub, b_ub,
    A_eq, b_eq, variables of a step τ), for x = √q e_0 and scores s.

    MIRA, in τ: ``min ½q‖τ‖² + B̃·τ  s.t.  τ ≤ e_y, Στ = 0``.  The SPA family, in z = (t[, ξ]),
    t_v = −τ_v ≥ 0 for v ≠ y (so Δw_y = Σt·x, Δw_v = −t_v x):
    ``min ½q((Σt)² + ‖t‖²) [+ Cξ | + Cξ²]  s.t.  s_y − s_v + q(Σt + t_v) ≥ 1 − ξ,  t ≥ 0[, ξ ≥ 0]``.
    """
    others = [v for v in range(K) if v != y]
    if kind == "mira":
        B = s - beta * np.eye(K)[y]
        return (lambda t: 0.5 * q * t @ t + B @ t, lambda t: q * t + B,
                np.eye(K), np.eye(K)[y], np.ones((1, K)), np.zeros(1), lambda tau: tau)
    soft = kind != "spa"
    n = K - 1 + soft

    def objective(z):
        t, xi = z[:K - 1], (z[-1] if soft else 0.0)
        return 0.5 * q * (t.sum() ** 2 + t @ t) + (C * xi if kind == "spa1" else C * xi ** 2)

    def gradient(z):
        t, xi = z[:K - 1], (z[-1] if soft else 0.0)
        g = np.zeros(n)
        g[:K - 1] = q * (t.sum() + t)
        if soft:
            g[-1] = C if kind == "spa1" else 2.0 * C * xi
        return g

    # margins: −q(Σt + t_i) − ξ ≤ s_y − s_v − 1; bounds −z ≤ 0
    margin_rows = np.zeros((K - 1, n))
    margin_rows[:, :K - 1] = -q * (np.ones((K - 1, K - 1)) + np.eye(K - 1))
    if soft:
        margin_rows[:, -1] = -1.0
    A = np.vstack([margin_rows, -np.eye(n)])
    b = np.concatenate([[s[y] - s[v] - 1.0 for v in others], np.zeros(n)])

    def variables(tau):
        t = -tau[others]
        if not soft:
            return t
        new = s + q * tau
        return np.append(t, max(0.0, max(1 - (new[y] - new[v]) for v in others)))

    return objective, gradient, A, b, None, None, variables


def _slsqp_point(objective, gradient, A, b, A_eq, b_eq, n):
    """A generic solver's point for the same problem; its flag is not looked at (see
    tests/certificates.py): the caller uses the point only if it is feasible."""
    constraints = [{"type": "ineq", "fun": lambda z: b - A @ z, "jac": lambda z: -A}]
    if A_eq is not None:
        constraints.append({"type": "eq", "fun": lambda z: A_eq @ z - b_eq,
                            "jac": lambda z: A_eq})
    return minimize(objective, np.zeros(n), jac=gradient, method="SLSQP",
                    constraints=constraints, options={"ftol": 1e-14, "maxiter": 500}).x


def _reference_tau(kind, K, y, s, q, C, beta):
    """The reference's step on one example x = √q e_0 with scores s, as τ (Δw_r = τ_r x)."""
    x = np.zeros(3)
    x[0] = np.sqrt(q)
    M0 = np.zeros((K, 3))
    M0[:, 0] = s / x[0]
    M1 = ref_mira(M0, x, y, s, q, beta) if kind == "mira" else ref_spa(M0, x, y, s, q, kind, C)
    return (M1 - M0)[:, 0] / x[0]


@pytest.mark.parametrize("kind", ["mira", "spa", "spa1", "spa2"])
def test_reference_steps_are_the_per_round_optima(kind):
    """The references' MIRA and SPA-x steps satisfy the KKT conditions of their per-round
    problems (so they are the optima: the problems are convex), and a generic solver's point,
    where feasible, is not better."""
    rng = np.random.default_rng(7)
    n_checked = 0
    for _ in range(40):
        K = int(rng.integers(2, 7))
        y = int(rng.integers(K))
        s = rng.normal(scale=rng.choice([0.3, 1.0, 3.0]), size=K)
        q = float(rng.choice([0.2, 1.0, 5.0]))
        C = float(rng.choice([0.05, 0.5, 5.0]))
        beta = float(rng.choice([0.0, 0.5, 2.0]))
        if kind == "mira" or max(s[v] - s[y] for v in range(K) if v != y) > -1:
            objective, gradient, A, b, A_eq, b_eq, variables = _problem(kind, K, y, s, q, C, beta)
            z = variables(_reference_tau(kind, K, y, s, q, C, beta))
            case = (K, y, s, q, C, beta)
            kkt_certificate(z, gradient(z), A, b, A_eq, b_eq).assert_optimal(1e-8, case)
            other = _slsqp_point(objective, gradient, A, b, A_eq, b_eq, z.size)
            feasible = np.all(A @ other <= b + 1e-9) and (
                A_eq is None or np.all(np.abs(A_eq @ other - b_eq) <= 1e-9))
            if feasible:
                assert objective(z) <= objective(other) + 1e-9 * (1 + abs(objective(other))), case
            n_checked += 1
    assert n_checked >= 20


def test_printed_spa1_can_refuse_to_update_on_a_positive_loss():
    """Our example against Matsushima et al.'s printed Table 2, q = 1, C = 1, losses (5, 4, 3): the
    printed SPA-I support test admits no class, so the printed rule does not move; the exact SPA-I
    spends its budget C."""
    x = np.array([1.0, 0.0])
    M = np.array([[0.0, 0.0], [4.0, 0.0], [3.0, 0.0], [2.0, 0.0]])
    s = M @ x  # true class 0: losses 1 − (0 − s_v) = 5, 4, 3
    assert np.array_equal(ref_spa(M, x, 0, s, 1.0, "spa1", 1.0, "printed"), M)
    exact = ref_spa(M, x, 0, s, 1.0, "spa1", 1.0, "exact")
    np.testing.assert_allclose(exact[:, 0], [1.0, 3.0, 3.0, 2.0])  # θ = 4: only class 1 moves


# =============================================================================================
# Library against reference
# =============================================================================================
def test_streams_contain_the_edge_cases():
    """Duplicates, all-zero rows, and rounds where every score is exactly 0 (a full tie)."""
    for K in KS:
        for seed in SEEDS:
            X, y = stream(seed, K)
            assert X.shape == (N, D) and set(np.unique(y)) == set(range(K))
            assert (~X.any(axis=1)).sum() >= 6
            assert len(np.unique(X[X.any(axis=1)], axis=0)) <= X.any(axis=1).sum() - 10
            assert duplicates_apart(X, np.arange(N))
            ref = reference("perceptron-uniform", {}, K, X, y, [np.arange(N)])
            assert ref.updates > 0
            # rows with a single, never-seen feature: all K scores tie at exactly 0
            for col in range(D - 3, D):
                row = np.flatnonzero(X[:, col])[0]
                assert np.count_nonzero(X[row]) == 1


@pytest.mark.parametrize("name,K", CASES)
def test_fit_matches_reference(name, K):
    for seed, params in settings(name):
        X, y = stream(seed, K)
        ref = reference(name, params, K, X, y, [np.arange(N)])
        if name == "spa1" and params.get("variant") == "printed":
            # From W = 0 every loss is 1: the printed step θ = A/n + Cq/n exceeds every loss,
            # so the printed SPA-I never leaves W = 0 (the printed Table 2 is wrong here).
            assert ref.updates == 0
        else:
            assert ref.updates > 0
        est = onlinear.make(name, **params).fit(X, y)
        assert_same_model(est, ref, f"seed={seed} params={params}")


@pytest.mark.parametrize("name,K", CASES)
def test_csr_input_gives_the_same_model(name, K):
    for seed, params in settings(name)[:2]:
        X, y = stream(seed, K)
        what = f"seed={seed} params={params}"
        dense = onlinear.make(name, **params).fit(X, y)
        ref = reference(name, params, K, X, y, [np.arange(N)])
        for form, A in csr_variants(X).items():
            est = onlinear.make(name, **params).fit(A, y)
            assert_same_model(est, ref, f"{form} {what}")
            assert_same_estimators(est, dense, f"{form} {what}")


@pytest.mark.parametrize("name,K", CASES)
def test_float32_input_gives_the_model_of_its_float64_values(name, K):
    """float32 rows are read exactly: with float64 weights (``dtype="float64"``; the default
    follows float32 data with float32 weights, see test_float32_weights.py) the model is the
    one of the same values in float64."""
    float64 = {"dtype": "float64"} if "dtype" in onlinear.make(name).get_params() else {}
    for seed, params in settings(name)[:2]:
        X, y = stream(seed, K)
        X32 = X.astype(np.float32)
        ref = reference(name, params, K, X32.astype(np.float64), y, [np.arange(N)])
        as64 = onlinear.make(name, **params).fit(X32.astype(np.float64), y)
        for form, A in {"dense-float32": X32, "csr-float32": sp.csr_matrix(X32)}.items():
            est = onlinear.make(name, **params, **float64).fit(A, y)
            what = f"{form} seed={seed} params={params}"
            assert_same_model(est, ref, what)
            assert_same_estimators(est, as64, what)


@pytest.mark.parametrize("name,K", CASES)
def test_learn_one_matches_reference(name, K):
    for seed, params in settings(name):
        X, y = stream(seed, K)
        ref = reference(name, params, K, X, y, [np.arange(N)])
        est = onlinear.make(name, **params)
        classes = np.arange(K)
        predictions = [est.learn_one(X[0], y[0], classes=classes)]
        predictions += [est.learn_one(X[i], y[i]) for i in range(1, N)]
        what = f"seed={seed} params={params}"
        np.testing.assert_array_equal(predictions, ref.predictions, err_msg=what)
        assert_same_model(est, ref, what)


@pytest.mark.parametrize("name,K", CASES)
def test_partial_fit_in_chunks_equals_one_fit(name, K):
    cuts = [0, 1, 37, 150, 151, 299, N]
    for seed, params in settings(name):
        X, y = stream(seed, K)
        est = onlinear.make(name, **params)
        for start, stop in zip(cuts, cuts[1:]):
            est.partial_fit(X[start:stop], y[start:stop],
                            classes=np.arange(K) if start == 0 else None)
        what = f"seed={seed} params={params}"
        assert_same_estimators(est, onlinear.make(name, **params).fit(X, y), what)
        assert_same_model(est, reference(name, params, K, X, y, [np.arange(N)]), what)


@pytest.mark.parametrize("name,K", CASES)
def test_three_epochs_equal_three_partial_fit_passes(name, K):
    for seed, params in settings(name)[:2]:
        X, y = stream(seed, K)
        fitted = onlinear.make(name, n_epochs=3, **params).fit(X, y)
        streamed = onlinear.make(name, **params)
        for _ in range(3):
            streamed.partial_fit(X, y, classes=np.arange(K))
        what = f"seed={seed} params={params}"
        assert_same_estimators(fitted, streamed, what)
        assert_same_model(fitted, reference(name, params, K, X, y, [np.arange(N)] * 3), what)


@pytest.mark.parametrize("name,K", CASES)
def test_shuffled_fit_is_reproducible_and_follows_the_permutations(name, K):
    for seed, params in settings(name)[:2]:
        X, y = stream(seed, K)
        state = shuffle_seed(X, n_epochs=2)
        make = lambda: onlinear.make(name, n_epochs=2, shuffle=True, random_state=state,
                                     **params)
        first, second = make().fit(X, y), make().fit(X, y)
        what = f"seed={seed} params={params}"
        assert_same_estimators(first, second, what)
        rng = check_random_state(state)
        orders = [rng.permutation(N) for _ in range(2)]
        assert_same_model(first, reference(name, params, K, X, y, orders), what)
        unshuffled = reference(name, params, K, X, y, [np.arange(N)] * 2)
        assert not np.allclose(unshuffled.coef, first.coef_), what


@pytest.mark.parametrize("name,K", CASES)
def test_label_types_do_not_change_the_model(name, K):
    seed, params = settings(name)[0]
    X, y = stream(seed, K)
    ref = reference(name, params, K, X, y, [np.arange(N)])
    plain = onlinear.make(name, **params).fit(X, y)
    label_sets = {
        "strings": np.array([f"class-{c}" for c in "qrstuvw"[:K]]),
        "negative-ints": np.array([-40, -7, -3, -2, 0, 5, 11][:K]),
        "object-strings": np.array(["a", "b", "c", "d", "e", "f", "g"][:K], dtype=object),
    }
    for kind, labels in label_sets.items():
        assert np.array_equal(np.unique(labels), labels)  # index = rank of the label
        est = onlinear.make(name, **params).fit(X, labels[y])
        np.testing.assert_array_equal(est.classes_, labels)
        assert_same_model(est, ref, f"fit {kind}")
        np.testing.assert_array_equal(est.predict(X), labels[plain.predict(X)])
        one = onlinear.make(name, **params)
        predictions = [one.learn_one(X[0], labels[y[0]], classes=labels[::-1].copy())]
        predictions += [one.learn_one(X[i], labels[y[i]]) for i in range(1, N)]
        np.testing.assert_array_equal(predictions, labels[ref.predictions], err_msg=kind)
        assert_same_model(one, ref, f"learn_one {kind}")


@pytest.mark.parametrize("K", KS)
def test_two_prototype_and_binary_references_agree_on_two_classes(K):
    """Cross-checks of independently written references (Crammer & Singer §3, §5.2;
    Matsushima et al. §2–3): on two classes the additive family and Kesler are the Perceptron
    (row1 − row0 = 2w), MIRA is binary MIRA (2w), and SPA-x is PA-x.  On more classes they must
    differ."""
    X, y = stream(0, K)
    run = lambda name, **p: reference(name, p, K, X, y, [np.arange(N)]).coef
    pairs = [(run("perceptron-uniform"), 2 * run("perceptron")),
             (run("perceptron-max"), 2 * run("perceptron")),
             (run("perceptron-prop"), 2 * run("perceptron")),
             (run("kesler"), 2 * run("perceptron")),
             (run("mira", beta=0.5), 2 * run("binary-mira", beta=0.5)),
             (run("spa"), run("pa")),
             (run("spa1", C=0.05), run("pa1", C=0.05)),
             (run("spa2", C=0.05), run("pa2", C=0.05))]
    if K == 2:
        for a, b in pairs:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
    else:
        for a, b in pairs[4:]:
            assert not np.allclose(a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_outputs_with_equal_weights_score_equal_bit_for_bit(dtype):
    """The references above break ties exactly (argmax to the lowest index; the Perceptron
    family's error sets take every score ≥ the label's), and two outputs updated alike keep
    equal weights: a tie the dense sums must keep.  So every output's dense score is summed the
    same way, whatever its position (a sweep that scored some outputs in blocks and the rest one
    at a time summed equal columns in different orders on AVX2, and the dense and CSR passes of
    perceptron-uniform with 7 classes parted).  The counts of outputs cover fewer than a block
    of the sweep, whole blocks, and a last block overlapping the one before by 1 to 3."""
    from onlinear._core.weights import column_dots_dense as scores_of

    rng = np.random.default_rng(3)
    for n_outputs in range(1, 13):
        for n_features in (5, 37, 784):
            column = rng.standard_normal(n_features).astype(dtype)
            Wt = np.repeat(column[None, :], n_outputs, axis=0)
            x = rng.random(n_features).astype(dtype)
            scores = np.empty(n_outputs)
            scores_of(x, Wt, np.ones((4, n_outputs)), scores)
            assert np.all(scores == scores[0]), (n_outputs, n_features, scores)
