"""The compiled Gaussian learners (``onlinear.rules.confidence`` steps, ``onlinear._core.confidence``
engine) against the numpy transcription ``second_order_reference`` and against the problems
their updates solve.

* every step equals the transcription's on random (m, V) (rtol 1e-12), and every layout's pass
  equals the transcription's rounds over random streams (rtol 1e-10), with the same predictions
  and update counts;
* dense ≡ CSR exactly (float64 and float32 rows); ``learn_row`` ≡ ``learn_pass``;
* CW (both forms) and SCW (I, II), binary and shared-Σ, computed by the engine from random
  states: the KKT conditions of their problems hold at the engine's point and a generic solver
  finds no feasible point with a lower objective (``test_second_order_reference``'s
  ``KLProblem``; the solver's success flag is not read);
* the stated invariants: post-update identities, positivity and shrinking under adversarial
  streams, CW-std's scale invariance, the per-class ``drop`` update equal to the stacked one
  after one round, the AROW mistake bound; the edge cases of zero, NaN and huge rows; bad input.

Data is drawn away from ties and update thresholds (random Gaussian rows, float64 arithmetic).
"""
import numpy as np
import pytest
import scipy.sparse as sp
import second_order_reference as R
from test_second_order_reference import (STRESS, assert_optimal, binary_instance,
                                         dominant_feature_stream, pick, shared_instance,
                                         shared_problem, KLProblem)

from onlinear._core import confidence as E
from onlinear._core.row_pass import RefusedRow
from onlinear.rules.confidence_dispatch import (GAUSSIAN_PARAMETER_FIELDS, GAUSSIAN_STEP_NAMES,
                                                gaussian_step)
from onlinear.rules.confidence_table import (GAUSSIAN_RULES, GaussianRule as G,
                                             parameter_vector)

#: reference rule name → (compiled rule, the user's parameters from the reference's)
SEPARATE = {"cw-var": G.CW_VARIANCE, "cw-std": G.CW_STD, "scw1": G.SCW_I, "scw2": G.SCW_II,
            "scw2-libol": G.SCW_II_LIBOL, "arow": G.AROW, "nherd": G.NHERD}
SHARED = {"cw-std": G.SHARED_CW, "scw1": G.SHARED_SCW_I, "scw2": G.SHARED_SCW_II,
          "arow": G.SHARED_AROW}
LIBOL_SHARED = {"cw-std": G.LIBOL_SHARED_CW, "scw1": G.LIBOL_SHARED_SCW_I,
                "scw2": G.LIBOL_SHARED_SCW_II, "arow": G.LIBOL_SHARED_AROW}
REFERENCE_PARAMS = {"cw-var": ("phi",), "cw-std": ("phi",), "scw1": ("phi", "C"),
                    "scw2": ("phi", "C"), "scw2-libol": ("phi", "C"), "arow": ("r",),
                    "nherd": ("C",)}
ETAS = (0.6, 0.75, 0.9, 0.95)


def user_params(kind, eta=0.75, C=0.5, r=2.0):
    values = {"eta": eta, "C": C, "r": r}
    needs = {"phi": "eta", "C": "C", "r": "r"}
    return {needs[p]: values[needs[p]] for p in REFERENCE_PARAMS[kind]}


def reference_params(kind, eta=0.75, C=0.5, r=2.0):
    values = {"phi": R.phi_of(eta), "C": C, "r": r}
    return {p: values[p] for p in REFERENCE_PARAMS[kind]}


def stream(seed, T, d, K, density=1.0):
    """Gaussian rows (a share ``density`` of values kept) labelled by a random linear model with
    noise: the argmax of Xwᵀ + 0.5·N(0, 1) over max(K, 2) classes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d)) * (rng.random((T, d)) < density)
    scores = X @ rng.normal(size=(d, max(K, 2))) + 0.5 * rng.normal(size=(T, max(K, 2)))
    return X, np.argmax(scores, axis=1).astype(np.int64)


def run_compiled(rule, X, y, params, layout, K, diagonal="project", a=1.0, order=None,
                 state=None, **options):
    d = X.shape[1]
    mean, cov = E.initial_state(layout, d, K, a) if state is None else state
    order = np.arange(X.shape[0]) if order is None else order
    predictions = np.full(order.size, -1, np.int64)
    result = E.learn_pass(int(rule), X, y, order, mean, cov, params, predictions, layout=layout,
                          diagonal=diagonal, **options)
    return mean, cov, predictions, result


# =============================================================================================
# the table and the steps
# =============================================================================================
def test_generated_table_matches_the_rule_table():
    assert GAUSSIAN_STEP_NAMES == tuple(GAUSSIAN_RULES[rule].step for rule in G)
    assert GAUSSIAN_PARAMETER_FIELDS == tuple(GAUSSIAN_RULES[rule].params for rule in G)


def test_each_step_reads_its_parameters_through_its_own_struct():
    """A step reads its vector only through its rule's generated struct (by name)."""
    import re
    from pathlib import Path

    from onlinear.rules import codegen

    # (the source tree's: an installed package holds no .pyx)
    source = (Path(__file__).resolve().parents[1] / "src" / "onlinear" / "rules"
              / "confidence.pyx").read_text()
    bodies = {}
    for part in re.split(r"^(?=cdef |def |cpdef )", source, flags=re.MULTILINE):
        found = re.match(r"cdef GaussianStep (\w+)\(", part)
        if found:
            bodies[found.group(1)] = part
    for rule, row in GAUSSIAN_RULES.items():
        casts = set(re.findall(r"<const (\w+Params) \*>", bodies[row.step]))
        assert casts == {codegen.struct_name(rule.name)}, (rule.name, casts)
    assert not re.search(r"params\[\d\]", source)


def test_parameter_vector_rejects_bad_values():
    for bad in ({"eta": 0.5}, {"eta": 1.0}, {"C": 0.0}, {"C": np.inf}, {"r": -1.0},
                {"gamma": 1.0}):
        rule = G.AROW if "r" in bad else G.SCW_I
        with pytest.raises(ValueError):
            parameter_vector(rule, **bad)


@pytest.mark.parametrize("table, kinds", [("separate", SEPARATE), ("shared", SHARED),
                                          ("libol", LIBOL_SHARED)])
def test_every_step_is_the_transcription(table, kinds):
    reference = {"separate": R.RULES, "shared": R.SHARED_RULES,
                 "libol": R.LIBOL_SHARED_RULES}[table]
    rng = np.random.default_rng(1)
    for kind, rule in kinds.items():
        taken = 0
        for _ in range(300):
            m, v = rng.normal(scale=2.0), 10 ** rng.uniform(-3, 3)
            eta, C, r = rng.choice(ETAS), 10 ** rng.uniform(-2, 2), 10 ** rng.uniform(-2, 2)
            ours = gaussian_step(int(rule), m, v, parameter_vector(rule, **user_params(
                kind, eta, C, r)))
            theirs = reference[kind](m, v, **reference_params(kind, eta, C, r))
            np.testing.assert_allclose(ours, tuple(theirs), rtol=1e-12, atol=0)
            taken += ours[0] > 0
        assert 50 <= taken <= 290, (kind, taken)
        # a zero row never steps (0/0)
        assert gaussian_step(int(rule), -1.0, 0.0, parameter_vector(rule)) == (0.0, 0.0, 0.0)


# =============================================================================================
# the engine equals the transcription, layout by layout
# =============================================================================================
LAYOUT_CASES = [(kind, form) for kind in SEPARATE for form in ("project", "drop")] + [
    ("nherd", "exact")]


@pytest.mark.parametrize("kind, form", LAYOUT_CASES)
@pytest.mark.parametrize("K", [1, 4])
def test_diagonal_layout_is_the_transcription(kind, form, K):
    X, y = stream(10 + K, 300, 7, K, density=0.6)
    mean, cov, predictions, (mistakes, updates) = run_compiled(
        SEPARATE[kind], X, y, parameter_vector(SEPARATE[kind], **user_params(kind)), "diagonal",
        K, form, a=0.8)
    if K == 1:
        state, ref_pred, infos = R.run(zip(X, 2 * y - 1), "binary-diagonal",
                                       R.initial_state("binary-diagonal", 7, a=0.8), rule=kind,
                                       diagonal=form, **reference_params(kind))
        np.testing.assert_array_equal(predictions, (ref_pred + 1) // 2)
        ref_mean, ref_cov = state[0][:, None], state[1][:, None]
        ref_mistakes = int(np.sum(ref_pred != 2 * y - 1))
    else:
        state, ref_pred, infos = R.run(zip(X, y), "diagonal", R.initial_state("diagonal", 7, K,
                                                                              a=0.8),
                                       rule=kind, diagonal=form, **reference_params(kind))
        np.testing.assert_array_equal(predictions, ref_pred)
        ref_mean, ref_cov = state[0].T, state[1].T
        ref_mistakes = int(np.sum(ref_pred != y))
    assert (mistakes, updates) == (ref_mistakes, sum(i.updated for i in infos))
    assert 30 <= updates
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(cov, ref_cov, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("kind", ["arow", "scw1", "cw-var"])
def test_diagonal_layout_on_rows_of_many_non_zeros_is_the_transcription(kind):
    # (~120 non-zeros a row: the two-class step takes them 64 at a time, the last chunk short)
    X, y = stream(31, 200, 150, 4, density=0.8)
    mean, cov, predictions, (mistakes, updates) = run_compiled(
        SEPARATE[kind], X, y, parameter_vector(SEPARATE[kind], **user_params(kind)), "diagonal",
        4, "project", a=0.8)
    state, ref_pred, infos = R.run(zip(X, y), "diagonal", R.initial_state("diagonal", 150, 4,
                                                                          a=0.8),
                                   rule=kind, diagonal="project", **reference_params(kind))
    np.testing.assert_array_equal(predictions, ref_pred)
    assert (mistakes, updates) == (int(np.sum(ref_pred != y)), sum(i.updated for i in infos))
    assert 30 <= updates
    np.testing.assert_allclose(mean, state[0].T, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(cov, state[1].T, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("kind", list(SEPARATE))
@pytest.mark.parametrize("K, form", [(1, "project"), (3, "project"), (3, "drop")])
def test_per_class_full_layout_is_the_transcription(kind, K, form):
    d = 5
    X, y = stream(20 + K, 200, d, K)
    mean, cov, predictions, (mistakes, updates) = run_compiled(
        SEPARATE[kind], X, y, parameter_vector(SEPARATE[kind], **user_params(kind)),
        "per-class", K, form, a=1.3)
    if K == 1:
        state, ref_pred, infos = R.run(zip(X, 2 * y - 1), "binary-full",
                                       R.initial_state("binary-full", d, a=1.3), rule=kind,
                                       **reference_params(kind))
        np.testing.assert_array_equal(predictions, (ref_pred + 1) // 2)
        ref_mean, ref_cov = state[0][:, None], state[1][None]
    else:
        state, ref_pred, infos = R.run(zip(X, y), "per-class",
                                       R.initial_state("per-class", d, K, a=1.3), rule=kind,
                                       diagonal=form, **reference_params(kind))
        np.testing.assert_array_equal(predictions, ref_pred)
        ref_mean, ref_cov = state[0].T, state[1]
    assert updates == sum(i.updated for i in infos) and updates >= 30
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cov, ref_cov, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(cov, np.transpose(cov, (0, 2, 1)))  # symmetric exactly


@pytest.mark.parametrize("kind", list(SHARED))
@pytest.mark.parametrize("libol", [False, True])
def test_shared_layout_is_the_transcription(kind, libol):
    d, K = 4, 3
    # 120 rounds: LIBOL's M_CW overshoots its constraint and, like every hard-constraint CW,
    # collapses Σ on a noisy stream (to 1e-40 by round 197 here, where no two computations of
    # the same update agree any more)
    X, y = stream(30, 120, d, K)
    rule = (LIBOL_SHARED if libol else SHARED)[kind]
    mean, cov, predictions, (_, updates) = run_compiled(
        rule, X, y, parameter_vector(rule, **user_params(kind)), "shared", K)
    state, ref_pred, infos = R.run(zip(X, y), "shared", R.initial_state("shared", d, K),
                                   rule=kind, libol_compat=libol, **reference_params(kind))
    np.testing.assert_array_equal(predictions, ref_pred)
    assert updates == sum(i.updated for i in infos) and updates >= 30
    np.testing.assert_allclose(mean, state[0].T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cov[0], state[1], rtol=1e-10, atol=1e-12)


# =============================================================================================
# dense ≡ CSR, float32, learn_row ≡ learn_pass, the order
# =============================================================================================
@pytest.mark.parametrize("layout, rule", [("diagonal", G.AROW), ("diagonal", G.SCW_I),
                                          ("per-class", G.CW_STD), ("shared", G.SHARED_AROW)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dense_and_csr_rows_give_identical_states(layout, rule, dtype):
    X, y = stream(40, 250, 9, 4, density=0.3)
    X = X.astype(dtype)
    order = np.random.default_rng(41).integers(250, size=400)
    params = parameter_vector(rule)
    dense = run_compiled(rule, X, y, params, layout, 4, order=order)
    for index_dtype in (np.int32, np.int64):
        csr = sp.csr_matrix(X)
        csr.indices, csr.indptr = csr.indices.astype(index_dtype), csr.indptr.astype(index_dtype)
        sparse = run_compiled(rule, csr, y, params, layout, 4, order=order)
        for a, b in zip(dense[:3], sparse[:3]):
            np.testing.assert_array_equal(a, b)
        assert dense[3] == sparse[3]
    if dtype == np.float32:  # float32 rows are the float64 run on the same values
        wide = run_compiled(rule, X.astype(np.float64), y, params, layout, 4, order=order)
        for a, b in zip(dense[:3], wide[:3]):
            np.testing.assert_array_equal(a, b)


def test_explicit_zeros_and_untouched_features():
    """Stored zeros change nothing; a round leaves the μ and σ of absent features as they
    were (diagonal layout)."""
    X, y = stream(50, 60, 8, 3, density=0.4)
    csr = sp.csr_matrix(X)
    rows = []
    for i in range(X.shape[0]):
        idx = np.flatnonzero(X[i])
        extra = np.setdiff1d(np.arange(8), idx)[:1]
        cols = np.sort(np.r_[idx, extra])
        rows.append((cols, X[i, cols]))
    indptr = np.cumsum([0] + [len(c) for c, _ in rows])
    with_zeros = sp.csr_matrix((np.concatenate([v for _, v in rows]),
                                np.concatenate([c for c, _ in rows]), indptr), shape=X.shape)
    assert with_zeros.nnz > csr.nnz and with_zeros.has_canonical_format
    a = run_compiled(G.AROW, csr, y, parameter_vector(G.AROW), "diagonal", 3)
    b = run_compiled(G.AROW, with_zeros, y, parameter_vector(G.AROW), "diagonal", 3)
    for u, v in zip(a[:3], b[:3]):
        np.testing.assert_array_equal(u, v)
    mean, cov = E.initial_state("diagonal", 8, 3)
    mean[:] = np.random.default_rng(51).normal(size=mean.shape)
    before = mean.copy(), cov.copy()
    E.learn_row(int(G.AROW), [2, 5], [1.5, -0.7], 0, mean, cov, parameter_vector(G.AROW))
    absent = [0, 1, 3, 4, 6, 7]
    np.testing.assert_array_equal(mean[absent], before[0][absent])
    np.testing.assert_array_equal(cov[absent], before[1][absent])
    assert not np.array_equal(mean[[2, 5]], before[0][[2, 5]])


@pytest.mark.parametrize("layout, rule, K", [("diagonal", G.SCW_II, 3), ("diagonal", G.NHERD, 1),
                                             ("diagonal", G.AROW, 3),
                                             ("per-class", G.AROW, 3),
                                             ("shared", G.SHARED_SCW_I, 3)])
def test_learn_row_is_a_round_of_the_pass(layout, rule, K):
    X, y = stream(60, 120, 6, K, density=0.7)
    params = parameter_vector(rule)
    mean, cov, predictions, (_, updates) = run_compiled(rule, X, y, params, layout, K)
    mean1, cov1 = E.initial_state(layout, 6, K)
    counted = 0
    for i in range(X.shape[0]):
        idx = np.flatnonzero(X[i]).astype(np.int32)
        predicted, updated = E.learn_row(int(rule), idx, X[i, idx], int(y[i]), mean1, cov1,
                                         params, layout=layout)
        assert predicted == predictions[i]
        counted += updated
    assert counted == updates
    np.testing.assert_array_equal(mean1, mean)
    np.testing.assert_array_equal(cov1, cov)


@pytest.mark.parametrize("rule", [r for r in G if GAUSSIAN_RULES[r].margin_bound is not None])
def test_a_margin_bound_rule_never_steps_at_or_above_its_bound(rule):
    """The table's ``margin_bound`` (the engine's passes skip V on the rounds at or above it)
    is the rule's own: no V lets it step there, and some V lets it step just below."""
    bound, params = GAUSSIAN_RULES[rule].margin_bound, parameter_vector(rule)
    for V in (1e-300, 1e-8, 0.3, 1.0, 7.0, 1e8, 1e300):
        for m in (bound, bound + 1e-12, 2.0 * bound + 3.0, 1e300):
            assert gaussian_step(int(rule), m, V, params)[0] == 0.0, (m, V)
        assert gaussian_step(int(rule), bound - 1e-3, V, params)[0] > 0.0, V


@pytest.mark.parametrize("rule", [r for r in G if GAUSSIAN_RULES[r].margin_bound is None])
def test_a_rule_without_margin_bound_steps_above_any_margin_given_v(rule):
    """The rules left without a ``margin_bound`` need V to decide (m < φ√V): a margin of 10
    still steps when V is large."""
    assert gaussian_step(int(rule), 10.0, 1e6, parameter_vector(rule))[0] > 0.0


def margin_of(x, y, mean, K):
    scores = x @ mean
    if K == 1:
        return (1.0 if y == 1 else -1.0) * scores[0]
    return scores[y] - np.max(np.delete(scores, y))


@pytest.mark.parametrize("rule, K", [(G.AROW, 1), (G.AROW, 4), (G.NHERD, 3)])
@pytest.mark.parametrize("diagonal", ["project", "drop"])
def test_a_pass_that_skips_v_gives_the_rounds_results(rule, K, diagonal):
    """A diagonal pass of AROW or NHERD does not compute V on the rounds of m ≥ 1 (a share of
    them on a separable stream); it gives the bits, predictions and counts of its rounds one by
    one (``learn_row`` computes V on every round), with rows whose V underflows to 0 there (a
    skipped round, counted) and a variance floor (``min_variance``)."""
    rng = np.random.default_rng(61)  # (separable rows: most rounds soon at m ≥ 1)
    X = 3.0 * rng.normal(size=(600, 6)) * (rng.random((600, 6)) < 0.8)
    y = np.argmax(X @ rng.normal(size=(6, max(K, 2))), axis=1).astype(np.int64)
    X[::50] = np.where(X[::50] != 0.0, 3e-162, 0.0)  # (‖x‖² > 0, V = 0 once σ < 1/2: skipped)
    params = parameter_vector(rule)
    options = dict(layout="diagonal", diagonal=diagonal, min_variance=1e-3)
    counts = np.zeros(2, np.int64)
    # (as CSR rows: a dense pass refuses a row whose ‖x‖² is below the accepted range, as the
    # estimators do, and the CSR pass plays it: the core's rounds on such rows are the subject)
    mean, cov, predictions, (mistakes, updates) = run_compiled(
        rule, sp.csr_matrix(X), y, params, K=K, counts=counts, **options)
    mean1, cov1 = E.initial_state("diagonal", 6, K)
    counts1 = np.zeros(2, np.int64)
    margins = []
    for i in range(X.shape[0]):
        idx = np.flatnonzero(X[i])
        margins.append(margin_of(X[i], y[i], mean1, K))
        predicted, _ = E.learn_row(int(rule), idx, X[i, idx], int(y[i]), mean1, cov1, params,
                                   counts=counts1, **options)
        assert predicted == predictions[i]
    assert np.mean(np.array(margins) >= 1.0) > 0.1  # (0.14–0.6 of the rounds skip V)
    assert counts[1] > 0
    np.testing.assert_array_equal(counts1, counts)
    np.testing.assert_array_equal(mean1, mean)
    np.testing.assert_array_equal(cov1, cov)
    assert (mistakes, updates) == (np.sum(predictions != y), np.sum(np.array(margins) < 1.0)
                                   - counts[1])


@pytest.mark.parametrize("K", [1, 3])
def test_a_round_that_cannot_update_still_raises_on_an_infinite_v(K):
    """A row of m ≥ 1 whose V overflows stops the pass as it did when V was always computed
    (the skip needs ‖x‖²·σ_max far from overflow)."""
    mean, cov = E.initial_state("diagonal", 3, K)
    mean[0] = 1.0
    X = np.array([[1e-3, 0.5, 0.0], [1e200, 0.0, 0.0]])
    y = np.array([1 if K == 1 else 0, 1 if K == 1 else 0], np.int64)
    if K > 1:
        mean[0, 1:] = -1.0
    assert margin_of(X[1], y[1], mean, K) >= 1.0
    with pytest.raises(ValueError, match="row 1 .*not finite"):
        E.learn_pass(int(G.AROW), X, y, np.arange(2), mean, cov, parameter_vector(G.AROW))


# =============================================================================================
# optimality: KKT at the engine's point, and no better feasible point for a generic solver
# =============================================================================================
@pytest.mark.parametrize("kind", ["cw-var", "cw-std", "scw1", "scw2"])
def test_binary_engine_round_solves_its_problem(kind):
    rng = np.random.default_rng(["cw-var", "cw-std", "scw1", "scw2"].index(kind) + 70)
    updated_rounds = 0
    for trial in range(6):
        n = 2 + trial % 2
        mu0, S0, x, y, params = binary_instance(rng, kind, n)
        eta = float(R.norm.cdf(params["phi"]))
        rule = SEPARATE[kind]
        values = {"eta": eta, "C": params["C"]}
        vector = parameter_vector(rule, **{k: values[k] for k in GAUSSIAN_RULES[rule].defaults})
        mean, cov = mu0[:, None].copy(), S0[None].copy()
        _, updated = E.learn_row(int(rule), np.arange(n), x, int(y > 0), mean, cov, vector,
                                 layout="per-class")
        updated_rounds += updated
        problem = KLProblem(kind, mu0, S0, x, y * x, **params)
        assert_optimal(problem, mean[:, 0], cov[0], rng, starts=2)
    assert updated_rounds >= 3


@pytest.mark.parametrize("kind", ["cw-std", "scw1", "scw2"])
def test_shared_engine_round_solves_its_problem(kind):
    rng = np.random.default_rng(80 + ["cw-std", "scw1", "scw2"].index(kind))
    for _ in range(5):
        mu0, S0, x, y, s, params = shared_instance(rng, kind)
        rule = SHARED[kind]
        values = {"eta": float(R.norm.cdf(params["phi"])), "C": params["C"]}
        vector = parameter_vector(rule, **{k: values[k] for k in GAUSSIAN_RULES[rule].defaults})
        mean, cov = mu0.T.copy(), S0[None].copy()
        E.learn_row(int(rule), np.arange(2), x, y, mean, cov, vector, layout="shared")
        problem = shared_problem(kind, mu0, S0, x, y, s, params)
        assert_optimal(problem, np.concatenate([mean[:, y], mean[:, s]]), cov[0], rng, starts=2)


# =============================================================================================
# invariants and bounds
# =============================================================================================
def test_post_update_identities_of_the_engine():
    """CW-var m' = φv'; CW-std and SCW-I (α < C) m' = φ√v'; SCW-II m' + α/(2C) = φ√v';
    AROW 1 − m' = (1 − m)r/(v + r), on the engine's binary full rounds."""
    rng = np.random.default_rng(90)
    checked = 0
    for _ in range(100):
        d = 4
        A = rng.normal(size=(d, d))
        S0, mu0, x = A @ A.T / d + 0.3 * np.eye(d), rng.normal(size=d), rng.normal(size=d)
        label = int(rng.integers(2))
        y = 2 * label - 1
        eta, C, r = rng.uniform(0.55, 0.99), 10 ** rng.uniform(-2, 2), 10 ** rng.uniform(-2, 2)
        phi = R.phi_of(eta)
        m, v = y * mu0 @ x, x @ S0 @ x
        for kind in ("cw-var", "cw-std", "scw2", "arow"):
            rule = SEPARATE[kind]
            vector = parameter_vector(rule, **user_params(kind, eta, C, r))
            mean, cov = mu0[:, None].copy(), S0[None].copy()
            _, updated = E.learn_row(int(rule), np.arange(d), x, label, mean, cov, vector,
                                     layout="per-class")
            if not updated:
                continue
            checked += 1
            m1, v1 = y * mean[:, 0] @ x, x @ cov[0] @ x
            a = gaussian_step(int(rule), m, v, vector)[0]
            scale = 1 + abs(m) + abs(m1) + v
            expected = {"cw-var": phi * v1, "cw-std": phi * np.sqrt(v1),
                        "scw2": phi * np.sqrt(v1) - a / (2 * C),
                        "arow": 1 - (1 - m) * r / (v + r)}[kind]
            assert abs(m1 - expected) <= 1e-10 * scale, kind
    assert checked >= 150


@pytest.mark.parametrize("kind", ["cw-var", "scw1", "scw2", "arow", "nherd"])
def test_covariance_stays_positive_and_shrinks_under_stress(kind):
    """An adversarial stream (one feature 10³ times the others, repeated rows, flipped labels),
    extreme C and r: every diagonal σ > 0 after 10⁴ rounds in every form, no repair needed for
    project/exact; the full Σ keeps xᵀΣx > 0 on the stream's rows and never grows on probes."""
    d = 3
    X, labels = dominant_feature_stream(82, d)
    y = (labels > 0).astype(np.int64)
    probes = np.random.default_rng(83).normal(size=(5, d))
    for p in STRESS[kind]:
        p = pick(kind, {"phi": None, "C": None, "r": None, **p})
        user = {"r": p["r"]} if kind == "arow" else {"C": p["C"]} if kind == "nherd" else {
            "eta": float(R.norm.cdf(p["phi"])), **({"C": p["C"]} if "C" in p else {})}
        rule = SEPARATE[kind]
        vector = parameter_vector(rule, **user)
        for form in GAUSSIAN_RULES[rule].diagonal_forms:
            counts = np.zeros(2, np.int64)
            _, cov, _, (_, updates) = run_compiled(rule, X, y, vector, "diagonal", 1, form,
                                                   counts=counts)
            assert updates >= 20 and np.all(cov > 0), (form, cov)
            if form != "drop":
                assert counts[0] == 0
        mean, cov = E.initial_state("per-class", d, 1)
        previous = np.einsum("ij,jk,ik->i", probes, cov[0], probes)
        for i in range(2000):
            E.learn_row(int(rule), np.arange(d), X[i], int(y[i]), mean, cov, vector,
                        layout="per-class")
            now = np.einsum("ij,jk,ik->i", probes, cov[0], probes)
            assert np.all(now <= previous * (1 + 1e-12) + 1e-15)
            previous = now
        assert np.all(np.einsum("ij,jk,ik->i", X[:50], cov[0], X[:50]) > 0)


@pytest.mark.parametrize("K", [1, 2])
def test_min_variance_floor_stops_the_cw_std_collapse(K):
    """CW-std on contradictory repeated rows drives σ below 10⁻¹⁴ (the reference's finding;
    both classes' σ with K = 2); the opt-in floor holds every σ at it, and counts the
    repairs."""
    X, labels = dominant_feature_stream(82, 3, T=1000)
    y = (labels > 0).astype(np.int64)
    vector = parameter_vector(G.CW_STD, eta=0.75)
    with np.errstate(all="ignore"):
        _, free_cov, _, _ = run_compiled(G.CW_STD, X, y, vector, "diagonal", K)
    assert free_cov.max() < 1e-14
    counts = np.zeros(2, np.int64)
    _, cov, _, _ = run_compiled(G.CW_STD, X, y, vector, "diagonal", K, min_variance=1e-6,
                                counts=counts)
    assert cov.min() >= 1e-6 and counts[0] > 0


@pytest.mark.parametrize("K", [1, 4])
def test_cw_std_runs_through_the_collapse_where_its_exact_step_overflows(K):
    """CW-std's diagonal σ, on contradictory repeated rows (Letter's case), falls until a
    mistake's exact c ≈ (mφ/V)² (and σ' = 1/(1/σ + c·x²)) leaves float64: c = ∞ is taken as
    its limit, σ' as the smallest normal float (counted as repairs), and the pass goes on with
    every value finite — where it used to stop with an error.  Before the first repair σ keeps
    its exact values, far below 1e-100: only what float64 cannot hold is changed."""
    X, labels = dominant_feature_stream(82, 3, T=3000)
    y = ((labels > 0).astype(np.int64) if K == 1
         else np.random.default_rng(1).integers(0, K, X.shape[0]))
    vector = parameter_vector(G.CW_STD, eta=0.75)
    counts = np.zeros(2, np.int64)
    mean, cov, _, (_, updates) = run_compiled(G.CW_STD, X, y, vector, "diagonal", K,
                                              counts=counts)
    smallest = np.finfo(np.float64).tiny
    assert np.all(np.isfinite(mean)) and cov.min() == smallest and counts[0] > 0
    assert np.all(cov >= smallest) and updates > 1000
    stepped = np.zeros(2, np.int64)
    mean, cov = E.initial_state("diagonal", 3, K)
    for i in range(X.shape[0]):
        before = stepped[0]
        E.learn_row(int(G.CW_STD), np.arange(3), X[i], int(y[i]), mean, cov, vector,
                    counts=stepped)
        if stepped[0] > before:
            break
    assert 100 < i < X.shape[0] - 1
    exact = run_compiled(G.CW_STD, X[:i], y[:i], vector, "diagonal", K)
    assert exact[1].min() < 1e-100


def prototype_stream(seed, d, K, T=4000, flip=0.1):
    """T draws from 50 fixed rows whose first feature is 10³ times the others, each row's label
    the argmax of a random linear map over K classes, a share ``flip`` of the draws relabelled
    at random: (the rows, their clean labels, the stream, its labels)."""
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(50, d))
    rows[:, 0] *= 1e3
    clean = np.argmax(rows @ rng.normal(size=(d, K)), axis=1)
    pick = rng.integers(50, size=T)
    y = clean[pick].copy()
    noisy = rng.random(T) < flip
    y[noisy] = rng.integers(0, K, noisy.sum())
    return rows, clean, rows[pick], y.astype(np.int64)


@pytest.mark.parametrize("d, K, seed", [(4, 3, 11), (5, 3, 7)])
def test_full_cw_std_stays_positive_definite_through_its_collapse(d, K, seed):
    """The exact CW-std's full Σ_k collapse on contradictory repeated rows (Letter's case: the
    exact mean there grows past 10³⁰ within 7,200 rows, the same in 80-digit arithmetic):
    xᵀΣ_k'x = v/(1 + cv) falls below what a dense float64 matrix resolves, and the plain
    step left Σ_k indefinite and then skipped most rounds (V ≤ 0).  Held at √ε of the matrix's
    scale (counted as repairs), every Σ_k stays symmetric positive definite, no round is
    skipped, and the learner still separates the clean prototypes."""
    rows, clean, X, y = prototype_stream(seed, d, K)
    vector = parameter_vector(G.CW_STD, eta=0.75)
    counts = np.zeros(2, np.int64)
    mean, cov, _, _ = run_compiled(G.CW_STD, X, y, vector, "per-class", K, counts=counts)
    assert counts[0] > 0 and counts[1] == 0
    assert np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))
    for S in cov:
        assert np.array_equal(S, S.T)
        np.linalg.cholesky(S)  # (raises unless positive definite)
        assert np.linalg.eigvalsh(S)[0] > 0.0
    assert np.mean(np.argmax(rows @ mean, axis=1) == clean) >= 0.7


def test_full_step_is_held_at_the_resolved_floor():
    """The collapse's first repaired round is one whose exact step would take xᵀΣ_k x below
    √ε·‖x‖²·max_i (Σ_k)_ii (what a dense float64 Σ_k resolves; here some 20 times below); the
    engine leaves it at that floor instead (within the rounding Σ_k has gathered)."""
    rows, clean, X, y = prototype_stream(11, 4, 3)
    vector = parameter_vector(G.CW_STD, eta=0.75)
    mean, cov = E.initial_state("per-class", 4, 3)
    counts = np.zeros(2, np.int64)
    resolved = np.sqrt(np.finfo(np.float64).eps)
    for i in range(X.shape[0]):
        x = X[i]
        scores = x @ mean
        others = np.where(np.arange(3) == y[i], -np.inf, scores)
        pair = (int(y[i]), int(np.argmax(others)))
        v = np.array([x @ cov[k] @ x for k in pair])
        floor = np.array([resolved * (x @ x) * np.diag(cov[k]).max() for k in pair])
        c = gaussian_step(int(G.CW_STD), scores[pair[0]] - scores[pair[1]], v.sum(), vector)[2]
        E.learn_row(int(G.CW_STD), np.arange(4), x, int(y[i]), mean, cov, vector,
                    layout="per-class", counts=counts)
        if counts[0] > 0:
            break
    assert 10 < i < X.shape[0] - 1
    held = np.argmin(v / (1 + c * v) / floor)
    assert v[held] / (1 + c * v[held]) < 0.5 * floor[held]
    assert 0.5 < (x @ cov[pair[held]] @ x) / floor[held] < 2.0


@pytest.mark.parametrize("layout, K", [("diagonal", 1), ("diagonal", 4), ("per-class", 3),
                                       ("shared", 3)])
def test_cw_std_is_scale_invariant(layout, K):
    X, y = stream(100, 200, 5, K)
    rule = G.SHARED_CW if layout == "shared" else G.CW_STD
    runs = {kappa: run_compiled(rule, kappa * X, y, parameter_vector(rule), layout, K)
            for kappa in (1e-3, 1.0, 1e3)}
    for kappa in (1e-3, 1e3):
        np.testing.assert_array_equal(runs[kappa][2], runs[1.0][2])
        for a, b in zip(runs[kappa][:2], runs[1.0][:2]):  # the same μ and Σ
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)
    arow = {kappa: run_compiled(G.AROW, kappa * X, y, parameter_vector(G.AROW), "diagonal", K)
            for kappa in (1e-3, 1.0)}
    assert not np.array_equal(arow[1e-3][2], arow[1.0][2])


@pytest.mark.parametrize("kind", ["cw-std", "arow", "nherd"])
def test_per_class_drop_is_the_stacked_update_after_one_round(kind):
    """From Σ = aI, one per-class ``drop`` round equals the stacked learner's μ and the diagonal
    blocks of its Σ; ``project`` equals its μ only (the K = 2 and K = 3 cases)."""
    rng = np.random.default_rng(110)
    for K in (2, 3):
        d = 4
        x = rng.normal(size=d)
        mu0 = rng.normal(size=(K, d)) * 0.1
        y = int(rng.integers(K))
        stacked, info = R.stacked_round((mu0, 0.7 * np.eye(K * d)), x, y, kind,
                                        **reference_params(kind))
        assert info.updated
        blocks = np.stack([stacked[1][k * d:(k + 1) * d, k * d:(k + 1) * d] for k in range(K)])
        for form in ("drop", "project"):
            mean, cov = mu0.T.copy(), np.stack([0.7 * np.eye(d)] * K)
            E.learn_row(int(SEPARATE[kind]), np.arange(d), x, y, mean, cov,
                        parameter_vector(SEPARATE[kind], **user_params(kind)),
                        layout="per-class", diagonal=form)
            np.testing.assert_allclose(mean.T, stacked[0], rtol=1e-12, atol=1e-14)
            if form == "drop":
                np.testing.assert_allclose(cov, blocks, rtol=1e-12, atol=1e-14)
            else:
                assert not np.allclose(cov, blocks, rtol=1e-6)


def test_arow_mistake_bound_on_the_engine():
    """|M| ≤ √(r‖u‖² + uᵀX_A u)·√(log det(I + X_A/r)) + Σ_{t∈M∪U} g_t (Crammer, Kulesza &
    Dredze 2009, the mistake bound; statement UNCHECKED, this form verified in simulation),
    Σ_1 = I, with M and U read from the engine's predictions and update flags."""
    ratios = []
    for seed in range(8):
        rng = np.random.default_rng(seed + 120)
        d, T = int(rng.integers(3, 20)), 300
        u = rng.normal(size=d)
        u *= 3 / np.linalg.norm(u)
        X = rng.normal(size=(T, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        labels = np.where(X @ u >= 0, 1, -1)
        labels[rng.random(T) < [0, 0.05, 0.1, 0.2][seed % 4]] *= -1
        r = [0.1, 1.0, 10.0][seed % 3]
        mean, cov = E.initial_state("per-class", d, 1)
        mistakes, XA, g = 0, np.zeros((d, d)), 0.0
        for x, label in zip(X, labels):
            predicted, updated = E.learn_row(int(G.AROW), np.arange(d), x, int(label > 0), mean,
                                             cov, parameter_vector(G.AROW, r=r),
                                             layout="per-class")
            if updated:
                mistakes += (2 * predicted - 1) != label
                XA += np.outer(x, x)
                g += max(0.0, 1 - label * u @ x)
        bound = np.sqrt(r * u @ u + u @ XA @ u) * np.sqrt(np.linalg.slogdet(np.eye(d) + XA / r)[1])
        assert mistakes > 0
        ratios.append(mistakes / (bound + g))
    assert max(ratios) < 1.0, ratios


# =============================================================================================
# edge cases and bad input
# =============================================================================================
@pytest.mark.parametrize("layout, K", [("diagonal", 1), ("diagonal", 3), ("per-class", 3)])
def test_zero_rows_predict_the_first_class_and_never_update(layout, K):
    mean, cov = E.initial_state(layout, 4, K)
    mean[:] = 0.0
    X = np.zeros((3, 4))
    y = np.array([0, 1, 1])
    predictions = np.zeros(3, np.int64)
    mistakes, updates = E.learn_pass(int(G.CW_VARIANCE), X, y, np.arange(3), mean, cov,
                                     parameter_vector(G.CW_VARIANCE), predictions, layout=layout)
    assert updates == 0
    expected = 0  # (a zero score: the first class, binary or not)
    assert list(predictions) == [expected] * 3
    assert mistakes == int(np.sum(y != expected))
    np.testing.assert_array_equal(cov, E.initial_state(layout, 4, K)[1])


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e200])
@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_non_finite_rounds_raise_and_change_nothing(bad, layout):
    X, y = stream(130, 20, 4, 3)
    X[7, 2] = bad
    mean, cov = E.initial_state(layout, 4, 3)
    params = parameter_vector(G.AROW)
    with pytest.raises(ValueError, match="row 7 .*not finite"):
        E.learn_pass(int(G.AROW), X, y, np.arange(20), mean, cov, params, layout=layout)
    expected = E.initial_state(layout, 4, 3)
    E.learn_pass(int(G.AROW), X[:7], y[:7], np.arange(7), *expected, params, layout=layout)
    np.testing.assert_array_equal(mean, expected[0])
    np.testing.assert_array_equal(cov, expected[1])
    before = mean.copy(), cov.copy()
    with pytest.raises(ValueError, match="not finite"):
        E.learn_row(int(G.AROW), [1, 2], [0.5, bad], 0, mean, cov, params, layout=layout)
    np.testing.assert_array_equal(mean, before[0])
    np.testing.assert_array_equal(cov, before[1])


def test_bad_arguments_are_refused_by_name():
    X, y = stream(140, 10, 4, 3)
    order = np.arange(10)
    params = parameter_vector(G.AROW)
    mean, cov = E.initial_state("diagonal", 4, 3)
    cases = [
        (dict(X=X.astype(np.int64)), "float32 or float64"),
        (dict(X=np.asfortranarray(X)), "C-contiguous"),
        (dict(X=X[:, :3].copy()), "features"),
        (dict(mean=mean.astype(np.float32)), "mean must be a writeable C-contiguous float64"),
        (dict(cov=cov[:, :2].copy()), "covariance has shape"),
        (dict(y=np.full(10, 3)), "label index 3"),
        (dict(order=np.array([0, 10])), "row 10"),
        (dict(rule=99), "unknown Gaussian rule"),
        (dict(layout="stacked"), "unknown covariance layout"),
        (dict(diagonal="exact"), "not a form of AROW"),
        (dict(layout="shared"), "serves the layouts"),
        (dict(X=sp.csc_matrix(X)), "must be CSR"),
    ]
    for change, message in cases:
        args = dict(rule=int(G.AROW), X=X, y=y, order=order, mean=mean.copy(), cov=cov.copy(),
                    layout="diagonal", diagonal="project")
        args.update(change)
        with pytest.raises(ValueError, match=message):
            E.learn_pass(args["rule"], args["X"], args["y"], args["order"], args["mean"],
                         args["cov"], params, layout=args["layout"], diagonal=args["diagonal"])
    duplicated = sp.csr_matrix((np.ones(2), np.array([1, 1]), np.array([0, 2] + [2] * 9)),
                               shape=(10, 4))
    with pytest.raises(ValueError, match="sum_duplicates"):
        E.learn_pass(int(G.AROW), duplicated, y, order, mean, cov, params)


@pytest.mark.parametrize("v", [4.5e102, 1e200, 1e300])
def test_scw2_step_stays_finite_where_the_printed_form_overflows(v):
    """SCW-II's α from the printed form squares and cubes v, which overflows from v ≈ 1e102
    (a row of norm 1e51 at a = 1); the engine computes it divided by n², finite and equal
    to the printed form evaluated in 60-digit decimal arithmetic."""
    from decimal import Decimal, localcontext

    from scipy.stats import norm

    from onlinear.rules.confidence_dispatch import gaussian_step

    phi, C = float(norm.ppf(0.75)), 1.0
    for m in (0.0, -0.3 * np.sqrt(v), 0.2 * np.sqrt(v)):
        alpha = gaussian_step(int(G.SCW_II), m, v, parameter_vector(G.SCW_II, eta=0.75, C=C))[0]
        assert np.isfinite(alpha) and alpha > 0.0
        with localcontext() as context:
            context.prec = 60
            M, V, P = Decimal(m), Decimal(v), Decimal(phi)
            n = V + 1 / (2 * Decimal(C))
            gamma = P * (P * P * M * M * V * V + 4 * n * V * (n + V * P * P)).sqrt()
            expected = float((-(2 * M * n + P * P * M * V) + gamma)
                             / (2 * (n * n + n * V * P * P)))
        assert alpha == pytest.approx(expected, rel=1e-9), m


@pytest.mark.parametrize("dtype, value", [
    *((np.float64, value) for value in (np.nan, np.inf, 1e300, 3e-162)),
    # (a float32 row's ‖x‖², summed in float64, is always within the range: only NaN and inf)
    (np.float32, np.nan), (np.float32, np.inf)])
def test_a_dense_pass_refuses_a_row_out_of_range_before_its_round(dtype, value):
    """A dense pass checks each row itself (the estimators then do not sweep X first): a row
    that is not finite or whose ‖x‖² is outside the accepted range stops the pass before its
    round, with the rounds before it taken — those of the pass over the rows before it."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 5)).astype(dtype)
    y = np.argmax(X @ rng.normal(size=(5, 3)), axis=1).astype(np.int64)
    bad = X.copy()
    bad[17] = np.where(np.arange(5) < 2, value, 0.0)
    params = parameter_vector(G.AROW)
    with pytest.raises(RefusedRow) as refused:
        run_compiled(G.AROW, bad, y, params, layout="diagonal", K=3)
    assert (refused.value.row, refused.value.position) == (17, 17)
    mean, cov = E.initial_state("diagonal", 5, 3)
    with pytest.raises(RefusedRow):
        E.learn_pass(int(G.AROW), bad, y, np.arange(40), mean, cov, params, None,
                     layout="diagonal")
    before_mean, before_cov, _, _ = run_compiled(G.AROW, X[:17], y[:17], params,
                                                 layout="diagonal", K=3)
    np.testing.assert_array_equal(mean, before_mean)
    np.testing.assert_array_equal(cov, before_cov)
