"""Nothing silently wrong at extreme scales (issue 9, items 0 and 2).

* Every learner has an exact scale invariance (x → c·x with the hyperparameters that carry units
  rescaled: a margin β by c², a step cap C by 1/c², a learning rate η by 1/c; the scale-free
  learners and IELLIP need nothing).  With c a power of two the scaled run is the same
  computation, so predictions and counts must agree from c = 2^-495 to 2^495 (≈ 1e±149).
* MIRA's per-round QP must not lose β and the score differences against ‖x‖² (it used to make
  no update at all once ‖x‖² ≫ β/ε).
* Rows outside the accepted norm range (0, or 2^-505 … 2^505: see
  ``onlinear._core.rows.ROW_NORM_EXPONENT``) are refused before anything is learned, a fitted model
  left bit-identical; every accepted stream, however its scales are mixed, leaves finite models.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onlinear
from onlinear._core.rows import ROW_NORM_EXPONENT
from onlinear.data import load_usps
from model_state import model_vars

FUZZ = settings(max_examples=20, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

PRIMAL = onlinear.available(kernel=False)
KERNEL = onlinear.available(kernel=True)
LOW, HIGH = 2.0 ** -ROW_NORM_EXPONENT, 2.0 ** ROW_NORM_EXPONENT

# Scale invariance x → c·x (spec'd per family in the docstrings of the rules):
#   β → c²β: Perceptron family, Kesler, MIRA, binary MIRA (w → c·w, τ unchanged);
#   C → C/c²: PA/SPA families and the simultaneous projections (w → w/c, the margin 1 fixed);
#   η → η/c: the multiplicative family (the exponent η τ x_j unchanged);
#   nothing: ROMMA family, MCP/CMCP, MC-ROMMA (scale-free), IELLIP (P's scale is immaterial).
#   a → a/c²: the Gaussian learners (CW, AROW, SCW, NHERD; Σ_1 = a·I keeps V = xᵀΣx and the
#     margin unchanged, so their C, η and r carry no units) and NAROW (χ = xᵀA⁻¹x unchanged,
#     θ → c·θ, A⁻¹ → A⁻¹/c²: its b carries no units either);
#   AdaGrad η → η/c, δ → c·δ, λ1 → c·λ1, λ2 → c²·λ2; FTRL α → α/c, β → c·β, λ1 → c·λ1,
#     λ2 → c²·λ2 (w → w/c with the gradients ∝ c).
# CELLIP is not scale-invariant: P_1 = (1 + γ(1−a))²·I assumes ‖x‖ ≤ 1 (Yang, Jin & Ye, §2.2).
NOT_INVARIANT = {"cellip"}
GAUSSIAN = (onlinear.ConfidenceWeighted, onlinear.AROW, onlinear.SoftConfidenceWeighted,
            onlinear.NormalHerd, onlinear.NAROW)
#: the adaptive learners' parameters and the power of c each scales by
ADAPTIVE_UNITS = {onlinear.AdaGrad: {"eta": -1, "delta": 1, "l1": 1, "l2": 2},
                  onlinear.FTRLProximal: {"alpha": -1, "beta": 1, "l1": 1, "l2": 2}}


def _scaled_params(name, c, base):
    cls = type(onlinear.make(name))
    if cls in GAUSSIAN:
        return {"a": base["a"] / (c * c)}
    if cls in ADAPTIVE_UNITS:
        return {key: base[key] * c ** power for key, power in ADAPTIVE_UNITS[cls].items()}
    params = {}
    if "beta" in base:
        params["beta"] = base["beta"] * c * c
    if "C" in base:
        params["C"] = base["C"] / (c * c)
    if "eta" in base:
        params["eta"] = base["eta"] / c
    return params


def _base_params(name):
    params = onlinear.make(name).get_params()
    cls = type(onlinear.make(name))
    if cls in GAUSSIAN:
        return {"a": 1.0}
    if cls in ADAPTIVE_UNITS:  # (regularized, so that every parameter with units matters)
        base = {key: params[key] for key in ADAPTIVE_UNITS[cls]}
        base.update(l1=0.01, l2=0.1)
        if "delta" in base:
            base["delta"] = 0.5
        return base
    base = {}
    if "beta" in params:
        base["beta"] = 0.25  # a margin that matters (the Perceptrons' default is 0)
    if "C" in params:
        base["C"] = 0.5
    if "eta" in params:
        base["eta"] = params["eta"]
    if "kernel" in params:
        base["kernel"] = "linear"
    return base


def _stream(n=60, d=5, n_classes=3, seed=0):
    """Rows of norm in [0.5, 2] (so c·x stays inside the accepted range for |log2 c| ≤ 495),
    labels from a random linear model, no two classes' scores within 0.05 of each other."""
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(d, n_classes))
    X = rng.normal(size=(4 * n, d))
    X *= rng.uniform(0.5, 2.0, size=(4 * n, 1)) / np.linalg.norm(X, axis=1, keepdims=True)
    scores = np.sort(X @ W, axis=1)
    X = X[scores[:, -1] - scores[:, -2] > 0.05][:n]
    y = np.argmax(X @ W, axis=1)
    flip = rng.random(n) < 0.1  # some noise, so the learners keep updating
    y[flip] = rng.integers(0, n_classes, size=flip.sum())
    return X, y


def _classes_for(name):
    return 2 if name == "winnow" else 3


@pytest.mark.parametrize("name", [n for n in PRIMAL + KERNEL if n not in NOT_INVARIANT])
def test_every_learner_is_invariant_under_its_scaling_from_1e_minus_150_to_1e150(name):
    X, y = _stream(n_classes=_classes_for(name))
    X_test, _ = _stream(n=40, n_classes=_classes_for(name), seed=1)
    base = _base_params(name)
    reference = onlinear.make(name, **base).fit(X, y)
    expected = reference.predict(X_test)
    assert reference.n_updates_ > 0
    for k in (-495, -300, -40, 40, 300, 495):
        c = 2.0 ** k
        params = {**base, **_scaled_params(name, c, base)}
        model = onlinear.make(name, **params).fit(X * c, y)
        assert (model.n_updates_, model.n_mistakes_) == (reference.n_updates_,
                                                          reference.n_mistakes_), k
        np.testing.assert_array_equal(model.predict(X_test * c), expected, err_msg=f"2^{k}")


# ---------------------------------------------------------------------------------------- MIRA
def test_mira_scaled_with_its_margin_takes_the_same_steps():
    """Crammer & Singer §5.3, Eq. 12–15: x → c·x and β → c²β scale B̃ and A = ‖x‖² by c², so
    the reduced QP and τ are unchanged and M → c·M."""
    X, y = _stream(n=80)
    reference = onlinear.make("mira", beta=0.3).fit(X, y)
    for k in (-498, -120, 120, 498):
        c = 2.0 ** k
        model = onlinear.make("mira", beta=0.3 * c * c).fit(X * c, y)
        np.testing.assert_allclose(model.coef_, c * reference.coef_, rtol=1e-12, atol=0.0)


def test_mira_is_exactly_spa1_with_c_1_when_its_margin_is_1():
    """MIRA's problem with β = 1 is Matsushima et al.'s SPA-I problem (2.2) with C = 1: the cap
    τ_y ≤ 1 is SPA-I's Σ_v τ_v ≤ C."""
    X, y = _stream(n=80, n_classes=4)
    mira = onlinear.make("mira", beta=1.0).fit(X, y)
    spa1 = onlinear.make("spa1", C=1.0).fit(X, y)
    np.testing.assert_array_equal(mira.coef_, spa1.coef_)


@pytest.fixture(scope="module")
def usps():
    X, y, X_test, y_test = load_usps()
    return X[:600], y[:600], X_test[:500], y_test[:500]


def test_mira_keeps_learning_when_the_norms_dwarf_its_margin(usps):
    """With β fixed, x → c·x is MIRA with β/c² at scale 1, which predicts as β does while no
    round's cap τ_y ≤ 1 binds.  The score-unit solver made 0 updates at c = 1e6 (82 % error)."""
    X, y, X_test, _ = usps
    reference = onlinear.make("mira").fit(X, y)
    assert reference.n_updates_ > 200
    for c in (1e3, 1e6, 2.0 ** 200):
        model = onlinear.make("mira").fit(X * c, y)
        assert model.n_updates_ == reference.n_updates_, c
        agree = np.mean(model.predict(X_test * c) == reference.predict(X_test))
        assert agree == 1.0, c


def test_kernel_mira_learns_with_a_large_polynomial_kernel(usps):
    """(x·x')⁷ on USPS: K(x, x) ≈ 1e14 against β = 0.01 (0 updates before the fix).  K scales by
    g⁷ with gamma = g, so β·g⁷ must give the same predictions."""
    X, y, X_test, _ = usps
    X, y = X[:250], y[:250]
    model = onlinear.make("kernel-mira", kernel="poly", degree=7, gamma=1.0, coef0=0.0).fit(X, y)
    assert model.n_updates_ > 50
    assert np.mean(model.predict(X_test) != _[:len(X_test)]) < 0.5
    g = 2.0 ** 20
    scaled = onlinear.make("kernel-mira", kernel="poly", degree=7, gamma=g, coef0=0.0,
                           beta=0.01 * g ** 7).fit(X, y)
    assert scaled.n_updates_ == model.n_updates_
    np.testing.assert_array_equal(scaled.predict(X_test), model.predict(X_test))


# ---------------------------------------------------------------------------- refused rows
def _accepted(row):
    row = np.abs(np.asarray(row, dtype=np.float64))
    top = row.max(initial=0.0)
    if top == 0.0:
        return True
    norm = top * math.sqrt(np.sum((row / top) ** 2))
    return LOW <= norm <= HIGH


def _near_the_edge(row):
    row = np.abs(np.asarray(row, dtype=np.float64))
    top = row.max(initial=0.0)
    if top == 0.0:
        return False
    norm = top * math.sqrt(np.sum((row / top) ** 2))
    return any(abs(math.log2(norm) - e) < 1e-6 for e in (-ROW_NORM_EXPONENT, ROW_NORM_EXPONENT))


def _snapshot(model):
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in model_vars(model).items()}


def _assert_same(model, snapshot):
    assert set(model_vars(model)) == set(snapshot)
    for key, value in snapshot.items():
        now = model_vars(model)[key]
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(now, value, err_msg=key)


@pytest.mark.parametrize("name", ["mcp", "cmcp", "simopt", "pa", "spa", "iellip", "mira",
                                  "kernel-mira", "mc-romma", "romma", "simperc",
                                  "cellip matrix=diagonal"])
@pytest.mark.parametrize("bad", [1e-160, 1e-170, 1e300, 2.0 ** 506])
def test_a_row_outside_the_range_is_refused_before_learning(name, bad):
    # (the dense passes of pa, simopt and the diagonal metric check their rows themselves)
    name, _, option = name.partition(" matrix=")
    n_classes = _classes_for(name)
    X, y = _stream(n=20, d=2, n_classes=n_classes)
    params = {"kernel": "linear"} if name.startswith("kernel") else {}
    if option:
        params["matrix"] = option
    with pytest.raises(ValueError, match="norm"):
        onlinear.make(name, **params).fit(np.vstack([[1e150, 0.0], [bad, 0.0]]), [1, 0])
    model = onlinear.make(name, **params).fit(X, y)
    snapshot = _snapshot(model)
    for rows in (np.vstack([X[:3], [[0.0, bad]]]), sp.csr_matrix(np.vstack([[bad, 1e-300]]))):
        with pytest.raises(ValueError, match="norm"):
            model.partial_fit(rows, y[:rows.shape[0]])
        _assert_same(model, snapshot)
    with pytest.raises(ValueError, match="norm"):
        model.learn_one(np.array([bad, 0.0]), y[0])
    _assert_same(model, snapshot)
    model.predict_one(np.array([bad, 0.0]))  # prediction needs no step: not refused


def test_a_polynomial_kernel_that_underflows_is_refused():
    X, y = _stream(n=20, d=2)
    model = onlinear.make("kernel-mira", kernel="poly", degree=7, gamma=1.0).fit(X, y)
    snapshot = _snapshot(model)
    with pytest.raises(ValueError, match="underflows"):
        model.partial_fit(X[:2] * 1e-30, y[:2])  # K(x, x) ≈ 1e-420: x would count as zero
    _assert_same(model, snapshot)


# --------------------------------------------------------------------------------- fuzzing
def _entries():
    """Magnitudes over the whole float64 range (subnormals included), zeros, signs."""
    return st.one_of(
        st.just(0.0),
        st.floats(min_value=-1e3, max_value=1e3, allow_nan=False),
        st.builds(lambda m, e: math.ldexp(m, e),
                  st.floats(min_value=-2.0, max_value=2.0, allow_nan=False),
                  st.integers(-1074, 1020)),
    )


@st.composite
def _extreme_stream(draw, n_classes):
    n = draw(st.integers(2, 8))
    d = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.lists(_entries(), min_size=d, max_size=d), min_size=n,
                               max_size=n)), dtype=np.float64)
    # mixed scales: each row times its own power of two
    shifts = draw(st.lists(st.integers(-520, 520), min_size=n, max_size=n))
    with np.errstate(over="ignore"):
        X = np.ldexp(X, np.array(shifts)[:, None])
    X[~np.isfinite(X)] = 0.0
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    y[:n_classes] = np.arange(n_classes)[:n]
    return X, y


def _finite_model(model):
    for name in ("coef_", "dual_coef_"):
        value = getattr(model, name, None)
        if isinstance(value, np.ndarray):
            assert np.isfinite(value).all(), name
    for name, value in model_vars(model).items():  # the engine's own arrays too (its state)
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            assert np.isfinite(value).all(), name


SCALE_FREE = ["romma", "aromma", "naromma", "mcp", "cmcp"]


@pytest.mark.parametrize("name", SCALE_FREE)
@pytest.mark.parametrize("big, small", [(1e5, 1e-150), (HIGH, LOW), (1e150, 1e-5)])
@pytest.mark.parametrize("sparse", [False, True])
def test_two_accepted_rows_of_extreme_ratio_learn_a_finite_model(name, big, small, sparse):
    """Each row inside the accepted range, their ratio (up to 2^1010) not: a scale-free step
    whose row part dwarfs the column is taken as the row itself (same direction), never as a
    raw step that overflows (the model used to end as [nan, inf])."""
    X = np.array([[big, 0.0], [0.0, small]])
    y = np.array([0, 1])
    model = onlinear.make(name, n_epochs=3).fit(sp.csr_matrix(X) if sparse else X, y)
    _finite_model(model)
    assert np.isfinite(model.decision_function(X)).all()
    assert model.predict(X).tolist() == y.tolist()
    model.partial_fit(X[::-1], y[::-1])  # and on: still finite
    _finite_model(model)


FUZZED = [n for n in PRIMAL] + ["kernel-mira", "kernel-pa1", "kernel-spa2", "kernel-mc-romma",
                                "kernel-perceptron-prop"]


@pytest.mark.parametrize("name", FUZZED)
def test_extreme_streams_are_learned_finitely_or_refused_whole(name):
    n_classes = _classes_for(name)
    params = {"kernel": "linear"} if name.startswith("kernel") else {}

    @FUZZ
    @given(_extreme_stream(n_classes))
    def check(stream):
        X, y = stream
        if len(np.unique(y)) < 2:
            return
        edge = any(_near_the_edge(row) for row in X)
        accepted = all(_accepted(row) for row in X)
        model = onlinear.make(name, **params)
        try:
            model.fit(X, y)
        except ValueError as error:
            assert edge or not accepted, str(error)
            assert "norm" in str(error)
            return
        assert edge or accepted
        _finite_model(model)
        assert np.isfinite(np.asarray(model.decision_function(X), dtype=float)).all()
        fitted = onlinear.make(name, **params).partial_fit(
            *_stream(n=10, d=X.shape[1], n_classes=n_classes), classes=np.arange(n_classes))
        snapshot = _snapshot(fitted)
        try:
            fitted.partial_fit(X, y)
        except ValueError:
            _assert_same(fitted, snapshot)
        else:
            _finite_model(fitted)

    check()


@pytest.mark.parametrize("name", ["romma", "aromma"])
def test_romma_takes_an_exact_tie_as_a_mistake_on_dense_and_csr_rows_alike(name):
    """The documented tie rule (ROMMA's docstring): a margin of exactly 0 is learned, on both
    paths, bit for bit, when the row's products are exact (dyadic values)."""
    X = np.array([[1.0, 0.0, 0.5], [0.0, 2.0, 0.0], [0.5, 0.0, -1.0], [0.0, 0.25, 0.0]])
    y = np.array([0, 1, 1, 0])  # row 1 is orthogonal to row 0: score exactly 0 on its turn
    dense = onlinear.make(name).fit(X, y)
    csr = onlinear.make(name).fit(sp.csr_matrix(X), y)
    assert dense.n_updates_ == csr.n_updates_ >= 2
    np.testing.assert_array_equal(dense.coef_, csr.coef_)
    np.testing.assert_array_equal(dense.model_.state[4:], csr.model_.state[4:])  # the certificates
    first_two = onlinear.make(name).fit(X[:2], y[:2])
    assert first_two.n_updates_ == 2  # the tie (margin 0) was learned
