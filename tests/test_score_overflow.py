"""Prediction refuses a finite row whose scores overflow float64.

Learning refuses rows of norm beyond 2^505, prediction takes any finite row: a model that
learned from rows of scale 1e150 (or, for the learners whose weights grow as the rows shrink,
1e-150) scores a finite row of scale 1e168 beyond ±1.8e308.  Its scores were ±inf (or NaN)
with only numpy's RuntimeWarning, and ``predict``, ``predict`` on CSR rows and ``predict_one``
picked classes from them that disagreed with each other and with the row's prediction at
scale 1 — which a positive scaling cannot change for a linear model.  Every prediction now
raises ``ValueError`` naming the first such row (the kernel learners did for NaN scores
already), dense and CSR, through the general path and the per-example fast path, and learning
still refuses the row (by its norm, or the adaptive learners by its scores), changing nothing.

The construction: each unit row t is scaled by c = 1e10 · 1.8e308 / max_r |w_r·t|, from the
fitted weights' own scores of t, so that its scores are 1e10 times past the overflow whatever
the rounding, and the scaled row is checked to be finite.  Every registered algorithm is
built so, except those whose scores a finite row cannot take that far: the scale-free
learners (ROMMA, aROMMA, naROMMA, MCP, CMCP, MC-ROMMA and its kernel form predict with
w/‖w‖: a score is at most ‖x‖), the multiplicative family (weights on the simplex: at most
max |x_j|) and CELLIP (its centres stay in its bounded first ellipsoid).  The learners whose weights
are bounded by their hyperparameters are given ones that let the weights grow (a cap C of
1e300, a margin β of 1e300, an initial variance a of 1e300, a rate of 1e300).
"""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from model_state import model_vars
from onlinear.rules.layout import SCALE

BIG = np.finfo(np.float64).max

#: the scale-free learners, the multiplicative family and CELLIP (module doc)
NOT_APPLICABLE = {"romma", "aromma", "naromma", "mcp", "cmcp", "mc-romma", "kernel-mc-romma",
                  "multiplicative", "winnow", "cellip"}
#: hyperparameters that let the weights grow past what a finite row can be scored against
GROWING = {**dict.fromkeys(["mira", "binary-mira", "kernel-mira"], {"beta": 1e300}),
           **dict.fromkeys(["pa1", "pa2", "spa1", "spa2", "kernel-pa1", "kernel-pa2",
                            "kernel-spa1", "kernel-spa2", "conproj", "simproj", "simopt",
                            "maxpa", "optimal", "sopopo"], {"C": 1e300}),
           **dict.fromkeys(["cw", "arow", "scw1", "scw2", "nherd"], {"a": 1e300}),
           "adagrad": {"eta": 1e300}, "adagrad-rda": {"eta": 1e300}, "ftrl": {"alpha": 1e300}}
#: the scale of the rows learned from: 1e150 (the weights grow with the rows), 1e-150 (they
#: grow as the rows shrink, or as C times the rows) or 1 (the adaptive learners' η or α)
SMALL_ROWS = {"pa", "spa", "kernel-pa", "kernel-spa", "iellip", "cw", "arow", "scw1", "scw2",
              "nherd", "pa1", "pa2", "spa1", "spa2", "kernel-pa1", "kernel-pa2",
              "kernel-spa1", "kernel-spa2", "conproj", "simproj", "simopt", "maxpa",
              "optimal", "sopopo"}
UNIT_ROWS = {"adagrad", "adagrad-rda", "ftrl"}

CASES = [(name, {}, None) for name in onlinear.available(kernel=None)
         if name not in NOT_APPLICABLE]
# other forms of the same models: averaged, with an intercept, the logistic loss, the other
# tasks of the simultaneous projections
CASES += [("perceptron-uniform", {"average": True}, None),
          ("perceptron-uniform", {"fit_intercept": True}, None),
          ("pa", {"average": True}, None), ("arow", {"average": True}, None),
          ("adagrad", {"average": True}, None), ("adagrad-rda", {"average": True}, None),
          ("adagrad", {"loss": "log"}, None), ("adagrad", {"l1": 1e-3}, None),
          ("simperc", {}, "multilabel"), ("simperc", {}, "ordinal"), ("simperc", {}, "blocks")]


def _case_id(case):
    name, params, task = case
    return " ".join([name, *(f"{key}={value}" for key, value in params.items()),
                     *([f"task={task}"] if task else [])])


def _fitted(name, params, task):
    """The model learned from rows of its scale, its labels, and unit rows to predict."""
    rng = np.random.default_rng(0)
    X, T = rng.normal(size=(120, 6)), rng.normal(size=(4, 6))
    algorithm = onlinear.describe(name)
    labels = rng.integers(0, 2 if algorithm.task == "binary" or task == "blocks" else 3, 120)
    if task == "multilabel":
        labels = [[int(k)] + ([int(k + 1) % 3] if i % 2 else []) for i, k in enumerate(labels)]
    params = {**GROWING.get(name, {}), **params}
    if algorithm.kernel:
        params["kernel"] = "linear"
    scale = 1e-150 if name in SMALL_ROWS else 1.0 if name in UNIT_ROWS else 1e150
    model = onlinear.make(name, task=task, **params).fit(X * scale, labels)
    return model, labels, T


def _overflowing(model, T):
    """The rows c·t whose scores are 1e10 times past float64's largest (module doc)."""
    if hasattr(model, "dual_coef_"):  # (the linear kernel: the scores are Σ α_i x_i·t)
        unit = model.decision_function(T)
    else:  # (the weights of the features, without an intercept's)
        unit = T @ model.model_.coefficients()[:T.shape[1]]
    unit = np.abs(np.reshape(unit, (T.shape[0], -1))).max(axis=1)
    rows = T * (BIG / unit * 1e10)[:, None]
    assert np.isfinite(rows).all()
    return rows


def _snapshot(model):
    return {key: (value.copy() if isinstance(value, np.ndarray) else value)
            for key, value in model_vars(model).items()}


def _assert_same(model, snapshot):
    now = model_vars(model)
    assert set(now) == set(snapshot)
    for key, value in snapshot.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(now[key], value, err_msg=key)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_a_row_whose_scores_overflow_is_refused_by_every_prediction(case):
    model, labels, T = _fitted(*case)
    big = _overflowing(model, T)
    mixed = np.vstack([T[:2], big])  # (two rows the model scores, then the overflowing ones)
    for form in (mixed, sp.csr_matrix(mixed)):
        calls = [model.decision_function, model.predict,
                 lambda rows: model.score(rows, labels[:rows.shape[0]])]
        if hasattr(model, "predict_proba"):
            calls += [model.predict_proba, model.predict_log_proba]
        for call in calls:
            with pytest.raises(ValueError, match="row 2's scores are not numbers"):
                call(form)
    for kind in (np.asarray, sp.csr_matrix):
        model.predict_one(kind(T[:1]) if kind is sp.csr_matrix else T[0])  # (a kept context)
        for row in big:
            with pytest.raises(ValueError, match="row 0's scores are not numbers"):
                model.predict_one(sp.csr_matrix(row[None]) if kind is sp.csr_matrix else row)
        if hasattr(model, "predict_proba_one"):
            with pytest.raises(ValueError, match="row 0's scores are not numbers"):
                model.predict_proba_one(big[0])
    # learning refuses such a row — by its norm, or by its scores (the adaptive learners' rows
    # of scale 1e18 have an accepted norm) — and the refusal changes nothing
    snapshot = _snapshot(model)
    learning = [lambda: model.learn_one(big[0], labels[0]),
                lambda: model.learn_one(sp.csr_matrix(big[:1]), labels[0]),
                lambda: model.partial_fit(big, labels[:big.shape[0]]),
                lambda: model.partial_fit(sp.csr_matrix(big), labels[:big.shape[0]])]
    if case[2] != "blocks":
        learning.append(lambda: model.learn_many(big, labels[:big.shape[0]]))
    for learn in learning:
        with pytest.raises(ValueError, match="norm|score is not finite"):
            learn()
        _assert_same(model, snapshot)
    assert model.predict(T).shape[0] == T.shape[0]  # (the unit rows are still predicted)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_fast_path_gives_scores_that_are_not_finite_to_the_general_path(sparse):
    """The fast path's compiled prediction takes rows of an accepted norm only (the rows above
    go to the general path), whose scores against weights of a finite norm stay finite;
    weights whose norm overflows (which ``fit`` refuses, but per-example rounds are not
    checked for: a copy of the model per call) can score such a row beyond float64.  Such
    weights are made by a lazy scale set within the engine's range, in place (the compiled
    calls read it): the fast path gives the row to the general path, which names it, rather
    than predict a class from infinite scores."""
    rng = np.random.default_rng(1)
    X, y, T = rng.normal(size=(60, 5)), rng.integers(0, 3, 60), rng.normal(size=(2, 5))
    model = onlinear.make("pa").fit(X * 1e-150, y)  # (weights of norm about 1e150)
    form = sp.csr_matrix if sparse else (lambda rows: rows[0])
    model.predict_one(form(T[1:]))
    fast = model.__dict__.get("_fast")
    assert fast is not None and fast.dense is not sparse
    model.model_.state[SCALE] *= 1e99
    row = _overflowing(model, T[:1])
    assert np.linalg.norm(row) < 2.0 ** 505  # (a norm the fast path takes)
    assert fast.predict(form(row)) is None  # (it predicted a class)
    with pytest.raises(ValueError, match="row 0's scores are not numbers"):
        model.predict_one(form(row))
    model.model_.state[SCALE] /= 1e99
    assert model.predict_one(form(row)) == model.predict(row)[0]


@pytest.mark.parametrize("sparse", [False, True])
def test_float32_rows_that_float32_weights_overflow_on_are_scored_in_float64(sparse):
    """float32 rows times float32 weights are summed in float32, whose range ends at 3.4e38:
    such rows are scored in float64, as ``predict_one`` and float64 rows score them (they
    were ±inf, and predicted classes of their own), not refused as overflowing float64."""
    rng = np.random.default_rng(2)
    X = (rng.normal(size=(200, 10)) * 1e8).astype(np.float32)
    y = rng.integers(0, 3, 200)
    model = onlinear.make("perceptron-uniform", dtype="float32").fit(X, y)
    assert model.model_.weights.dtype == np.float32
    T = (rng.normal(size=(5, 10)) * 1e30).astype(np.float32)
    exact = T.astype(np.float64)
    assert np.isfinite(model.decision_function(exact)).all()
    rows, exact = (sp.csr_matrix(T), sp.csr_matrix(exact)) if sparse else (T, exact)
    np.testing.assert_array_equal(model.decision_function(rows), model.decision_function(exact))
    np.testing.assert_array_equal(model.predict(rows), model.predict(exact))
    one = [model.predict_one(rows[i:i + 1] if sparse else rows[i]) for i in range(5)]
    np.testing.assert_array_equal(one, model.predict(exact))


@pytest.mark.parametrize("case", [case for case in CASES if not case[0].startswith("kernel")
                                  and not case[1] and case[0] not in UNIT_ROWS], ids=_case_id)
def test_a_batch_refused_for_overflowed_scores_warns_nothing_before(case):
    """The batch's scores overflow in numpy's product: its own warnings ("overflow encountered
    in matmul") came before the refusal that names the row; the refusal alone remains."""
    import warnings

    model, _, T = _fitted(*case)
    rows = _overflowing(model, T)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match="row 0's scores are not numbers"):
            model.decision_function(rows)
