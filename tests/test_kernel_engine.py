"""The kernel (dual) learners: the linear kernel against the primal learners round by round, the
polynomial and Gaussian kernels against a pure-Python dual reference (exact coefficients, no lazy
scale, exact norms), averaging, merging of repeated examples, callable kernels, parameters."""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from onlinear.rules.dispatch import compute_steps
from onlinear.rules.layout import RAW_SQNORM, SCALE

KERNEL_NAMES = onlinear.available(kernel=True)
PRIMAL = {name: name[len("kernel-"):] for name in KERNEL_NAMES}


def _stream(n=160, d=6, k=4, seed=0):
    """A noisy linear multiclass stream (non-separable, so rules keep updating)."""
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((k, d))
    X = rng.standard_normal((n, d))
    y = np.argmax(X @ M.T + 0.8 * rng.standard_normal((n, k)), axis=1)
    return X, y


def test_every_additive_learner_has_a_kernel_form():
    expected = {"ovr-perceptron", "perceptron-uniform", "perceptron-max", "perceptron-prop",
                "kesler", "mira", "pa", "pa1", "pa2", "spa", "spa1", "spa2", "mc-romma"}
    assert set(PRIMAL.values()) == expected
    assert all(name.startswith("kernel-") for name in KERNEL_NAMES)
    assert not set(KERNEL_NAMES) & set(onlinear.available())  # not run by default
    assert onlinear.available(kernel=None) == onlinear.available() + KERNEL_NAMES


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_linear_kernel_equals_the_primal_learner_round_by_round(name):
    X, y = _stream()
    classes = np.unique(y)
    dual = onlinear.make(name, kernel="linear")
    primal = onlinear.make(PRIMAL[name])
    for x, label in zip(X, y):
        assert dual.learn_one(x, label, classes) == primal.learn_one(x, label, classes)
        np.testing.assert_allclose(dual.decision_function(x[None]),
                                   primal.decision_function(x[None]), rtol=1e-9, atol=1e-9)
    assert (dual.n_mistakes_, dual.n_updates_) == (primal.n_mistakes_, primal.n_updates_)
    assert dual.n_updates_ > 10
    # the stored expansion is the primal weight matrix
    W = dual.dual_coef_.T @ dual.support_vectors_
    if primal.coef_.shape[0] == 1:
        W = W[1:] - W[:1] if W.shape[0] == 2 else W
    np.testing.assert_allclose(W, primal.coef_, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["kernel-mira", "kernel-ovr-perceptron", "kernel-mc-romma"])
def test_linear_kernel_fit_several_epochs_and_sparse_input_equal_the_primal(name):
    X, y = _stream(n=120)
    dual = onlinear.make(name, kernel="linear", n_epochs=3, shuffle=True, random_state=1)
    primal = onlinear.make(PRIMAL[name], n_epochs=3, shuffle=True, random_state=1)
    dual.fit(sp.csr_matrix(X), y)
    primal.fit(X, y)
    np.testing.assert_array_equal(dual.predict(X), primal.predict(X))
    np.testing.assert_allclose(dual.decision_function(X), primal.decision_function(X),
                               rtol=1e-8, atol=1e-8)
    assert dual.n_updates_ == primal.n_updates_


# ------------------------------------------------------------------ pure-Python dual reference
def _kernel(kind, a, b, gamma=0.5, coef0=1.0, degree=3):
    if kind == "poly":
        return (gamma * float(a @ b) + coef0) ** degree
    return float(np.exp(-gamma * float((a - b) @ (a - b))))


def _reference(name, kind, X, y, k, **kernel):
    """The dual learner written plainly: true coefficients, rescaling applied to every stored
    coefficient, ‖w_r‖² from the Gram matrix each round; returns per-round predictions, the
    final coefficients (per round of first appearance) and the averaged ones."""
    model = onlinear.make(PRIMAL[name])
    model._start(np.arange(k), X.shape[1])
    rule, params, state = model._rule, model.model_.config["params"], model.model_.state
    m = state.shape[1]
    support, coefs, total = [], [], []
    predictions = []
    for x, label in zip(X, y):
        krow = np.array([_kernel(kind, s, x, **kernel) for s in support])
        C = np.array(coefs).reshape(len(support), m)
        scores = krow @ C if support else np.zeros(m)
        predictions.append(int(np.argmax(scores)) if m > 1 else int(scores[0] > 0))
        q = _kernel(kind, x, x, **kernel)
        G = np.array([[_kernel(kind, a, b, **kernel) for b in support] for a in support])
        state[SCALE] = 1.0
        state[RAW_SQNORM] = np.einsum("ir,ij,jr->r", C, G, C) if support else 0.0
        tau, factor = np.zeros(m), np.ones(m)
        compute_steps(int(rule), scores, label, q, params, state, tau, factor)
        for c in coefs:
            c *= factor
        if np.any(tau != 0):
            support.append(x)
            coefs.append(tau.copy())
            total.append(np.zeros(m))
        for t, c in zip(total, coefs):
            t += c
    n = len(X)
    return (np.array(predictions), np.array(coefs).reshape(-1, m),
            np.array(total).reshape(-1, m) / n)


@pytest.mark.parametrize("kind", ["poly", "rbf"])
@pytest.mark.parametrize("name", ["kernel-ovr-perceptron", "kernel-perceptron-prop",
                                  "kernel-kesler", "kernel-mira", "kernel-pa1", "kernel-spa2",
                                  "kernel-mc-romma"])
def test_polynomial_and_gaussian_kernels_equal_a_pure_python_dual_reference(name, kind):
    X, y = _stream(n=90, d=4, k=3, seed=2)
    X = X / 2.0
    expected, coefs, averaged = _reference(name, kind, X, y, 3)
    model = onlinear.make(name, kernel=kind, gamma=0.5, coef0=1.0, degree=3)
    predictions = [model.learn_one(x, label, classes=np.arange(3)) for x, label in zip(X, y)]
    np.testing.assert_array_equal(predictions, expected)
    assert model.n_support_patterns_ == model.n_updates_ == coefs.shape[0] > 5
    np.testing.assert_allclose(model.dual_coef_, coefs, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(model.average_dual_coef_, averaged, rtol=1e-7, atol=1e-10)


def test_mc_romma_norm_is_kept_in_the_dual():
    X, y = _stream(n=200, d=5, k=3, seed=3)
    model = onlinear.make("kernel-mc-romma", kernel="rbf", gamma=0.3).fit(X, y)
    C, S = model.dual_coef_, model.support_vectors_
    G = np.exp(-0.3 * ((S[:, None] - S[None]) ** 2).sum(-1))
    true = np.einsum("ir,ij,jr->", C, G, C)  # ‖M‖² of the stored (unit) direction
    np.testing.assert_allclose(true, 1.0, rtol=1e-8)
    state = model.model_.state
    tracked = (state[SCALE] ** 2 * state[RAW_SQNORM]).sum()
    np.testing.assert_allclose(tracked, true, rtol=1e-8)


# ------------------------------------------------------------------ averaging, merging, counts
def test_average_predicts_with_the_average_of_the_hypotheses():
    X, y = _stream(n=150, seed=4)
    model = onlinear.make("kernel-mira", kernel="rbf", gamma=0.2, average=True).fit(X, y)
    final = onlinear.make("kernel-mira", kernel="rbf", gamma=0.2).fit(X, y)
    np.testing.assert_allclose(model.dual_coef_, final.dual_coef_)
    K = np.exp(-0.2 * ((X[:, None] - model.support_vectors_[None]) ** 2).sum(-1))
    np.testing.assert_allclose(model.decision_function(X), K @ model.average_dual_coef_)
    assert not np.allclose(model.average_dual_coef_, model.dual_coef_)


def test_repeated_examples_are_merged_into_one_support_pattern():
    X, y = _stream(n=100, seed=5)
    merged = onlinear.make("kernel-ovr-perceptron", kernel="poly", degree=2, gamma=1.0,
                           n_epochs=3).fit(X, y)
    streamed = onlinear.make("kernel-ovr-perceptron", kernel="poly", degree=2, gamma=1.0)
    for _ in range(3):
        streamed.partial_fit(X, y, classes=np.unique(y))  # separate batches: not merged
    assert merged.n_updates_ == streamed.n_updates_ == streamed.n_support_patterns_
    assert merged.n_support_patterns_ < merged.n_updates_
    assert merged.n_support_patterns_ == len(np.unique(merged.support_vectors_, axis=0))
    np.testing.assert_allclose(merged.decision_function(X), streamed.decision_function(X),
                               rtol=1e-9, atol=1e-9)


def test_callable_kernel_gives_the_built_in_results():
    X, y = _stream(n=80, seed=6)

    def rbf(A, B):
        return np.exp(-0.4 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))

    built_in = onlinear.make("kernel-spa1", kernel="rbf", gamma=0.4).fit(X, y)
    custom = onlinear.make("kernel-spa1", kernel=rbf).fit(X, y)
    assert custom.n_updates_ == built_in.n_updates_
    np.testing.assert_allclose(custom.dual_coef_, built_in.dual_coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(custom.decision_function(X), built_in.decision_function(X),
                               rtol=1e-9, atol=1e-12)
    assert custom.predict_one(X[0]) == built_in.predict_one(X[0])


def test_zero_vector_under_a_homogeneous_kernel_is_not_a_support_pattern():
    X, y = _stream(n=40, seed=7)
    X[::5] = 0.0
    model = onlinear.make("kernel-mira", kernel="poly", degree=2, gamma=1.0, coef0=0.0)
    model.fit(X, y)
    assert model.n_support_patterns_ > 0
    assert not np.any(np.all(model.support_vectors_ == 0.0, axis=1))
    # under the Gaussian K(0, 0) = 1: the zero vector is a pattern like any other
    model = onlinear.make("kernel-ovr-perceptron", kernel="rbf", gamma=1.0).fit(X, y)
    assert np.any(np.all(model.support_vectors_ == 0.0, axis=1))


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_gamma_scale_is_the_training_sets_and_a_stream_gives_a_number(kernel):
    """gamma="scale" comes from the data of fit (or stream); partial_fit, learn_one and learn_many
    starting a model refuse it (their first chunk is not the training set) and change nothing;
    with the number scale_gamma gives, a stream cut in any chunks learns what fit learns."""
    from onlinear.kernels import scale_gamma

    X, y = _stream(n=120, seed=3)
    fitted = onlinear.make("kernel-pa", kernel=kernel, degree=2, gamma="scale").fit(X, y)
    assert fitted.gamma_ == scale_gamma(X)
    streamed = onlinear.make("kernel-pa", kernel=kernel, degree=2, gamma="scale")
    streamed.stream(X, y, classes=np.unique(y)).learn(np.arange(120))
    np.testing.assert_array_equal(streamed.dual_coef_, fitted.dual_coef_)
    model = onlinear.make("kernel-pa", kernel=kernel, degree=2, gamma="scale")
    with pytest.raises(ValueError, match=r'gamma="scale".*partial_fit.*scale_gamma'):
        model.partial_fit(X[:10], y[:10], classes=np.unique(y))
    with pytest.raises(ValueError, match=r'gamma="scale".*learn_one'):
        model.learn_one(X[0], y[0], classes=np.unique(y))
    with pytest.raises(ValueError, match=r'gamma="scale".*learn_many'):
        model.learn_many(X[:10], y[:10], classes=np.unique(y))
    assert not hasattr(model, "classes_")
    chunked = onlinear.make("kernel-pa", kernel=kernel, degree=2, gamma=scale_gamma(X))
    for rows in np.array_split(np.arange(120), 9):
        chunked.partial_fit(X[rows], y[rows], classes=np.unique(y))
    np.testing.assert_array_equal(chunked.dual_coef_, fitted.dual_coef_)
    assert chunked.n_mistakes_ == fitted.n_mistakes_
    # a started model (fit resolved gamma_) goes on with partial_fit and learn_one
    fitted.partial_fit(X[:5], y[:5])
    fitted.learn_one(X[5], y[5])
    assert fitted.n_seen_ == 126
    # the linear kernel has no gamma: nothing to refuse
    onlinear.make("kernel-pa", kernel="linear").partial_fit(X, y, classes=np.unique(y))


def test_gamma_scale_and_auto_follow_scikit_learn():
    X, y = _stream(n=50, seed=8)
    assert onlinear.make("kernel-mira", gamma="auto").fit(X, y).gamma_ == 1.0 / X.shape[1]
    scale = onlinear.make("kernel-mira", gamma="scale").fit(X, y).gamma_
    assert scale == pytest.approx(1.0 / (X.shape[1] * X.var()))


@pytest.mark.parametrize("params, message", [
    ({"kernel": "sigmoid"}, "kernel"),
    ({"degree": -1}, "degree"),
    ({"degree": 2.5}, "degree"),
    ({"gamma": 0.0}, "gamma"),
    ({"gamma": "wide"}, "gamma"),
    ({"coef0": np.nan}, "coef0"),
])
def test_bad_kernel_parameters_are_refused_by_name(params, message):
    X, y = _stream(n=20)
    with pytest.raises(ValueError, match=message):
        onlinear.make("kernel-mira", **params).fit(X, y)


def test_kernel_models_have_no_coef():
    X, y = _stream(n=20)
    model = onlinear.make("kernel-mira").fit(X, y)
    assert not hasattr(model, "coef_")
    assert model.support_vectors_.shape == (model.n_support_patterns_, X.shape[1])


def test_set_params_changes_the_kernel_of_a_learning_model():
    X, y = _stream(n=60, seed=9)
    model = onlinear.make("kernel-mira", kernel="rbf", gamma=0.5).fit(X, y)
    model.set_params(gamma=2.0)
    S, C = model.support_vectors_, model.dual_coef_
    K = np.exp(-2.0 * ((X[:, None] - S[None]) ** 2).sum(-1))
    np.testing.assert_allclose(model.decision_function(X), K @ C)
    assert model.gamma_ == 2.0


def test_an_overflowing_polynomial_kernel_is_refused_before_learning():
    X, y = _stream(n=40, seed=10)
    model = onlinear.make("kernel-mira", kernel="poly", degree=3, gamma=1.0).fit(X, y)
    before = (model.dual_coef_.copy(), model.n_seen_)
    big = X * 1e120
    with pytest.raises(ValueError, match="overflows"):
        model.partial_fit(big, y)
    np.testing.assert_array_equal(model.dual_coef_, before[0])
    assert model.n_seen_ == before[1]
    with pytest.raises(ValueError, match="overflows"):
        model.learn_one(big[0], y[0])
    assert model.n_seen_ == before[1]


@pytest.mark.parametrize("sparse", [False, True])
def test_rows_the_polynomial_kernel_overflows_on_are_refused_by_prediction_too(sparse):
    """Prediction checks its rows as learning does: the scores of such a row were NaN, and
    predict gave it class 0 with only a RuntimeWarning."""
    X, y = _stream(n=40, seed=10)
    model = onlinear.make("kernel-pa", kernel="poly", degree=3, gamma=1.0).fit(X, y)
    big = X[:3] * 1e110
    big = sp.csr_matrix(big) if sparse else big
    for call in (model.decision_function, model.predict, lambda Z: model.predict_one(Z[:1])):
        with pytest.raises(ValueError, match="polynomial kernel .* overflows"):
            call(big)
    model.set_params(degree=10000)  # (a degree the support vectors themselves overflow on)
    with pytest.raises(ValueError, match="degree=10000"):
        model.predict(X[:3])


def test_scores_that_are_nan_are_refused_not_predicted_as_a_class():
    """A Python kernel's values can overflow to infinities of both signs on the support:
    the scores' NaN would pick class 0."""
    X, y = _stream(n=40, seed=10)
    model = onlinear.make("kernel-pa", kernel=lambda A, B: A @ B.T).fit(X, y)
    assert model.predict(X).shape == (40,)
    model.set_params(kernel=lambda A, B: np.where((A @ B.T) > 0, np.inf, -np.inf))
    for call in (model.decision_function, model.predict, lambda Z: model.predict_one(Z[0])):
        with pytest.raises(ValueError, match="scores are not numbers"):
            call(X[:3])


@pytest.mark.parametrize("shape", [(1, 1), (1,), ()])
def test_a_kernel_callable_of_the_wrong_shape_is_refused_at_once(shape):
    """numpy broadcast a (1, 1) result into the kernel row: every value 1, learned silently,
    the model failing only when it predicted."""
    X, y = _stream(n=20, seed=4)
    model = onlinear.make("kernel-pa", kernel=lambda A, B: np.ones(shape))
    with pytest.raises(ValueError, match=r"K\(A, B\) must have shape \(len\(A\), len\(B\)\)"):
        model.fit(X, y)
    good = onlinear.make("kernel-pa", kernel=lambda A, B: A @ B.T).fit(X, y)
    before = good.decision_function(X)
    good.set_params(kernel=lambda A, B: np.ones(shape))
    with pytest.raises(ValueError, match="must have shape"):
        good.partial_fit(X, y)
    good.set_params(kernel=lambda A, B: A @ B.T)
    np.testing.assert_array_equal(good.decision_function(X), before)


def test_fit_learns_every_row_of_a_long_stream():
    """``fit`` passes every row of every epoch to the dual loop (a regression: a fit that kept a
    prefix of the data would still predict plausibly)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1203, 4))
    y = (X[:, 0] > 0).astype(int)
    model = onlinear.make("kernel-pa", kernel="linear", n_epochs=2).fit(X, y)
    assert model.n_seen_ == 2 * 1203
    primal = onlinear.make("pa", n_epochs=2).fit(X, y)
    assert model.n_updates_ == primal.n_updates_


def test_a_stream_keeps_a_row_one_support_pattern_across_epochs_as_fit_does():
    """The public stream (what the experiment harness learns through) identifies a row met again
    in a later epoch, as fit does: the same support patterns and coefficients; chunks given to
    partial_fit are new examples each time, so a second pass stores patterns again."""
    from onlinear.data import load_usps

    X, y, _, _ = load_usps()
    X, y = X[:300], y[:300]
    fitted = onlinear.make("kernel-pa", kernel="poly", degree=3, n_epochs=2).fit(X, y)
    streamed = onlinear.make("kernel-pa", kernel="poly", degree=3)
    stream = streamed.stream(X, y, classes=np.unique(y))
    for chunk in np.array_split(np.arange(300), 7) * 2:  # two epochs, in uneven chunks
        stream.learn(chunk)
    assert streamed.n_seen_ == fitted.n_seen_ == 600
    assert streamed.n_support_patterns_ == fitted.n_support_patterns_
    np.testing.assert_array_equal(streamed.dual_coef_, fitted.dual_coef_)
    chunked = onlinear.make("kernel-pa", kernel="poly", degree=3, gamma=fitted.gamma_)
    chunked.partial_fit(X, y, classes=np.unique(y)).partial_fit(X, y)
    assert chunked.n_support_patterns_ > fitted.n_support_patterns_


def test_a_stream_refuses_rows_outside_its_data_and_changes_nothing():
    X = np.random.default_rng(0).normal(size=(10, 3))
    y = np.arange(10) % 2
    model = onlinear.make("kernel-pa")
    stream = model.stream(X, y, classes=[0, 1])
    stream.learn([0, 1, 2])
    before = model.dual_coef_.copy()
    with pytest.raises(IndexError, match=r"rows must be in \[0, 10\)"):
        stream.learn([3, 10])
    np.testing.assert_array_equal(model.dual_coef_, before)
    assert model.n_seen_ == 3


def test_the_default_gamma_works_on_every_online_entry_point():
    """The first thing a river user tries: ``learn_one`` of a fresh kernel learner with its
    defaults.  The default gamma (``"auto"``, 1/n_features) is known from the first row, so a
    stream learns it one row or one chunk at a time exactly as ``fit`` does."""
    X, y = _stream(n=60, seed=5)
    classes = np.unique(y)
    fitted = onlinear.make("kernel-pa").fit(X, y)
    assert fitted.gamma_ == 1.0 / X.shape[1]
    one = onlinear.make("kernel-pa")
    for i in range(X.shape[0]):
        one.learn_one(X[i], y[i], classes=classes)
    np.testing.assert_array_equal(one.dual_coef_, fitted.dual_coef_)
    chunks = onlinear.make("kernel-pa")
    for rows in np.array_split(np.arange(60), 7):
        chunks.partial_fit(X[rows], y[rows], classes=classes)
    np.testing.assert_array_equal(chunks.dual_coef_, fitted.dual_coef_)


@pytest.mark.parametrize("gamma", ["auto", "scale"])
def test_a_gamma_resolved_from_the_data_refuses_to_grow_features(gamma):
    """gamma="auto" is 1/n_features of the width the model started with: grown, the model
    kept it, where one started as wide takes another, so a command-line stream's result
    depended on its chunk size (the first chunk's width).  Such a model now refuses to grow,
    naming the remedies; a numeric gamma, and a kernel without gamma, grow."""
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 3, 40)
    model = onlinear.make("kernel-pa", gamma=gamma).fit(X, y)
    before = model.gamma_
    with pytest.raises(ValueError, match=f'gamma="{gamma}" was resolved from the 3 features'):
        model.grow_features(5)
    assert model.n_features_in_ == 3 and model.gamma_ == before
    for params in ({"gamma": 0.25}, {"kernel": "linear"}):
        grown = onlinear.make("kernel-pa", **params).fit(X, y).grow_features(5)
        wide = onlinear.make("kernel-pa", **params).fit(np.pad(X, ((0, 0), (0, 2))), y)
        np.testing.assert_array_equal(grown.predict(np.pad(X, ((0, 0), (0, 2)))),
                                      wide.predict(np.pad(X, ((0, 0), (0, 2)))))


def test_scores_are_computed_a_block_of_rows_at_a_time():
    """decision_function built the whole n_rows × n_support kernel matrix at once (726 MB for
    20,000 rows against 3,000 patterns); it now takes blocks of rows, with the same scores as
    row by row."""
    import tracemalloc

    from onlinear.models import dual

    rng = np.random.default_rng(6)
    X, y = rng.normal(size=(600, 5)), rng.integers(0, 3, 600)
    model = onlinear.make("kernel-pa", gamma=0.5).fit(X, y)
    n = model.model_.n_support
    assert n > 300
    peaks = []
    for size in (8 * dual._GRAM_BLOCK_VALUES // n, 32 * dual._GRAM_BLOCK_VALUES // n):
        test = rng.normal(size=(size, 5))
        tracemalloc.start()
        scores = model.decision_function(test)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    # four times the rows: the scores' own array grows, the blocks' memory does not
    assert peaks[1] - peaks[0] < 2 * 8 * 3 * (len(test) - len(test) // 4) + (1 << 20)
    rows = np.vstack([model.decision_function(test[i:i + 1])
                      for i in range(0, len(test), 397)])
    np.testing.assert_allclose(scores[::397], rows, rtol=1e-12, atol=1e-12)
