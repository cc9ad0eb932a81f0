"""The river adapter, review 7: an ordinal learner's rank order kept as declared (never
sorted); hashed non-string feature names cached under the string hashed (1, 1.0 and True are
three features, whatever the cache held); the learners whose two-class model is their binary
learner, named with the remedy at a stream's third label; and feature values that are not
numbers refused naming the feature."""
import datetime
import decimal
import fractions
import itertools
import pickle
import re

import numpy as np
import pytest
from river import datasets, evaluate, metrics, preprocessing, stream
from sklearn.feature_extraction import FeatureHasher

import onlinear
from onlinear import river_adapter
from onlinear.river_adapter import RiverClassifier, hashed_column

RANKS = ["low", "mid", "high"]  # lowest first, and not in sorted order


def _ordinal_stream(n=400, seed=0):
    """(X, labels, river stream) of ranks ``RANKS`` cut from a linear score of two features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    labels = np.array(RANKS)[np.digitize(X @ [2.0, -1.0], [-1.0, 1.0])]
    return X, labels, stream.iter_array(X, labels, feature_names=["a", "b"])


def _state(adapter):
    """Everything the adapter holds, pickled, but the hashing mode's cache of a fixed function."""
    return pickle.dumps({k: v for k, v in vars(adapter).items() if k != "_hashed"})


# ------------------------------------------------------------------ A. ordinal rank order
@pytest.mark.parametrize("own, given", [(None, RANKS), (RANKS, None), (RANKS, RANKS),
                                        (np.array(RANKS), list(RANKS))])
def test_an_ordinal_learner_learns_in_the_declared_rank_order(own, given):
    """The rank order is the learner's ``classes`` or the adapter's, as given: the adapter
    holds exactly the onlinear ordinal model fed the numpy rows with ``classes=RANKS``.  It
    used to sort them (high < low < mid), or to refuse every example when both gave the same
    order ("give one of them, or the same")."""
    X, labels, examples = _ordinal_stream()
    learner = onlinear.make("simproj", task="ordinal", classes=own)
    adapter = RiverClassifier(learner, classes=given)
    for x, y in examples:
        adapter.learn_one(x, y)
    model = onlinear.make("simproj", task="ordinal")
    for i, (row, y) in enumerate(zip(X, labels)):
        model.learn_one(row, y, classes=RANKS if i == 0 else None)
    assert adapter.estimator_.classes_.tolist() == RANKS
    np.testing.assert_array_equal(adapter.estimator_.coef_, model.coef_)
    np.testing.assert_array_equal(adapter.estimator_.thresholds_, model.thresholds_)
    assert [adapter.predict_one({"a": a, "b": 0.0}) for a in (-2.0, 0.0, 2.0)] == RANKS


def test_an_ordinal_learner_in_rivers_progressive_validation():
    """River's own evaluation of the ordinal adapter: the declared order learns the ranks (the
    sorted order, high < low < mid, cannot: 'mid' is not between the others)."""
    *_, examples = _ordinal_stream(1000, seed=1)
    adapter = RiverClassifier(onlinear.make("simproj", task="ordinal"), classes=RANKS)
    accuracy = evaluate.progressive_val_score(examples, adapter, metrics.Accuracy())
    assert accuracy.get() > 0.9


def test_an_ordinal_learner_without_a_rank_order_is_refused_when_built():
    """No order: refused at construction, asking for ``classes`` lowest first (it used to start
    on the first two ranks seen, sorted, and refuse the third)."""
    with pytest.raises(ValueError, match=r"ordinal learner: its labels are ranks.*declare them "
                                         r"lowest first, RiverClassifier\(model, classes="):
        RiverClassifier(onlinear.make("simproj", task="ordinal"))


@pytest.mark.parametrize("own, given, match", [
    (RANKS, ["low", "high", "mid"], r"differs from the rank order of the learner"),
    (RANKS, ["low", "mid"], r"differs from the rank order of the learner"),
    (None, ["low"], r"ranks, lowest first, at least two, each once"),
    (None, ["low", "mid", "low"], r"ranks, lowest first, at least two, each once"),
])
def test_two_rank_orders_must_agree_and_an_order_list_each_rank_once(own, given, match):
    with pytest.raises(ValueError, match=match):
        RiverClassifier(onlinear.make("simproj", task="ordinal", classes=own), classes=given)


@pytest.mark.parametrize("started", [False, True])
def test_a_label_that_is_not_a_rank_is_refused_and_the_adapter_unchanged(started):
    adapter = RiverClassifier(onlinear.make("simproj", task="ordinal"), classes=RANKS)
    if started:
        adapter.learn_one({"a": 1.0}, "mid")
    before = _state(adapter)
    with pytest.raises(ValueError, match=r"label 'top' is not one of the ranks \['low', "
                                         r"'mid', 'high'\] \(lowest first\)"):
        adapter.learn_one({"a": 1.0, "new": 2.0}, "top")
    assert _state(adapter) == before


# ------------------------------------------------------------------ B. hashed non-string names
def test_hashed_non_string_names_are_their_strings_whatever_the_cache_held():
    """1, 1.0 and True are one dict key but three strings: each is hashed as its str(), and
    cached under it — the cache used to give 1.0 the column of 1 when 1 came first, and its own
    column again once the cache was cleared (the same dict, two predictions)."""
    n_features = 2 ** 10
    adapter = RiverClassifier("pa", n_features=n_features)
    for _ in range(3):
        adapter.learn_one({1: 1.0}, "pos")
        adapter.learn_one({1: -1.0}, "neg")
    for name in (1.0, True, np.int64(1), 1):
        assert adapter._columns({name: 1.0}, False)[0] == [hashed_column(str(name),
                                                                         n_features)[0]]
    before = adapter.predict_proba_one({1.0: 1.0})
    adapter.predict_one({f"f{i}": 0.0 for i in range(river_adapter.HASH_CACHE_SIZE + 10)})
    assert adapter.predict_proba_one({1.0: 1.0}) == before == {"neg": 0.5, "pos": 0.5}
    assert adapter.predict_proba_one({1: 1.0}) != before  # (name 1 was learned)


def test_hashed_non_string_names_give_feature_hashers_rows_of_their_strings():
    """The rows of names 1, 1.0, True (in any order, any cache) are FeatureHasher's rows of
    "1", "1.0", "True": the adapter learns exactly the onlinear model fed those rows."""
    rng = np.random.default_rng(0)
    xs = [dict(zip(names, rng.normal(size=2)))
          for names in itertools.islice(itertools.cycle([(1, 2.5), (1.0, "b"), (True, 0)]), 60)]
    ys = ["pos" if sum(x.values()) > 0 else "neg" for x in xs]
    hasher = FeatureHasher(n_features=64, input_type="dict")
    rows = hasher.transform([{str(k): v for k, v in x.items()} for x in xs]).toarray()
    adapter = RiverClassifier("pa", n_features=64, classes=["neg", "pos"])
    model = onlinear.make("pa")
    for i, (x, row, y) in enumerate(zip(xs, rows, ys)):
        adapter.learn_one(x, y)
        model.learn_one(row, y, classes=["neg", "pos"] if i == 0 else None)
    np.testing.assert_array_equal(adapter.estimator_.coef_, model.coef_)


def test_the_vocabulary_reads_names_equal_in_python_as_one_feature():
    """As documented: the vocabulary keeps names as dict keys, so 1, 1.0 and True are one
    feature there (a dict cannot hold two of them), and "1" is another."""
    adapter = RiverClassifier("pa")
    adapter.learn_one({1: 1.0}, "pos")
    adapter.learn_one({1.0: -1.0}, "neg")
    adapter.learn_one({True: 2.0, "1": 1.0}, "pos")
    assert adapter.vocabulary_ == {1: 0, "1": 1}


# ------------------------------------------------------------------ C. a third label
SEGMENT_LABELS = sorted({y for _, y in datasets.ImageSegments()})
TWO_CLASS_BINARY = ["cw", "arow", "scw1", "scw2", "nherd", "narow", "adagrad", "adagrad-rda",
                    "ftrl"]


def _scaled_segments():
    scaler = preprocessing.StandardScaler()
    for x, y in datasets.ImageSegments():
        scaler.learn_one(x)
        yield scaler.transform_one(x), y


@pytest.mark.parametrize("name", TWO_CLASS_BINARY)
def test_a_binary_two_class_model_names_the_remedy_at_the_third_label(name):
    """Started on a stream's first two labels, these learners are their binary learner (one
    weight vector or Gaussian), which onlinear cannot grow to a third class: the adapter says
    so at the third label with the labels the model holds and the remedy, and stays as it
    was."""
    adapter = RiverClassifier(name)
    for x, y in _scaled_segments():
        if adapter.estimator_ is not None and y not in adapter._labels:
            break
        adapter.learn_one(x, y)
    held = adapter.estimator_.classes_.tolist()
    before = _state(adapter)
    remedy = re.escape(f"the model holding {held!r}: declare every label up front, "
                       "RiverClassifier(model, classes=[...]), to start the model with all of "
                       "them)")
    with pytest.raises(ValueError, match=r"\(the binary learner\).*\(new label '\w+' in the "
                                         r"stream, " + remedy):
        adapter.learn_one(x, y)
    assert _state(adapter) == before


@pytest.mark.parametrize("name", TWO_CLASS_BINARY)
def test_declared_with_three_labels_they_learn_rivers_multiclass_stream(name):
    """The remedy: declared with three labels or more they start multiclass and add the
    stream's other labels as they come (river's ImageSegments, seven labels, in progressive
    validation; measured 0.80-0.91)."""
    first_three = list(dict.fromkeys(y for _, y in datasets.ImageSegments()))[:3]
    adapter = RiverClassifier(name, classes=first_three)
    accuracy = evaluate.progressive_val_score(
        datasets.ImageSegments(), preprocessing.StandardScaler() | adapter, metrics.Accuracy())
    assert accuracy.get() > 0.75
    assert adapter.estimator_.classes_.tolist() == SEGMENT_LABELS


# ------------------------------------------------------------------ D. values that are no numbers
BAD_VALUES = [[1.0, 2.0], (1.0,), [1.0], np.array([1.0, 2.0]), np.array([3.0]), 1 + 2j,
              np.complex128(1.0), datetime.datetime(2024, 1, 1), np.datetime64("2024-01-01"),
              datetime.timedelta(days=1), {"a": 1.0}, b"one"]


@pytest.mark.parametrize("n_features", [None, 2 ** 10])
@pytest.mark.parametrize("value", BAD_VALUES, ids=lambda v: type(v).__name__)
def test_a_value_that_is_no_number_is_refused_naming_the_feature(value, n_features):
    """A list or an array gave numpy's "setting an array element with a sequence" (a list of
    one number was learned as that number), a complex number or a date "float() argument must
    be ...": a TypeError naming the feature and the value's type, in learning and predicting,
    under a known name or a new one; the adapter unchanged."""
    adapter = RiverClassifier("pa", n_features=n_features)
    adapter.learn_one({"a": 1.0, "b": 2.0}, "x")
    adapter.learn_one({"a": -1.0, "b": 0.5}, "y")
    before = _state(adapter)
    kind = type(value).__name__
    for call in (lambda: adapter.learn_one({"a": 1.0, "b": value}, "x"),
                 lambda: adapter.learn_one({"new": 1.0, "newer": value}, "x"),
                 lambda: adapter.predict_one({"a": 1.0, "b": value}),
                 lambda: adapter.predict_proba_one({"unseen": value})):
        with pytest.raises(TypeError, match=rf"x\['(b|newer|unseen)'\] = .* \(type {kind}\) is "
                                            r"not a real number: a feature's value must be a "
                                            r"number, a string .* or None"):
            call()
    assert _state(adapter) == before


def test_a_value_refused_after_a_new_name_leaves_the_vocabulary_as_it_was():
    """A new name before an int beyond float64 in one example used to stay in the vocabulary
    (the error was raised while the names were read)."""
    adapter = RiverClassifier("pa")
    adapter.learn_one({"a": 1.0}, "x")
    adapter.learn_one({"a": -1.0}, "y")
    before = _state(adapter)
    with pytest.raises(ValueError, match="an int of 401 digits, beyond the range of float64"):
        adapter.learn_one({"new": 1.0, "a": 10 ** 400}, "x")
    assert adapter.vocabulary_ == {"a": 0} and _state(adapter) == before


@pytest.mark.parametrize("n_features", [None, 2 ** 10])
def test_every_real_number_type_is_still_read_as_its_float(n_features):
    values = [np.float32(0.5), np.int64(-3), True, np.bool_(False), decimal.Decimal("1.25"),
              fractions.Fraction(1, 4), np.array(2.0), 7, 2 ** 70]
    x = {f"v{i}": value for i, value in enumerate(values)}
    same = {f"v{i}": float(value) for i, value in enumerate(values)}
    adapter = RiverClassifier("pa", n_features=n_features)
    adapter.learn_one({name: 1.0 for name in x}, "x")
    adapter.learn_one({name: -1.0 for name in x}, "y")
    np.testing.assert_array_equal(adapter._started_row(x), adapter._started_row(same))
    assert adapter.predict_proba_one(x) == adapter.predict_proba_one(same)
