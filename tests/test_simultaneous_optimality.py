"""Updates defined as the solution of an optimization problem ARE that solution (Amit,
Shalev-Shwartz & Singer §2, Eqs. 1–3 and Appendix A; §5.4; §9 and its footnote 1; §8 and
Appendix C): the exact block solver (``optimal``), Sopopo's closed form and SimOpt's
water-filling certified by their optimality (KKT) conditions on random rounds, with a generic
solver (scipy's SLSQP) beside them whose feasible points must not be better; the multiplicative
closed form (Appendix C) against a numeric 1-D maximiser.
"""
import numpy as np
import pytest
from certificates import kkt_certificate
from scipy.optimize import minimize, minimize_scalar

from onlinear._core import blocks as be
from onlinear.rules import simultaneous as rules
from onlinear.solvers.block_dual import solve_block_dual

NO_PARTS = np.empty(0, np.int64)
NO_COUPLING = np.empty(0)


def qp_dual(G, gain, parts, coupling, caps):
    """A generic solver's point for max Σα gain − ½αᵀGα s.t. α ≥ 0, Σ_{S_l} c_j α_j ≤ caps[l]
    (SLSQP; its convergence flag is not trusted, the callers only compare values with it)."""
    k = len(gain)
    cons = [{"type": "ineq", "fun": (lambda a, l=l: caps[l] - coupling[parts == l] @ a[parts == l]),
             "jac": (lambda a, l=l: -np.where(parts == l, coupling, 0.0))}
            for l in range(len(caps))]
    res = minimize(lambda a: 0.5 * a @ G @ a - gain @ a, np.zeros(k),
                   jac=lambda a: G @ a - gain, bounds=[(0, None)] * k, constraints=cons,
                   method="SLSQP", options={"ftol": 1e-16, "maxiter": 2000})
    return np.maximum(res.x, 0.0)


def primal_problem(Z, w0, parts, coupling, caps):
    """The primal (Eq. 2 / 18 with §10's weights) on u = (ω, ξ):
    min ½‖ω − ω⁰‖² + Σ_l caps_l ξ_l  s.t.  z_j·ω ≥ 1 − c_j ξ_{l(j)},  ξ ≥ 0,
    as (objective, gradient, A_ub, b_ub)."""
    k, n = Z.shape
    r = len(caps)
    onehot = np.zeros((k, r))
    onehot[np.arange(k), parts] = coupling
    A = np.vstack([-np.hstack([Z, onehot]), np.hstack([np.zeros((r, n)), -np.eye(r)])])
    b = np.concatenate([-np.ones(k), np.zeros(r)])
    return (lambda u: 0.5 * (u[:n] - w0) @ (u[:n] - w0) + caps @ u[n:],
            lambda u: np.concatenate([u[:n] - w0, caps]), A, b)


def best_slacks(Z, omega, parts, coupling, r):
    """For fixed ω the best ξ_l is the largest scaled violation of its set (or 0)."""
    violation = (1.0 - Z @ omega) / coupling
    return np.array([max(0.0, violation[parts == l].max(initial=0.0)) for l in range(r)])


def assert_primal_optimum(Z, w0, parts, coupling, caps, omega):
    """ω (with its best slacks) satisfies the KKT conditions of the primal, so it is the
    projection (see tests/certificates.py); a generic solver's point, where feasible, is not
    better.  Replaces a comparison with SLSQP's point, whose last digits and flag depend on the
    CPU and BLAS."""
    objective, gradient, A, b = primal_problem(Z, w0, parts, coupling, caps)
    u = np.concatenate([omega, best_slacks(Z, omega, parts, coupling, len(caps))])
    kkt_certificate(u, gradient(u), A, b).assert_optimal(1e-8)
    other = minimize(objective, np.concatenate([w0, np.full(len(caps), 1.0 + np.abs(
                         1.0 - Z @ w0).max())]), jac=gradient, method="SLSQP",
                     constraints=[{"type": "ineq", "fun": lambda v: b - A @ v,
                                   "jac": lambda v: -A}],
                     options={"ftol": 1e-16, "maxiter": 2000}).x
    if np.all(A @ other <= b + 1e-9):
        assert objective(u) <= objective(other) + 1e-9 * (1 + abs(objective(other)))


def dual_value(G, gain, a):
    return gain @ a - 0.5 * a @ G @ a


def random_block(rng):
    k = int(rng.integers(1, 9))
    n = int(rng.integers(2, 9))
    X = rng.normal(size=(k, n))
    if k > 2 and rng.random() < 0.3:
        X[1] = X[0]  # a singular Gram matrix
    y = rng.choice([-1.0, 1.0], k)
    w = rng.normal(size=n) * rng.uniform(0, 1)
    C = float(np.exp(rng.uniform(np.log(0.05), np.log(10))))
    return X, y, w, C


def assert_kkt(G, gain, alpha, parts, coupling, caps, atol=1e-8):
    """α ≥ 0, budgets met, and with θ_l the set multipliers: ∇_j = gain_j − (Gα)_j ≤ θ_l c_j with
    equality where α_j > 0, θ_l ≥ 0, θ_l = 0 unless the budget is used up."""
    grad = gain - G @ alpha
    assert (alpha >= -1e-12).all()
    for l in range(len(caps)):
        idx = parts == l
        used = coupling[idx] @ alpha[idx]
        assert used <= caps[l] * (1 + 1e-10)
        ratio = grad[idx] / coupling[idx]
        theta = max(0.0, ratio.max())
        if used < caps[l] * (1 - 1e-8):
            assert theta <= atol * 10
        positive = alpha[idx] > 1e-9
        np.testing.assert_allclose(ratio[positive], theta, atol=atol * 10)


def test_optimal_equals_generic_qp_on_random_blocks():
    """≥ 200 random blocks: the engine's ``optimal`` trial gives the QP's ω (certified by the
    primal KKT conditions, a generic solver's point not better), the dual KKT conditions hold
    and the duality gap is zero."""
    rng = np.random.default_rng(0)
    params = be.make_params(C=1.0)
    for _ in range(220):
        X, y, w0, C = random_block(rng)
        params[be.P_C] = C
        Z = y[:, None] * X
        G, gain = Z @ Z.T, 1.0 - Z @ w0
        w, lam = w0.copy(), np.empty(len(y))
        be.step_block_dense(X, y, NO_PARTS, NO_COUPLING, w, np.ones(1), be.OPTIMAL, be.UPDATE_ADDITIVE,
                            params, lam)
        if gain.max() <= 0:
            np.testing.assert_array_equal(w, w0)
            continue
        assert_primal_optimum(Z, w0, np.zeros(len(y), int), np.ones(len(y)), np.array([C]), w)
        np.testing.assert_allclose(w, w0 + Z.T @ lam, atol=1e-12)
        # strong duality: the primal value at ω equals the dual value of λ
        primal = 0.5 * (w - w0) @ (w - w0) + C * max(0.0, (1.0 - Z @ w).max())
        np.testing.assert_allclose(dual_value(G, gain, lam), primal, atol=1e-9)
        assert_kkt(G, gain, lam, np.zeros(len(y), int), np.ones(len(y)), [C])


def test_optimal_with_partitions_and_coupling():
    """Eq. 18's per-set budgets C/r_t (§7) and §10's weights c_j, against the generic QP."""
    rng = np.random.default_rng(1)
    for _ in range(60):
        X, y, w0, C = random_block(rng)
        k = len(y)
        r = int(rng.integers(1, k + 1))
        parts = rng.permutation(np.arange(k) % r).astype(np.int64)
        coupling = rng.uniform(0.3, 3.0, k)
        Z = y[:, None] * X
        G, gain = Z @ Z.T, 1.0 - Z @ w0
        w, lam = w0.copy(), np.empty(k)
        be.step_block_dense(X, y, parts, coupling, w, np.ones(1), be.OPTIMAL, be.UPDATE_ADDITIVE,
                            be.make_params(C=C), lam)
        if gain.max() <= 0:
            continue
        caps = np.full(r, C / r)
        assert_primal_optimum(Z, w0, parts, coupling, caps, w)
        assert_kkt(G, gain, lam, parts, coupling, caps)


def test_solver_reports_a_small_duality_gap():
    rng = np.random.default_rng(2)
    for _ in range(50):
        X, y, w0, C = random_block(rng)
        Z = y[:, None] * X
        alpha = np.empty(len(y))
        gap = solve_block_dual(Z @ Z.T, 1.0 - Z @ w0, np.zeros(len(y), np.int64),
                                     np.ones(len(y)), np.array([C]), 1e-12, 20000, alpha)
        assert gap <= 1e-9


# ---------------------------------------------------------------------------------------------
# Label sets and ordinal: the exact solution of the Kesler / threshold problems
# ---------------------------------------------------------------------------------------------
def kesler_problem(x, labels, W):
    """Virtual rows of §3.1 / §9.2 (our Kesler form) and their margins for the (d, k) feature-major
    W; labels 1 relevant, 0 irrelevant, 2 the calibration label (on both sides)."""
    d, k = W.shape
    labels = np.asarray(labels, dtype=int)
    rows = []
    for r in np.flatnonzero(labels >= 1):
        for s in np.flatnonzero(labels != 1):
            if r == s:
                continue
            row = np.zeros((d, k))
            row[:, r] = x
            row[:, s] = -x
            rows.append(row.ravel())
    Z = np.array(rows)
    return Z, 1.0 - Z @ W.ravel()


@pytest.mark.parametrize("scheme", (be.OPTIMAL, be.SOPOPO))
@pytest.mark.parametrize("multilabel,calibrated", ((False, False), (True, False), (True, True)))
def test_labelset_exact_schemes_equal_generic_qp(scheme, multilabel, calibrated):
    """``optimal`` and ``sopopo`` on label sets solve the Kesler projection exactly (Sopopo's
    O(k log k) closed form in the multiclass case, Amit et al. §9 and footnote 1), also with a
    calibration label."""
    rng = np.random.default_rng(3)
    for _ in range(100 if not multilabel else 40):
        d, k = int(rng.integers(2, 6)), int(rng.integers(2, 8))
        x = rng.normal(size=d)
        if multilabel:
            relevant = rng.random(k) < 0.5
            relevant[0], relevant[-1] = True, False
        else:
            relevant = np.zeros(k, bool)
            relevant[rng.integers(k)] = True
        W0 = rng.normal(size=(d, k)) * rng.uniform(0, 0.5)
        C = float(np.exp(rng.uniform(np.log(0.05), np.log(5))))
        labels = relevant.astype(np.uint8)
        if calibrated:
            labels[-1] = 2
        W = W0.copy()
        be.run_labelsets_dense(x[None], labels[None], np.zeros(1, np.int64),
                               W, np.ones(1), scheme, be.UPDATE_ADDITIVE, be.make_params(C=C),
                               np.zeros(5, np.int64), np.empty(0, np.int8), np.empty(0))
        Z, gain = kesler_problem(x, labels, W0)
        if gain.max() <= 0:
            np.testing.assert_array_equal(W, W0)
            continue
        assert_primal_optimum(Z, W0.ravel(), np.zeros(len(gain), int), np.ones(len(gain)),
                              np.array([C]), W.ravel())


def test_sopopo_closed_form_kkt():
    """Sopopo's α is the exact dual solution: KKT with Gram v(1 + δ_ss') (Amit et al. §9,
    footnote 1)."""
    rng = np.random.default_rng(4)
    for _ in range(300):
        k = int(rng.integers(1, 12))
        q = rng.normal(size=k) * rng.uniform(0.1, 3)
        v = float(rng.uniform(0.1, 4))
        C = float(np.exp(rng.uniform(np.log(0.01), np.log(10))))
        alpha = np.empty(k)
        rules.sopopo_steps(q, v, C, alpha)
        G = v * (np.ones((k, k)) + np.eye(k))
        if q.max() <= 0:
            assert not alpha.any()
            continue
        assert_kkt(G, q, alpha, np.zeros(k, int), np.ones(k), [C])


def test_ordinal_optimal_equals_generic_qp():
    rng = np.random.default_rng(5)
    for _ in range(60):
        d, n_ranks = int(rng.integers(1, 6)), int(rng.integers(2, 7))
        x = rng.normal(size=d)
        rank = int(rng.integers(n_ranks))
        w0, b0 = rng.normal(size=d), np.sort(rng.normal(size=n_ranks - 1))
        C = float(np.exp(rng.uniform(np.log(0.05), np.log(5))))
        w, b = w0.copy(), b0.copy()
        be.run_ordinal_dense(x[None], np.array([rank]), np.zeros(1, np.int64), w, b, be.OPTIMAL,
                             be.make_params(C=C), np.zeros(5, np.int64), np.empty(0, np.int8), np.empty(0))
        rows = np.hstack([np.tile(x, (n_ranks - 1, 1)), -np.eye(n_ranks - 1)])
        labels = np.where(np.arange(n_ranks - 1) < rank, 1.0, -1.0)
        Z = labels[:, None] * rows
        omega0 = np.concatenate([w0, b0])
        gain = 1.0 - Z @ omega0
        if gain.max() <= 0:
            continue
        assert_primal_optimum(Z, omega0, np.zeros(len(gain), int), np.ones(len(gain)),
                              np.array([C]), np.concatenate([w, b]))


# ---------------------------------------------------------------------------------------------
# SimOpt (Amit et al. §5.4, Lemma 1, Fig. 4; our checks)
# ---------------------------------------------------------------------------------------------
def simopt_fig4(loss, v, C):
    """Our reconstruction of the paper's missing Fig. 4 (τ form, Eqs. 8–10)."""
    J = np.flatnonzero((loss > 0) & (v > 0))
    lam = np.zeros_like(loss)
    if len(J) == 0:
        return lam
    S = (loss[J] / (C * v[J])).sum()
    if S <= 1:
        lam[J] = loss[J] / v[J]
        return lam
    order = J[np.argsort(-loss[J], kind="stable")]
    a = b = 0.0
    for i, j in enumerate(order):
        a += loss[j] / (C * v[j])
        b += 1.0 / (C * C * v[j])
        tau = (a - 1) / b
        if i == len(order) - 1 or C * loss[order[i + 1]] <= tau:
            break
    mu = np.maximum(0.0, (C * loss[J] - tau) / (C * C * v[J]))
    lam[J] = C * mu
    return lam


def test_simopt_equals_fig4_reconstruction_and_surrogate_optimum():
    rng = np.random.default_rng(6)
    for _ in range(500):
        k = int(rng.integers(1, 10))
        loss = np.maximum(0.0, rng.normal(size=k) + 0.5)
        v = rng.uniform(0.05, 3, k)
        C = float(np.exp(rng.uniform(np.log(0.01), np.log(10))))
        lam = np.empty(k)
        rules.simopt_lambda(loss, v, np.ones(k), C, lam)
        np.testing.assert_allclose(lam, simopt_fig4(loss, v, C), atol=1e-10)
        # maximiser of the separable surrogate over {λ ≥ 0, Σλ ≤ C} (a diagonal QP)
        if loss.max() > 0:
            assert_kkt(np.diag(v), loss, lam, np.zeros(k, int), np.ones(k), [C])
            alpha = qp_dual(np.diag(v), loss, np.zeros(k, int), np.ones(k), [C])
            surrogate = dual_value(np.diag(v), loss, lam)
            if alpha.sum() <= C * (1 + 1e-9):  # the solver's point is feasible: not better
                assert surrogate >= dual_value(np.diag(v), loss, alpha) - 1e-10
            # … and no random feasible point does better
            points = rng.dirichlet(np.ones(k), 50) * C * rng.uniform(0, 1, (50, 1))
            values = points @ loss - 0.5 * (points ** 2) @ v
            assert surrogate >= values.max() - 1e-12


def test_simopt_with_coupling_weights_is_the_weighted_surrogate_optimum():
    rng = np.random.default_rng(7)
    for _ in range(100):
        k = int(rng.integers(1, 8))
        loss = np.maximum(0.0, rng.normal(size=k) + 0.5)
        v = rng.uniform(0.05, 3, k)
        c = rng.uniform(0.2, 3, k)
        C = float(np.exp(rng.uniform(np.log(0.01), np.log(10))))
        lam = np.empty(k)
        rules.simopt_lambda(loss, v, c, C, lam)
        if loss.max() > 0:
            assert_kkt(np.diag(v), loss, lam, np.zeros(k, int), c, [C])
            alpha = qp_dual(np.diag(v), loss, np.zeros(k, int), c, [C])
            if c @ alpha <= C * (1 + 1e-9):  # the solver's point is feasible: not better
                assert dual_value(np.diag(v), loss, lam) >= \
                    dual_value(np.diag(v), loss, alpha) - 1e-10


def test_geometry_of_section_10():
    """Orthogonal rows: the dual is separable and SimOpt = optimal exactly.  Identical rows:
    MaxPA, ConProj and SimProj attain the optimum; SimOpt overshoots in its case 1 (our check of
    §10)."""
    rng = np.random.default_rng(8)
    params = be.make_params(C=1.0)
    for _ in range(30):
        k = int(rng.integers(2, 6))
        Q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
        X = Q[:k] * rng.uniform(0.5, 2, (k, 1))
        y = rng.choice([-1.0, 1.0], k)
        w0 = rng.normal(size=6) * 0.3
        params[be.P_C] = float(rng.uniform(0.1, 3))
        results = {}
        for scheme in (be.SIMOPT, be.OPTIMAL):
            w = w0.copy()
            be.step_block_dense(X, y, NO_PARTS, NO_COUPLING, w, np.ones(1), scheme, be.UPDATE_ADDITIVE,
                                params, np.empty(k))
            results[scheme] = w
        np.testing.assert_allclose(results[be.SIMOPT], results[be.OPTIMAL], atol=1e-9)
    x = np.array([[1.0, 2.0, 0.0]])
    X = np.repeat(x, 3, axis=0)
    y = np.ones(3)
    for C in (0.1, 0.5, 5.0):
        params[be.P_C] = C
        out = {}
        for scheme in (be.MAXPA, be.CONPROJ, be.SIMPROJ, be.SIMOPT, be.OPTIMAL):
            w = np.zeros(3)
            be.step_block_dense(X, y, NO_PARTS, NO_COUPLING, w, np.ones(1), scheme,
                                be.UPDATE_ADDITIVE, params, np.empty(3))
            out[scheme] = w
        for scheme in (be.MAXPA, be.CONPROJ, be.SIMPROJ):
            np.testing.assert_allclose(out[scheme], out[be.OPTIMAL], atol=1e-9)
        if 3 * 1.0 / 5.0 <= C:  # case 1: Σ ℓ/v ≤ C ⇒ SimOpt adds three full projections
            np.testing.assert_allclose(out[be.SIMOPT], 3 * out[be.OPTIMAL], atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Multiplicative closed form (Amit et al. §8, Appendix C)
# ---------------------------------------------------------------------------------------------
def numeric_argmax(wplus, wminus, gamma, C):
    wzero = 1.0 - wplus - wminus
    res = minimize_scalar(lambda a: -(gamma * a - np.log(wplus * np.exp(a)
                                                          + wminus * np.exp(-a) + wzero)),
                          bounds=(0.0, C), method="bounded", options={"xatol": 1e-12})
    return res.x


def test_multiplicative_closed_form_equals_numeric_argmax():
    rng = np.random.default_rng(9)
    for _ in range(300):
        mass = rng.dirichlet(np.ones(3))
        wplus, wminus = float(mass[0]), float(mass[1])
        gamma = float(rng.uniform(0.01, 0.99))
        C = float(np.exp(rng.uniform(np.log(0.05), np.log(10))))
        alpha = rules.mult_alpha_closed_form(wplus, wminus, gamma, C)
        assert 0.0 <= alpha <= C
        np.testing.assert_allclose(alpha, numeric_argmax(wplus, wminus, gamma, C), atol=1e-6)
        # the library's 1-D solver on the same instance agrees too
        numeric = rules.mult_alpha_numeric(np.array([wplus, wminus]), np.array([1.0, -1.0]),
                                           1.0 - wplus - wminus, gamma, C)
        np.testing.assert_allclose(alpha, numeric, atol=1e-10)


def test_multiplicative_closed_form_edge_cases():
    """γ ≥ 1 or W⁺ = 0: g increases, α = C; W⁻ = 0 still fine; W⁰ = W⁻ = 0: no step needed
    when γ < 1 (margin 1 ≥ γ)."""
    assert rules.mult_alpha_closed_form(0.3, 0.2, 1.0, 2.5) == 2.5
    assert rules.mult_alpha_closed_form(0.3, 0.2, 1.7, 2.5) == 2.5
    assert rules.mult_alpha_closed_form(0.0, 0.6, 0.5, 2.5) == 2.5
    np.testing.assert_allclose(rules.mult_alpha_closed_form(0.3, 0.0, 0.5, 50.0),
                               numeric_argmax(0.3, 0.0, 0.5, 50.0), atol=1e-6)
    assert rules.mult_alpha_closed_form(1.0, 0.0, 0.5, 3.0) == 0.0


def test_large_multilabel_block_without_the_kkt_shortcut():
    """A block with more pairs than the solver polishes in its loop (3 × 40 = 120 > 96): the
    accelerated gradient alone reaches the projection (KKT-certified)."""
    rng = np.random.default_rng(10)
    d, k = 3, 43
    x = rng.normal(size=d)
    relevant = np.zeros(k, bool)
    relevant[:3] = True
    W0 = rng.normal(size=(d, k)) * 0.2
    W = W0.copy()
    be.run_labelsets_dense(x[None], relevant[None].astype(np.uint8), np.zeros(1, np.int64), W,
                           np.ones(1), be.OPTIMAL, be.UPDATE_ADDITIVE, be.make_params(C=0.7),
                           np.zeros(5, np.int64), np.empty(0, np.int8), np.empty(0))
    Z, gain = kesler_problem(x, relevant, W0)
    assert_primal_optimum(Z, W0.ravel(), np.zeros(len(gain), int), np.ones(len(gain)),
                          np.array([0.7]), W.ravel())


@pytest.mark.parametrize("decompose", ("per_label", "singletons"))
def test_labelset_optimal_with_decomposed_loss(decompose):
    """``optimal`` on label sets with §7's per-set budgets C/r_t is the projection (KKT)."""
    rng = np.random.default_rng(11)
    for _ in range(30):
        d, k = int(rng.integers(2, 5)), int(rng.integers(3, 7))
        x = rng.normal(size=d)
        labels = (rng.random(k) < 0.5).astype(np.uint8)
        labels[0], labels[-1] = 1, 2
        W0 = rng.normal(size=(d, k)) * 0.3
        C = float(np.exp(rng.uniform(np.log(0.05), np.log(5))))
        W = W0.copy()
        be.run_labelsets_dense(x[None], labels[None], np.zeros(1, np.int64), W, np.ones(1),
                               be.OPTIMAL, be.UPDATE_ADDITIVE, be.make_params(C=C, decompose=decompose),
                               np.zeros(5, np.int64), np.empty(0, np.int8), np.empty(0))
        Z, gain = kesler_problem(x, labels, W0)
        pairs = [(r, s) for r in np.flatnonzero(labels >= 1) for s in np.flatnonzero(labels != 1)
                 if r != s]
        if decompose == "singletons":
            parts = np.arange(len(pairs))
        else:
            firsts = sorted({r for r, _ in pairs})
            parts = np.array([firsts.index(r) for r, _ in pairs])
        r_t = parts.max() + 1
        assert_primal_optimum(Z, W0.ravel(), parts, np.ones(len(pairs)), np.full(r_t, C / r_t),
                              W.ravel())
