"""The tasks (onlinear.tasks) against the engine that serves them.

A task lists the constraints of one target; the engine forms its own.  They must be the same
set: the engine counts them (``n_constraints_``), and the exact projection (``scheme="optimal"``
with a cap C too large to bind) must leave every listed constraint satisfied with margin 1 —
a constraint the task forgot would be left violated, one it invented would be counted too.
"""
import numpy as np
import pytest

import onlinear
from onlinear import BlockLearner, SimultaneousProjectionClassifier, SimultaneousProjectionOrdinal
from onlinear._core import blocks as be
from onlinear.tasks import Blocks, Multiclass, Multilabel, Ordinal

RNG = np.random.default_rng(7)
X = RNG.normal(size=(6, 5))
_KINDS = {"additive": be.UPDATE_ADDITIVE, "multiplicative": be.UPDATE_MULTIPLICATIVE}
TOL = 1e-7  # the exact solver's accuracy on these tiny rounds (its tol is 1e-12)


def _first_round(model, x, target, **fit):
    model.partial_fit(x[None, :], [target], **fit)
    return model


@pytest.mark.parametrize("label", [0, 1, 3])
def test_multiclass_constraints_are_the_engines(label):
    classes = np.arange(4)
    task = Multiclass(classes)
    model = _first_round(SimultaneousProjectionClassifier("optimal", C=1e6), X[0], label,
                         classes=classes)
    pairs = task.constraints(label)
    assert model.n_constraints_ == len(pairs) == 3
    scores = model.decision_function(X[:1])[0]
    for r, s in pairs:
        assert scores[r] - scores[s] >= 1.0 - TOL
    assert model.predict(X[:1])[0] == task.predict(scores[None, :])[0] == label


@pytest.mark.parametrize("relevant", [(0,), (1, 3), (0, 2, 4)])
@pytest.mark.parametrize("calibrated", [True, False])
def test_multilabel_constraints_are_the_engines(relevant, calibrated):
    classes = np.arange(5)
    task = Multilabel(classes, "sets", calibrated)
    model = SimultaneousProjectionClassifier(
        "optimal", C=1e6, threshold="calibrated" if calibrated else 0.0)
    model.partial_fit(X[:1], [frozenset(relevant)], classes=classes)
    (row,) = task.encode([relevant])
    pairs = task.constraints(row)
    n_rel = len(relevant)
    assert len(pairs) == n_rel * (5 - n_rel) + (5 if calibrated else 0)
    assert model.n_constraints_ == len(pairs)
    raw = X[:1] @ model.coef_.T
    if calibrated:
        raw = np.hstack([raw, (X[:1] @ model.threshold_coef_)[:, None]])
    for r, s in pairs:
        assert raw[0, r] - raw[0, s] >= 1.0 - TOL
    if calibrated:  # every relevant label now beats the threshold label, every other loses
        assert task.predict(raw)[0] == tuple(relevant)
    assert model.predict_label_sets(X[:1])[0] == task.predict(raw, model._cut)[0]


@pytest.mark.parametrize("rank", [0, 2, 3])
def test_ordinal_constraints_are_the_engines(rank):
    classes = np.array(["d", "c", "b", "a"])  # a rank order that is not the sorted one
    task = Ordinal(classes)
    model = SimultaneousProjectionOrdinal("optimal", C=1e6)
    model.partial_fit(X[:1], [classes[rank]], classes=classes)
    constraints = task.constraints(rank)
    assert model.n_constraints_ == len(constraints) == 3
    f = X[0] @ model.coef_
    for j, sign in constraints:
        assert sign * (f - model.thresholds_[j]) >= 1.0 - TOL
    assert model.predict(X[:1])[0] == task.predict(np.array([f]), model.thresholds_)[0] \
        == classes[rank]


def test_block_constraints_are_the_engines():
    task = Blocks([-1, 1])
    y = np.array([1, -1, -1, 1])
    model = BlockLearner("optimal", C=1e6).fit(X[:4], y, block_ptr=[0, 4])
    constraints = task.constraints(task.encode(y))
    assert model.n_constraints_ == len(constraints) == 4
    scores = X[:4] @ model.coef_[0]
    for j, sign in constraints:
        assert sign * scores[j] >= 1.0 - TOL
    np.testing.assert_array_equal(model.predict(X[:4]), task.predict(scores))


def _set_ids(keys):
    """The set of each constraint when the sets are the distinct ``keys``, in order."""
    return np.unique(keys, return_inverse=True)[1].ravel()


@pytest.mark.parametrize("task", [Multiclass(np.arange(4)), Multilabel(np.arange(4), "sets", True),
                                  Ordinal(np.arange(4)), Blocks([-1, 1])],
                         ids=lambda task: type(task).__name__)
def test_each_task_names_its_engine_code(task):
    """The one trial routine reads a task's constraints by a code the task names."""
    codes = {name: getattr(be, name) for name in ("TASK_BLOCKS", "TASK_LABEL_SETS",
                                                   "TASK_ORDINAL")}
    assert len(set(codes.values())) == 3
    assert task.engine_task in codes


@pytest.mark.parametrize("kind", ["additive", "multiplicative"])
@pytest.mark.parametrize("decompose", ["none", "per_label", "singletons"])
@pytest.mark.parametrize("target", [0, 2, (1, 0, 1, 2), (0, 1, 1, 0)],
                         ids=["class-0", "class-2", "calibrated", "indicator"])
def test_the_engine_gathers_the_label_set_constraints_the_task_lists(target, decompose, kind):
    """Multiclass and multilabel pairs (r, s): margin s_r − s_s of the scaled scores, squared
    norm 2‖x‖² (multiplicative: ‖x‖_∞²), one set per relevant r when decomposed per label."""
    if isinstance(target, int):
        task = Multiclass(np.arange(4))
        relevance = np.eye(4, dtype=np.uint8)[target]
    else:
        task = Multilabel(np.arange(4 - (2 in target)), "indicator", 2 in target)
        relevance = np.array(target, dtype=np.uint8)
    pairs = np.array(task.constraints(target if isinstance(target, int) else relevance))
    W, scale = RNG.normal(size=(5, 4)), np.array([0.75])
    got = be.gathered(getattr(be, task.engine_task), X[:1], relevance, W, scale, None,
                      _KINDS[kind], be.make_params(decompose=decompose))
    scores = scale[0] * (X[0] @ W)
    np.testing.assert_allclose(got["margin"], scores[pairs[:, 0]] - scores[pairs[:, 1]],
                               rtol=1e-12, atol=1e-12)
    norm = 2 * X[0] @ X[0] if kind == "additive" else np.max(X[0] ** 2)
    np.testing.assert_allclose(got["sqnorm"], np.full(len(pairs), norm), rtol=1e-12)
    sets = {"none": np.zeros(len(pairs)), "per_label": _set_ids(pairs[:, 0]),
            "singletons": np.arange(len(pairs))}[decompose]
    np.testing.assert_array_equal(got["set"], sets)
    np.testing.assert_array_equal(got["coupling"], np.ones(len(pairs)))


@pytest.mark.parametrize("decompose", ["none", "singletons"])
@pytest.mark.parametrize("rank", [0, 2, 3])
def test_the_engine_gathers_the_ordinal_constraints_the_task_lists(rank, decompose):
    """Threshold j with sign ±1: margin sign·(w·x − b_j), squared norm ‖x‖² + 1."""
    task = Ordinal(np.arange(4))
    constraints = np.array(task.constraints(rank))
    w, b = RNG.normal(size=5), np.sort(RNG.normal(size=3))
    got = be.gathered(getattr(be, task.engine_task), X[:1], rank, w, None, b,
                      be.UPDATE_ADDITIVE, be.make_params(decompose=decompose))
    j, sign = constraints[:, 0].astype(int), constraints[:, 1]
    np.testing.assert_allclose(got["margin"], sign * (X[0] @ w - b[j]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got["sqnorm"], np.full(3, X[0] @ X[0] + 1.0), rtol=1e-12)
    np.testing.assert_array_equal(got["set"], np.zeros(3) if decompose == "none" else j)


@pytest.mark.parametrize("kind", ["additive", "multiplicative"])
def test_the_engine_gathers_the_block_constraints_the_task_lists(kind):
    """Row j with label y_j: margin y_j·ω·x_j, squared norm ‖x_j‖² (multiplicative:
    ‖x_j‖_∞²), the rows' sets and coupling weights as given."""
    task = Blocks([-1, 1])
    signs = task.encode(np.array([1, -1, -1, 1, -1]))
    constraints = np.array(task.constraints(signs))
    w, scale = RNG.normal(size=5), np.array([1.5])
    parts, coupling = np.array([0, 1, 0, 2, 1]), RNG.uniform(0.5, 2.0, size=5)
    got = be.gathered(getattr(be, task.engine_task), X[:5], signs, w, scale, None,
                      _KINDS[kind], be.make_params(), parts=parts, coupling=coupling)
    rows, y = constraints[:, 0].astype(int), constraints[:, 1]
    np.testing.assert_allclose(got["margin"], y * scale[0] * (X[rows] @ w), rtol=1e-12,
                               atol=1e-12)
    norms = (X[rows] ** 2).sum(axis=1) if kind == "additive" else (X[rows] ** 2).max(axis=1)
    np.testing.assert_allclose(got["sqnorm"], norms, rtol=1e-12)
    np.testing.assert_array_equal(got["set"], parts[rows])
    np.testing.assert_array_equal(got["coupling"], coupling[rows])


def test_tasks_name_unknown_labels_and_compare_as_values():
    with pytest.raises(ValueError, match=r"\[9\]"):
        Multiclass([1, 2, 3]).encode([1, 9])
    with pytest.raises(ValueError, match="'z'"):
        Multilabel(["a", "b"], "sets", True).encode([("a", "z")])
    with pytest.raises(ValueError, match="9"):
        Ordinal([3, 1, 2]).encode([9])
    with pytest.raises(ValueError, match="two classes"):
        Blocks([1, 2, 3])
    with pytest.raises(ValueError, match="y=5"):
        Ordinal([3, 1, 2]).index_of(5)
    assert Ordinal([3, 1, 2]) == Ordinal([3, 1, 2]) != Ordinal([1, 2, 3])
    assert Multilabel([0, 1], "sets", True) != Multilabel([0, 1], "sets", False)
    assert repr(Multilabel([0, 1], "indicator", False)) == \
        "Multilabel([0, 1], form='indicator', calibrated=False, cut=0.0)"


@pytest.mark.parametrize("threshold", ["calibrated", 0.25])
@pytest.mark.parametrize("dtype", [np.int64, np.uint8, bool, np.float64])
def test_learn_one_returns_the_prediction_made_before_the_round(threshold, dtype):
    """learn_one's per-example paths (one label; one indicator row, in compiled code) predict
    as ``predict`` and the task do."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 6))
    Y = (rng.random((60, 4)) < 0.4).astype(dtype)
    model = SimultaneousProjectionClassifier(threshold=threshold)
    model.learn_one(X[0], Y[0], classes=np.arange(4))
    for x, row in zip(X[1:], Y[1:]):
        before = model.predict(x[None, :])[0]
        np.testing.assert_array_equal(model.learn_one(x, row), before)
    assert model.n_seen_ == 60 and model.n_updates_ > 10
    labels = rng.integers(0, 3, size=60)
    multiclass = SimultaneousProjectionClassifier()
    multiclass.learn_one(X[0], labels[0], classes=[0, 1, 2])
    for x, label in zip(X[1:], labels[1:]):
        before = multiclass.predict(x[None, :])[0]
        assert multiclass.learn_one(x, label) == before


@pytest.mark.parametrize("bad", [[0, 2, 1, 0], [0, -1, 1, 0], [0.5, 0, 1, 0], [np.nan, 0, 1, 0]])
def test_an_indicator_row_other_than_0_1_is_named_and_changes_nothing(bad):
    model = SimultaneousProjectionClassifier()
    model.learn_one(X[0], np.array([1, 0, 0, 1]), classes=np.arange(4))
    coef, counts = model.coef_.copy(), model.n_seen_
    with pytest.raises(ValueError, match="only 0 and 1"):
        model.learn_one(X[1], np.array(bad))
    np.testing.assert_array_equal(model.coef_, coef)
    assert model.n_seen_ == counts


@pytest.mark.parametrize("name", ["simproj", "maxpa", "conproj"])
@pytest.mark.parametrize("values, words", [((-1, 1), r"values \[-1, 1\]: map -1 to 0"),
                                           ((0, 2), r"values \[0, 2\]")])
def test_an_indicator_matrix_other_than_0_1_is_refused_and_changes_nothing(name, values, words):
    """scikit-learn calls any two-valued integer matrix a multilabel indicator; a ±1 matrix
    was read with every non-zero entry relevant (every label predicted for every row)."""
    Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1]])
    model = onlinear.make(name, task="multilabel").fit(X, Y)
    before = model.decision_function(X)
    bad = np.where(Y == 1, values[1], values[0])
    for call in (lambda: model.partial_fit(X, bad), lambda: model.fit(X, bad)):
        with pytest.raises(ValueError, match=r"0/1 indicator matrix \(one column per "
                                             r"label\); got the " + words):
            call()
    np.testing.assert_array_equal(model.decision_function(X), before)
    with pytest.raises(ValueError, match="got the " + words):
        onlinear.make(name, task="multilabel").fit(X, bad)


@pytest.mark.parametrize("sets, words", [
    ([{1.0, np.nan}, {1.0}, {2.0}, set(), {2.0}, {1.0}], "row 0 holds nan, which is no label"),
    ([{1}, {None}, {2}, {1}, {2}, {1}], "row 1 holds None, which is no label"),
    ([{1}, {2}, {1, "a"}, {1}, {2}, {1}],
     "all numbers or all strings: the label set of row 2 holds 'a'"),
])
def test_label_sets_with_nan_none_or_mixed_kinds_are_named_and_change_nothing(sets, words):
    """NaN was reported as a label missing from classes_ holding NaN, and numbers mixed with
    strings as Python's "'<' not supported between instances of 'int' and 'str'"."""
    model = onlinear.make("simproj", task="multilabel").fit(X, [{1}, {2}, {1, 2}, set(), {2},
                                                                 {1}])
    before = model.decision_function(X)
    with pytest.raises(ValueError, match=words):
        model.partial_fit(X, sets)
    bad_row = next(s for s in sets if any(v is None or v != v for v in s) or "a" in s)
    with pytest.raises(ValueError, match="holds"):  # (one example: the same check)
        model.learn_one(X[0], bad_row)
    with pytest.raises(ValueError, match=words):
        onlinear.make("simproj", task="multilabel").fit(X, sets)
    np.testing.assert_array_equal(model.decision_function(X), before)
    assert model.n_seen_ == 6


@pytest.mark.parametrize("target, labels, form, relevant", [
    (("a", "b"), ["a", "b", "c"], "sets", 2), (["a"], ["a", "b", "c"], "sets", 1),
    ({"a"}, ["a", "b", "c"], "sets", 1), ((), [0, 1, 2], "sets", 0),
    (np.array(["a", "b"]), ["a", "b", "c"], "sets", 2),
    ((1,), [0, 1, 2], "sets", 1),  # 0/1 values, but not one per label: the label 1
    ((0, 1, 1), [0, 1, 2], "indicator", 2), (np.array([1, 0, 0]), [0, 1, 2], "indicator", 1),
])
def test_learn_one_reads_one_target_as_fit_reads_a_list_of_them(target, labels, form,
                                                               relevant):
    """A tuple or list of labels is a label set on the first call too (as fit reads a list of
    them); only a 0/1 sequence with one entry per label is an indicator row."""
    model = SimultaneousProjectionClassifier()
    model.learn_one(X[0], target, classes=labels)
    assert model._label_kind == form and model.n_seen_ == 1
    # the constraints of a calibrated round: relevant × (irrelevant + threshold) + irrelevant
    assert model.n_constraints_ == relevant * (3 - relevant + 1) + (3 - relevant)


# ------------------------------------------------------------------ scoring predictions
def test_each_task_scores_its_predictions_and_chunks_add_up():
    """A task turns targets and predictions into its measures; sums over chunks are the
    whole stream's."""
    multiclass = Multiclass(np.array([1, 2, 3]))
    y, predicted = np.array([1, 2, 3, 3, 1]), np.array([1, 3, 3, 2, 1])
    whole = multiclass.score_sums(y, predicted)
    chunked = multiclass.add_sums(multiclass.score_sums(y[:2], predicted[:2]),
                                  multiclass.score_sums(y[2:], predicted[2:]))
    assert whole == chunked == {"examples": 5, "correct": 3}
    assert multiclass.scores(whole) == {"accuracy": 0.6}

    ordinal = Ordinal(["low", "mid", "high"])
    sums = ordinal.score_sums(["low", "high", "mid"], ["high", "high", "low"])
    assert sums == {"examples": 3, "correct": 1, "rank_error": 3}
    assert ordinal.scores(sums) == {"accuracy": 1 / 3, "mean_absolute_rank_error": 1.0}

    sets = Multilabel(["a", "b", "c"], "sets", calibrated=True)
    sums = sets.score_sums([("a",), ("b", "c")], [("a", "b"), ("c",)])
    assert sums == {"examples": 2, "wrong_labels": 2}
    assert sets.scores(sums) == {"hamming_loss": 2 / 6}
    indicator = Multilabel(np.arange(3), "indicator", calibrated=False)
    assert indicator.score_sums(np.array([[1, 0, 0], [0, 1, 1]]),
                                np.array([[1, 1, 0], [0, 0, 1]])) == sums


@pytest.mark.parametrize("task", ["multiclass", "ordinal", "multilabel"])
def test_a_fitted_models_task_scores_its_predictions(task):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    ranks = np.argmax(X[:, :3], axis=1)
    if task == "multilabel":
        y = np.zeros((60, 3), dtype=int)
        y[np.arange(60), ranks] = 1
    else:
        y = ranks
    model = onlinear.make("simproj", task=None if task == "multiclass" else task,
                          n_epochs=3).fit(X, y)
    scores = model.task_.scores(model.task_.score_sums(y, model.predict(X)))
    if task == "multilabel":
        assert scores["hamming_loss"] == np.mean(model.predict(X) != y)
    else:
        assert scores["accuracy"] == model.score(X, y)


def test_each_task_turns_the_models_scores_into_the_estimators_predictions():
    """The protocol's decision_function, predict and predict_one are the task's reading of the
    model's output scores (a binary model's one output, label columns with the threshold
    label's, the margins f − b_j of a rank, a block's score)."""
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(50, 3))
    scores[:5, 1] = scores[:5, 0]  # exact ties at the top: the lowest index, as in training
    scores[:5, 2] = scores[:5, 0] - 1.0
    three = Multiclass(["a", "b", "c"])
    assert three.decision(scores) is scores
    assert three.predict_scores(scores).tolist() == [
        "abc"[int(np.argmax(row))] for row in scores]
    assert three.predict_row(scores[3]) == "abc"[int(np.argmax(scores[3]))] == "a"
    two = Multiclass([-1, 1])
    assert two.decision(scores[:, :1]).tolist() == scores[:, 0].tolist()
    assert two.predict_scores(scores[:, :1]).tolist() == np.where(scores[:, 0] > 0, 1, -1).tolist()
    assert two.predict_scores(scores[:, :2]).tolist() == np.where(
        scores[:, 1] > scores[:, 0], 1, -1).tolist()  # a tie: classes[0]

    labels = Multilabel(["x", "y"], "sets", calibrated=True, cut=0.0)
    relative = scores[:, :2] - scores[:, 2:]
    assert np.array_equal(labels.decision(scores), relative)
    assert np.array_equal(labels.predict_scores(scores), (relative > 0).astype(np.int64))
    assert labels.predict_row(np.array([1.0, -2.0, 0.5])) == ("x",)
    assert Multilabel(["x", "y"], "indicator", False, cut=0.7).predict_row(
        np.array([0.8, 0.6])).tolist() == [1, 0]
    assert labels.scoring_targets([("y",), ("x", "y")]).tolist() == [[0, 1], [1, 1]]

    ranks = Ordinal(["low", "mid", "high"])
    f, thresholds = rng.normal(size=50), np.array([-0.3, 0.4])
    f[:4] = [-0.3, 0.4, -0.3, 0.4]  # exactly on a threshold: the lower rank
    margins = f[:, None] - thresholds[None, :]
    assert ranks.predict_scores(margins).tolist() == ranks.predict(f, thresholds).tolist()
    assert np.array_equal(ranks.decision(margins), ranks.cumulative_scores(f, thresholds))
    assert ranks.predict_row(margins[0]) == "low" and ranks.predict_row(margins[1]) == "mid"

    blocks = Blocks([-1, 1])
    assert blocks.predict_scores(np.array([0.5, 0.0, -1.0])).tolist() == [1, -1, -1]
    assert blocks.predict_row(0.0) == -1 and blocks.predict_row(2.0) == 1
