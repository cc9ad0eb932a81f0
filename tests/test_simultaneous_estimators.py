"""The simultaneous-projection estimators (Amit, Shalev-Shwartz & Singer §3, §9.2): label
conventions of each task, the engine's paths agreeing with each other (dense/CSR, float32,
fit/partial_fit/learn_one), online counts equal to the metrics computed from the scores before
each update, bad input, pickling."""
import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import MultiLabelBinarizer

import onlinear
from onlinear import BlockLearner, SimultaneousProjectionClassifier, SimultaneousProjectionOrdinal
from onlinear import metrics
from onlinear.data import make_simplex_blocks

SCHEMES = onlinear.available("ordinal")


# ------------------------------------------------------------------------------------ data
def _multiclass(n=150, d=8, k=4, seed=0):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(k, d))
    X = rng.normal(size=(n, d))
    y = np.argmax(X @ M.T + 0.3 * rng.normal(size=(n, k)), axis=1)
    return X, np.array(["ant", "bee", "cat", "dog"])[y]


def _multilabel(n=150, d=8, k=5, seed=1):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(k, d))
    X = rng.normal(size=(n, d))
    Y = (X @ M.T > 0.8).astype(np.int64)  # some rows have no label, some several
    return X, Y


def _ordinal(n=300, d=5, seed=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    ranks = np.digitize(X @ np.linspace(1.0, -1.0, d), [-1.0, 0.0, 1.0])
    return X, ranks


def _scores_in_engine_order(model, x, n_outputs):
    """Scores of every output summed feature by feature, as the compiled loop does: equal columns
    (labels never relevant) then tie exactly, and a tie is a mistake; BLAS could round them
    apart."""
    if not hasattr(model, "classes_"):
        return np.zeros(n_outputs)
    scores = np.zeros(n_outputs)
    for i, v in enumerate(x):
        if v != 0.0:
            scores += model.model_.weights[i] * v
    return scores * model.model_.scale[0]


def _state(model):
    """Everything a model holds, deep-copied, to compare before/after (not the cache of a
    dense row's indices, which a call may make before it refuses the row)."""
    return copy.deepcopy({k: v for k, v in vars(model).items() if k != "_dense_index"})


def _same_state(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key])
        elif key == "model_":  # (the block model: its arrays and its configuration)
            _same_state(a[key].arrays(), b[key].arrays())
            _same_state(a[key].config, b[key].config)
        else:
            assert a[key] == b[key] or (a[key] is b[key]), key


# ------------------------------------------------------------------------------------ registry
def test_registry_gives_each_task_its_estimator():
    for name in ("simperc", "conproj", "simproj", "simopt", "maxpa", "optimal", "sopopo"):
        assert name in onlinear.available("multiclass")
        assert name in onlinear.available("multilabel")
        assert type(onlinear.make(name)) is SimultaneousProjectionClassifier
        assert type(onlinear.make(name, task="ordinal")) is SimultaneousProjectionOrdinal
        assert type(onlinear.make(name, task="blocks")) is BlockLearner
        assert onlinear.make(name, task="blocks", C=0.5).get_params()["scheme"] == name
    with pytest.raises(ValueError, match="no estimator for task 'ordinal'"):
        onlinear.make("pa1", task="ordinal")
    with pytest.raises(ValueError, match="fixes"):
        onlinear.make("simproj", scheme="simperc")


# ------------------------------------------------------------------------------------ multiclass
def _reference_kesler(X, y_index, k, scheme, C):
    """Ten-line Kesler loop: SimPerc / SimProj over the pairs (y, s), norm 2‖x‖²."""
    W = np.zeros((k, X.shape[1]))
    for x, r in zip(X, y_index):
        s = W @ x
        margin = s[r] - np.delete(s, r)
        others = np.delete(np.arange(k), r)
        loss = np.maximum(0.0, 1.0 - margin)
        chosen = margin <= 0 if scheme == "simperc" else loss > 0
        if not chosen.any():
            continue
        alpha = np.full(k - 1, C) if scheme == "simperc" else np.minimum(C, loss / (2 * x @ x))
        lam = np.where(chosen, alpha, 0.0) / chosen.sum()
        W[r] += lam.sum() * x
        W[others] -= lam[:, None] * x
    return W


@pytest.mark.parametrize("scheme", ["simperc", "simproj"])
def test_multiclass_equals_a_kesler_reference(scheme):
    X, y = _multiclass()
    model = onlinear.make(scheme, C=0.3).fit(X, y)
    W = _reference_kesler(X, np.searchsorted(model.classes_, y), 4, scheme, 0.3)
    np.testing.assert_allclose(model.coef_, W, rtol=1e-10, atol=1e-12)


def test_multiclass_labels_predictions_and_counts():
    X, y = _multiclass()
    model = onlinear.make("simproj", C=0.3).fit(X, y)
    assert not model.multilabel_
    assert model.classes_.tolist() == ["ant", "bee", "cat", "dog"]
    scores = model.decision_function(X)
    assert scores.shape == (150, 4)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(scores, axis=1)])
    assert model.n_seen_ == 150 and model.n_constraints_ == 150 * 3
    # two classes: one score, positive means classes_[1]
    two = onlinear.make("simproj").fit(X[y != "cat"][:60], np.where(y == "ant", 1, 0)[
        y != "cat"][:60])
    assert two.decision_function(X).shape == (150,)


def test_online_counts_are_the_mistakes_before_each_update():
    """n_mistakes_ (imperfect trials) and n_constraint_mistakes_ equal the metrics evaluated on
    the scores each example met, for multiclass and calibrated multilabel."""
    X, y = _multiclass()
    model = onlinear.make("conproj", C=0.3)
    scores = []
    for x, label in zip(X, y):
        scores.append(_scores_in_engine_order(model, x, 4))
        model.learn_one(x, label, classes=["ant", "bee", "cat", "dog"])
    Y = (np.asarray(y)[:, None] == model.classes_[None, :]).astype(int)
    counts = metrics.pairwise_mistakes(Y, np.array(scores))
    assert (model.n_seen_, model.n_mistakes_, model.n_constraints_,
            model.n_constraint_mistakes_) == counts

    X, Y = _multilabel()
    model = onlinear.make("simproj", C=0.3)
    scores = []
    for x, row in zip(X, Y):
        scores.append(_scores_in_engine_order(model, x, 6))
        model.learn_one(x, row)
    # the calibrated threshold label: relevant against the irrelevant labels, irrelevant
    # against the relevant ones — the same pairs as a 0/1 matrix with θ on both sides
    relevant = np.hstack([Y, np.ones((150, 1), int)])
    irrelevant = np.hstack([1 - Y, np.ones((150, 1), int)])
    s = np.array(scores)
    wrong = imperfect = pairs = 0
    for i in range(150):
        bad = [(r, q) for r in np.flatnonzero(relevant[i]) for q in np.flatnonzero(irrelevant[i])
               if r != q and s[i, r] <= s[i, q]]
        pairs += relevant[i].sum() * irrelevant[i].sum() - 1
        wrong += len(bad)
        imperfect += bool(bad)
    assert (model.n_mistakes_, model.n_constraints_, model.n_constraint_mistakes_) == (
        imperfect, pairs, wrong)


# ------------------------------------------------------------------------------------ multilabel
def test_multilabel_indicator_sets_and_threshold_rule():
    X, Y = _multilabel()
    model = onlinear.make("simproj", C=0.3).fit(X, Y)
    assert model.multilabel_ and model.classes_.tolist() == [0, 1, 2, 3, 4]
    scores = model.decision_function(X)
    assert scores.shape == (150, 5)
    np.testing.assert_array_equal(model.predict(X), (scores > 0).astype(int))
    np.testing.assert_allclose(scores, X @ (model.coef_ - model.threshold_coef_).T, atol=1e-12)
    assert metrics.hamming_loss(Y, model.predict(X)) < 0.2
    # label sets = the same indicator through MultiLabelBinarizer, named labels
    names = np.array(["a", "b", "c", "d", "e"])
    sets = [set(names[row.astype(bool)]) for row in Y]
    by_sets = onlinear.make("simproj", C=0.3).fit(X, sets)
    np.testing.assert_array_equal(by_sets.coef_, model.coef_)
    assert by_sets.classes_.tolist() == names.tolist()
    predicted = by_sets.predict_label_sets(X[:20])
    assert predicted == [tuple(names[row.astype(bool)]) for row in model.predict(X[:20])]
    mlb = MultiLabelBinarizer(classes=names).fit(sets)
    assert by_sets.score(X, sets) == model.score(X, Y) == pytest.approx(
        np.mean(np.all(mlb.transform(sets) == model.predict(X), axis=1)))
    # a numeric threshold works on the plain pairwise model; one-hot rows = multiclass
    plain = onlinear.make("simproj", C=0.3, threshold=0.0).fit(X, Y)
    assert plain.threshold_coef_ is None
    np.testing.assert_array_equal(plain.predict(X), (plain.decision_function(X) > 0).astype(int))
    Xm, ym = _multiclass()
    onehot = (ym[:, None] == np.unique(ym)[None, :]).astype(int)
    np.testing.assert_array_equal(
        onlinear.make("simproj", threshold=0.0).fit(Xm, onehot).coef_,
        onlinear.make("simproj").fit(Xm, ym).coef_)


def test_calibrated_threshold_learns_label_sets_that_a_zero_threshold_misses():
    """Two labels, both often relevant: the pairwise scores sum to zero, so thresholding them
    at 0 can never predict both; the calibrated threshold label can."""
    rng = np.random.default_rng(3)
    X = np.hstack([rng.normal(size=(600, 4)), np.ones((600, 1))])
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] > 0]).astype(int)
    calibrated = onlinear.make("simproj", C=0.5, n_epochs=3).fit(X, Y)
    plain = onlinear.make("simproj", C=0.5, n_epochs=3, threshold=0.0).fit(X, Y)
    assert not np.any(plain.predict(X).sum(axis=1) == 2)
    assert calibrated.score(X, Y) > 0.8 > plain.score(X, Y)


# ------------------------------------------------------------------------------------ ordinal
def test_ordinal_learns_ordered_ranks():
    X, ranks = _ordinal()
    labels = np.array(["low", "mid", "high", "top"])
    model = onlinear.make("simproj", task="ordinal", C=0.5, n_epochs=5, classes=labels)
    model.fit(X, labels[ranks])
    assert model.classes_.tolist() == labels.tolist()
    assert model.thresholds_.shape == (3,) and np.all(np.diff(model.thresholds_) > 0)
    predicted = model.predict(X)
    assert metrics.ordinal_absolute_error(labels[ranks], predicted, classes=labels) < 0.15
    f = X @ model.coef_
    np.testing.assert_array_equal(predicted, labels[np.searchsorted(model.thresholds_, f,
                                                                      side="left")])
    scores = model.decision_function(X)
    np.testing.assert_array_equal(labels[np.argmax(scores, axis=1)], predicted)
    assert model.n_constraints_ == 5 * 300 * 3
    # default order: sorted labels; numbers rank as numbers
    numeric = onlinear.make("simproj", task="ordinal").fit(X, ranks * 10)
    assert numeric.classes_.tolist() == [0, 10, 20, 30]


def test_ordinal_online_counts_are_the_threshold_mistakes():
    X, ranks = _ordinal(n=120)
    model = onlinear.make("simperc", task="ordinal", C=0.5)
    f, b = [], []
    for x, r in zip(X, ranks):
        f.append(x @ model.coef_ if hasattr(model, "classes_") else 0.0)
        b.append(model.thresholds_ if hasattr(model, "classes_") else np.zeros(3))
        model.learn_one(x, r, classes=[0, 1, 2, 3])
    wrong = [metrics.ordinal_mistakes([r], [fi], bi) for r, fi, bi in zip(ranks, f, b)]
    assert model.n_mistakes_ == sum(w.n_imperfect for w in wrong)
    assert model.n_constraint_mistakes_ == sum(w.n_constraint_mistakes for w in wrong)


# ------------------------------------------------------------------------------------ blocks
def test_block_learner_with_single_rows_is_binary_pa1():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(100, 6))
    z = np.where(X @ rng.normal(size=6) > 0, 1.0, -1.0)
    model = onlinear.make("simproj", task="blocks", C=0.2).fit(X, z)
    w = np.zeros(6)
    for x, t in zip(X, z):
        w += min(0.2, max(0.0, 1 - t * (w @ x)) / (x @ x)) * t * x
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-12)
    assert model.classes_.tolist() == [-1.0, 1.0]


def test_block_learner_counts_blocks_and_matches_learn_block():
    data = make_simplex_blocks(60, block_size=6, n_features=40, n_relevant=6,
                               n_margin_samples=5000, random_state=0)
    X, y, block_ptr = data.blocks()
    assert sp.issparse(X) and block_ptr.tolist() == list(range(0, 361, 6))
    model = onlinear.make("simopt", task="blocks", C=0.2).fit(X, y, block_ptr=block_ptr)
    stream = onlinear.make("simopt", task="blocks", C=0.2)
    scores = []
    for t in range(60):
        rows = slice(block_ptr[t], block_ptr[t + 1])
        scores.append(stream.decision_function(X[rows]) if hasattr(stream, "classes_")
                      else np.zeros(6))
        stream.learn_block(X[rows], y[rows], classes=[-1.0, 1.0])
    np.testing.assert_allclose(stream.coef_, model.coef_, rtol=1e-12, atol=1e-15)
    counts = metrics.block_mistakes(y, np.concatenate(scores), block_ptr)
    assert (model.n_seen_, model.n_mistakes_, model.n_constraints_,
            model.n_constraint_mistakes_) == counts
    # a partition into singletons: one set per row, cap C/k_t each (decomposable loss, §7)
    parts = np.tile(np.arange(6), 60)
    split = onlinear.make("simproj", task="blocks", C=0.2).fit(X, y, block_ptr=block_ptr,
                                                                 parts=parts)
    assert split.n_seen_ == 60 and not np.allclose(split.coef_, model.coef_)


def test_multiplicative_updates_stay_on_the_simplex():
    data = make_simplex_blocks(100, block_size=5, n_features=40, n_relevant=6,
                               n_margin_samples=5000, random_state=1)
    X, y, block_ptr = data.blocks()
    model = BlockLearner("simproj", C=data.margin, update="multiplicative", gamma=data.margin)
    model.fit(X, y, block_ptr=block_ptr)
    assert model.coef_.min() > 0 and model.coef_.sum() == pytest.approx(1.0, abs=1e-12)
    assert model.n_updates_ > 0
    Xm, ym = _multiclass()
    signed = np.hstack([Xm, -Xm])
    kesler = onlinear.make("simproj", update="multiplicative", gamma=0.01, C=0.5).fit(signed, ym)
    assert kesler.coef_.min() > 0 and kesler.coef_.sum() == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="no multiplicative form"):
        onlinear.make("optimal", update="multiplicative").fit(Xm, ym)


# ------------------------------------------------------------------------------------ paths agree
def _fits(kind):
    """(make, X, y, extra fit kwargs, classes) for each estimator kind."""
    if kind == "multiclass":
        X, y = _multiclass()
        return lambda: onlinear.make("simopt", C=0.3), X, y, {}, np.unique(y)
    if kind == "multilabel":
        X, Y = _multilabel()
        return lambda: onlinear.make("optimal", C=0.3), X, Y, {}, None
    if kind == "ordinal":
        X, r = _ordinal(n=150)
        return lambda: onlinear.make("sopopo", task="ordinal", C=0.3), X, r, {}, [0, 1, 2, 3]
    data = make_simplex_blocks(40, block_size=4, n_features=30, n_relevant=5,
                               n_margin_samples=5000, random_state=2)
    X, y, block_ptr = data.blocks(sparse=False)
    return (lambda: onlinear.make("conproj", task="blocks", C=0.3), X, y,
            {"block_ptr": block_ptr}, [-1.0, 1.0])


KINDS = ["multiclass", "multilabel", "ordinal", "blocks"]


@pytest.mark.parametrize("kind", KINDS)
def test_dense_csr_float32_and_chunks_agree(kind):
    make, X, y, extra, classes = _fits(kind)
    model = make().fit(X, y, **extra)
    np.testing.assert_array_equal(make().fit(sp.csr_matrix(X), y, **extra).coef_, model.coef_)
    np.testing.assert_allclose(make().fit(X.astype(np.float32), y, **extra).coef_,
                               model.coef_, rtol=1e-4, atol=1e-5)
    chunked = make()
    if kind == "blocks":
        ptr = extra["block_ptr"]
        for lo, hi in [(0, 15), (15, 16), (16, 40)]:
            rows = slice(ptr[lo], ptr[hi])
            chunked.partial_fit(X[rows], y[rows], classes=classes,
                                block_ptr=ptr[lo:hi + 1] - ptr[lo])
    else:
        for rows in (slice(0, 50), slice(50, 51), slice(51, None)):
            chunked.partial_fit(X[rows], y[rows], classes=classes)
    np.testing.assert_array_equal(chunked.coef_, model.coef_)
    assert (chunked.n_seen_, chunked.n_mistakes_, chunked.n_updates_) == (
        model.n_seen_, model.n_mistakes_, model.n_updates_)


def test_label_sets_learn_one_returns_sets():
    stream = SimultaneousProjectionClassifier(C=0.5)
    first = stream.learn_one(np.array([1.0, 0.0]), {"x"}, classes=["x", "y"])
    assert first == ()  # the zero model ranks nothing above the threshold
    stream.learn_one(np.array([0.0, 1.0]), {"y"})
    assert stream.predict_one(np.array([1.0, 0.0])) == ("x",)


@pytest.mark.parametrize("kind", KINDS)
def test_epochs_shuffle_and_pickling(kind):
    make, X, y, extra, _ = _fits(kind)
    a = make().set_params(n_epochs=3, shuffle=True, random_state=7).fit(X, y, **extra)
    b = make().set_params(n_epochs=3, shuffle=True, random_state=7).fit(X, y, **extra)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.n_seen_ == 3 * (len(extra["block_ptr"]) - 1 if extra else X.shape[0])
    clone = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(clone.predict(X), a.predict(X))
    if kind == "blocks":
        clone.partial_fit(X, y, block_ptr=extra["block_ptr"])
        a.partial_fit(X, y, block_ptr=extra["block_ptr"])
    else:
        clone.partial_fit(X, y)
        a.partial_fit(X, y)
    np.testing.assert_array_equal(clone.coef_, a.coef_)


# ------------------------------------------------------------------------------------ bad input
def _bad_inputs(kind, X, y):
    bad_X = X.copy()
    bad_X[3, 1] = np.nan
    cases = [("NaN", bad_X, y), ("features", X[:, :-1], y)]  # the bad row is row 3
    if kind == "multiclass":
        cases.append(("not in classes_", X[:5], np.array(["ant", "bee", "cat", "eel", "cat"])))
    elif kind == "multilabel":
        cases.append(("label columns", X[:5], y[:5, :-1]))
        cases.append(("started on indicator", X[:5], np.arange(5)))
    elif kind == "ordinal":
        cases.append(("not in classes_", X[:5], np.array([0, 1, 2, 9, 1])))
    return cases


@pytest.mark.parametrize("kind", ["multiclass", "multilabel", "ordinal"])
def test_bad_input_leaves_the_model_unchanged(kind):
    make, X, y, _, classes = _fits(kind)
    model = make().fit(X[:100], y[:100])
    for message, bad_X, bad_y in _bad_inputs(kind, X, y):
        before = _state(model)
        with pytest.raises(ValueError, match=message):
            model.partial_fit(bad_X, bad_y)
        _same_state(before, _state(model))
        with pytest.raises(ValueError):
            model.learn_one(bad_X[3], bad_y[3])
        _same_state(before, _state(model))


def test_bad_blocks_are_named_and_leave_the_model_unchanged():
    make, X, y, extra, classes = _fits("blocks")
    model = make().fit(X, y, **extra)
    ptr = extra["block_ptr"]
    before = _state(model)
    for kwargs, message in [
        (dict(block_ptr=ptr[:-1]), "block_ptr must rise"),
        (dict(block_ptr=ptr[::-1]), "block_ptr must rise"),
        (dict(block_ptr=ptr, parts=np.full(X.shape[0], 1)), "number its sets"),
        (dict(block_ptr=ptr, coupling=np.zeros(X.shape[0])), "c_j > 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            model.partial_fit(X, y, **kwargs)
        _same_state(before, _state(model))
    with pytest.raises(ValueError, match="Only binary"):
        make().fit(X, np.arange(X.shape[0]) % 3)


def test_harness_compares_the_new_names():
    from onlinear import harness

    X, y = _multiclass()
    evaluation = harness.compare(X, y, ["simproj", "sopopo", "maxpa"], random_state=0)
    table = evaluation.summary().to_text()
    assert "simproj" in table and "sopopo" in table


def test_threshold_changed_after_training_changes_the_rule_not_the_model():
    X, Y = _multilabel()
    model = onlinear.make("simproj", C=0.3).fit(X, Y)
    decision = model.decision_function(X)
    model.set_params(threshold=0.5)
    np.testing.assert_array_equal(model.predict(X), (decision > 0.5).astype(int))
    assert model.coef_.shape == (5, 8) and model.threshold_coef_ is not None
    plain = onlinear.make("simproj", C=0.3, threshold=0.0).fit(X, Y)
    plain.set_params(threshold="calibrated")  # no threshold label to compare with: cut at 0
    np.testing.assert_array_equal(plain.predict(X), (plain.decision_function(X) > 0).astype(int))
    plain.partial_fit(X, Y)  # still learns with its own columns
    assert plain.threshold_coef_ is None and plain.n_seen_ == 300


def test_decomposed_loss_gives_each_pair_its_own_budget():
    """decompose="singletons" on multiclass SimProj: every pair (y, s) is a set of one with
    budget C/(k − 1), so λ_s = min{C/(k − 1), ℓ_s/(2‖x‖²)} (Amit et al. §7); "per_label" has one
    set per relevant label — one set for multiclass, the plain scheme."""
    X, y = _multiclass()
    C = 0.6
    model = onlinear.make("simproj", C=C, decompose="singletons").fit(X, y)
    index = np.searchsorted(model.classes_, y)
    W = np.zeros((4, X.shape[1]))
    for x, r in zip(X, index):
        others = np.delete(np.arange(4), r)
        loss = np.maximum(0.0, 1.0 - (W[r] @ x - W[others] @ x))
        lam = np.minimum(C / 3, loss / (2 * x @ x))
        W[r] += lam.sum() * x
        W[others] -= lam[:, None] * x
    np.testing.assert_allclose(model.coef_, W, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(
        onlinear.make("simproj", C=C, decompose="per_label").fit(X, y).coef_,
        onlinear.make("simproj", C=C).fit(X, y).coef_)
    Xo, ranks = _ordinal(n=100)
    split = onlinear.make("simproj", task="ordinal", C=C, decompose="singletons").fit(Xo, ranks)
    assert not np.allclose(split.coef_,
                           onlinear.make("simproj", task="ordinal", C=C).fit(Xo, ranks).coef_)


@pytest.mark.parametrize("make", [
    lambda **p: SimultaneousProjectionClassifier(**p),
    lambda **p: BlockLearner(scheme="simperc", **p),
], ids=["classifier", "blocks"])
@pytest.mark.parametrize("started, other", [("additive", "multiplicative"),
                                            ("multiplicative", "additive")])
def test_update_set_while_learning_is_refused_until_fit_restarts(tmp_path, make, started,
                                                                 other):
    """Additive weights (any sign, scale 1) stepped multiplicatively left the simplex, and
    multiplicative ones stepped additively lost their scale, silently: the update a model
    started with is kept until ``fit`` restarts it, as ``average`` and ``dtype`` are (a saved
    or pickled model keeps it too)."""
    rng = np.random.default_rng(5)
    X = np.abs(rng.normal(size=(40, 4)))
    y = np.arange(40) % 2
    model = make(update=started).fit(X, y)
    before = model.decision_function(X)
    onlinear.save(model, tmp_path / "m.onlinear")
    for copy_ in (model, onlinear.load(tmp_path / "m.onlinear"), pickle.loads(pickle.dumps(model))):
        copy_.set_params(update=other)
        for call in (lambda: copy_.partial_fit(X, y), lambda: copy_.predict(X),
                     lambda: copy_.set_params(warm_start=True).fit(X, y)):
            with pytest.raises(ValueError, match=f"update='{other}' was set after the model "
                                                 f"started with update='{started}'"):
                call()
        copy_.set_params(update=started, warm_start=False)
        np.testing.assert_array_equal(copy_.decision_function(X), before)
    model.set_params(update=other).fit(X, y)  # (fit restarts it with the new update)
    fresh = make(update=other).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), fresh.decision_function(X))


def test_a_rank_order_given_twice_must_agree():
    """An ordinal learner's ``classes`` hyperparameter is its rank order; partial_fit's
    ``classes=`` in another order was taken for classes_ while the hyperparameter kept the
    first: the model and get_params disagreed.  Now refused, nothing started."""
    rng = np.random.default_rng(3)
    X, ranks = rng.normal(size=(40, 3)), rng.integers(0, 4, 40)
    model = onlinear.make("simproj", task="ordinal", classes=[3, 2, 1, 0])
    with pytest.raises(ValueError, match=r"classes=\[0, 2, 1, 3\]\) differs from the "
                                         r"estimator's classes=\[3, 2, 1, 0\]"):
        model.partial_fit(X, ranks, classes=[0, 2, 1, 3])
    assert not hasattr(model, "classes_")
    model.partial_fit(X, ranks, classes=np.array([3, 2, 1, 0]))
    assert model.classes_.tolist() == [3, 2, 1, 0]
