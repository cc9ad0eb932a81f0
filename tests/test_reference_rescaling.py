"""The rescaling and multiplicative learners against short per-example reference implementations.

The references below are plain numpy, one example at a time, written from the papers and not from
the library:

* ``romma`` / ``aromma`` — Li & Long (Bshouty & Haddad-Zaknoon §3.2, Table 1) with u and ‖u‖²
  kept as they are; ROMMA updates only on mistakes z(u·a) ≤ 0 (Type III), the first example gives
  u = z a/‖a‖²;
* ``naromma`` — Bshouty & Haddad-Zaknoon §3, Figure 1 / Table 2 in the ℓ* form (only anti-parallel
  examples skipped, or both collinear directions with ``skip_collinear="paper"``);
* ``mcp`` / ``cmcp`` — Bshouty & Haddad-Zaknoon §4, Figure 2 / Lemma 8, w_1 = y_0 a_0,
  ℓ_1 = 1/‖a_0‖;
* ``mc-romma`` — Crammer & Singer 2003 Figure 6 (§7) in our closed form from Theorem 15 and
  Lemmas 12–13, τ from the max/uniform/prop scheme;
* ``multiplicative`` — Crammer & Singer Figure 5 (§6), version 1 ("row") and version 2 ("matrix");
* ``winnow`` — balanced Winnow, the two-class case of Crammer & Singer's Figure 5 (§6).

They follow the library's conventions: a binary learner has one output for two classes (positive
label ``classes_[1]``, predicts class 1 iff the score is > 0) and runs one-vs-rest on more,
predicting ``argmax_r w_r·x/‖w_r‖`` (untrained outputs score 0); every learner predicts before it
updates, ties go to the lowest class index; the first non-zero example of an output initializes
it (an update); rows x = 0 never update.
"""
from dataclasses import dataclass
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from certificates import kkt_certificate
from scipy.optimize import minimize

import onlinear
from onlinear._core import primal

N_FEATURES = 8
N_ROUNDS = 300
SCHEMES = ("max", "uniform", "prop")
# Class labels as the user sees them (sorted, so that the class index is the position).
LABELS = {2: np.array([-1, 4]), 3: np.array([0, 2, 9]), 4: np.array([-5, 1, 2, 30]),
          5: np.array([-2, 3, 5, 11, 40])}
# Li & Long's anti-parallel test (our guard for the division by zero in Bshouty & Haddad-Zaknoon
# Table 1 and Figure 1, step 4; ε ≈ 1e-12).
COLLINEAR = 1e-12


def weights(model):
    """The model's true weights: ``coef_``, times ``weight_norm_`` for multiclass ROMMA, which
    stores the unit direction of M and its norm separately."""
    if hasattr(model, "weight_norm_"):
        return model.coef_ * model.weight_norm_
    return model.coef_


def make_stream(seed, n_classes, noise, n=N_ROUNDS, n_features=N_FEATURES, box=False,
                decay=0.0):
    """Rows: Gaussian (``box``: uniform in [−1, 1]^D, the setting of Theorem 11) with about 30% of
    the entries zero, the first row and four others entirely zero; labels: the argmax of a
    random linear model (so separable), a fraction ``noise`` of them moved to another class.
    ``decay`` shrinks the rows geometrically, by 10^-decay over the stream."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, n_features)) if box else rng.normal(size=(n, n_features))
    X[rng.random(X.shape) < 0.3] = 0.0
    y = np.argmax(X @ rng.normal(size=(n_classes, n_features)).T, axis=1)
    flip = rng.random(n) < noise
    y[flip] = (y[flip] + rng.integers(1, n_classes, flip.sum())) % n_classes
    X[0] = 0.0
    X[rng.choice(np.arange(1, n), 4, replace=False)] = 0.0
    if decay:
        X *= 10.0 ** (-decay * np.arange(n) / n)[:, None]
    return X, y


def row_scores(M, x):
    """``M_r·x`` row by row: equal rows get bit-equal scores, so exact ties (frequent: rows
    demoted together stay equal) stay ties — a BLAS mat-vec can round two equal rows apart."""
    return np.array([row @ x for row in M])


def unit_rows(W):
    return W / np.linalg.norm(W, axis=1, keepdims=True)


def assert_close(actual, expected, rel):
    """‖actual − expected‖ ≤ rel·‖expected‖ (Frobenius)."""
    relative = np.linalg.norm(np.asarray(actual) - expected) / np.linalg.norm(expected)
    assert relative <= rel, f"relative error {relative:.3g}"


@dataclass
class Result:
    predictions: np.ndarray  # class index predicted before each update
    mistakes: int
    updates: int
    coef: np.ndarray  # shaped like the library's coef_
    bound: np.ndarray = None  # cosine_bound_ of the maximum-cosine learners
    log_scale: float = 0.0  # mc-romma: log10 of the product of the rescaling factors c
    log_mass: float = 0.0  # multiplicative: max |log10| of the unnormalized mass of a row/matrix


# ================================================== binary references (Bshouty & Haddad-Zaknoon)
class RommaRef:
    """ROMMA (conservative) or aggressive ROMMA, Bshouty & Haddad-Zaknoon Table 1 (§3.2), u and
    ‖u‖² as is."""

    def __init__(self, aggressive):
        self.aggressive = aggressive
        self.w = None

    @property
    def bound(self):
        return np.linalg.norm(self.w)  # ‖u‖ = ℓ* (Theorem 7)

    def learn(self, a, z):
        A = a @ a
        if self.w is None:
            self.w = z * a / A
            return True
        p, U = self.w @ a, self.w @ self.w
        if z * p >= 1 or (not self.aggressive and z * p > 0):  # Type I (ROMMA: no mistake)
            return False
        if z * p >= A * U:  # Type II
            self.w = z * a / A
            return True
        den = A * U - p * p
        if den <= COLLINEAR * A * U:  # anti-parallel: infeasible, skipped (our guard)
            return False
        self.w = ((A * U - z * p) * self.w + U * (z - p) * a) / den  # Type III, (25)–(26)
        return True


class NarommaRef:
    """NAROMMA, Bshouty & Haddad-Zaknoon Figure 1 / Table 2 in the ℓ* form (the square root of
    Table 2's entry)."""

    def __init__(self, skip_parallel=False):
        self.skip_parallel = skip_parallel
        self.w = None
        self.bound = None  # ℓ*

    def learn(self, a, z):
        A = a @ a
        if self.w is None:
            self.w, self.bound = z * a, 1 / np.sqrt(A)
            return True
        ell, nw, p = self.bound, np.linalg.norm(self.w), self.w @ a
        g = z * p / nw  # γ_i
        if abs(p) >= (1 - COLLINEAR) * nw * np.sqrt(A) and (self.skip_parallel or g < 0):
            return False  # step 4: collinear
        if g >= 1 / ell:  # Type I
            return False
        if g >= A * ell:  # Type II
            self.w, self.bound = z * a, 1 / np.sqrt(A)
            return True
        self.w = self.w + (1 - ell * g) * nw / (ell * A - g) * z * a  # Type III
        self.bound = np.sqrt(ell**2 + (ell * g - 1) ** 2 / (A - g**2))
        return True


class MaximumCosineRef:
    """MCP (Bshouty & Haddad-Zaknoon Figure 2, (41)–(43)) or, ``conservative``, CMCP (Lemma 8)."""

    def __init__(self, conservative):
        self.conservative = conservative
        self.w = None
        self.bound = None  # ℓ

    def learn(self, a, z):
        A = a @ a
        if self.w is None:
            self.w, self.bound = z * a, 1 / np.sqrt(A)
            return True
        ell, nw = self.bound, np.linalg.norm(self.w)
        m = z * (self.w @ a)
        if m > (0.0 if self.conservative else nw / (2 * ell)):
            return False
        eta = 0.0 if m <= 0 else m * ell / nw
        self.w = self.w + nw / (ell * A) * z * a
        self.bound = np.sqrt(ell**2 + (1 - 2 * eta) / A)
        return True


def run_binary(make_output, X, y, n_classes):
    """One output for two classes (z = +1 for class 1), one-vs-rest outputs otherwise."""
    outputs = [make_output() for _ in range(1 if n_classes == 2 else n_classes)]
    predictions, mistakes, updates = [], 0, 0
    for a, label in zip(X, y):
        scores = [0.0 if o.w is None else o.w @ a / np.linalg.norm(o.w) for o in outputs]
        predicted = int(scores[0] > 0) if len(outputs) == 1 else int(np.argmax(scores))
        predictions.append(predicted)
        mistakes += predicted != label
        if a @ a == 0:
            continue
        if len(outputs) == 1:
            signs = [1.0 if label == 1 else -1.0]
        else:
            signs = [1.0 if r == label else -1.0 for r in range(n_classes)]
        changed = [o.learn(a, z) for o, z in zip(outputs, signs)]
        updates += any(changed)
    return Result(np.array(predictions), mistakes, updates,
                  coef=np.array([o.w for o in outputs]),
                  bound=np.array([o.bound for o in outputs]))


# ================================================================== multiclass references (000)
def scheme_tau(scores, y, scheme):
    """τ of the additive family (Figure 2, C1–C4) on a round with E ≠ ∅; None when E = ∅."""
    k = len(scores)
    errors = [r for r in range(k) if r != y and scores[r] >= scores[y]]
    if not errors:
        return None
    tau = np.zeros(k)
    tau[y] = 1.0
    excess = np.array([max(scores[r] - scores[y], 0.0) if r != y else 0.0 for r in range(k)])
    if scheme == "max":  # the highest-scoring wrong class, lowest index on ties
        tau[max((r for r in range(k) if r != y), key=lambda r: (scores[r], -r))] = -1.0
    elif scheme == "prop" and excess.sum() > 0:
        tau -= excess / excess.sum()
    else:  # uniform (and prop's 0/0 fallback)
        tau[errors] = -1.0 / len(errors)
    return tau


def mc_romma_closed_form(M, x, tau):
    """``argmin ½‖M'‖² s.t. Σ_r τ_r M'_r·x ≥ 1, M'·M ≥ ‖M‖²`` (Crammer & Singer Figure 6, §7); also
    returns c."""
    z = np.outer(tau, x)
    N, s, ZZ = np.sum(M * M), tau @ row_scores(M, x), (x @ x) * (tau @ tau)
    if N == 0:
        return z / ZZ, 1.0
    det = N * ZZ - s * s
    assert det > COLLINEAR * N * ZZ, "M anti-parallel to z: the test stream should avoid it"
    c, d = (N * ZZ - s) / det, N * (1 - s) / det
    return c * M + d * z, c


def as_coef(M):
    """The library's coef_ of a k-row model: the rows, or for two classes row 1 − row 0."""
    return M if M.shape[0] > 2 else (M[1] - M[0])[None, :]


def run_mc_romma(X, y, n_classes, scheme):
    M = np.zeros((n_classes, X.shape[1]))
    predictions, mistakes, updates, log_scale = [], 0, 0, 0.0
    for x, label in zip(X, y):
        scores = row_scores(M, x)
        predictions.append(int(np.argmax(scores)))
        mistakes += predictions[-1] != label
        tau = scheme_tau(scores, label, scheme)
        if tau is None or x @ x == 0:
            continue
        M, c = mc_romma_closed_form(M, x, tau)
        updates += 1
        log_scale += np.log10(c)
    return Result(np.array(predictions), mistakes, updates, coef=as_coef(M), log_scale=log_scale)


def run_multiplicative(X, y, n_classes, eta, normalize, scheme):
    k, n = n_classes, X.shape[1]
    M = np.full((k, n), 1 / n if normalize == "row" else 1 / (n * k))
    log_mass = np.zeros(k)  # log10 of the unnormalized mass of each row (version 2: all equal)
    predictions, mistakes, updates, worst = [], 0, 0, 0.0
    for x, label in zip(X, y):
        scores = row_scores(M, x)
        predictions.append(int(np.argmax(scores)))
        mistakes += predictions[-1] != label
        tau = scheme_tau(scores, label, scheme)
        if tau is None or not x.any():
            continue
        updates += 1
        grown = M * np.exp(eta * tau[:, None] * x[None, :])
        if normalize == "row":  # version 1: Z_r per row; rows with τ_r = 0 are left alone
            for r in np.flatnonzero(tau):
                log_mass[r] += np.log10(grown[r].sum())
                M[r] = grown[r] / grown[r].sum()
        else:  # version 2: one Z for the whole matrix
            log_mass += np.log10(grown.sum())
            M = grown / grown.sum()
        worst = max(worst, np.abs(log_mass).max())
    return Result(np.array(predictions), mistakes, updates, coef=as_coef(M), log_mass=worst)


def run_winnow(X, y, n_classes, eta, normalize):
    """Balanced Winnow: on a round with ``w_other·x ≥ w_y·x``, ``w_y ∝ w_y ⊙ exp(ηx)`` and
    ``w_other ∝ w_other ⊙ exp(−ηx)``; prediction class 1 iff ``w_1·x > w_0·x``."""
    assert n_classes == 2
    n = X.shape[1]
    w = [np.full(n, 1 / n if normalize == "row" else 1 / (2 * n)) for _ in range(2)]
    predictions, mistakes, updates = [], 0, 0
    for x, label in zip(X, y):
        predictions.append(int(w[1] @ x > w[0] @ x))
        mistakes += predictions[-1] != label
        other = 1 - label
        if not x.any() or w[other] @ x < w[label] @ x:
            continue
        updates += 1
        up, down = w[label] * np.exp(eta * x), w[other] * np.exp(-eta * x)
        if normalize == "row":
            up, down = up / up.sum(), down / down.sum()
        else:
            total = up.sum() + down.sum()
            up, down = up / total, down / total
        w[label], w[other] = up, down
    return Result(np.array(predictions), mistakes, updates, coef=(w[1] - w[0])[None, :])


# ================================================================== the cases
@dataclass
class Case:
    id: str
    name: str
    params: dict
    reference: object  # (X, y, n_classes) -> Result
    kind: str  # "cosine" (unit directions, cosine_bound_), "additive" or "multiplicative"
    box: bool = False  # rows in [−1, 1]^D
    binary_only: bool = False

    def make(self):
        return onlinear.make(self.name, **self.params)


CASES = [
    Case("romma", "romma", {}, partial(run_binary, partial(RommaRef, aggressive=False)), "cosine"),
    Case("aromma", "aromma", {}, partial(run_binary, partial(RommaRef, aggressive=True)),
         "cosine"),
    Case("naromma", "naromma", {}, partial(run_binary, NarommaRef), "cosine"),
    Case("naromma-paper", "naromma", {"skip_collinear": "paper"},
         partial(run_binary, partial(NarommaRef, skip_parallel=True)), "cosine"),
    Case("mcp", "mcp", {}, partial(run_binary, partial(MaximumCosineRef, conservative=False)),
         "cosine"),
    Case("cmcp", "cmcp", {}, partial(run_binary, partial(MaximumCosineRef, conservative=True)),
         "cosine"),
    *[Case(f"mc-romma-{s}", "mc-romma", {"scheme": s}, partial(run_mc_romma, scheme=s),
           "additive") for s in SCHEMES],
    *[Case(f"multiplicative-{v}-{s}", "multiplicative", {"eta": 0.5, "normalize": v, "scheme": s},
           partial(run_multiplicative, eta=0.5, normalize=v, scheme=s), "multiplicative", box=True)
      for v in ("row", "matrix") for s in SCHEMES],
    *[Case(f"winnow-{v}", "winnow", {"eta": 0.5, "normalize": v},
           partial(run_winnow, eta=0.5, normalize=v), "multiplicative", box=True,
           binary_only=True) for v in ("row", "matrix")],
]
STREAMS = [(seed, k, noise) for seed in (0, 1, 2) for k in (2, 5) for noise in (0.0, 0.15)]


def case_stream_params():
    return [pytest.param(case, seed, k, noise, id=f"{case.id}-seed{seed}-k{k}-noise{noise}")
            for case in CASES for seed, k, noise in STREAMS if k == 2 or not case.binary_only]


def case_params():
    return [pytest.param(case, id=case.id) for case in CASES]


def learn_one_by_one(model, X, labels, classes):
    """The labels predicted before each update, one ``learn_one`` call per row."""
    return np.array([model.learn_one(x, label, classes=classes) for x, label in zip(X, labels)])


def assert_same_model(actual, expected):
    assert (actual.n_seen_, actual.n_mistakes_, actual.n_updates_) == (
        expected.n_seen_, expected.n_mistakes_, expected.n_updates_)
    assert_array_equal(actual.classes_, expected.classes_)
    # equal to rounding: a dense pass sums with reassociated vector instructions, a CSR or
    # per-example pass in feature order (see onlinear._core.primal)
    scale = max(1.0, np.abs(weights(expected)).max())
    assert_allclose(weights(actual), weights(expected), rtol=1e-12, atol=1e-13 * scale)
    if hasattr(expected, "cosine_bound_"):
        assert_allclose(actual.cosine_bound_, expected.cosine_bound_, rtol=1e-12)


# ================================================================== library = reference
@pytest.mark.parametrize("case, seed, n_classes, noise", case_stream_params())
def test_matches_reference(case, seed, n_classes, noise):
    X, y = make_stream(seed, n_classes, noise, box=case.box)
    labels = LABELS[n_classes]
    ref = case.reference(X, y, n_classes)

    model = case.make().fit(X, labels[y])
    assert (model.n_seen_, model.n_mistakes_, model.n_updates_) == (len(y), ref.mistakes,
                                                                    ref.updates)
    # the predictions made before each update
    predicted = learn_one_by_one(case.make(), X, labels[y], labels)
    assert_array_equal(predicted, labels[ref.predictions])

    coef = weights(model)
    assert coef.shape == ref.coef.shape
    assert_allclose(unit_rows(coef), unit_rows(ref.coef), rtol=0, atol=1e-9)
    if case.kind == "cosine":  # unit directions and the certificate ℓ (= ‖u‖ for ROMMA)
        assert_allclose(np.linalg.norm(coef, axis=1), 1.0, rtol=0, atol=1e-9)
        assert_allclose(model.cosine_bound_, ref.bound, rtol=1e-9)
    else:  # the weights themselves
        assert_close(coef, ref.coef, rel=1e-9)
    if case.kind == "multiplicative" and n_classes > 2:
        assert np.all(coef > 0)
        sums = coef.sum(axis=1) if case.params["normalize"] == "row" else coef.sum()
        assert_allclose(sums, 1.0, rtol=0, atol=1e-12)


def test_naromma_collinear_examples():
    """Our collinear-example check of Bshouty & Haddad-Zaknoon Figure 1, step 4: after a_0, an
    anti-parallel example (skipped by everyone) and a parallel one (Type II for aggressive ROMMA and
    default NAROMMA, skipped by the paper's step 4); Theorem 7 (NAROMMA ≡ aggressive ROMMA) holds
    for the default only."""
    rng = np.random.default_rng(7)
    a0 = rng.normal(size=N_FEATURES)
    X_rest, y_rest = make_stream(8, 2, 0.1, n=60)
    X = np.vstack([a0, -0.7 * a0, 0.5 * a0, X_rest[1:]])
    y = np.concatenate([[1, 1, 1], y_rest[1:]])
    results = {}
    for case in CASES:
        if case.id in ("aromma", "naromma", "naromma-paper"):
            ref = case.reference(X, y, 2)
            model = case.make().fit(X, y)
            assert (model.n_mistakes_, model.n_updates_) == (ref.mistakes, ref.updates)
            assert_allclose(weights(model), unit_rows(ref.coef), rtol=0, atol=1e-9)
            assert_allclose(model.cosine_bound_, ref.bound, rtol=1e-9)
            results[case.id] = model
    # round 2 (parallel) is a Type II update for the default: ℓ* = 1/‖a_2‖ = 2/‖a_0‖
    truncated = onlinear.make("naromma").partial_fit(X[:3], y[:3], classes=[0, 1])
    assert_allclose(truncated.cosine_bound_, [2 / np.linalg.norm(a0)], rtol=1e-12)
    assert truncated.n_updates_ == 2
    paper = onlinear.make("naromma", skip_collinear="paper").partial_fit(X[:3], y[:3],
                                                                         classes=[0, 1])
    assert paper.n_updates_ == 1
    assert_allclose(paper.cosine_bound_, [1 / np.linalg.norm(a0)], rtol=1e-12)
    assert_allclose(results["naromma"].coef_, results["aromma"].coef_, rtol=0, atol=1e-9)
    assert_allclose(results["naromma"].cosine_bound_, results["aromma"].cosine_bound_, rtol=1e-9)
    assert not np.allclose(results["naromma-paper"].cosine_bound_,
                           results["aromma"].cosine_bound_, rtol=1e-6)


# ================================================================== input formats and APIs
def format_stream(case):
    n_classes = 2 if case.binary_only else 5
    X, y = make_stream(3, n_classes, 0.15, box=case.box)
    return X, LABELS[n_classes][y]


@pytest.fixture
def sparse_calls(monkeypatch):
    """The (data, indices, indptr) dtypes of every call to the compiled sparse loop."""
    calls = []
    run_sparse = primal.run_sparse

    def spy(data, indices, indptr, *args):
        calls.append((data.dtype, indices.dtype, indptr.dtype))
        return run_sparse(data, indices, indptr, *args)

    monkeypatch.setattr(primal, "run_sparse", spy)
    return calls


@pytest.mark.parametrize("case", case_params())
def test_csr_input_gives_the_same_model_as_dense(case, sparse_calls):
    X, y = format_stream(case)
    dense = case.make().fit(X, y)
    csr = sp.csr_matrix(X)
    for index_dtype in (np.int32, np.int64):
        X_csr = csr.copy()
        X_csr.indices = X_csr.indices.astype(index_dtype)
        X_csr.indptr = X_csr.indptr.astype(index_dtype)
        sparse_calls.clear()
        assert_same_model(case.make().fit(X_csr, y), dense)
        # int64 indices reach the loop narrowed to int32 (rows.csr_arrays: one compiled loop)
        assert sparse_calls == [(np.float64, np.int32, np.int32)]
    # every entry stored, explicit zeros included (the zero rows too)
    n, d = X.shape
    full = sp.csr_matrix((X.ravel(), np.tile(np.arange(d), n), np.arange(0, n * d + 1, d)),
                         shape=X.shape)
    assert full.nnz == n * d
    assert_same_model(case.make().fit(full, y), dense)


@pytest.mark.parametrize("case", case_params())
def test_float32_input_gives_the_same_model_as_float64(case, sparse_calls):
    """float32 input holds the same numbers as its float64 copy, so with float64 weights
    (``dtype="float64"``: the default follows float32 data with float32 weights) the model
    must be the same (the engine computes in float64)."""
    X, y = format_stream(case)
    X32 = X.astype(np.float32)
    from_64 = case.make().fit(X32.astype(np.float64), y)
    as64 = {"dtype": "float64"} if "dtype" in from_64.get_params() else {}
    assert_same_model(case.make().set_params(**as64).fit(X32, y), from_64)
    assert_same_model(case.make().set_params(**as64).fit(sp.csr_matrix(X32), y), from_64)
    assert sparse_calls[0][0] == np.float32


@pytest.mark.parametrize("case", case_params())
def test_learn_one_and_partial_fit_equal_fit(case):
    n_classes = 2 if case.binary_only else 5
    X, y = make_stream(4, n_classes, 0.15, box=case.box)
    y = LABELS[n_classes][y]
    fitted = case.make().fit(X, y)

    streamed = case.make()
    learn_one_by_one(streamed, X, y, LABELS[n_classes])
    assert_same_model(streamed, fitted)

    chunked = case.make()
    bounds = [0, 1, 8, 58, 150, len(y)]
    for start, stop in zip(bounds[:-1], bounds[1:]):
        chunked.partial_fit(X[start:stop], y[start:stop], classes=LABELS[n_classes])
    assert_same_model(chunked, fitted)


# ================================================================== per-step invariants
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("n_classes, noise", [(3, 0.0), (5, 0.3)])
def test_mc_romma_lemmas_12_and_13_at_every_step(scheme, n_classes, noise):
    """Crammer & Singer §7 (our check): on every round with E ≠ ∅, Σ_r τ_r (M'_r·x) = 1 (Lemma 12)
    and, for M ≠ 0, M'·M = ‖M‖² (Lemma 13); on the other rounds M does not change."""
    X, y = make_stream(11, n_classes, noise, n=400)
    model = onlinear.make("mc-romma", scheme=scheme)
    M = np.zeros((n_classes, N_FEATURES))
    checked = 0
    for x, label in zip(X, y):
        tau = scheme_tau(row_scores(M, x), label, scheme)
        model.learn_one(x, label, classes=np.arange(n_classes))
        new = weights(model)
        if tau is None or not x.any():
            assert_array_equal(new, M)
        else:
            products = tau * row_scores(new, x)
            assert abs(products.sum() - 1) <= 1e-9 * max(1.0, np.abs(products).sum())
            if M.any():
                N = np.sum(M * M)
                assert abs(np.sum(new * M) - N) <= 1e-9 * N
                assert np.sum(new * new) >= N * (1 - 1e-12)
                checked += 1
        M = new
    assert checked >= 50


def mc_romma_problem(M, x, tau):
    """``min ½‖M'‖² s.t. Σ_r τ_r (M'_r·x) ≥ 1 and M'·M ≥ ‖M‖²`` as (A_ub, b_ub) on vec(M')."""
    z, m = np.outer(tau, x).ravel(), M.ravel()
    N = m @ m
    if N > 0:
        return np.vstack([-z, -m]), np.array([-1.0, -N])
    return -z[None, :], np.array([-1.0])


def slsqp_point(M, x, tau):
    """A generic solver's point for the same problem (its convergence flag is not trusted:
    the caller uses the point only if it is feasible), in units of a lower bound on ‖M'‖ (max
    of ‖M‖ and 1/‖z‖) so that the solver's tolerances are relative."""
    A, b = mc_romma_problem(M, x, tau)
    unit = max(np.sqrt(M.ravel() @ M.ravel()), 1 / np.linalg.norm(A[0]))
    result = minimize(lambda v: 0.5 * (v @ v), np.zeros(M.size), jac=lambda v: v,
                      constraints=[{"type": "ineq", "fun": lambda v: b - unit * (A @ v),
                                    "jac": lambda v: -unit * A}],
                      method="SLSQP", options={"ftol": 1e-12, "maxiter": 500})
    return unit * result.x


def test_mc_romma_closed_form_equals_qp_solver():
    """Crammer & Singer Figure 6 (§7): the library's step is the argmin of its QP on random rounds
    (all schemes, 3–5 classes, 3–8 features, noisy streams, first updates from M = 0 included):
    certified by the KKT conditions, and a generic solver's feasible point is not better."""
    rng = np.random.default_rng(12)
    checked = 0
    for trial in range(12):
        n_classes, n_features = int(rng.integers(3, 6)), int(rng.integers(3, 9))
        scheme = SCHEMES[trial % 3]
        X, y = make_stream(100 + trial, n_classes, 0.3, n=40, n_features=n_features)
        model = onlinear.make("mc-romma", scheme=scheme)
        M = np.zeros((n_classes, n_features))
        for x, label in zip(X, y):
            tau = scheme_tau(row_scores(M, x), label, scheme)
            model.learn_one(x, label, classes=np.arange(n_classes))
            if tau is not None and x.any():
                new = weights(model).ravel()
                A, b = mc_romma_problem(M, x, tau)
                kkt_certificate(new, new, A, b).assert_optimal(1e-8, f"trial {trial}")
                other = slsqp_point(M, x, tau)
                if np.all(A @ other <= b + 1e-9 * np.abs(b)):
                    assert new @ new <= (other @ other) * (1 + 1e-9)
                checked += 1
            M = weights(model)
    assert checked >= 200


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("normalize", ["row", "matrix"])
def test_multiplicative_step_invariants(normalize, scheme):
    """Crammer & Singer Figure 5 (§6), our check: all weights > 0; rows (version 1) or the matrix
    (version 2) sum to 1 after every round; version 1 leaves the rows outside E ∪ {y} bit-identical,
    version 2 divides them all by the same Z; a round with E = ∅ changes nothing."""
    n_classes = 5
    X, y = make_stream(13, n_classes, 0.15, box=True)
    model = onlinear.make("multiplicative", eta=0.5, normalize=normalize, scheme=scheme)
    model.learn_one(X[0], y[0], classes=np.arange(n_classes))
    M = weights(model)
    for x, label in zip(X[1:], y[1:]):
        tau = scheme_tau(row_scores(M, x), label, scheme)
        model.learn_one(x, label)
        new = weights(model)
        assert np.all(new > 0)
        assert_allclose(new.sum(axis=1) if normalize == "row" else new.sum(), 1.0, rtol=0,
                        atol=1e-12)
        if tau is None or not x.any():
            assert_array_equal(new, M)
        else:
            idle = tau == 0
            assert not np.array_equal(new[~idle], M[~idle])
            if normalize == "row":
                assert_array_equal(new[idle], M[idle])
            elif idle.any():
                ratio = new[idle] / M[idle]
                assert_allclose(ratio, ratio.flat[0], rtol=1e-12)
        M = new


# ================================================================== long streams: the lazy scale
LONG = 20_000


@pytest.mark.parametrize("scheme", ["max", "prop"])
def test_mc_romma_long_stream_with_a_growing_lazy_scale(scheme):
    """20,000 separable rounds whose rows shrink to 1e-60: MC-ROMMA rescales M by c > 1 on
    each of thousands of updates (their product passes 1e30), which the library applies through
    its lazy scale; the model still equals the reference to 1e-8."""
    X, y = make_stream(21, 4, 0.0, n=LONG, decay=60)
    ref = run_mc_romma(X, y, 4, scheme)
    model = onlinear.make("mc-romma", scheme=scheme).fit(X, y)
    assert ref.log_scale > 30 and ref.updates > 3000
    assert (model.n_mistakes_, model.n_updates_) == (ref.mistakes, ref.updates)
    assert_close(weights(model), ref.coef, rel=1e-8)


def test_mc_romma_long_noisy_stream():
    """10,000 rounds with 2% label noise (‖M‖ grows to ~1e5); the float64 reference is checked
    against an extended-precision run of itself, so the comparison is meaningful."""
    X, y = make_stream(24, 4, 0.02, n=10_000)
    ref = run_mc_romma(X, y, 4, "max")
    if np.finfo(np.longdouble).eps < np.finfo(np.float64).eps:
        with np.errstate(all="ignore"):
            precise = run_mc_romma(X.astype(np.longdouble), y, 4, "max")
        assert precise.updates == ref.updates
        assert_close(ref.coef, precise.coef.astype(np.float64), rel=1e-10)
    model = onlinear.make("mc-romma", scheme="max").fit(X, y)
    assert (model.n_mistakes_, model.n_updates_) == (ref.mistakes, ref.updates)
    assert_close(weights(model), ref.coef, rel=1e-8)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES if c.kind == "cosine"])
def test_maximum_cosine_long_noisy_stream(case):
    """4,000 rounds, 5 classes one-vs-rest, 15% label noise: ℓ* (= ‖u‖) grows geometrically
    (our observation on non-separable data) but stays finite; the float64 reference is checked
    against an extended-precision run of itself, so the comparison is meaningful."""
    X, y = make_stream(25, 5, 0.15, n=4000)
    ref = case.reference(X, y, 5)
    if np.finfo(np.longdouble).eps < np.finfo(np.float64).eps:
        with np.errstate(all="ignore"):
            precise = case.reference(X.astype(np.longdouble), y, 5)
        assert (precise.mistakes, precise.updates) == (ref.mistakes, ref.updates)
        assert_allclose(unit_rows(ref.coef), unit_rows(precise.coef.astype(np.float64)), rtol=0,
                        atol=1e-9)
    model = case.make().fit(X, y)
    assert (model.n_mistakes_, model.n_updates_) == (ref.mistakes, ref.updates)
    assert_allclose(np.linalg.norm(weights(model), axis=1), 1.0, rtol=0, atol=1e-9)
    assert_allclose(weights(model), unit_rows(ref.coef), rtol=0, atol=1e-9)
    assert_allclose(model.cosine_bound_, ref.bound, rtol=1e-9)


@pytest.mark.parametrize("exponent", [-300, -100, 100, 300])
def test_mc_romma_is_scale_covariant(exponent):
    """MC-ROMMA's constraints are bilinear in M and x, so on rows a·x it learns M/a with the
    same predictions.  a is a power of two, so that the float arithmetic scales exactly too."""
    X, y = make_stream(23, 4, 0.1, n=500)
    a = 2.0**exponent
    plain = onlinear.make("mc-romma").fit(X, y)
    scaled = onlinear.make("mc-romma").fit(a * X, y)
    assert (scaled.n_mistakes_, scaled.n_updates_) == (plain.n_mistakes_, plain.n_updates_)
    assert_close(weights(scaled) * a, weights(plain), rel=1e-12)


@pytest.mark.parametrize("eta", [0.1, 2.0])
@pytest.mark.parametrize("normalize", ["row", "matrix"])
def test_multiplicative_long_stream(normalize, eta):
    """20,000 noisy rounds.  With η = 2 the unnormalized mass of some row (or of the matrix)
    leaves [1e-100, 1e100], so the library must fold its lazy scale into the weights."""
    X, y = make_stream(24, 4, 0.1, n=LONG, box=True)
    with np.errstate(under="ignore"):
        ref = run_multiplicative(X, y, 4, eta, normalize, "uniform")
    if eta == 2.0:
        assert ref.log_mass > 101
    model = onlinear.make("multiplicative", eta=eta, normalize=normalize).fit(X, y)
    assert (model.n_mistakes_, model.n_updates_) == (ref.mistakes, ref.updates)
    assert_close(weights(model), ref.coef, rel=1e-8)
    # positive, except where the true weight is below float64's range (the reference underflows
    # there as well)
    assert np.all(weights(model) >= 0) and np.all(weights(model)[ref.coef > 1e-290] > 0)
    assert_allclose(weights(model).sum(axis=1) if normalize == "row" else weights(model).sum(), 1.0,
                    rtol=0, atol=1e-12)
