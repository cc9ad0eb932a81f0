"""Iterative parameter mixing on plausible but wrong inputs: each mistake is refused before any
training with a message that names it (the argument, the shard, the file) and says what to
give, the same in this process and on a Dask cluster — or, for the array-likes the serial
estimator takes (nested lists, pandas), accepted as that estimator accepts them.

The cluster is one worker thread in this process, bound to 127.0.0.1 (as in
``test_distributed.py``), closed at the end of the module.
"""
import dask
import dask.array as dask_array
import distributed
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import onlinear
from onlinear import harness
from onlinear.distributed import ParameterMixing, mixing_weights

ADDRESS = "tcp://127.0.0.1:8786"


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        yield client


@pytest.fixture(scope="module")
def data():
    X = np.random.default_rng(0).normal(size=(40, 3))
    return X, (X[:, 0] > 0).astype(np.int64)


def _libsvm_files(folder, empty):
    """Three LIBSVM files of ten rows each, but file ``empty``, which holds none."""
    names = [str(folder / f"part{i}.svm") for i in range(3)]
    for i, name in enumerate(names):
        with open(name, "w") as handle:
            if i != empty:
                handle.write("".join(f"{k % 2} 1:{k}.5 2:1\n" for k in range(10)))
    return names


def _notes(error):
    return getattr(error, "__notes__", [])


# ------------------------------------------------------------------------ a dask array's labels
@pytest.mark.parametrize("labels", ["numpy", "dask"])
def test_labels_of_another_length_than_a_dask_arrays_rows_name_both_lengths(labels):
    """(they were given X's row chunks first, and dask refused the chunks from inside)"""
    X = dask_array.from_array(np.random.default_rng(0).normal(size=(40, 3)), chunks=(10, 3))
    y = np.arange(30) % 2
    if labels == "dask":
        y = dask_array.from_array(y, chunks=15)
    with dask.config.set(scheduler="synchronous"), \
            pytest.raises(ValueError, match="y has 30 labels for 40 rows of X"):
        ParameterMixing(onlinear.make("pa")).fit(X, y)


def test_labels_of_a_dask_array_must_be_one_dimensional():
    X = dask_array.from_array(np.random.default_rng(0).normal(size=(40, 3)), chunks=(10, 3))
    with dask.config.set(scheduler="synchronous"), \
            pytest.raises(ValueError, match=r"1-D, one label per row of X; got y of shape \(\)"):
        ParameterMixing(onlinear.make("pa")).fit(X, 1)


# ------------------------------------------------------------------------ the shards' forms
def test_shards_of_nested_lists_or_pandas_are_taken_as_the_estimator_takes_them(data):
    X, y = data
    arrays = ParameterMixing(onlinear.make("pa1"), n_epochs=2).fit(
        [(X[:20], y[:20]), (X[20:], y[20:])]).estimator_
    for shards in ([(X[:20].tolist(), y[:20].tolist()), (X[20:].tolist(), y[20:].tolist())],
                   [(pd.DataFrame(X[:20]), pd.Series(y[:20])),
                    (pd.DataFrame(X[20:]), pd.Series(y[20:]))]):
        model = ParameterMixing(onlinear.make("pa1"), n_epochs=2).fit(shards).estimator_
        np.testing.assert_array_equal(model.coef_, arrays.coef_)
        np.testing.assert_array_equal(model.classes_, arrays.classes_)
        assert model.n_seen_ == arrays.n_seen_ == 80


def test_shards_numpy_refuses_are_named(data):
    X, y = data
    with pytest.raises(ValueError, match="shard 1: its X and y must be arrays"):
        ParameterMixing(onlinear.make("pa")).fit([(X, y), ([[1.0, 2.0], [3.0]], [0, 1])])


def test_one_label_for_a_whole_shard_is_refused_naming_the_shard(data):
    X, y = data
    with pytest.raises(ValueError, match=r"shard 1: X must be 2-D with one label per row; got X "
                                         r"of shape \(20, 3\) and y of shape \(\).*np\.full"):
        ParameterMixing(onlinear.make("pa")).fit([(X[:20], y[:20]), (X[20:], 1)])


@pytest.mark.parametrize("n_features", ["3", 3.0, True, 0, -2])
def test_n_features_must_be_a_positive_integer(data, n_features):
    """(a string was compared with the width found: "n_features=3, but the shards have 3")"""
    X, y = data
    with pytest.raises(ValueError, match=r"n_features must be a positive integer .*got "
                                         + repr(n_features).replace(".", r"\.")):
        ParameterMixing(onlinear.make("pa")).fit([(X, y)], n_features=n_features)


def test_an_integral_n_features_is_still_taken(data):
    X, y = data
    model = ParameterMixing(onlinear.make("pa")).fit([(X, y)], n_features=np.int64(3))
    assert model.estimator_.coef_.shape[-1] == 3


# ------------------------------------------------------------------------ the client
def test_a_scheduler_address_is_refused_saying_to_connect_a_client(data):
    X, y = data
    with pytest.raises(TypeError, match=r"client must be a distributed\.Client, not the "
                                        r"scheduler's address 'tcp://127\.0\.0\.1:8786'.*"
                                        r"distributed\.Client\('tcp://"):
        ParameterMixing(onlinear.make("pa"), client=ADDRESS).fit([(X, y)])
    with pytest.raises(TypeError, match=r"client must be a distributed\.Client.*got dict"):
        ParameterMixing(onlinear.make("pa"), client={}).fit([(X, y)])


def test_compare_refuses_a_scheduler_address_too(data):
    X, y = data
    with pytest.raises(TypeError, match=r"client must be a distributed\.Client, not the "
                                        r"scheduler's address"):
        harness.compare(X, y, ["pa"], client=ADDRESS)


# ------------------------------------------------------------------------ before and after fit
def test_mixing_weights_of_no_model_is_a_clear_error():
    with pytest.raises(ValueError, match="no model to weigh"):
        mixing_weights("uniform", [])


def test_predict_and_score_before_fit_raise_not_fitted_error(data):
    X, y = data
    ipm = ParameterMixing(onlinear.make("pa"))
    with pytest.raises(NotFittedError, match="call 'fit'"):
        ipm.predict(X)
    with pytest.raises(NotFittedError, match="call 'fit'"):
        ipm.score(X, y)
    ipm.fit([(X, y)])
    assert ipm.predict(X).shape == y.shape


# ------------------------------------------------------------------------ the labels' kinds
def _mixed_kinds(data):
    X, y = data
    return [(X[:20], y[:20]), (X[20:], np.where(y[20:] == 1, "b", "a"))]


def test_labels_of_two_kinds_are_refused_naming_the_shards_and_kinds_on_both_paths(data, client):
    """(numpy turned every label into a string, and shard 0's were then "not in classes_
    ['0', '1', 'a', 'b']")"""
    shards = _mixed_kinds(data)
    message = r"shard 0's are numbers \(0, 1\), shard 1's strings \('a', 'b'\)"
    with pytest.raises(ValueError, match=message) as here:
        ParameterMixing(onlinear.make("pa")).fit(shards)
    with pytest.raises(ValueError, match=message) as there:
        ParameterMixing(onlinear.make("pa"), client=client, lost_worker_timeout=60).fit(shards)
    assert str(here.value) == str(there.value)
    assert any("shard 1, counting from 0 of 2" in note for note in _notes(here.value))
    assert any("shard 1, counting from 0 of 2" in note and "not a lost worker" in note
               for note in _notes(there.value))


def test_labels_of_one_kind_across_shards_still_mix(data):
    """Integers and floats are one kind (numbers); strings and pandas' string objects too."""
    X, y = data
    ParameterMixing(onlinear.make("pa")).fit([(X[:20], y[:20]), (X[20:], y[20:] * 1.0)])
    text = np.where(y == 1, "b", "a")
    model = ParameterMixing(onlinear.make("pa")).fit(
        [(X[:20], text[:20]), (X[20:], pd.Series(text[20:], dtype=object))]).estimator_
    assert model.classes_.tolist() == ["a", "b"]


def test_classes_of_another_kind_than_the_labels_are_refused(data):
    X, y = data
    with pytest.raises(ValueError, match=r"classes are strings \('a', 'b'\), but the shards' "
                                         r"labels numbers \(0, 1\)"):
        ParameterMixing(onlinear.make("pa")).fit([(X, y)], classes=["a", "b"])


# ------------------------------------------------------------------------ a shard's own error
def test_an_empty_file_is_named_the_same_way_here_and_on_a_cluster(client, tmp_path):
    """(in this process the estimator's "Found array with 0 sample(s)" named no shard)"""
    names = _libsvm_files(tmp_path, empty=1)
    with pytest.raises(ValueError, match="0 sample") as here:
        ParameterMixing(onlinear.make("pa")).fit(names)
    with pytest.raises(ValueError, match="0 sample") as there:
        ParameterMixing(onlinear.make("pa"), client=client, lost_worker_timeout=60).fit(names)
    assert str(here.value) == str(there.value)
    for error in (here.value, there.value):
        assert any("shard 1, counting from 0 of 3" in note and repr(names[1]) in note
                   and "checking its data" in note for note in _notes(error)), _notes(error)
    assert any("not a lost worker" in note for note in _notes(there.value))


def test_an_empty_shard_in_this_process_is_named(data):
    X, y = data
    with pytest.raises(ValueError, match="0 sample") as here:
        ParameterMixing(onlinear.make("pa")).fit([(X, y), (X[:0], y[:0])])
    assert any("shard 1, counting from 0 of 2, checking its data" in note
               for note in _notes(here.value)), _notes(here.value)
