"""The confidence-weighted estimators (CW, AROW, SCW-I/II, NHERD) against the plain-numpy
transcription of their rounds (``second_order_reference``), in every covariance layout, dense
and CSR, through every entry point; and what they share with the other learners: growing
classes and features, saving, the layout rule.

The compiled rules themselves are tested against generic solvers and their KKT conditions in
``test_confidence_core.py``; here the estimators' wiring is: labels, the binary learner, the
layouts' shapes, the intercept, the counters."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import norm

import onlinear
import second_order_reference as ref
from onlinear import AROW, ConfidenceWeighted, NormalHerd, SoftConfidenceWeighted

# (estimator, its reference rule, the reference's parameters)
PHI = float(norm.ppf(0.8))
LEARNERS = {
    "cw-std": (lambda **kw: ConfidenceWeighted(eta=0.8, **kw), "cw-std", {"phi": PHI}),
    "cw-var": (lambda **kw: ConfidenceWeighted(eta=0.8, form="variance", **kw), "cw-var",
               {"phi": PHI}),
    "arow": (lambda **kw: AROW(r=0.7, **kw), "arow", {"r": 0.7}),
    "scw1": (lambda **kw: SoftConfidenceWeighted(C=0.3, eta=0.8, **kw), "scw1",
             {"phi": PHI, "C": 0.3}),
    "scw2": (lambda **kw: SoftConfidenceWeighted(C=0.3, eta=0.8, variant="II", **kw), "scw2",
             {"phi": PHI, "C": 0.3}),
    "nherd": (lambda **kw: NormalHerd(C=0.4, **kw), "nherd", {"C": 0.4}),
}


def _data(n=120, d=5, k=3, seed=0):
    """Noisy, overlapping classes (many updating rounds, some mistakes, no exact ties after
    the first round: continuous features)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 1.0, (k, d))
    y = rng.integers(0, k, n)
    X = centres[y] + rng.normal(0.0, 1.2, (n, d))
    X[rng.random((n, d)) < 0.2] = 0.0  # (sparse rows: the CSR path skips the zeros)
    return X, y


def _reference(rule, params, layout, X, y, k, diagonal="project", a=1.0):
    """Final (μ class-major, Σ) and the mistakes of the numpy transcription."""
    d = X.shape[1]
    if k == 2:
        name = "binary-diagonal" if layout == "diagonal" else "binary-full"
        state = ref.initial_state(name, d, a=a)
        labels = 2 * y - 1
        extra = {"diagonal": diagonal} if layout == "diagonal" else {}
    else:
        name = layout
        state = ref.initial_state(layout, d, K=k, a=a)
        labels = y
        extra = {} if layout == "shared" else {"diagonal": diagonal}
    state, predictions, _ = ref.run(zip(X, labels), name, state, rule=rule, **params, **extra)
    return state, int(np.sum(predictions != labels))


def _ours_as_reference(model, layout, k):
    mean, covariance = model.coef_.copy(), model.covariance_
    if k == 2:
        return mean[0], (covariance[:, 0] if layout == "diagonal" else covariance[0])
    if layout == "diagonal":
        return mean, covariance.T
    if layout == "shared":
        return mean, covariance[0]
    return mean, covariance


# (the shared layout of the rules that have one: the others are refused, see
# test_a_layout_without_a_form_is_refused)
LAYOUTS = [(name, layout) for name in sorted(LEARNERS) for layout in ("diagonal", "per-class")]
LAYOUTS += [(name, "shared") for name in sorted(LEARNERS) if LEARNERS[name][1] in ref.SHARED_RULES]


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("name, layout", LAYOUTS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_fit_is_the_reference_round_by_round(name, layout, k, sparse):
    make, rule, params = LEARNERS[name]
    X, y = _data(k=k, seed=k)
    model = make(matrix=layout)
    model.fit(sp.csr_matrix(X) if sparse else X, y)
    expected, mistakes = _reference(rule, params, layout, X, y, k)
    mean, covariance = _ours_as_reference(model, layout, k)
    np.testing.assert_allclose(mean, expected[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(covariance, expected[1], rtol=1e-9, atol=1e-12)
    assert model.n_seen_ == X.shape[0]
    assert 0 < model.n_updates_ <= X.shape[0]
    if k > 2:  # (binary ties at a zero score: ours predicts classes_[0], LIBOL's +1)
        assert model.n_mistakes_ == mistakes


@pytest.mark.parametrize("name", sorted(LEARNERS))
@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_every_entry_point_plays_the_same_rounds(name, layout):
    """fit = partial_fit in chunks = learn_one row by row = learn_many = a CSR fit."""
    make = LEARNERS[name][0]
    X, y = _data(seed=3)
    whole = make(matrix=layout).fit(X, y)
    chunks = make(matrix=layout)
    for start in range(0, X.shape[0], 17):
        chunks.partial_fit(X[start:start + 17], y[start:start + 17], classes=[0, 1, 2])
    ones = make(matrix=layout)
    predicted = [ones.learn_one(x, label, classes=[0, 1, 2]) for x, label in zip(X, y)]
    many = make(matrix=layout)
    batch = many.learn_many(X, y, classes=[0, 1, 2])
    csr = make(matrix=layout).fit(sp.csr_matrix(X), y)
    for other in (chunks, ones, many, csr):
        np.testing.assert_allclose(other.coef_, whole.coef_, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(other.covariance_, whole.covariance_, rtol=1e-12,
                                   atol=1e-14)
        assert (other.n_seen_, other.n_mistakes_, other.n_updates_) == (
            whole.n_seen_, whole.n_mistakes_, whole.n_updates_)
    assert np.array_equal(predicted, batch)
    assert sum(p != label for p, label in zip(predicted, y)) == whole.n_mistakes_


def test_the_layout_rule_and_the_arrays_it_gives():
    """``matrix="auto"``: a full matrix per class up to 512 features, diagonals beyond."""
    rng = np.random.default_rng(1)
    narrow = AROW().fit(rng.normal(size=(20, 512)), np.arange(20) % 3)
    wide = AROW().fit(rng.normal(size=(20, 513)), np.arange(20) % 3)
    assert narrow.model_.config["layout"] == "per-class"
    assert narrow.covariance_.shape == (3, 512, 512)
    assert wide.model_.config["layout"] == "diagonal"
    assert wide.covariance_.shape == (513, 3)
    binary = AROW(matrix="shared").fit(rng.normal(size=(20, 4)), np.arange(20) % 2)
    assert binary.coef_.shape == (1, 4) and binary.covariance_.shape == (1, 4, 4)


def test_a_layout_without_a_form_is_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="matrix='shared'"):
        ConfidenceWeighted(form="variance", matrix="shared").fit(X, y)
    with pytest.raises(ValueError, match="libol_compat"):
        AROW(libol_compat=True, matrix="diagonal").fit(X, y)
    with pytest.raises(ValueError, match="matrix"):
        NormalHerd(matrix="shared").fit(X, y)


def test_libol_compat_reproduces_libol_shared_code():
    """With a shared Σ, libol_compat=True plays LIBOL's M_AROW (the reference's
    ``libol_shared_arow_step``); the exact rule differs from it on the same stream."""
    X, y = _data(seed=5)
    libol = AROW(r=0.7, matrix="shared", libol_compat=True).fit(X, y)
    exact = AROW(r=0.7, matrix="shared").fit(X, y)
    state = ref.initial_state("shared", X.shape[1], K=3)
    state, _, _ = ref.run(zip(X, y), "shared", state, rule="arow", r=0.7, libol_compat=True)
    np.testing.assert_allclose(libol.coef_, state[0], rtol=1e-9, atol=1e-12)
    assert not np.allclose(exact.coef_, libol.coef_, rtol=1e-3)


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_grown_features_are_a_model_started_wide(layout):
    """CSR rows that reach new features: the grown model equals one started that wide (μ = 0,
    variance a for the new features), to the last bit."""
    X, y = _data(d=6, seed=7)
    X[:60, 4:] = 0.0
    wide = SoftConfidenceWeighted(matrix=layout, a=0.5).partial_fit(
        sp.csr_matrix(X[:60]), y[:60], classes=[0, 1, 2])
    narrow = SoftConfidenceWeighted(matrix=layout, a=0.5).partial_fit(
        sp.csr_matrix(X[:60, :4]), y[:60], classes=[0, 1, 2])
    narrow.grow_features(6)
    np.testing.assert_array_equal(narrow.covariance_, wide.covariance_)
    wide.partial_fit(sp.csr_matrix(X[60:]), y[60:])
    narrow.partial_fit(sp.csr_matrix(X[60:]), y[60:])
    np.testing.assert_array_equal(narrow.coef_, wide.coef_)
    np.testing.assert_array_equal(narrow.covariance_, wide.covariance_)


@pytest.mark.parametrize("layout", ["diagonal", "per-class", "shared"])
def test_a_new_class_starts_from_the_prior_and_the_old_ones_keep_theirs(layout):
    X, y = _data(seed=8)
    model = AROW(matrix=layout, a=2.0).partial_fit(X, y, classes=[0, 1, 2])
    before_mean, before_cov = model.coef_.copy(), model.covariance_
    model.add_classes([7])
    assert model.classes_.tolist() == [0, 1, 2, 7]
    np.testing.assert_array_equal(model.coef_[:3], before_mean)
    assert not model.coef_[3].any()
    cov = model.covariance_
    if layout == "diagonal":
        np.testing.assert_array_equal(cov[:, :3], before_cov)
        assert np.all(cov[:, 3] == 2.0)
    elif layout == "per-class":
        np.testing.assert_array_equal(cov[:3], before_cov)
        np.testing.assert_array_equal(cov[3], 2.0 * np.eye(X.shape[1]))
    else:
        np.testing.assert_array_equal(cov, before_cov)
    model.partial_fit(X[:5], np.array([7, 0, 1, 7, 2]))
    assert model.n_seen_ == X.shape[0] + 5


def test_the_binary_learner_cannot_grow_a_class():
    X, y = _data(k=2)
    model = AROW().fit(X, y)
    with pytest.raises(ValueError, match="two classes with one Gaussian"):
        model.add_classes([5])
    assert model.classes_.tolist() == [0, 1]


@pytest.mark.parametrize("layout", ["diagonal", "per-class", "shared"])
def test_saved_and_loaded_it_goes_on_bit_for_bit(tmp_path, layout):
    X, y = _data(seed=9)
    model = ConfidenceWeighted(matrix=layout, fit_intercept=True).fit(X[:80], y[:80])
    onlinear.save(model, tmp_path / "cw.onlinear")
    loaded = onlinear.load(tmp_path / "cw.onlinear")
    model.partial_fit(X[80:], y[80:])
    loaded.partial_fit(X[80:], y[80:])
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    np.testing.assert_array_equal(loaded.covariance_, model.covariance_)
    np.testing.assert_array_equal(loaded.intercept_, model.intercept_)
    assert loaded.n_mistakes_ == model.n_mistakes_


@pytest.mark.parametrize("layout", ["diagonal", "per-class"])
def test_a_pickle_whose_covariance_is_not_positive_definite_is_refused(layout):
    """A tampered covariance never reaches the engine: unpickling checks the invariants."""
    X, y = _data(seed=10)
    model = AROW(matrix=layout).fit(X, y)
    good = pickle.dumps(model)
    for tamper in ("negative", "above the prior"):
        bad = pickle.loads(good)
        covariance = bad.model_.covariance
        if layout == "diagonal":
            covariance[0, 0] = -1.0 if tamper == "negative" else 7.0  # (a = 1)
        else:
            covariance[0] = -covariance[0] if tamper == "negative" else 7.0 * np.eye(
                covariance.shape[1])
        with pytest.raises(ValueError, match="_covariance"):
            pickle.loads(pickle.dumps(bad))
    again = pickle.loads(good)
    np.testing.assert_array_equal(again.coef_, AROW(matrix=layout).fit(X, y).coef_)


def test_the_registry_makes_them():
    for name, cls in (("cw", ConfidenceWeighted), ("arow", AROW),
                      ("scw1", SoftConfidenceWeighted), ("scw2", SoftConfidenceWeighted),
                      ("nherd", NormalHerd)):
        assert type(onlinear.make(name)) is cls
    assert onlinear.make("scw2").variant == "II"


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_learn_one_takes_the_compiled_round_and_follows_every_change_of_the_model(sparse):
    """On a started model, learn_one runs the model's compiled round (its per-example context
    kept); a new hyperparameter, grown classes and a failed call's restore reach it, so that
    the rounds equal partial_fit's on the same rows, row by row."""
    X, y = _data(d=6, seed=11)
    rows = sp.csr_matrix(X) if sparse else X
    ones, chunks = AROW(matrix="diagonal"), AROW(matrix="diagonal")
    ones.learn_one(rows[0] if sparse else X[0], y[0], classes=[0, 1, 2])
    chunks.partial_fit(rows[:1], y[:1], classes=[0, 1, 2])

    def both(start, stop):
        for i in range(start, stop):
            ones.learn_one(rows[i] if sparse else X[i], y[i])
        chunks.partial_fit(rows[start:stop], y[start:stop])

    both(1, 40)
    assert "_fast" in vars(ones)
    ones.set_params(r=0.05)
    chunks.set_params(r=0.05)
    both(40, 70)
    ones.add_classes([3])
    chunks.add_classes([3])
    both(70, 100)
    with pytest.raises(ValueError):
        ones.partial_fit(np.full((2, 6), np.nan), [0, 1])
    both(100, X.shape[0])
    np.testing.assert_array_equal(ones.coef_, chunks.coef_)
    np.testing.assert_array_equal(ones.covariance_, chunks.covariance_)
    assert (ones.n_seen_, ones.n_mistakes_, ones.n_updates_) == (
        chunks.n_seen_, chunks.n_mistakes_, chunks.n_updates_)


def test_the_prior_variance_is_the_models_from_its_start():
    """a is the variance every Σ starts from and bounds it (Σ ⪯ a·I, the invariant a loaded
    model is checked against): a new a set on a started model applies from the next fit, as
    dtype and average do; partial_fit, a grown class and a saved file keep the model's."""
    X, y = _data(seed=13)
    model = AROW(matrix="diagonal").fit(X, y)
    model.set_params(a=2.0)
    model.partial_fit(X[:5], y[:5])
    model.add_classes([9])
    assert model.model_.prior[0] == 1.0 and np.all(model.covariance_[:, -1] == 1.0)
    again = pickle.loads(pickle.dumps(model))  # (checked against the model's own prior)
    np.testing.assert_array_equal(again.covariance_, model.covariance_)
    model.fit(X, y)  # restarts with the new prior
    assert model.model_.prior[0] == 2.0 and model.covariance_.max() <= 2.0


def test_full_cw_counts_the_held_steps_of_its_collapse_and_skips_none():
    """The exact CW's full Σ on contradictory repeated rows (test_confidence_core's prototype
    stream) collapses below what float64 resolves: the estimator reports the held steps in
    ``n_variance_repairs_``, skips no round, and its covariance stays positive definite (a
    saved and loaded copy passes the model's checks)."""
    from test_confidence_core import prototype_stream
    _, _, X, y = prototype_stream(7, 5, 3)
    model = ConfidenceWeighted(matrix="per-class").fit(X, y)
    assert model.n_variance_repairs_ > 0 and model.model_.repairs[1] == 0
    assert all(np.linalg.eigvalsh(S)[0] > 0.0 for S in model.covariance_)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.covariance_, model.covariance_)


def _symmetric(matrices):
    return all(np.array_equal(S, S.T) for S in matrices)


@pytest.mark.parametrize("name", ["arow", "scw1"])
def test_learn_one_on_full_matrices_leaves_them_symmetric_wherever_they_are_read(name):
    """learn_one's held round leaves the lower triangles of the per-class matrices behind
    between calls (copied when the model's covariance is next read, or the round dropped):
    covariance_, a pickle, a grown class and a rebound array all see the symmetric matrices
    of partial_fit's rounds, bit for bit."""
    X, y = _data(d=6, seed=12)
    ones = onlinear.make(name, matrix="per-class")
    chunks = onlinear.make(name, matrix="per-class")
    for model in (ones, chunks):  # (started by partial_fit: the held round comes after)
        model.partial_fit(X[:1], y[:1], classes=[0, 1, 2])

    def both(start, stop):
        chunks.partial_fit(X[start:stop], y[start:stop])
        for x, label in zip(X[start:stop], y[start:stop]):
            ones.learn_one(x, label)

    both(1, 40)
    assert "_fast" in vars(ones)
    held = vars(ones.model_)["covariance"]  # (the array as the round leaves it)
    assert not _symmetric(held)  # (the copy deferred: this test reads it the ways it can)
    again = pickle.loads(pickle.dumps(ones))
    for model in (again, ones):
        np.testing.assert_array_equal(model.covariance_, chunks.covariance_)
        assert _symmetric(model.covariance_)
    both(40, 70)
    ones.add_classes([3])
    chunks.add_classes([3])
    both(70, X.shape[0])
    held = vars(ones.model_)["covariance"]
    assert not _symmetric(held)
    ones.model_.mean = ones.model_.mean  # (a rebound array drops the round: it copies first)
    assert _symmetric(held)
    np.testing.assert_array_equal(held, chunks.covariance_)
    np.testing.assert_array_equal(ones.coef_, chunks.coef_)


@pytest.mark.parametrize("name, started, asked", [
    ("arow", "per-class", "diagonal"), ("arow", "diagonal", "per-class"),
    ("arow", "shared", "per-class"), ("scw1", "per-class", "diagonal"),
    ("narow", "per-class", "diagonal"), ("narow", "diagonal", "per-class")])
def test_matrix_set_after_the_start_is_refused_as_average_is(name, started, asked):
    """``set_params(matrix=...)`` on a started model reconfigured its engine for a layout its
    Σ was not in: partial_fit failed with the engine's "covariance has shape ..." and a saved
    file was refused on load.  The model keeps its layout until fit, like ``average``, and
    each call names the change; "auto" keeps whatever it chose at the start."""
    X, y = _data()
    model = onlinear.make(name, matrix=started).fit(X, y)
    before = model.predict(X)
    model.set_params(matrix=asked)
    message = f"matrix='{asked}' was set after the model started with matrix='{started}'"
    for call in (lambda: model.partial_fit(X, y), lambda: model.predict(X),
                 lambda: model.learn_one(X[0], y[0]), lambda: model.coef_):
        with pytest.raises(ValueError, match=message):
            call()
    model.set_params(matrix="auto" if started != "shared" else "shared")
    np.testing.assert_array_equal(model.predict(X), before)
    model.partial_fit(X, y)
    model.set_params(matrix=asked).fit(X, y)  # (fit restarts in the layout asked)
    assert model.model_.layout_held() == asked


def test_a_round_that_overflows_is_worded_for_the_estimator_user():
    """CW's exact step on data it cannot separate drives its variances towards 0 and its step
    past float64: fit said "the rounds before it were taken; ... rescale the input", though
    fit had undone everything and the input's scale was not the cause.  The message now says
    the model is as it was and names CW's own cause and its remedies, which work."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 5)), rng.integers(0, 3, 200)
    model = ConfidenceWeighted(eta=0.95, matrix="diagonal")
    with pytest.raises(ValueError, match=r"ConfidenceWeighted: at row \d+ of X.*the model is "
                       r"as it was.*set min_variance") as raised:
        model.fit(X, y)
    assert "rounds before it were taken" not in str(raised.value)
    assert not hasattr(model, "classes_")
    ConfidenceWeighted(eta=0.95, matrix="diagonal", min_variance=1e-8).fit(X, y)
