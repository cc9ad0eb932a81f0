"""The river adapter: dict examples, river pipelines and evaluation, a vocabulary or hashed
columns that grow with the stream, labels that appear one at a time — and, underneath, exactly the
onlinear model fed the equivalent numpy rows."""
import itertools
import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from river import checks, datasets, evaluate, linear_model, metrics, multiclass, preprocessing
from sklearn.feature_extraction import FeatureHasher

import onlinear
from onlinear.river_adapter import DENSE_MAX, RiverClassifier


def _scaled(dataset, n=None):
    """(x, y) of a river dataset after an online StandardScaler, as dicts."""
    scaler, out = preprocessing.StandardScaler(), []
    for x, y in itertools.islice(dataset, n):
        scaler.learn_one(x)
        out.append((scaler.transform_one(x), y))
    return out


SEGMENTS = _scaled(datasets.ImageSegments(), 600)


def _river_accuracy(dataset, model):
    pipeline = preprocessing.StandardScaler() | model
    return evaluate.progressive_val_score(dataset, pipeline, metrics.Accuracy()).get()


# ------------------------------------------------------------------ river's own streams and metrics
@pytest.mark.parametrize("dataset, floor", [(datasets.Phishing, 0.82), (datasets.ImageSegments,
                                                                         0.83)])
def test_progressive_validation_in_a_pipeline_next_to_rivers_ovr_pa(dataset, floor):
    # measured: Phishing pa 0.837, OvR(PA) 0.845; ImageSegments pa 0.853, OvR(PA) 0.801
    ours = _river_accuracy(dataset(), RiverClassifier("pa"))
    theirs = _river_accuracy(dataset(), multiclass.OneVsRestClassifier(linear_model.PAClassifier()))
    assert ours >= floor
    assert ours >= theirs - 0.02


def test_rivers_own_estimator_checks_pass():
    for check in checks.yield_checks(RiverClassifier("pa")):
        if check.__name__ != "check_bounded_memory_growth":  # ~1.3 s; nothing stored per example
            check(RiverClassifier("pa"))


def test_clone_is_fresh_and_the_template_stays_unfitted():
    template = onlinear.make("pa1", C=0.5)
    adapter = RiverClassifier(template)
    for x, y in SEGMENTS[:50]:
        adapter.learn_one(x, y)
    assert adapter.estimator_ is not template and adapter.estimator_.C == 0.5
    assert not hasattr(template, "classes_")
    fresh = adapter.clone()
    assert fresh.estimator_ is None and fresh.vocabulary_ == {}
    assert fresh.predict_one(SEGMENTS[0][0]) is None


# ------------------------------------------------------------------ labels one at a time
def test_predict_before_learning_is_none_then_the_one_label_seen():
    adapter = RiverClassifier("pa")
    x = {"a": 1.0, "b": -2.0}
    assert adapter.predict_one(x) is None
    assert adapter.predict_proba_one(x) == {}
    adapter.learn_one(x, "cat")
    adapter.learn_one({"a": 0.5}, "cat")
    assert adapter.estimator_ is None  # one label: nothing to separate yet
    assert adapter.predict_one(x) == "cat"
    assert adapter.predict_proba_one(x) == {"cat": 1.0}


def _rows(stream, names):
    """The stream's dicts as dense numpy rows, columns in the order ``names``."""
    return [np.array([x.get(name, 0.0) for name in names], dtype=np.float64) for x, _ in stream]


def _learn_numpy(name, stream, rows, first_classes):
    """The onlinear model fed numpy rows: started with ``first_classes``, each new label later
    named in ``classes=`` (how the core grows)."""
    model, known = onlinear.make(name), set(first_classes)
    for i, ((_, y), row) in enumerate(zip(stream, rows)):
        if i == 0 or y not in known:
            known.add(y)
            model.learn_one(row, y, classes=sorted(known))
        else:
            model.learn_one(row, y)
    return model


@pytest.mark.parametrize("name", ["pa", "mira", "spa1"])
def test_the_adapter_is_the_onlinear_model_fed_numpy_rows_bit_for_bit(name):
    # a prefix of one label (kept, then learned again when the second label arrives)
    prefix = [i for i in range(1, 400) if SEGMENTS[i][1] == SEGMENTS[1][1]][:5]
    stream = [SEGMENTS[i] for i in prefix] + \
        [SEGMENTS[i] for i in range(1, 400) if i not in prefix]
    adapter = RiverClassifier(name)
    predicted = []
    for x, y in stream:
        predicted.append(adapter.predict_one(x))
        adapter.learn_one(x, y)
    names = list(adapter.vocabulary_)
    assert names == list(stream[0][0])  # a fixed vocabulary: every name in the first example
    labels = [y for _, y in stream]
    first_two = [labels[0], next(y for y in labels if y != labels[0])]
    model = _learn_numpy(name, stream, _rows(stream, names), first_two)
    np.testing.assert_array_equal(adapter.estimator_.classes_, model.classes_)
    np.testing.assert_array_equal(adapter.estimator_.coef_, model.coef_)  # bit for bit
    assert adapter.estimator_.n_updates_ == model.n_updates_
    rows = np.array(_rows(SEGMENTS[400:], names))
    ours = [adapter.predict_one(x) for x, _ in SEGMENTS[400:]]
    assert ours == model.predict(rows).tolist()
    # before the second label: the first label; after: a real model (not a constant)
    n_first = labels.index(first_two[1])
    assert n_first == 5
    assert predicted[:n_first + 1] == [None] + [labels[0]] * n_first
    assert len(set(predicted[n_first + 1:])) > 2


def test_a_new_label_mid_stream_grows_the_model():
    stream = [(x, y) for x, y in SEGMENTS if y != "sky"][:200] + \
        [(x, y) for x, y in SEGMENTS if y == "sky"][:20]
    adapter = RiverClassifier("pa")
    for x, y in stream[:200]:
        adapter.learn_one(x, y)
    assert "sky" not in adapter.estimator_.classes_
    hits = 0
    for x, y in stream[200:]:
        hits += adapter.predict_one(x) == "sky"
        adapter.learn_one(x, y)
    assert "sky" in adapter.estimator_.classes_ and hits >= 10  # learned it
    assert set(adapter.predict_proba_one(stream[-1][0])) == set(adapter.estimator_.classes_)


def test_a_new_feature_name_mid_stream_widens_the_model():
    adapter = RiverClassifier("pa")
    names = ["a", "b", "c"]
    rng = np.random.default_rng(0)
    stream = []
    for t in range(300):
        n = 2 if t < 100 else 3  # "c" appears at example 100
        x = dict(zip(names[:n], rng.normal(size=n)))
        stream.append((x, int(x["a"] + (x.get("c", 0.0) > 0.5) > 0) + 2 * (x["b"] > 1)))
    for t, (x, y) in enumerate(stream):
        if t == 100:
            assert adapter.estimator_.n_features_in_ == 2
        adapter.learn_one(x, y)
    assert adapter.vocabulary_ == {"a": 0, "b": 1, "c": 2}
    assert adapter.estimator_.n_features_in_ == 3
    # grown at example 100 = the model fed 3-wide rows from the start
    labels = [y for _, y in stream]
    first_two = [labels[0], next(y for y in labels if y != labels[0])]
    wide = _learn_numpy("pa", stream, _rows(stream, names), first_two)
    np.testing.assert_array_equal(adapter.estimator_.classes_, wide.classes_)
    np.testing.assert_array_equal(adapter.estimator_.coef_, wide.coef_)
    # names never seen in training are ignored when predicting (their weight would be 0)
    x = {"a": 1.0, "b": 2.0, "c": 0.1}
    assert adapter.predict_one(dict(x, unseen=5.0)) == adapter.predict_one(x)
    assert "unseen" not in adapter.vocabulary_


def test_a_wide_vocabulary_switches_to_csr_rows():
    adapter = RiverClassifier("pa")
    rng = np.random.default_rng(1)
    for t in range(60):  # 200 new words an example: 12,000 names, past DENSE_MAX
        x = {f"w{t}_{i}": 1.0 for i in range(200)}
        adapter.learn_one(x, t % 3)
    assert len(adapter.vocabulary_) == 12_000 > DENSE_MAX
    assert adapter.estimator_.n_features_in_ >= 12_000
    x = {f"w59_{i}": 1.0 for i in rng.integers(0, 200, 20)}
    assert adapter.predict_one(x) == 59 % 3


# ------------------------------------------------------------------ hashing
def _random_dicts(n, seed):
    rng = np.random.default_rng(seed)
    words = [f"f{i}" for i in range(40)] + ["é", "naïve", "日本"]
    out = []
    for _ in range(n):
        x = {str(rng.choice(words)): float(rng.normal()) for _ in range(8)}
        x["colour"] = str(rng.choice(["red", "green", "blue"]))
        out.append(x)
    return out


@pytest.mark.parametrize("n_features", [16, 2 ** 14])  # dense rows, then CSR rows
def test_hashing_is_feature_hashers_columns_and_signs(n_features):
    xs = _random_dicts(150, seed=n_features)
    ys = [int(x.get("f1", 0.0) > 0) + (x["colour"] == "red") for x in xs]
    hashed = FeatureHasher(n_features=n_features, input_type="dict").transform(xs)
    adapter = RiverClassifier("pa", n_features=n_features)
    for x, y in zip(xs, ys):
        adapter.learn_one(x, y)
    rows = [hashed[i] if n_features > DENSE_MAX else hashed[i].toarray()[0]
            for i in range(len(xs))]
    first_two = [ys[0], next(y for y in ys if y != ys[0])]
    model = _learn_numpy("pa", list(zip(xs, ys)), rows, first_two)
    assert adapter.vocabulary_ == {}
    np.testing.assert_array_equal(adapter.estimator_.coef_, model.coef_)
    assert adapter.estimator_.n_features_in_ == n_features


def test_string_values_are_one_hot_and_none_is_missing():
    adapter = RiverClassifier("pa")
    adapter.learn_one({"colour": "red", "size": 1.0, "age": None}, "a")
    adapter.learn_one({"colour": "blue", "size": 2.0}, "b")
    assert adapter.vocabulary_ == {"colour=red": 0, "size": 1, "age": 2, "colour=blue": 3}
    assert adapter.predict_one({"colour": "blue", "size": 2.0}) == "b"


# ------------------------------------------------------------------ probabilities
def test_predict_proba_one_is_a_softmax_of_the_scores_summing_to_one():
    adapter = RiverClassifier("pa")
    for x, y in SEGMENTS[:300]:
        adapter.learn_one(x, y)
    for x, _ in SEGMENTS[300:340]:
        proba = adapter.predict_proba_one(x)
        assert sum(proba.values()) == pytest.approx(1.0, abs=1e-12)
        assert max(proba, key=proba.get) == adapter.predict_one(x)
        assert list(proba) == adapter.estimator_.classes_.tolist()
        scores = adapter.estimator_.decision_function(
            np.array([[x[name] for name in adapter.vocabulary_]]))[0]
        expected = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        np.testing.assert_allclose(list(proba.values()), expected, rtol=1e-12)


def test_predict_proba_one_of_a_binary_rule_is_the_sigmoid_of_its_score():
    adapter = RiverClassifier("perceptron")
    stream = _scaled(datasets.Phishing(), 200)
    for x, y in stream:
        adapter.learn_one(x, y)
    x = stream[-1][0]
    score = adapter.estimator_.decision_function(
        np.array([[x[name] for name in adapter.vocabulary_]]))[0]
    proba = adapter.predict_proba_one(x)
    assert set(proba) == {False, True}
    assert proba[True] == pytest.approx(1 / (1 + np.exp(-score)), rel=1e-12)
    assert sum(proba.values()) == pytest.approx(1.0)


def test_a_logistic_learner_gives_its_probabilities_to_rivers_log_loss_and_roc_auc():
    """FTRL-Proximal (logistic loss) through the adapter, in river's progressive validation with
    river's LogLoss and ROCAUC: the probabilities are the estimator's predict_proba, and they
    are informative on Phishing (a log loss well below the constant guess's log 2)."""
    adapter = RiverClassifier("ftrl")
    log_loss, auc = metrics.LogLoss(), metrics.ROCAUC()
    evaluate.progressive_val_score(datasets.Phishing(), preprocessing.StandardScaler() | adapter,
                                   metrics.Accuracy() + log_loss + auc)
    assert log_loss.get() < 0.75 * np.log(2) and auc.get() > 0.85
    x = _scaled(datasets.Phishing(), 1)[0][0]
    proba = adapter.predict_proba_one(x)
    row = np.array([[x[name] for name in adapter.vocabulary_]])
    np.testing.assert_allclose([proba[False], proba[True]],
                               adapter.estimator_.predict_proba(row)[0], rtol=1e-12)


# ------------------------------------------------------------------ learners that cannot grow
def test_a_learner_that_cannot_add_a_class_says_so_at_that_label():
    adapter = RiverClassifier("romma")
    stream = [(x, y) for x, y in SEGMENTS if y in ("sky", "grass")][:40]
    for x, y in stream:
        adapter.learn_one(x, y)
    new = next(x for x, y in SEGMENTS if y == "cement")
    before = adapter.estimator_.coef_.copy()
    with pytest.raises(ValueError, match="classes=") as error:
        adapter.learn_one(new, "cement")
    assert "binary rule" in str(error.value)
    np.testing.assert_array_equal(adapter.estimator_.coef_, before)  # unchanged
    assert "cement" not in adapter.predict_proba_one(new)
    declared = RiverClassifier("romma", classes=["sky", "grass", "cement"])
    for x, y in stream + [(new, "cement")]:
        declared.learn_one(x, y)
    assert declared.estimator_.classes_.tolist() == ["cement", "grass", "sky"]


@pytest.mark.parametrize("name", ["multiplicative", "iellip"])
def test_a_learner_that_cannot_widen_says_so_at_that_name(name):
    labels = sorted({y for _, y in SEGMENTS})
    adapter = RiverClassifier(name, classes=labels)
    for x, y in SEGMENTS[:30]:
        adapter.learn_one(x, y)
    vocabulary = dict(adapter.vocabulary_)
    x, y = SEGMENTS[30]
    with pytest.raises(ValueError, match=r"n_features=2\*\*k"):
        adapter.learn_one(dict(x, brand_new=1.0), y)
    assert adapter.vocabulary_ == vocabulary  # the name did not join
    adapter.learn_one(x, y)  # and the stream goes on
    hashed = RiverClassifier(name, n_features=64, classes=labels)
    for x, y in SEGMENTS[:30] + [(dict(x, brand_new=1.0), y)]:
        hashed.learn_one(x, y)


def test_a_bad_value_raises_at_its_example_and_the_stream_goes_on():
    adapter = RiverClassifier("pa")
    adapter.learn_one({"a": 1.0}, 0)
    with pytest.raises(ValueError, match="NaN"):  # kept for later: checked now
        adapter.learn_one({"a": float("nan"), "b": 1.0}, 0)
    assert adapter.vocabulary_ == {"a": 0}
    adapter.learn_one({"a": -1.0}, 1)
    with pytest.raises(ValueError, match="NaN"):  # the model's own check
        adapter.learn_one({"a": 1.0, "c": float("inf")}, 1)
    assert adapter.vocabulary_ == {"a": 0} and adapter.estimator_.n_seen_ == 2
    assert adapter.predict_one({"a": 2.0}) == 0


def test_multilabel_is_refused():
    with pytest.raises(TypeError, match="multilabel"):
        RiverClassifier("pa").learn_one({"a": 1.0}, {"x": True, "y": False})


# ------------------------------------------------------------------ river stays optional
def test_onlinear_never_imports_river_and_the_adapter_imports_without_it():
    code = (
        "import sys\n"
        "import onlinear\n"
        "assert 'river' not in sys.modules, 'import onlinear imported river'\n"
        "sys.modules['river'] = None  # as if river were not installed\n"
        "from onlinear.river_adapter import RiverClassifier\n"
        "try:\n"
        "    RiverClassifier('pa')\n"
        "except ImportError as error:\n"
        "    assert 'onlinear[river]' in str(error), error\n"
        "else:\n"
        "    raise AssertionError('built without river')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_csr_rows_of_a_wide_hashed_model_are_canonical():
    adapter = RiverClassifier("pa", n_features=2 ** 16)
    row = adapter._row([5, 3, 5, 9], [1.0, 2.0, -1.0, 0.0], 2 ** 16)
    assert sp.issparse(row) and row.has_canonical_format
    assert row.indices.tolist() == [3] and row.data.tolist() == [2.0]


def test_a_bad_value_under_a_new_name_leaves_the_adapter_as_it_was():
    adapter = RiverClassifier("pa")
    for x, y in SEGMENTS[:20]:
        adapter.learn_one(x, y)
    untouched = pickle.loads(pickle.dumps(adapter))
    width = adapter.estimator_.n_features_in_
    for bad in ({**SEGMENTS[20][0], "brand_new": float("nan")},
                {**SEGMENTS[20][0], "brand_new": 1e300, "other_new": 1e300}):
        with pytest.raises(ValueError, match="NaN|norm"):
            adapter.learn_one(bad, SEGMENTS[20][1])
        assert adapter.vocabulary_ == untouched.vocabulary_
        assert adapter.estimator_.n_features_in_ == width
    for x, y in SEGMENTS[20:60] + [({**SEGMENTS[60][0], "brand_new": 1.0}, SEGMENTS[60][1])]:
        adapter.learn_one(x, y)
        untouched.learn_one(x, y)
    np.testing.assert_array_equal(adapter.estimator_.coef_, untouched.estimator_.coef_)
    assert adapter.vocabulary_ == untouched.vocabulary_


def test_a_new_label_refused_under_a_new_name_leaves_the_width_as_it_was():
    adapter = RiverClassifier("binary-mira")
    adapter.learn_one({"a": 1.0}, "x")
    adapter.learn_one({"a": -1.0}, "y")
    with pytest.raises(ValueError, match="new label 'z'"):
        adapter.learn_one({"a": 1.0, "b": 2.0}, "z")
    assert adapter.vocabulary_ == {"a": 0} and adapter.estimator_.n_features_in_ == 1


@pytest.mark.parametrize("x", [[1.0, 2.0], np.array([1.0, 2.0]), (1.0, 2.0), 3.0],
                         ids=["list", "ndarray", "tuple", "float"])
@pytest.mark.parametrize("started", [False, True], ids=["before the start", "started"])
def test_an_example_that_is_not_a_dict_is_a_type_error_naming_both(x, started):
    adapter = RiverClassifier("pa")
    if started:
        adapter.learn_one({"a": 1.0}, 0)
        adapter.learn_one({"a": -1.0}, 1)
    calls = [lambda: adapter.learn_one(x, 0), lambda: adapter.predict_one(x),
             lambda: adapter.predict_proba_one(x)]
    expected = rf"x must be a dict \{{feature name: value\}}.*; got {type(x).__name__}"
    for call in calls:
        with pytest.raises(TypeError, match=expected):
            call()
    assert adapter.vocabulary_ == ({"a": 0} if started else {})


def test_a_bad_value_under_a_name_never_learned_is_refused_by_predict_too():
    # an unseen name has zero weight, but NaN is a broken stream (a name the model knows with
    # NaN is refused by the model itself)
    adapter = RiverClassifier("pa")
    for x, y in SEGMENTS[:20]:
        adapter.learn_one(x, y)
    for method in (adapter.predict_one, adapter.predict_proba_one):
        with pytest.raises(ValueError, match="NaN or infinity .*'brand_new'"):
            method({**SEGMENTS[20][0], "brand_new": float("nan")})
    assert adapter.predict_one({**SEGMENTS[20][0], "brand_new": 1.0}) == \
        adapter.predict_one(SEGMENTS[20][0])


def test_labels_of_mixed_kinds_are_refused_never_stringified():
    """Integer labels then a string one: refused as a TypeError naming both kinds (labels are
    kept sorted, and a str sorts against no number), the adapter unchanged — not the integer
    labels turned into strings, nor ``<`` across the kinds."""
    stream = [(x, i % 3) for i, (x, _) in enumerate(SEGMENTS[:30])]
    adapter = RiverClassifier("pa")
    for x, y in stream:
        adapter.learn_one(x, y)
    x = SEGMENTS[30][0]
    before = pickle.dumps(adapter)
    with pytest.raises(TypeError, match="all numbers or all strings"):
        adapter.learn_one(x, "cat")
    assert pickle.dumps(adapter) == before
    assert adapter.estimator_.classes_.tolist() == [0, 1, 2]
    assert adapter.predict_one(x) in (0, 1, 2)
    adapter.learn_one(x, 3)  # a new label of the stream's kind still grows the model
    assert adapter.estimator_.classes_.tolist() == [0, 1, 2, 3]
    waiting = RiverClassifier("pa")  # before the model starts (one label kept so far)
    waiting.learn_one(x, 0)
    with pytest.raises(TypeError, match="all numbers or all strings"):
        waiting.learn_one(x, "cat")
    with pytest.raises(TypeError, match="all numbers or all strings"):
        RiverClassifier("pa", classes=[0, 1, "cat"]).learn_one(x, 0)


# ------------------------------------------------------------------ kept rows, names, NaN labels
def _state(adapter):
    """Everything the adapter holds (vocabulary, kept rows, labels, model), pickled — but the
    hashing mode's memo of name → (column, sign), a cache of a fixed function."""
    return pickle.dumps({k: v for k, v in vars(adapter).items() if k != "_hashed"})


def _first_label_then_second(n_kept):
    """River's ImageSegments (scaled): ``n_kept`` examples of its first label, then the first
    example of another label."""
    first = SEGMENTS[0][1]
    kept = [(x, y) for x, y in SEGMENTS if y == first][:n_kept]
    return kept, next((x, y) for x, y in SEGMENTS if y != first)


@pytest.mark.parametrize("model, bad", [
    ("pa", {"a": 1e300}),  # the tester's row: norm beyond 2^505
    ("pa", {"a": 1e-200}),  # norm below 2^-505 (not 0)
    (onlinear.make("pa1", C=0.5, dtype="float32"), {"a": 1e10}),  # beyond float32's 2^32
], ids=["huge", "tiny", "float32"])
def test_a_row_the_model_would_refuse_is_refused_when_offered_not_kept(model, bad):
    kept, (x2, y2) = _first_label_then_second(3)
    y1 = kept[0][1]
    adapter = RiverClassifier(model)
    for x, y in kept:
        adapter.learn_one(x, y)
    before = _state(adapter)
    predictions = [adapter.predict_one(x) for x, _ in SEGMENTS[:20]]
    for row in (bad, dict.fromkeys(kept[1][0], 0.0) | bad):  # new names only; and known ones
        with pytest.raises(ValueError, match=r"x has norm .*rescale the data"):
            adapter.learn_one(row, y1)
        assert _state(adapter) == before  # not kept, no name joined, nothing else changed
        assert len(adapter._kept) == 3 and "a" not in adapter.vocabulary_
        assert adapter.estimator_ is None and adapter.predict_proba_one(x2) == {y1: 1.0}
        assert [adapter.predict_one(x) for x, _ in SEGMENTS[:20]] == predictions
    adapter.learn_one(x2, y2)  # the second label starts the model with the kept rows
    assert adapter.estimator_ is not None
    assert adapter.estimator_.classes_.tolist() == sorted([y1, y2])
    clean = RiverClassifier(model)  # = the stream without the refused rows
    for x, y in kept + [(x2, y2)]:
        clean.learn_one(x, y)
    np.testing.assert_array_equal(adapter.estimator_.coef_, clean.estimator_.coef_)
    assert adapter.vocabulary_ == clean.vocabulary_
    assert adapter.estimator_.n_seen_ == clean.estimator_.n_seen_ == 4
    # the refusal is the model's own: the started model refuses the row with the same words
    with pytest.raises(ValueError, match=r"x has norm .*rescale the data"):
        adapter.learn_one(bad, y2)


def test_a_kept_hashed_row_is_checked_with_its_colliding_columns_summed():
    from onlinear.river_adapter import hashed_column
    n_features = 4
    by_place = {}
    for i in range(200):
        by_place.setdefault(hashed_column(f"n{i}", n_features), []).append(f"n{i}")
    column, plus = next((col, names) for (col, sign), names in by_place.items()
                        if sign > 0 and len(names) >= 2 and (col, -1.0) in by_place)
    minus = by_place[(column, -1.0)]
    big = 0.6 * 2.0 ** 505  # alone (or in two columns) accepted; two summed in one column: not
    kept, (x2, y2) = _first_label_then_second(3)
    y1 = kept[0][1]
    adapter = RiverClassifier("pa", n_features=n_features)
    for x, y in kept:
        adapter.learn_one(x, y)
    before = _state(adapter)
    with pytest.raises(ValueError, match="x has norm"):
        adapter.learn_one({plus[0]: big, plus[1]: big}, y1)  # one column: 1.2 · 2^505
    assert _state(adapter) == before and len(adapter._kept) == 3
    RiverClassifier("pa").learn_one({plus[0]: big, plus[1]: big}, y1)  # two columns: accepted
    adapter.learn_one({plus[0]: 1e300, minus[0]: 1e300}, y1)  # cancel out: a zero row, kept
    assert len(adapter._kept) == 4
    adapter.learn_one(x2, y2)  # and the kept rows start the model
    assert adapter.estimator_.classes_.tolist() == sorted([y1, y2])
    assert adapter.estimator_.n_seen_ == 5


@pytest.mark.parametrize("model, error", [
    ("nosuch", "unknown algorithm 'nosuch'"),
    (onlinear.make("pa1").set_params(C=-1.0), "'C' parameter of PassiveAggressive"),
    (onlinear.make("pa1").set_params(average=True, dtype="float32"), "needs dtype='float64'"),
], ids=["unknown name", "bad C", "bad combination"])
def test_a_bad_algorithm_or_parameter_fails_when_the_adapter_is_built(model, error):
    with pytest.raises(ValueError, match=error):
        RiverClassifier(model)
    good = RiverClassifier("pa1" if isinstance(model, str) else model.set_params(
        C=1.0, average=False, dtype="float64"))
    assert good.clone().estimator_ is None  # (river's clone builds it again, checked)
    for x, y in SEGMENTS[:30]:
        good.learn_one(x, y)
    assert good.estimator_ is not None


@pytest.mark.parametrize("nan", [float("nan"), np.float64("nan"), np.float32("nan")],
                         ids=["float", "float64", "float32"])
@pytest.mark.parametrize("labels", [[], ["cat"], ["cat", "dog"], [0, 1]],
                         ids=["first", "one kept", "strings", "numbers"])
def test_a_nan_label_is_refused_as_nan_leaving_the_adapter_as_it_was(labels, nan):
    adapter = RiverClassifier("pa")
    for (x, _), y in zip(SEGMENTS, labels):
        adapter.learn_one(x, y)
    before = _state(adapter)
    x = SEGMENTS[10][0]
    predicted = adapter.predict_one(x)
    with pytest.raises(ValueError, match=r"label (np\.float\d+\()?nan\)? is NaN, not a valid"):
        adapter.learn_one({**x, "new_name": 1.0}, nan)
    assert _state(adapter) == before and adapter.predict_one(x) == predicted
    assert "new_name" not in adapter.vocabulary_


def test_a_nan_feature_name_and_an_int_beyond_float64_are_refused_by_name():
    """A NaN key equals no key, itself included: each example's NaN became a new column of
    the vocabulary.  An int beyond float64 raised a bare OverflowError.  Both are refused
    naming the problem, the model unchanged."""
    from onlinear.river_adapter import RiverClassifier

    model = RiverClassifier(model="pa")
    model.learn_one({"a": 1.0, "b": 2.0}, "x")
    model.learn_one({"a": 0.5, "b": -1.0}, "y")
    vocabulary = dict(model.vocabulary_)
    for _ in range(3):
        with pytest.raises(ValueError, match="a feature name is nan, which equals no name"):
            model.learn_one({float("nan"): 1.0, "a": 1.0}, "x")
    for call in (lambda: model.learn_one({"a": 10 ** 400}, "x"),
                 lambda: model.predict_one({"a": 10 ** 400}),
                 lambda: model.predict_one({"new": -10 ** 400})):
        with pytest.raises(ValueError, match="an int of 401 digits, beyond the range of float64"):
            call()
    assert model.vocabulary_ == vocabulary
    assert model.predict_one({"a": 10 ** 300}) in ("x", "y")
