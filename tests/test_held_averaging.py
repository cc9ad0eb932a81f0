"""``average=True`` of the held learners — the Gaussian family (CW, AROW, SCW, NHERD), NAROW,
AdaGrad (both forms) and FTRL-Proximal: the mean of the hypotheses (μ, or the weights) after
every round.

Checked against a numpy transcription of its definition: the same learner without averaging,
run one example at a time, its hypothesis recorded after each ``learn_one`` and averaged; in
every covariance layout, dense and CSR, two and three classes, with an intercept, across
``fit``, ``partial_fit`` and ``learn_one``, growing classes and features, example weights of 0,
``warm_start``, a rebase of the sums, saving and loading (and files written before
``average`` existed); and the contract around it: the learning state and the online counts
are those of the unaveraged learner, and a change of ``average`` after the start is refused
on every path.
"""
import json
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from onlinear import (AROW, NAROW, AdaGrad, ConfidenceWeighted, FTRLProximal, NormalHerd,
                      SoftConfidenceWeighted)
from onlinear.persistence import HEADER, ModelFileError
from test_persistence import _rewrite

RNG = np.random.default_rng(20261129)
D = 6
X = RNG.normal(size=(70, D)) * RNG.uniform(0.3, 2.0, size=(70, 1))
X[RNG.random(X.shape) < 0.3] = 0.0  # (rows of varying non-zeros: the CSR rounds' own)
Y3 = RNG.integers(0, 3, size=70)
Y2 = np.where(X[:, 0] - 0.5 * X[:, 2] + 0.2 * RNG.normal(size=70) > 0, 7, 3)
X_TEST = RNG.normal(size=(15, D))

LEARNERS = {
    "arow-diagonal": (AROW, {"matrix": "diagonal", "r": 2.0}),
    "arow-per-class": (AROW, {"matrix": "per-class", "r": 0.5}),
    "arow-shared": (AROW, {"matrix": "shared"}),
    "cw-drop": (ConfidenceWeighted, {"matrix": "diagonal", "diagonal": "drop"}),
    "cw-per-class": (ConfidenceWeighted, {"matrix": "per-class", "min_variance": 1e-3}),
    "scw2-per-class": (SoftConfidenceWeighted, {"variant": "II", "matrix": "per-class"}),
    "scw1-diagonal": (SoftConfidenceWeighted, {"matrix": "diagonal", "C": 0.5}),
    "nherd-diagonal": (NormalHerd, {"matrix": "diagonal", "C": 0.3}),
    "narow-diagonal": (NAROW, {"matrix": "diagonal", "b": 2.0}),
    "narow-per-class": (NAROW, {"matrix": "per-class"}),
    "narow-libol": (NAROW, {"variant": "libol"}),
    "adagrad-hinge": (AdaGrad, {"eta": 0.3}),
    "adagrad-log": (AdaGrad, {"loss": "log"}),
    # (the regularizer's deferred steps enter the sums in closed form)
    "adagrad-l1": (AdaGrad, {"eta": 0.3, "l1": 0.02}),
    "adagrad-l2": (AdaGrad, {"loss": "log", "l2": 0.05}),
    "adagrad-l1-l2": (AdaGrad, {"eta": 0.5, "l1": 0.01, "l2": 0.03}),
    "ftrl-log": (FTRLProximal, {"l1": 0.05, "l2": 0.1}),
    "ftrl-hinge": (FTRLProximal, {"loss": "hinge", "alpha": 0.2}),
    # AdaGrad's dual (RDA) form: its own sums (every weight moves every round under l1, l2)
    "rda-hinge": (AdaGrad, {"form": "dual", "eta": 0.3}),
    "rda-log-l1": (AdaGrad, {"form": "dual", "loss": "log", "l1": 0.01}),
    "rda-l1-l2": (AdaGrad, {"form": "dual", "eta": 0.5, "l1": 0.005, "l2": 0.02}),
}
WEIGHTED = ["arow-diagonal", "arow-per-class", "scw1-diagonal", "nherd-diagonal",
            "adagrad-hinge", "adagrad-l1-l2", "ftrl-log", "rda-l1-l2"]
#: the names of the sums each model keeps
SUMS = {"rda": ("avg_sums", "avg_last")}


def _sums(name):
    return SUMS.get(name.split("-")[0], ("avg_acc", "avg_rounds"))


def _make(name, **extra):
    cls, params = LEARNERS[name]
    return cls(**params, **extra)


def _hypotheses(model, calls):
    """The hypotheses (``model_.coefficients()``, intercept row included) after each round of
    an unaveraged ``model`` playing ``calls`` — ``(x, label)`` or ``(x, label, classes)``
    rounds of ``learn_one``, or a callable applied to the model between rounds (growing it);
    all padded to the final shape (a new feature's or class's weight was 0 on the rounds
    before it; features grow at the end, there being no intercept)."""
    history = []
    for call in calls:
        if callable(call):
            call(model)
            continue
        model.learn_one(call[0], call[1], classes=call[2] if len(call) > 2 else None)
        history.append((model.model_.coefficients().copy(), model.classes_.tolist()))
    final = model.classes_.tolist()
    padded = []
    for weights, classes in history:
        out = np.zeros((model.model_.n_inputs(), model.model_.coefficients().shape[1]))
        columns = [final.index(c) for c in classes] if out.shape[1] > 1 else [0]
        out[:weights.shape[0], columns] = weights
        padded.append(out)
    return padded


def _mean_of_hypotheses(name, rows, labels, classes, **extra):
    calls = [(rows[0], labels[0], classes)] + list(zip(rows[1:], labels[1:]))
    return np.mean(_hypotheses(_make(name, **extra), calls), axis=0)


def _close(actual, expected, rtol=1e-12):
    scale = max(np.abs(expected).max(), 1e-300)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("labels", ["two", "three"])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_average_is_the_mean_of_the_hypotheses_after_each_round(name, labels, sparse):
    y = Y2 if labels == "two" else Y3
    classes = np.unique(y)
    intercept = labels == "three"  # (an intercept's constant feature is averaged too)
    data = sp.csr_matrix(X) if sparse else X
    model = _make(name, average=True, fit_intercept=intercept).fit(data, y)
    expected = _mean_of_hypotheses(name, X, y, classes, fit_intercept=intercept)
    assert not np.allclose(expected, _make(name, fit_intercept=intercept).fit(X, y)
                           .model_.coefficients())  # (the average is not the last hypothesis)
    _close(model.model_.coefficients(), expected)
    # coef_, intercept_ and the scores read it
    weights = expected[:D]
    bias = expected[D] if intercept else np.zeros(expected.shape[1])
    scores = X_TEST @ weights + bias
    _close(model.decision_function(X_TEST), scores[:, 0] if scores.shape[1] == 1 else scores)
    _close(model.coef_, weights.T)
    _close(model.intercept_, bias)
    assert [model.predict_one(x) for x in X_TEST] == model.predict(X_TEST).tolist()


@pytest.mark.parametrize("name", LEARNERS)
def test_fit_partial_fit_and_learn_one_give_the_same_averaged_model(name):
    fitted = _make(name, average=True, n_epochs=2).fit(sp.csr_matrix(X), Y3)
    partial = _make(name, average=True)
    partial.partial_fit(X[:25], Y3[:25], classes=[0, 1, 2])
    partial.partial_fit(sp.csr_matrix(X[25:]), Y3[25:])
    partial.partial_fit(X, Y3)
    one = _make(name, average=True)
    for x, label in zip(np.vstack([X, X]), np.concatenate([Y3, Y3])):
        one.learn_one(x, label, classes=[0, 1, 2])
    expected = _mean_of_hypotheses(name, np.vstack([X, X]), np.concatenate([Y3, Y3]),
                                   [0, 1, 2])
    for model in (fitted, partial, one):
        assert model.n_seen_ == 140
        _close(model.model_.coefficients(), expected)


@pytest.mark.parametrize("name", LEARNERS)
def test_the_learning_state_and_the_online_counts_are_the_unaveraged_learners(name):
    plain, averaged = _make(name), _make(name, average=True)
    for x, label in zip(X, Y3):
        assert plain.learn_one(x, label, classes=[0, 1, 2]) == \
            averaged.learn_one(x, label, classes=[0, 1, 2])
    plain.partial_fit(sp.csr_matrix(X), Y3)
    averaged.partial_fit(sp.csr_matrix(X), Y3)
    assert (plain.n_mistakes_, plain.n_updates_) == (averaged.n_mistakes_, averaged.n_updates_)
    kept = averaged.model_.arrays()
    for key, array in plain.model_.arrays().items():
        np.testing.assert_array_equal(kept[key], array)
    assert set(kept) - set(plain.model_.arrays()) == set(_sums(name))


@pytest.mark.parametrize("name", LEARNERS)
def test_growing_classes_and_features_keeps_the_average(name):
    wide = np.hstack([X, RNG.normal(size=(70, 2)) * (RNG.random((70, 2)) < 0.6)])
    labels = Y3.copy()
    labels[45:][Y3[45:] == 2] = 5  # a fourth class from round 45 on
    calls = ([(X[0], Y3[0], [0, 1, 2])] + list(zip(X[1:30], Y3[1:30]))
             + [lambda model: model.grow_features(D + 2)]
             + list(zip(wide[30:45], labels[30:45]))
             + [lambda model: model.add_classes([5])]
             + list(zip(wide[45:], labels[45:])))
    expected = np.mean(_hypotheses(_make(name), calls), axis=0)
    # the averaged model takes the same rounds through its passes and its learn_one
    model = _make(name, average=True)
    model.partial_fit(sp.csr_matrix(X[:20]), Y3[:20], classes=[0, 1, 2])
    for x, label in zip(X[20:30], Y3[20:30]):
        model.learn_one(x, label)
    model.grow_features(D + 2)
    model.partial_fit(wide[30:45], labels[30:45])
    model.add_classes([5])
    model.partial_fit(sp.csr_matrix(wide[45:60]), labels[45:60])
    for x, label in zip(wide[60:], labels[60:]):
        model.learn_one(x, label)
    assert model.classes_.tolist() == [0, 1, 2, 5] and model.n_features_in_ == D + 2
    _close(model.model_.coefficients(), expected)


@pytest.mark.parametrize("name", WEIGHTED)
def test_rounds_of_example_weight_zero_join_the_average(name):
    """A round of weight 0 predicts and changes nothing, but is a round: its hypothesis joins
    the mean (played in Python by the Gaussian model, in the compiled pass by the adaptive
    ones; a long run of them is one call)."""
    rows = np.vstack([X, X])
    labels = np.concatenate([Y3, Y3])
    weights = np.ones(140)
    weights[20:100] = 0.0  # a long run (a pass of its own) ...
    weights[[5, 9, 120]] = [0.0, 2.5, 0.0]  # ... and single rounds
    plain, history = _make(name), []
    for i in range(140):
        plain.partial_fit(rows[i:i + 1], labels[i:i + 1], classes=[0, 1, 2],
                          sample_weight=weights[i:i + 1])
        history.append(plain.model_.coefficients().copy())
    model = _make(name, average=True).partial_fit(rows, labels, classes=[0, 1, 2],
                                                   sample_weight=weights)
    assert model.n_seen_ == 140
    _close(model.model_.coefficients(), np.mean(history, axis=0))


@pytest.mark.parametrize("name", ["arow-diagonal", "narow-per-class", "ftrl-log", "rda-l1-l2"])
def test_warm_start_continues_the_average_and_fit_restarts_it(name):
    model = _make(name, average=True, warm_start=True).fit(X[:40], Y3[:40])
    model.fit(X[40:], Y3[40:])
    _close(model.model_.coefficients(), _mean_of_hypotheses(name, X, Y3, [0, 1, 2]))
    model.set_params(warm_start=False).fit(X[40:], Y3[40:])
    assert model.n_seen_ == 30
    _close(model.model_.coefficients(),
           _mean_of_hypotheses(name, X[40:], Y3[40:], np.unique(Y3[40:])))


@pytest.mark.parametrize("name", ["arow-per-class", "cw-drop", "narow-diagonal",
                                  "adagrad-hinge", "adagrad-l1", "ftrl-hinge"])
def test_a_rebase_of_the_sums_keeps_the_average(name):
    """Once the rounds since the last rebase reach 2^20 the sums are rebased before the next
    round (acc ← acc − R·w, R ← 0): the same average, to the rounding of the rebase."""
    model = _make(name, average=True).partial_fit(X[:40], Y3[:40], classes=[0, 1, 2])
    twin = _make(name, average=True).partial_fit(X[:40], Y3[:40], classes=[0, 1, 2])
    # the same sums Σ_t w_t = R·w − acc, written with R = 2^20
    state = twin.model_
    lift = 2.0 ** 20 - state.avg_rounds[0]
    state.avg_acc += lift * getattr(state, state.hypothesis_name)
    state.avg_rounds[0] = 2.0 ** 20
    _close(twin.model_.coefficients(), model.model_.coefficients(), rtol=1e-8)
    for learner in (model, twin):
        learner.partial_fit(sp.csr_matrix(X[40:]), Y3[40:])
    # rebased before round 41 (R = 0), then 30 rounds closed; the twin that was not has 70
    assert (twin.model_.avg_rounds[0], model.model_.avg_rounds[0]) == (30.0, 70.0)
    _close(twin.model_.coefficients(), model.model_.coefficients(), rtol=1e-8)


@pytest.mark.parametrize("name", ["arow-shared", "nherd-diagonal", "narow-libol",
                                  "adagrad-log", "adagrad-l2", "ftrl-log", "rda-log-l1"])
def test_saving_keeps_the_sums_and_the_stream_continues_bit_identically(tmp_path, name):
    model = _make(name, average=True).fit(sp.csr_matrix(X[:40]), Y3[:40])
    onlinear.save(model, tmp_path / "m")
    with zipfile.ZipFile(tmp_path / "m") as archive:
        arrays = json.loads(archive.read(HEADER))["arrays"]
    assert {"_" + key for key in _sums(name)} <= set(arrays)
    loaded = onlinear.load(tmp_path / "m")
    for key in _sums(name):
        np.testing.assert_array_equal(getattr(loaded.model_, key), getattr(model.model_, key))
    for learner in (model, loaded):
        learner.partial_fit(X[40:55], Y3[40:55])
        for x, label in zip(X[55:], Y3[55:]):
            learner.learn_one(x, label)
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    np.testing.assert_array_equal(loaded.decision_function(X_TEST),
                                  model.decision_function(X_TEST))
    _close(model.model_.coefficients(), _mean_of_hypotheses(name, X, Y3, [0, 1, 2]))


@pytest.mark.parametrize("name", ["arow-diagonal", "narow-diagonal", "adagrad-hinge",
                                  "ftrl-log", "rda-hinge"])
def test_a_file_written_before_average_existed_loads_without_averaging(tmp_path, name):
    model = _make(name).fit(X, Y3)
    onlinear.save(model, tmp_path / "m")

    def before_average(header):  # (such a file's hyperparameters had no "average")
        del header["params"]["average"]

    old = tmp_path / "old"
    old.write_bytes(_rewrite((tmp_path / "m").read_bytes(), before_average))
    loaded = onlinear.load(old)
    assert loaded.average is False and _sums(name)[0] not in loaded.model_.arrays()
    np.testing.assert_array_equal(loaded.decision_function(X_TEST),
                                  model.decision_function(X_TEST))


@pytest.mark.parametrize("name", ["arow-per-class", "ftrl-hinge", "rda-l1-l2"])
def test_a_file_whose_sums_are_missing_or_broken_is_refused(tmp_path, name):
    sums, rounds = _sums(name)
    model = _make(name, average=True).fit(X, Y3)
    onlinear.save(model, tmp_path / "m")
    data = (tmp_path / "m").read_bytes()
    (tmp_path / "missing").write_bytes(_rewrite(data, drop=("_" + sums,)))
    with pytest.raises(ModelFileError, match="_" + sums):
        onlinear.load(tmp_path / "missing")
    getattr(model.model_, rounds)[0] = model.n_seen_ + 1  # (more rounds than were seen)
    onlinear.save(model, tmp_path / "broken")
    with pytest.raises(ModelFileError, match="_" + rounds):
        onlinear.load(tmp_path / "broken")


@pytest.mark.parametrize("name", ["arow-diagonal", "narow-per-class", "adagrad-hinge",
                                  "ftrl-log"])
def test_a_change_of_average_after_the_start_is_refused_on_every_path(name):
    model = _make(name).fit(X, Y3)
    assert model.learn_one(X[0], Y3[0]) is not None  # (the fast path is built)
    arrays = {key: array.copy() for key, array in model.model_.arrays().items()}
    model.set_params(average=True)
    for call in (lambda: model.learn_one(X[1], Y3[1]), lambda: model.partial_fit(X, Y3),
                 lambda: model.predict(X[:2]), lambda: model.coef_):
        with pytest.raises(ValueError, match="average=True was set after the model started"):
            call()
    for key, array in model.model_.arrays().items():
        np.testing.assert_array_equal(array, arrays[key])
    model.fit(X, Y3)  # restarts with averaging
    _close(model.model_.coefficients(), _mean_of_hypotheses(name, X, Y3, [0, 1, 2]))


def _rda_weights_sum(u, G, first, last, eta, delta, l1, l2):
    """Σ_{τ=first}^{last} of the RDA weight of (u, G) at τ rounds, term by term in 80-bit
    floats (the definition the closed form is checked against)."""
    tau = np.arange(first, last + 1, dtype=np.longdouble)
    scale = delta + np.sqrt(np.longdouble(G)) + np.longdouble(eta) * l2 * tau
    size = np.maximum(abs(np.longdouble(u)) - np.longdouble(l1) * tau, 0)
    return float(-eta * np.sign(u) * np.sum(size / scale))


@pytest.mark.parametrize("u, G, l1, l2", [
    (3.0, 4.0, 0.0, 0.0), (-3.0, 4.0, 0.01, 0.0),  # (a constant, an arithmetic series)
    (2.5, 9.0, 0.0, 0.05), (-40.0, 0.3, 0.0, 3.0),  # (the digamma difference, D/c ≫ τ, ≪ τ)
    (1.7, 2.0, 0.002, 0.01), (-25.0, 100.0, 0.03, 0.001),  # (both, cut where s = λ1τ)
    (0.5, 1e-6, 1e-4, 1e-3), (7.0, 1e4, 0.0, 1e-5),
    (3.0, 4.0, 0.0, 1e-300), (-2.0, 1.0, 0.003, 1e-300)])  # (ηλ2τ below D's rounding)
@pytest.mark.parametrize("first, last", [(1, 40), (3, 65), (10, 500), (100, 20000)])
def test_the_rda_weights_over_rounds_sum_in_closed_form(u, G, l1, l2, first, last):
    """The weights a coordinate whose (u, G) stay put takes over a span of rounds: term by term
    over at most 64 rounds, beyond in closed form (an arithmetic series, or a digamma
    difference by its asymptotic series) — equal to the sum of the weights themselves."""
    from onlinear._core import adaptive

    eta, delta = 0.4, 1e-3
    expected = _rda_weights_sum(u, G, first, last, eta, delta, l1, l2)
    got = adaptive.rda_path_sum(u, G, first, last, eta=eta, delta=delta, l1=l1, l2=l2)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300)
    if l1 and abs(u) / l1 < last:  # (the weights reach 0 within the span: a cut)
        assert adaptive.rda_path_sum(u, G, abs(u) / l1 + 1, last + 5, eta=eta, delta=delta,
                                     l1=l1, l2=l2) == 0.0


@pytest.mark.parametrize("params", [{"l1": 0.002}, {"l2": 0.05}, {"l1": 0.001, "l2": 0.01}])
def test_adagrads_dual_form_averages_features_absent_for_long_stretches(params):
    """AdaGrad-RDA's weights all move every round under a regularizer: a feature absent from
    long stretches of rows (80 rounds: beyond the 64 summed term by term) enters the average
    in closed form when a row reaches it again and when the weights are read."""
    rows = np.vstack([X, X, X])
    labels = np.concatenate([Y3, Y3, Y3])
    rows[np.arange(210) % 80 != 0, 3:] = 0.0  # (columns 3-5 in one row of 80)
    name = "rda-long-" + "-".join(sorted(params))
    LEARNERS.setdefault(name, (AdaGrad, {"form": "dual", "eta": 0.5, **params}))
    expected = _mean_of_hypotheses(name, rows, labels, [0, 1, 2])
    assert np.abs(expected[3:]).max() > 1e-3 * np.abs(expected).max()  # (they matter)
    for data in (rows, sp.csr_matrix(rows)):
        model = _make(name, average=True).fit(data, labels)
        _close(model.model_.coefficients(), expected, rtol=1e-10)
        assert [model.predict_one(x) for x in X_TEST] == model.predict(X_TEST).tolist()


def test_the_engine_refuses_sums_it_cannot_keep():
    from onlinear._core import adaptive

    W, G, last, clock = adaptive.adagrad_state(D, 3)
    sums = {"avg_acc": np.zeros((D, 3)), "avg_rounds": np.zeros(1)}
    order = np.arange(70, dtype=np.int64)
    dual = (np.zeros((D, 3)), np.zeros((D, 3)), np.zeros(1, np.int64))  # (u, G, t)
    with pytest.raises(ValueError, match="averages by its own sums"):
        adaptive.AdaptiveRound("rda", dual, np.zeros(3, np.int64), loss="hinge", **sums)
    with pytest.raises(ValueError, match="avg_last has shape"):
        adaptive.rda_pass(X, Y3.astype(np.int64), order, *dual, avg_sums=np.zeros((D, 3)),
                          avg_last=np.zeros(D + 1, np.int64))
    assert not dual[0].any() and not dual[2][0]
    with pytest.raises(ValueError, match="avg_acc has shape"):
        adaptive.adagrad_pass(X, Y3.astype(np.int64), order, W, G, last, clock,
                              avg_acc=np.zeros((D, 2)), avg_rounds=np.zeros(1))
    assert not W.any() and not clock[0] and not sums["avg_acc"].any()


def test_learn_stream_checkpoints_and_the_cli_average_as_fit(tmp_path):
    """A stream in chunks (widened as it goes, checkpointed, resumed) and ``onlinear train
    --param average=true`` end with the averaged model of one ``fit``."""
    from sklearn.datasets import dump_svmlight_file

    from cli_runner import onlinear_cli
    from onlinear.streaming import learn_stream

    rows = X.copy()
    rows[:10, 4:] = 0.0  # (the first chunk is 4 features wide)
    reference = _make("arow-diagonal", average=True).fit(rows, Y3)
    chunks = [(rows[:10, :4], Y3[:10]), (sp.csr_matrix(rows[10:40]), Y3[10:40]),
              (rows[40:], Y3[40:])]
    streamed = learn_stream(_make("arow-diagonal", average=True), chunks, classes=[0, 1, 2],
                            checkpoint=tmp_path / "checkpoint", checkpoint_every=20)
    _close(streamed.model_.coefficients(), reference.model_.coefficients())
    resumed = learn_stream(_make("arow-diagonal", average=True), chunks, classes=[0, 1, 2],
                           checkpoint=tmp_path / "checkpoint", resume=True)
    np.testing.assert_array_equal(resumed.coef_, streamed.coef_)
    dump_svmlight_file(rows, Y3, str(tmp_path / "train.svm"), zero_based=False)
    result = onlinear_cli("train", "arow", tmp_path / "train.svm", "--save", tmp_path / "m",
                          "--param", "average=true", "--param", "matrix=diagonal",
                          "--param", "r=2.0", "--chunk-size", "16")
    assert result.returncode == 0, result.stderr
    trained = onlinear.load(tmp_path / "m")
    assert trained.average is True
    _close(trained.model_.coefficients(), reference.model_.coefficients())


@pytest.mark.parametrize("name", ["arow-diagonal", "ftrl-log"])
def test_the_river_adapter_predicts_with_the_average(name):
    """river's dicts, their vocabulary growing the features: the adapter's estimator holds
    the averaged model of the same rounds, and predicts with it."""
    pytest.importorskip("river")
    from onlinear.river_adapter import RiverClassifier

    adapter = RiverClassifier(_make(name, average=True), classes=[0, 1, 2])
    plain = RiverClassifier(_make(name), classes=[0, 1, 2])
    for row, label in zip(X, Y3):
        x = {f"f{j}": float(v) for j, v in enumerate(row) if v != 0.0}
        adapter.learn_one(x, int(label))
        plain.learn_one(x, int(label))
    model = adapter.estimator_
    assert model.average and model.n_seen_ == 70
    order = [adapter.vocabulary_[f"f{j}"] for j in range(D)]  # (columns by first sight)
    expected = _mean_of_hypotheses(name, X, Y3, [0, 1, 2])
    _close(model.model_.coefficients()[order], expected)
    x = {f"f{j}": float(v) for j, v in enumerate(X_TEST[0])}
    assert adapter.predict_one(x) == model.predict(X_TEST[:1, np.argsort(order)])[0]
    np.testing.assert_array_equal(plain.estimator_.model_.arrays()[
        model.model_.hypothesis_name], model.model_.arrays()[model.model_.hypothesis_name])


@pytest.mark.parametrize("name", ["arow-per-class", "nherd-diagonal", "narow-diagonal",
                                  "adagrad-l1-l2", "ftrl-log"])
def test_a_refused_call_leaves_the_sums_as_they_were(name):
    model = _make(name, average=True).fit(X[:30], Y3[:30])
    before = {key: array.copy() for key, array in model.model_.arrays().items()}
    bad = X[30:40].copy()
    bad[6] = 1e200  # (a norm beyond 2^505: the call is refused, naming row 6)
    with pytest.raises(ValueError, match="row 6"):
        model.partial_fit(bad, Y3[30:40])
    for key, array in model.model_.arrays().items():
        np.testing.assert_array_equal(array, before[key])
    model.partial_fit(X[30:], Y3[30:])
    _close(model.model_.coefficients(), _mean_of_hypotheses(name, X, Y3, [0, 1, 2]))


@pytest.mark.parametrize("params", [{"l1": 0.1}, {"l2": 0.3}, {"l1": 0.08, "l2": 0.2}])
def test_a_regularized_adagrads_deferred_steps_enter_the_average_in_closed_form(params):
    """Features absent from long stretches of rows: their weights shrink every round (to 0
    within the stretch, with l1), steps the rounds defer and the sums take in closed form —
    the average is still the mean of the hypotheses after every round (the transcription
    reads them after each round, every deferred step taken)."""
    rows = X.copy()
    rows[np.arange(70) % 15 != 0, 3:] = 0.0  # (columns 3-5 in one row of 15)
    name = "deferred-adagrad-" + "-".join(sorted(params))
    LEARNERS.setdefault(name, (AdaGrad, {"eta": 0.5, **params}))
    expected = _mean_of_hypotheses(name, rows, Y3, [0, 1, 2])
    if "l1" in params:  # (the stretch takes a rare feature's weights to 0)
        start = _make(name).partial_fit(rows[:1], Y3[:1], classes=[0, 1, 2])
        end = _make(name).fit(rows[:14], Y3[:14])
        assert start.model_.coefficients()[3:].any() and not end.model_.coefficients()[3:].any()
    for data in (rows, sp.csr_matrix(rows)):
        model = _make(name, average=True).fit(data, Y3)
        _close(model.model_.coefficients(), expected)
        assert [model.predict_one(x) for x in X_TEST] == model.predict(X_TEST).tolist()
