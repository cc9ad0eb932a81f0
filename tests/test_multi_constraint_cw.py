"""Multiclass CW with k constraints (``ConfidenceWeighted(form="variance", constraints=k)``,
:mod:`onlinear._core.multi_constraint`): every round against a numpy transcription of the
restricted problem's solution, single rounds against a generic solver and the KKT conditions,
the constraints after each round, the options that must agree or be refused, and the
estimator's protocol (entry points, averaging, growing, save/load, atomic failures).

The data are continuous (no score ties after the first round, whose all-zero scores every
implementation breaks to the lowest index alike)."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import brentq, minimize
from scipy.stats import norm

import onlinear
from onlinear import ConfidenceWeighted
from onlinear._core import multi_constraint

ETA = 0.8
PHI = float(norm.ppf(ETA))


def _data(n=80, d=5, k=4, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 1.0, (k, d))
    y = rng.integers(0, k, n)
    X = (centres[y] + rng.normal(0.0, 1.2, (n, d))) * scale
    X[rng.random((n, d)) < 0.2] = 0.0
    return X, y


def _cw(**kw):
    return ConfidenceWeighted(eta=ETA, form="variance", **kw)


def _top(scores, y, k):
    wrong = [c for c in np.argsort(-scores, kind="stable") if c != y]
    return wrong if k == "all" else wrong[:k]


# ------------------------------------------------------------------------- the transcription
def reference_round(mu, cov, x, y, phi, k, layout):
    """One round of the module doc's math in numpy (class-major μ (K, d); Σ: (K, d)
    diagonals or (K, d, d) matrices): Hildreth's sweeps, each coordinate's root by Brent's
    method (not Newton's, as the engine).  Returns (μ, Σ, updated, α by class)."""
    s = mu @ x
    S = _top(s, y, k)
    classes = [y, *S]
    if layout == "per-class":
        u = {c: cov[c] @ x for c in classes}
        v0 = {c: float(x @ u[c]) for c in classes}

        def v(c, A):
            return v0[c] / (1.0 + 2.0 * phi * A * v0[c])
    else:
        t = {c: x * x * cov[c] for c in classes}
        v0 = {c: float(t[c].sum()) for c in classes}

        def v(c, A):
            return float(np.sum(t[c] / (1.0 + 2.0 * phi * A * t[c])))
    alpha = dict.fromkeys(S, 0.0)
    if all(s[y] - s[j] - phi * (v0[y] + v0[j]) >= 0.0 for j in S):
        return mu.copy(), cov.copy(), False, alpha
    for _ in range(100):
        change = 0.0
        for j in S:
            Ay, aj = sum(alpha.values()), alpha[j]

            def f(delta):
                return (s[y] - s[j] + (Ay + delta) * v0[y] + (aj + delta) * v0[j]
                        - phi * (v(y, Ay + delta) + v(j, aj + delta)))
            if f(-aj) >= 0.0:
                new = 0.0
            else:
                hi = -aj - f(-aj) / (v0[y] + v0[j])
                new = max(0.0, aj + brentq(f, -aj, hi, xtol=1e-300, maxiter=500))
            change = max(change, abs(new - aj))
            alpha[j] = new
        if change * v0[y] < 1e-12 * (1.0 + max(alpha.values()) * v0[y]):  # (module doc)
            break
    mu, cov = mu.copy(), cov.copy()
    A = {y: sum(alpha.values()), **alpha}
    for c in classes:
        sign = 1.0 if c == y else -1.0
        if layout == "per-class":
            mu[c] += sign * A[c] * u[c]
            cov[c] = cov[c] - (2 * phi * A[c] / (1 + 2 * phi * A[c] * v0[c])) * np.outer(u[c],
                                                                                       u[c])
        else:
            mu[c] += sign * A[c] * cov[c] * x
            cov[c] = 1.0 / (1.0 / cov[c] + 2.0 * phi * A[c] * x * x)
    return mu, cov, True, alpha


def _state(model, layout):
    """(μ class-major, Σ class-major) of the estimator."""
    cov = model.covariance_
    return model.coef_.copy(), (cov.T.copy() if layout == "diagonal" else cov)


@pytest.mark.parametrize("K", [3, 4, 6])
@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
@pytest.mark.parametrize("k", [1, 2, "all"])
def test_every_round_is_the_transcription(K, layout, k):
    """Round by round (learn_one, dense and CSR in step): the engine's μ and Σ equal the
    transcription's; dense and CSR rounds are identical."""
    X, y = _data(n=60, d=5, k=K, seed=K)
    dense, csr = _cw(matrix=layout, constraints=k), _cw(matrix=layout, constraints=k)
    rows = sp.csr_matrix(X)
    mu = np.zeros((K, X.shape[1]))
    cov = np.ones((K, X.shape[1])) if layout == "diagonal" else np.repeat(
        np.eye(X.shape[1])[None], K, axis=0)
    updates = mistakes = 0
    for i in range(X.shape[0]):
        predicted = dense.learn_one(X[i], y[i], classes=list(range(K)))
        csr.learn_one(rows[i], y[i], classes=list(range(K)))
        assert predicted == int(np.argmax(mu @ X[i]))
        mistakes += predicted != y[i]
        mu, cov, updated, _ = reference_round(mu, cov, X[i], y[i], PHI, k, layout)
        updates += updated
        ours_mu, ours_cov = _state(dense, layout)
        np.testing.assert_allclose(ours_mu, mu, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(ours_cov, cov, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(csr.coef_, dense.coef_)
        np.testing.assert_array_equal(csr.covariance_, dense.covariance_)
    assert (dense.n_mistakes_, dense.n_updates_) == (mistakes, updates)
    assert 0 < updates < X.shape[0]


# ------------------------------------------------------------------------- a generic solver
def _round_problem(seed, layout, d, K):
    """A single round with 2–4 violated constraints: μ0, Σ0 (class-major), x, y."""
    rng = np.random.default_rng(seed)
    mu0 = rng.normal(0.0, 0.9, (K, d))
    if layout == "per-class":
        B = rng.normal(0.0, 0.5, (K, d, d))
        cov0 = B @ B.transpose(0, 2, 1) + 0.3 * np.eye(d)
    else:
        cov0 = rng.uniform(0.2, 1.5, (K, d))
    x = rng.normal(0.0, 1.0, d)
    return mu0, cov0, x, int(rng.integers(0, K))


def _engine_round(mu0, cov0, x, y, k, layout):
    K, d = mu0.shape
    mean = np.array(mu0.T, order="C")  # (copies: the engine writes in place)
    cov = np.array(cov0.T if layout == "diagonal" else cov0, order="C")
    constraints = K - 1 if k == "all" else k
    _, updated = multi_constraint.learn_row(np.arange(d), x, y, mean, cov, PHI, constraints,
                                            layout=layout)
    return mean.T.copy(), (cov.T.copy() if layout == "diagonal" else cov), updated


def _kkt(mu0, cov0, mu, cov, x, y, S, layout):
    """Check the restricted problem's KKT conditions at (μ, Σ), with the multipliers read off
    the wrong classes' means (μ_j = μ0_j − α_j Σ0_j x); returns α."""
    def times(c):
        return cov0[c] @ x if layout == "per-class" else cov0[c] * x

    alpha = {}
    for j in S:
        u = times(j)
        alpha[j] = -float((mu[j] - mu0[j]) @ u / (u @ u))
        np.testing.assert_allclose(mu[j], mu0[j] - alpha[j] * u, atol=1e-10)  # stationarity
        assert alpha[j] >= -1e-12  # dual feasibility
    A = {y: sum(alpha.values()), **alpha}
    np.testing.assert_allclose(mu[y], mu0[y] + A[y] * times(y), atol=1e-10)
    for c in [y, *S]:  # stationarity in Σ, on the layout's entries
        if layout == "per-class":
            change = np.linalg.inv(cov[c]) - np.linalg.inv(cov0[c]) - 2 * PHI * A[c] * np.outer(x, x)
        else:
            change = 1.0 / cov[c] - 1.0 / cov0[c] - 2 * PHI * A[c] * x * x
        np.testing.assert_allclose(change, 0.0, atol=1e-8 * (1.0 + 2 * PHI * A[c] * (x @ x)))

    def v(c):
        return float(x @ cov[c] @ x) if layout == "per-class" else float(x * x @ cov[c])

    for j in S:
        g = (mu[y] - mu[j]) @ x - PHI * (v(y) + v(j))
        assert g >= -1e-9  # primal feasibility
        assert abs(alpha[j] * g) <= 1e-9 * (1.0 + alpha[j])  # complementary slackness
    return alpha


def _generic(mu0, cov0, x, y, S, layout):
    """The restricted problem over the classes it touches (the KL separates by class, and the
    others keep μ0, Σ0), by SLSQP over the means and Cholesky factors (the diagonals' logs)."""
    d = x.shape[0]
    classes = [y, *S]
    tri = np.tril_indices(d)
    n_cov = len(tri[0]) if layout == "per-class" else d

    def unpack(z):
        out = {}
        for n, c in enumerate(classes):
            block = z[n * (d + n_cov):(n + 1) * (d + n_cov)]
            if layout == "per-class":
                L = np.zeros((d, d))
                L[tri] = block[d:]
                out[c] = (block[:d], L @ L.T)
            else:
                out[c] = (block[:d], np.exp(block[d:]))
        return out

    def kl(z):
        total = 0.0
        for c, (m, C) in unpack(z).items():
            if layout == "per-class":
                P0 = np.linalg.inv(cov0[c])
                diff = m - mu0[c]
                total += 0.5 * (np.trace(P0 @ C) + diff @ P0 @ diff - d
                                + np.linalg.slogdet(cov0[c])[1] - np.linalg.slogdet(C)[1])
            else:
                diff = m - mu0[c]
                total += 0.5 * np.sum(C / cov0[c] + diff * diff / cov0[c] - 1.0
                                      + np.log(cov0[c]) - np.log(C))
        return total

    def constraint(j):
        def g(z):
            p = unpack(z)
            (my, Cy), (mj, Cj) = p[y], p[j]
            var = (x @ Cy @ x + x @ Cj @ x) if layout == "per-class" else (x * x) @ (Cy + Cj)
            return (my - mj) @ x - PHI * var
        return g

    start = []
    for c in classes:
        start.extend(mu0[c])
        start.extend(np.linalg.cholesky(cov0[c])[tri] if layout == "per-class"
                     else np.log(cov0[c]))
    result = minimize(kl, np.array(start), method="SLSQP",
                      constraints=[{"type": "ineq", "fun": constraint(j)} for j in S],
                      options={"ftol": 1e-15, "maxiter": 2000})
    return unpack(result.x), kl(result.x), kl


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("layout", ["per-class", "diagonal"])
def test_a_round_is_the_restricted_problems_solution(seed, layout):
    """Single rounds whose 4 constraints start with 2, 3 or 4 violated (1 to 4 active at the
    solution: the others' complementary slackness is checked too): the engine's (μ, Σ) meets
    the KKT conditions of the restricted problem (checked directly), and a generic solver
    (SLSQP, whose result is judged by its objective and point, not its flag) reaches the same
    point: its KL is no lower than ours but for its tolerance, and its point is ours within
    1e-6 (on these strictly convex problems of 20 variables SLSQP with ftol = 1e-15 lands
    within 2e-7 of the engine's point; the KKT residuals above are ~1e-12)."""
    d, K = 3, 5
    for attempt in range(200):  # (a round with 2 + seed % 3 violated constraints)
        mu0, cov0, x, y = _round_problem(1000 * seed + attempt, layout, d, K)
        S = _top(mu0 @ x, y, "all")
        v0 = [x @ cov0[c] @ x if layout == "per-class" else (x * x) @ cov0[c] for c in range(K)]
        violated = sum((mu0[y] - mu0[j]) @ x < PHI * (v0[y] + v0[j]) for j in S)
        if violated == 2 + seed % 3:
            break
    assert violated == 2 + seed % 3
    mu, cov, updated = _engine_round(mu0, cov0, x, y, "all", layout)
    assert updated
    alpha = _kkt(mu0, cov0, mu, cov, x, y, S, layout)
    assert sum(a > 1e-9 for a in alpha.values()) >= 1
    solved, solved_kl, kl = _generic(mu0, cov0, x, y, S, layout)
    ours = []
    for c in [y, *S]:
        ours.extend(mu[c])
        ours.extend(np.linalg.cholesky(cov[c])[np.tril_indices(d)] if layout == "per-class"
                    else np.log(cov[c]))
    assert solved_kl >= kl(np.array(ours)) - 1e-9
    for c in [y, *S]:
        np.testing.assert_allclose(solved[c][0], mu[c], atol=1e-6)
        np.testing.assert_allclose(solved[c][1], cov[c], atol=1e-6)
    for c in set(range(K)) - {y, *S}:
        np.testing.assert_array_equal(mu[c], mu0[c])


# ------------------------------------------------------------------------- the constraints
@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
@pytest.mark.parametrize("k", [2, 3, "all"])
def test_after_every_updating_round_its_constraints_hold_and_the_active_ones_are_tight(
        layout, k):
    X, y = _data(n=100, d=6, k=5, seed=21)
    model = _cw(matrix=layout, constraints=k)
    model.learn_one(X[0], y[0], classes=list(range(5)))
    checked = 0
    for i in range(1, X.shape[0]):
        mu0, cov0 = _state(model, layout)
        updates = model.n_updates_
        model.learn_one(X[i], y[i])
        if model.n_updates_ == updates:
            continue
        mu, cov = _state(model, layout)
        x, label = X[i], y[i]
        S = _top(mu0 @ x, label, k)

        def v(C):
            return float(x @ C @ x) if layout == "per-class" else float(x * x @ C)
        for j in S:
            u = cov0[j] @ x if layout == "per-class" else cov0[j] * x
            alpha = -float((mu[j] - mu0[j]) @ u / (u @ u))
            slack = (mu[label] - mu[j]) @ x - PHI * (v(cov[label]) + v(cov[j]))
            scale = 1.0 + abs((mu[label] - mu[j]) @ x)
            assert slack >= -1e-9 * scale
            if alpha > 1e-9:
                assert abs(slack) <= 1e-9 * scale
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_max_leaves_its_constraint_unmet_where_one_constraint_meets_it(layout):
    """The documented difference: after an updating round, "max" (the binary step on
    V = v_y + v_{s*}) leaves m < φV over the Σ the layout keeps; constraints=1 meets it."""
    X, y = _data(n=60, k=4, seed=22)
    for constraints, met in (("max", False), (1, True)):
        model = _cw(matrix=layout, constraints=constraints)
        model.learn_one(X[0], y[0], classes=[0, 1, 2, 3])
        slacks = []
        for x, label in zip(X[1:], y[1:]):
            mu0 = model.coef_.copy()
            updates = model.n_updates_
            model.learn_one(x, label)
            if model.n_updates_ == updates:
                continue
            mu, cov = _state(model, layout)
            (s,) = _top(mu0 @ x, label, 1)
            V = sum(float(x @ cov[c] @ x) if layout == "per-class" else float(x * x @ cov[c])
                    for c in (label, s))
            slacks.append(((mu[label] - mu[s]) @ x - PHI * V) / (1.0 + PHI * V))
        assert len(slacks) > 10
        if met:
            assert min(slacks) >= -1e-9
        else:
            assert max(slacks) < -1e-6


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_rows_times_c_with_a_over_c_squared_take_the_same_rounds(layout):
    """x → c·x with a → a/c²: the same α and the same means (Σ scaled by 1/c²), to rounding,
    however large c (the stopping test and the root search are scale-free)."""
    X, y = _data(n=60, k=4, seed=23)
    base = _cw(matrix=layout, constraints="all").fit(X, y)
    for c in (1e-3, 1e40):
        scaled = _cw(matrix=layout, constraints="all", a=1.0 / c ** 2).fit(X * c, y)
        np.testing.assert_allclose(scaled.coef_ * c, base.coef_, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(scaled.covariance_ * c ** 2, base.covariance_, rtol=1e-7,
                                   atol=1e-9)
        assert (scaled.n_mistakes_, scaled.n_updates_) == (base.n_mistakes_, base.n_updates_)


# ------------------------------------------------------------------------- options that agree
@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_all_is_the_top_k_of_every_wrong_class_and_beyond(layout):
    X, y = _data(n=100, k=5, seed=4)
    every = _cw(matrix=layout, constraints="all").fit(X, y)
    for k in (4, 9):
        top = _cw(matrix=layout, constraints=k).fit(X, y)
        np.testing.assert_array_equal(top.coef_, every.coef_)
        np.testing.assert_array_equal(top.covariance_, every.covariance_)
        assert (top.n_mistakes_, top.n_updates_) == (every.n_mistakes_, every.n_updates_)
    assert not np.array_equal(_cw(matrix=layout, constraints=1).fit(X, y).coef_, every.coef_)


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
@pytest.mark.parametrize("k", [1, 3, "all"])
def test_two_classes_are_the_binary_learner_whatever_the_constraints(layout, k):
    X, y = _data(n=100, k=2, seed=5)
    one = _cw(matrix=layout).fit(X, y)
    other = _cw(matrix=layout, constraints=k).fit(X, y)
    np.testing.assert_array_equal(other.coef_, one.coef_)
    np.testing.assert_array_equal(other.covariance_, one.covariance_)
    assert (other.n_mistakes_, other.n_updates_) == (one.n_mistakes_, one.n_updates_)


@pytest.mark.parametrize("form", ["std", "variance"])
@pytest.mark.parametrize("matrix", ["diagonal", "per-class"])
def test_max_is_the_rounds_of_before(form, matrix):
    """The default ``"max"`` runs the single max-score constraint's rounds of the Gaussian
    engine, bit for bit (whose rounds are the numpy transcription's: test_confidence_core)."""
    from onlinear._core import confidence
    from onlinear.rules.confidence_table import GaussianRule, parameter_vector

    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(150, 6)), rng.integers(0, 4, 150)
    default = ConfidenceWeighted(form=form, matrix=matrix).fit(X, y)
    explicit = ConfidenceWeighted(form=form, matrix=matrix, constraints="max").fit(X, y)
    assert default.get_params()["constraints"] == "max"
    np.testing.assert_array_equal(explicit.coef_, default.coef_)
    np.testing.assert_array_equal(explicit.covariance_, default.covariance_)
    params = default.get_params()
    rule = GaussianRule["CW_STD" if form == "std" else "CW_VARIANCE"]
    mean, covariance = confidence.initial_state(matrix, 6, 4, params["a"])
    counts = confidence.learn_pass(int(rule), X, y.astype(np.int64), np.arange(150), mean,
                                   covariance, parameter_vector(rule, eta=params["eta"]),
                                   layout=matrix, diagonal=params["diagonal"])
    assert (default.n_mistakes_, default.n_updates_) == tuple(counts)
    assert default.n_updates_ > 100
    np.testing.assert_array_equal(default.coef_, mean.T)
    np.testing.assert_array_equal(default.covariance_, covariance)


# ------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("bad, words", [
    ({"form": "std"}, "form='variance'"),
    ({"matrix": "shared"}, "matrix='shared'"),
    ({"diagonal": "drop"}, "diagonal='project'"),
    ({"constraints": 0}, "'constraints' parameter"),
    ({"constraints": "some"}, "'constraints' parameter"),
    ({"constraints": 2.5}, "'constraints' parameter"),
    ({"constraints": True}, "a bool is not a count"),
])
def test_a_refused_option_names_the_parameter_and_leaves_a_fitted_model_as_it_was(bad, words):
    """On a fitted model the bad value is refused by set_params, which keeps the old values
    and arrays; on a new one, by fit."""
    X, y = _data(n=60, seed=6)
    model = _cw(matrix="diagonal", constraints=2).fit(X, y)
    before = {name: array.copy() for name, array in model.model_.arrays().items()}
    params = model.get_params()
    with pytest.raises(ValueError, match="constraints") as raised:
        model.set_params(**bad)
    assert words in str(raised.value)
    assert model.get_params() == params
    for name, array in model.model_.arrays().items():
        np.testing.assert_array_equal(array, before[name])
    with pytest.raises(ValueError, match="constraints") as raised:
        ConfidenceWeighted(**{"form": "variance", "constraints": 2, **bad}).fit(X, y)
    assert words in str(raised.value)


def test_std_form_is_refused_at_construction_time_of_a_fit():
    X, y = _data(n=30, seed=6)
    with pytest.raises(ValueError, match="standard-deviation form"):
        ConfidenceWeighted(constraints="all").fit(X, y)


@pytest.mark.parametrize("bad_value", [np.nan, 1e300], ids=["nan", "huge"])
@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_a_row_refused_mid_pass_leaves_the_model_as_it_was(layout, sparse, bad_value):
    X, y = _data(n=60, seed=7)
    model = _cw(matrix=layout, constraints=2).fit(X[:30], y[:30])
    before = {name: array.copy() for name, array in model.model_.arrays().items()}
    bad = X[30:].copy()
    bad[12, 1] = bad_value
    with pytest.raises(ValueError, match="NaN|infinity|not finite|norm|row 12"):
        model.partial_fit(sp.csr_matrix(bad) if sparse else bad, y[30:])
    for name, array in model.model_.arrays().items():
        np.testing.assert_array_equal(array, before[name])
    with pytest.raises(ValueError):
        model.learn_one(bad[12], y[42])
    for name, array in model.model_.arrays().items():
        np.testing.assert_array_equal(array, before[name])


def test_the_engine_stops_before_a_round_whose_variance_overflows():
    """A row whose scores are finite but whose v0 is not: the pass stops before that round
    (the rounds before it taken), naming the row."""
    K, d = 3, 2
    mean = np.zeros((d, K))
    cov = np.array([[1.0] * K, [1e300] * K])
    X = np.array([[1.0, 0.0], [0.0, 1e10]])
    with pytest.raises(ValueError, match="row 1"):
        multi_constraint.learn_pass(X, np.array([0, 1]), np.array([0, 1]), mean, cov, PHI, 2)
    assert mean[0].any() and not mean[1].any()  # (the first round taken, not the second)
    assert np.all(cov[1] == 1e300)


# ------------------------------------------------------------------------- the protocol
@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_every_entry_point_plays_the_same_rounds(layout):
    X, y = _data(n=90, seed=8)
    classes = [0, 1, 2, 3]
    whole = _cw(matrix=layout, constraints=2).fit(X, y)
    chunks = _cw(matrix=layout, constraints=2)
    for start in range(0, X.shape[0], 13):
        chunks.partial_fit(X[start:start + 13], y[start:start + 13], classes=classes)
    ones = _cw(matrix=layout, constraints=2)
    predicted = [ones.learn_one(x, label, classes=classes) for x, label in zip(X, y)]
    many = _cw(matrix=layout, constraints=2)
    batch = many.learn_many(X, y, classes=classes)
    csr = _cw(matrix=layout, constraints=2).fit(sp.csr_matrix(X), y)
    for other in (chunks, ones, many, csr):
        np.testing.assert_array_equal(other.coef_, whole.coef_)
        np.testing.assert_array_equal(other.covariance_, whole.covariance_)
        assert (other.n_seen_, other.n_mistakes_, other.n_updates_) == (
            whole.n_seen_, whole.n_mistakes_, whole.n_updates_)
    assert np.array_equal(predicted, batch)
    assert "_fast" in vars(ones)
    if layout == "per-class":  # (symmetric bit for bit as the engine leaves it)
        cov = ones.model_.__dict__["covariance"]
        assert np.array_equal(cov, cov.transpose(0, 2, 1))


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_constraints_set_while_learning_apply_from_the_next_example(layout):
    """max → 2 → all on a model learning with learn_one (whose held "max" round defers its
    lower triangles) equals the same switches between partial_fit calls, bit for bit."""
    X, y = _data(n=90, seed=16)
    ones, chunks = _cw(matrix=layout), _cw(matrix=layout)
    ones.learn_one(X[0], y[0], classes=[0, 1, 2, 3])
    chunks.partial_fit(X[:1], y[:1], classes=[0, 1, 2, 3])
    for start, stop, constraints in ((1, 30, "max"), (30, 60, 2), (60, 90, "all")):
        ones.set_params(constraints=constraints)
        chunks.set_params(constraints=constraints)
        for i in range(start, stop):
            ones.learn_one(X[i], y[i])
        chunks.partial_fit(X[start:stop], y[start:stop])
    np.testing.assert_array_equal(ones.coef_, chunks.coef_)
    np.testing.assert_array_equal(ones.covariance_, chunks.covariance_)
    assert (ones.n_mistakes_, ones.n_updates_) == (chunks.n_mistakes_, chunks.n_updates_)


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_saved_and_loaded_it_keeps_its_constraints_and_goes_on_bit_for_bit(tmp_path, layout):
    """A model file and a pickle keep ``constraints`` (a hyperparameter, saved with the
    others; the model's configuration is made from it again) and the rounds go on alike."""
    X, y = _data(n=90, seed=9)
    model = _cw(matrix=layout, constraints=3, fit_intercept=True).fit(X[:50], y[:50])
    onlinear.save(model, tmp_path / "cw.onlinear")
    copies = [onlinear.load(tmp_path / "cw.onlinear"), pickle.loads(pickle.dumps(model))]
    for learner in [model, *copies]:
        assert (learner.constraints, learner.model_.config["constraints"]) == (3, 3)
        learner.partial_fit(X[50:], y[50:])
    for copy in copies:
        for name, array in model.model_.arrays().items():
            np.testing.assert_array_equal(copy.model_.arrays()[name], array, err_msg=name)
        assert copy.n_mistakes_ == model.n_mistakes_


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_averaging_predicts_with_the_mean_of_the_rounds_means(layout):
    X, y = _data(n=70, seed=10)
    online = _cw(matrix=layout, constraints="all")
    means = []
    for x, label in zip(X, y):
        online.learn_one(x, label, classes=[0, 1, 2, 3])
        means.append(online.coef_.copy())
    averaged = _cw(matrix=layout, constraints="all", average=True).fit(X, y)
    np.testing.assert_allclose(averaged.coef_, np.mean(means, axis=0), rtol=1e-10, atol=1e-13)
    np.testing.assert_array_equal(averaged.covariance_, online.covariance_)
    assert averaged.n_mistakes_ == online.n_mistakes_


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_grown_features_are_a_model_started_wide(layout):
    X, y = _data(n=90, d=6, k=4, seed=11)
    X[:40, 4:] = 0.0
    wide = _cw(matrix=layout, constraints=2).partial_fit(
        sp.csr_matrix(X[:40]), y[:40], classes=[0, 1, 2, 3])
    narrow = _cw(matrix=layout, constraints=2).partial_fit(
        sp.csr_matrix(X[:40, :4]), y[:40], classes=[0, 1, 2, 3])
    narrow.grow_features(6)
    wide.partial_fit(sp.csr_matrix(X[40:]), y[40:])
    narrow.partial_fit(sp.csr_matrix(X[40:]), y[40:])
    np.testing.assert_array_equal(narrow.coef_, wide.coef_)
    np.testing.assert_array_equal(narrow.covariance_, wide.covariance_)
    assert narrow.n_updates_ == wide.n_updates_


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_a_new_class_starts_from_the_prior_and_enters_the_constraints(layout):
    """A class added later starts at μ = 0, Σ = a·I (the old ones keep theirs) and is one of
    the wrong classes of the next rounds: with "all", a round of class 0 moves it."""
    X, y = _data(n=60, k=3, seed=13)
    model = _cw(matrix=layout, constraints="all", a=2.0).fit(X, y)
    mean, cov = model.coef_.copy(), model.covariance_
    model.add_classes([7])
    np.testing.assert_array_equal(model.coef_[:3], mean)
    assert not model.coef_[3].any()
    (np.testing.assert_array_equal(model.covariance_[:, :3], cov) if layout == "diagonal"
     else np.testing.assert_array_equal(model.covariance_[:3], cov))
    # a row of class 0 whose constraint against the new class (score 0) fails
    x = -mean[0] / np.linalg.norm(mean[0])
    model.learn_one(x, 0)
    assert model.coef_[3].any()


def test_example_weights_stay_refused():
    X, y = _data(n=30, seed=14)
    with pytest.raises(TypeError, match="sample_weight"):
        _cw(constraints=2).fit(X, y, sample_weight=np.ones(30))


def test_min_variance_floors_a_full_matrix_along_the_rows_it_learns():
    """Per-class: after each round, the xᵀΣ_c x/‖x‖² of every class whose matrix moved is at
    least min_variance (the held steps counted)."""
    X, y = _data(n=150, k=4, seed=15)
    y = np.random.default_rng(1).permutation(y)
    model = _cw(matrix="per-class", constraints="all", min_variance=0.05)
    model.learn_one(X[0], y[0], classes=[0, 1, 2, 3])
    moved = 0
    for x, label in zip(X[1:], y[1:]):
        before = model.covariance_
        model.learn_one(x, label)
        for c in range(4):
            if not np.array_equal(model.covariance_[c], before[c]):
                assert x @ model.covariance_[c] @ x / (x @ x) >= 0.05 * (1 - 1e-9)
                moved += 1
    assert moved > 50
    assert model.n_variance_repairs_ > 0


def test_min_variance_floors_the_diagonal_and_counts_the_repairs():
    X, y = _data(n=200, k=4, seed=12)
    y = np.random.default_rng(0).permutation(y)  # (label noise: the hard constraints collapse σ)
    model = _cw(matrix="diagonal", constraints="all", min_variance=0.05).fit(X, y)
    assert model.covariance_.min() >= 0.05
    assert model.n_variance_repairs_ > 0


@pytest.mark.parametrize("matrix", ["diagonal", "per-class"])
def test_the_hostile_input_audit_finds_nothing_wrong(matrix):
    """tools/audit.py's configuration of the k-constraint rounds: every bad input through
    every public method is a clear error with the model unchanged, or accepted."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "audit.py"
    spec = importlib.util.spec_from_file_location("onlinear_audit", path)
    audit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(audit)
    params = {"form": "variance", "constraints": "all", "matrix": matrix}
    assert ("cw", params) in audit.configurations()
    report = audit._audit_one("cw", params)
    assert set(report["outcomes"]) <= {"clear error", "accepted"}, report
