"""Saving and loading (onlinear.save / onlinear.load) for every registered learner and task:
a loaded model predicts as the saved one and, fed the rest of the stream, ends bit-identical to
a model that never stopped; damaged, tampered and foreign files are refused with a clear error
and nothing loaded; pickle gives the same guarantees."""
import copy
import hashlib
import io
import json
import os
import pickle
import re
import time
import zipfile

import numpy as np
import pytest

import onlinear
from onlinear.persistence import (FORMAT_VERSION, HEADER, ModelFileError, _storable_labels,
                                  read_header)
from onlinear.registry import REGISTRY

RNG = np.random.default_rng(20261125)
X = RNG.normal(size=(48, 6))
X_TEST = RNG.normal(size=(20, 6))
LABELS = RNG.integers(0, 3, size=48)
INDICATOR = (RNG.random((48, 3)) < 0.4).astype(int)
SPLIT = 27


def _cases():
    for name, algorithm in REGISTRY.items():
        yield name, None
        for task in algorithm.tasks:
            yield name, task


CASES = list(_cases())


def _streamable(name):
    """A kernel learner's gamma as a number (its default, "auto", streams too; a number keeps
    these files' figures as they were)."""
    return {"gamma": 0.5} if onlinear.describe(name).kernel else {}


COLUMNS = [f"x{j}" for j in range(X.shape[1])]


def _stream(name, task, frame=False):
    """``(model, learn(model, rows))`` for the algorithm ``name`` on its task's data (rows of a
    pandas DataFrame with the columns ``COLUMNS`` if ``frame``)."""
    model = onlinear.make(name, task=task, **_streamable(name))
    if frame:
        import pandas as pd

        def rows_of(A, rows):
            return pd.DataFrame(A[rows], columns=COLUMNS)
    else:
        def rows_of(A, rows):
            return A[rows]
    if task == "multilabel":
        return model, lambda m, rows: m.partial_fit(rows_of(X, rows), INDICATOR[rows],
                                                    classes=[0, 1, 2])
    if task == "blocks":
        signs = np.where(LABELS % 2 == 0, -1, 1)

        def learn(m, rows):
            # trials of 3 rows (the last one shorter)
            block_ptr = np.r_[0:len(rows):3, len(rows)]
            return m.partial_fit(rows_of(X, rows), signs[rows], classes=[-1, 1],
                                 block_ptr=block_ptr)
        return model, learn
    y = LABELS % 2 if name == "winnow" else LABELS
    X_used = np.abs(X) if name == "winnow" else X
    classes = np.unique(y)
    return model, lambda m, rows: m.partial_fit(rows_of(X_used, rows), y[rows], classes=classes)


def _model_state(model):
    """Everything a model's future depends on: its arrays, scalars, classes and counters."""
    state = {name: model._saved_array(name) for name in model._model_arrays()}
    state.update({name: getattr(model, name, None) for name in model._model_scalars})
    state["classes_"] = model.classes_
    return state


def _assert_same_model(a, b):
    sa, sb = _model_state(a), _model_state(b)
    assert sa.keys() == sb.keys()
    for key in sa:
        if isinstance(sa[key], np.ndarray):
            assert sa[key].dtype == sb[key].dtype, key
            np.testing.assert_array_equal(sa[key], sb[key], err_msg=key, strict=True)
        else:
            assert sa[key] == sb[key], key
    assert a.get_params() == b.get_params() or type(a.random_state) is not type(None)
    np.testing.assert_array_equal(a.decision_function(X_TEST), b.decision_function(X_TEST),
                                  strict=True)


@pytest.mark.parametrize("name,task", CASES)
def test_round_trip_then_the_stream_continues_bit_identically(tmp_path, name, task):
    model, learn = _stream(name, task)
    reference, _ = _stream(name, task)
    learn(model, np.arange(SPLIT))
    learn(reference, np.arange(SPLIT))
    path = tmp_path / "model.onlinear"
    onlinear.save(model, path)
    loaded = onlinear.load(path)
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    _assert_same_model(loaded, model)
    np.testing.assert_array_equal(loaded.predict(X_TEST), model.predict(X_TEST))

    rest = np.arange(SPLIT, X.shape[0])
    learn(loaded, rest)
    learn(reference, rest)
    _assert_same_model(loaded, reference)
    assert loaded.n_seen_ == reference.n_seen_ > 0
    header = read_header(path)
    assert header["algorithm"] == name
    assert header["counters"]["n_seen_"] == model.n_seen_


@pytest.mark.parametrize("name,task", [c for c in CASES if c[0] in ("pa", "simproj",
                                                                     "kernel-pa", "iellip")])
def test_an_unfitted_model_round_trips_with_its_hyperparameters(tmp_path, name, task):
    model = onlinear.make(name, task=task, **_streamable(name))
    onlinear.save(model, tmp_path / "m")
    loaded = onlinear.load(tmp_path / "m")
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    assert not hasattr(loaded, "classes_")


@pytest.mark.parametrize("name", ["pa", "arow", "ftrl"])
def test_the_same_model_saved_at_two_times_is_the_same_file(tmp_path, monkeypatch, name):
    """The file holds the model only: no clock's date in its zip entries."""
    model = onlinear.make(name).fit(X, LABELS)
    onlinear.save(model, tmp_path / "first.onlinear")
    later = time.localtime(time.time() + 3 * 86400 + 7)  # (three days and 7 s on)
    monkeypatch.setattr(zipfile.time, "localtime", lambda *args: later)
    onlinear.save(model, tmp_path / "second.onlinear")
    first = (tmp_path / "first.onlinear").read_bytes()
    assert first == (tmp_path / "second.onlinear").read_bytes()
    with zipfile.ZipFile(tmp_path / "first.onlinear") as archive:
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_string_and_object_labels_survive(tmp_path):
    y = np.array(["cat", "dog", "emu"])[LABELS]
    model = onlinear.make("pa1", C=0.5).fit(X, y)
    onlinear.save(model, tmp_path / "s")
    loaded = onlinear.load(tmp_path / "s")
    assert loaded.classes_.dtype == model.classes_.dtype
    assert list(loaded.predict(X_TEST)) == list(model.predict(X_TEST))
    assert loaded.learn_one(X[0], "dog") in ("cat", "dog", "emu")

    objects = onlinear.make("pa").fit(X, y.astype(object))
    onlinear.save(objects, tmp_path / "o")
    loaded = onlinear.load(tmp_path / "o")
    assert loaded.classes_.dtype == object and loaded.classes_.tolist() == ["cat", "dog", "emu"]
    assert loaded.predict(X_TEST).tolist() == objects.predict(X_TEST).tolist()


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("name,task", CASES)
def test_a_model_fitted_on_a_dataframe_keeps_its_column_names(tmp_path, name, task):
    """Such a model could not be saved at all (feature_names_in_ was no declared attribute):
    the loaded one refuses other columns as the saved one does, and goes on bit-identically."""
    pd = pytest.importorskip("pandas")
    model, learn = _stream(name, task, frame=True)
    reference, _ = _stream(name, task, frame=True)
    learn(model, np.arange(SPLIT))
    learn(reference, np.arange(SPLIT))
    onlinear.save(model, tmp_path / "m")
    assert read_header(tmp_path / "m")["format_version"] == 2
    loaded = onlinear.load(tmp_path / "m")
    assert loaded.feature_names_in_.dtype == object
    assert loaded.feature_names_in_.tolist() == COLUMNS
    assert {type(n) for n in loaded.feature_names_in_} == {str}
    rows = np.abs(X_TEST) if name == "winnow" else X_TEST
    same = pd.DataFrame(rows, columns=COLUMNS)
    np.testing.assert_array_equal(loaded.decision_function(same),
                                  model.decision_function(same), strict=True)
    refusals = []
    for m in (model, loaded):
        with pytest.raises(ValueError, match="feature names") as error:
            m.decision_function(pd.DataFrame(rows, columns=COLUMNS[::-1]))
        refusals.append(str(error.value))
    assert refusals[0] == refusals[1]

    rest = np.arange(SPLIT, X.shape[0])
    learn(loaded, rest)
    learn(reference, rest)
    _assert_same_model(loaded, reference)
    assert loaded.feature_names_in_.tolist() == COLUMNS


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_a_dataframe_stream_checkpoints_and_resumes(tmp_path):
    """learn_stream learned a DataFrame chunk, then its checkpoint raised (the model could not
    be saved); resumed, it goes on from the checkpoint as a stream that never stopped."""
    pd = pytest.importorskip("pandas")

    def chunks(stop=48):
        for start in range(0, stop, 12):
            yield pd.DataFrame(X[start:start + 12], columns=COLUMNS), LABELS[start:start + 12]

    path = tmp_path / "c.onlinear"
    onlinear.learn_stream(onlinear.make("pa1"), chunks(24), classes=[0, 1, 2], checkpoint=path,
                          checkpoint_every=12)
    assert read_header(path)["metadata"]["stream_examples"] == 24
    resumed = onlinear.learn_stream(onlinear.make("pa1"), chunks(), classes=[0, 1, 2],
                                    checkpoint=path, checkpoint_every=12, resume=True)
    straight = onlinear.learn_stream(onlinear.make("pa1"), chunks(), classes=[0, 1, 2])
    assert resumed.n_seen_ == 48
    _assert_same_model(resumed, straight)
    assert resumed.feature_names_in_.tolist() == COLUMNS


def _json_bytes(values):
    return np.frombuffer(json.dumps(values).encode("ascii"), dtype=np.uint8).copy()


def test_any_column_names_are_kept_and_a_long_one_costs_its_own_length(tmp_path):
    """Stored as numpy's fixed-width strings, one long name padded every other to its
    length (a name of 10,000 characters among 1,000 made a 40 MB file) and a name ending
    with NUL lost it; names are now the bytes of a JSON list."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(7)
    columns = [f"c{i}" for i in range(1000)]
    columns[0], columns[1], columns[2] = "a" * 10_000, "b\0", "\u00e9\u4e2d"
    model = onlinear.make("pa").fit(pd.DataFrame(rng.normal(size=(30, 1000)),
                                                 columns=columns), LABELS[:30])
    onlinear.save(model, tmp_path / "m")
    assert (tmp_path / "m").stat().st_size < 200_000
    assert onlinear.load(tmp_path / "m").feature_names_in_.tolist() == columns


def test_column_names_load_would_refuse_are_not_saved(tmp_path):
    """A file load refuses must not replace a good one (a checkpoint): save refuses first.
    A model widened by grow_features after a DataFrame kept the DataFrame's names (of fewer
    columns than it has): it now drops them, and saves without."""
    pd = pytest.importorskip("pandas")
    short = onlinear.make("pa").fit(pd.DataFrame(X, columns=COLUMNS), LABELS)
    short.feature_names_in_ = short.feature_names_in_[:4]
    with pytest.raises(ValueError, match="name 4 features; the model has 6"):
        onlinear.save(short, tmp_path / "m")
    grown = onlinear.make("pa").fit(pd.DataFrame(X, columns=COLUMNS), LABELS)
    grown.grow_features(8)
    assert not hasattr(grown, "feature_names_in_")
    onlinear.save(grown, tmp_path / "m")
    assert not hasattr(onlinear.load(tmp_path / "m"), "feature_names_in_")


def _labels(kind):
    """``(y, class_weight)`` of a kind of labels, the weights keyed as a user gives them."""
    if kind == "int":
        return LABELS, {0: 2.0, 2: 0.5}
    if kind == "numpy int":  # (compute_class_weight's: keys from np.unique, numpy values)
        from sklearn.utils.class_weight import compute_class_weight

        classes = np.unique(LABELS)
        return LABELS, dict(zip(classes, compute_class_weight("balanced", classes=classes,
                                                              y=LABELS[:20])))
    if kind == "str":
        return np.array(["cat", "dog", "emu"])[LABELS], {"cat": 2.0, np.str_("emu"): 0.5}
    # (float labels scikit-learn takes as classes: integral values)
    return LABELS.astype(float), {0.0: 2.0, np.float64(2.0): 0.5}


@pytest.mark.parametrize("kind", ["int", "numpy int", "str", "float"])
def test_class_weight_keeps_its_labels_through_save_and_resume(tmp_path, kind):
    """JSON made {0: 2.0} {"0": 2.0}: the loaded model refused to learn and a stream refused
    to resume; numpy keys (np.int64) could not be saved."""
    y, class_weight = _labels(kind)
    classes = np.unique(y)
    model = onlinear.make("pa1", class_weight=class_weight)
    reference = onlinear.make("pa1", class_weight=class_weight)
    for m in (model, reference):
        m.partial_fit(X[:SPLIT], y[:SPLIT], classes=classes)
    onlinear.save(model, tmp_path / "m")
    loaded = onlinear.load(tmp_path / "m")
    assert loaded.class_weight == class_weight
    assert [type(k) for k in loaded.class_weight] == [type(k.item() if isinstance(
        k, np.generic) else k) for k in class_weight]
    assert {type(v) for v in loaded.class_weight.values()} == {float}
    loaded.partial_fit(X[SPLIT:], y[SPLIT:])
    reference.partial_fit(X[SPLIT:], y[SPLIT:])
    _assert_same_model(loaded, reference)

    def chunks(stop=48):
        for start in range(0, stop, 12):
            yield X[start:start + 12], y[start:start + 12]

    path = tmp_path / "c.onlinear"
    onlinear.learn_stream(onlinear.make("pa1", class_weight=class_weight), chunks(24),
                          classes=classes, checkpoint=path, checkpoint_every=12)
    resumed = onlinear.learn_stream(onlinear.make("pa1", class_weight=class_weight), chunks(),
                                    classes=classes, checkpoint=path, resume=True)
    assert resumed.n_seen_ == 48
    _assert_same_model(resumed, reference)


def test_an_unfitted_model_keeps_its_class_weight(tmp_path):
    for class_weight, types in (({np.int64(1): 3.0, "a": 1.0, 2.5: np.float32(0.5)},
                                 [int, str, float]),
                                ({np.bool_(False): 2.0, True: 1}, [bool, bool])):
        onlinear.save(onlinear.make("arow", class_weight=class_weight), tmp_path / "m")
        loaded = onlinear.load(tmp_path / "m")
        assert loaded.class_weight == class_weight
        assert [type(k) for k in loaded.class_weight] == types
    with pytest.raises(TypeError, match="keys must be str, int, float or bool"):
        onlinear.save(onlinear.make("pa", class_weight={(0, 1): 2.0}), tmp_path / "t")


@pytest.mark.parametrize("kind", ["int", "str", "float"])
def test_a_version_1_file_gets_its_class_weight_labels_back(tmp_path, kind):
    """Version 1 stored class_weight as a JSON object: its string keys are read back as the
    class each names; a key that names no class is left as it is."""
    y, class_weight = _labels(kind)
    model = onlinear.make("pa1", class_weight=class_weight).fit(X[:SPLIT], y[:SPLIT])
    onlinear.save(model, tmp_path / "m")

    def as_version_1(extra):
        def change(header):
            header["format_version"] = 1
            pairs = header["params"]["class_weight"]["__pairs__"]
            header["params"]["class_weight"] = {
                **{k if isinstance(k, str) else json.dumps(k): v for k, v in pairs}, **extra}
        return change
    for extra in ({}, {"7": 1.0}):
        (tmp_path / "v1").write_bytes(_rewrite((tmp_path / "m").read_bytes(),
                                               as_version_1(extra)))
        loaded = onlinear.load(tmp_path / "v1")
        assert loaded.class_weight == {**class_weight, **extra}
        assert [type(k) for k in loaded.class_weight] == [type(k.item() if isinstance(
            k, np.generic) else k) for k in class_weight] + [str] * len(extra)
    (tmp_path / "v1").write_bytes(_rewrite((tmp_path / "m").read_bytes(), as_version_1({})))
    loaded = onlinear.load(tmp_path / "v1")
    loaded.partial_fit(X[SPLIT:], y[SPLIT:])
    model.partial_fit(X[SPLIT:], y[SPLIT:])
    _assert_same_model(loaded, model)


def test_a_file_needing_nothing_of_version_2_is_written_as_version_1(tmp_path, saved):
    """An older onlinear (up to version 1) reads such a file as before, and refuses, asking
    for an upgrade, one whose pairs or column names it would misread or not expect."""
    versions = {}
    for name, data in saved.items():
        (tmp_path / name).write_bytes(data)
        versions[name] = read_header(tmp_path / name)["format_version"]
    assert versions == {"pa": 1, "kernel-pa": 1, "simproj": 1, "pa-named": 2}
    onlinear.save(onlinear.make("pa", class_weight={0: 2.0}), tmp_path / "cw")
    assert read_header(tmp_path / "cw")["format_version"] == 2 == FORMAT_VERSION


def test_a_seeded_shuffling_generator_is_saved_exactly(tmp_path):
    generator = np.random.RandomState(7)
    generator.rand(3)  # part-way through its sequence
    model = onlinear.make("pa", shuffle=True, n_epochs=2, random_state=generator)
    onlinear.save(model, tmp_path / "r")
    loaded = onlinear.load(tmp_path / "r")
    np.testing.assert_array_equal(loaded.fit(X, LABELS).coef_, model.fit(X, LABELS).coef_)


def test_pickle_gives_the_same_guarantees():
    for name, task in [("pa", None), ("kernel-mira", None), ("simproj", "ordinal"),
                       ("iellip", None)]:
        model, learn = _stream(name, task)
        reference, _ = _stream(name, task)
        learn(model, np.arange(SPLIT))
        learn(reference, np.arange(SPLIT))
        loaded = pickle.loads(pickle.dumps(model))
        _assert_same_model(loaded, model)
        learn(loaded, np.arange(SPLIT, 48))
        learn(reference, np.arange(SPLIT, 48))
        _assert_same_model(loaded, reference)


def test_joblib_gives_the_same_guarantees(tmp_path):
    import joblib  # scikit-learn's own dependency
    model, learn = _stream("kernel-pa", None)
    reference, _ = _stream("kernel-pa", None)
    learn(model, np.arange(SPLIT))
    learn(reference, np.arange(SPLIT))
    joblib.dump(model, tmp_path / "m.joblib")
    loaded = joblib.load(tmp_path / "m.joblib")
    learn(loaded, np.arange(SPLIT, 48))
    learn(reference, np.arange(SPLIT, 48))
    _assert_same_model(loaded, reference)


def test_saving_refuses_what_it_cannot_store_safely(tmp_path):
    callable_kernel = onlinear.KernelPerceptron(kernel=lambda A, B: A @ B.T).fit(X, LABELS)
    with pytest.raises(TypeError, match="callable kernel"):
        onlinear.save(callable_kernel, tmp_path / "k")
    # (scikit-learn's target checks refuse such labels before a model can hold them)
    mixed = np.array([1, 2.0, 3], dtype=object)  # int and float: one dtype would change them
    with pytest.raises(TypeError, match="mixed"):
        _storable_labels(mixed)
    with pytest.raises(TypeError, match="onlinear estimator"):
        onlinear.save(object(), tmp_path / "x")
    with pytest.raises(TypeError, match="metadata"):
        onlinear.save(onlinear.make("pa"), tmp_path / "m", metadata={"f": object()})
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing left behind


def test_saving_replaces_atomically_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "m.onlinear"
    first = onlinear.make("pa").fit(X, LABELS)
    onlinear.save(first, path)
    before = path.read_bytes()

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("onlinear.persistence.os.fsync", fail)
    with pytest.raises(OSError, match="disk full"):
        onlinear.save(onlinear.make("pa1").fit(X, LABELS), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.onlinear"]


@pytest.mark.parametrize("named", ["", "sub/", "sub" + os.sep])
def test_a_path_that_names_no_file_is_refused_and_nothing_is_written_anywhere(
        tmp_path, monkeypatch, named):
    """"" and "folder/" lose their last part in abspath: the temporary file went to the
    folder above the one named (above the working folder for "")."""
    (tmp_path / "work" / "sub").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "work")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with pytest.raises(IsADirectoryError, match="names no file"):
        onlinear.save(onlinear.make("pa").fit(X, LABELS), named)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_saving_through_a_symbolic_link_writes_the_file_it_names(tmp_path):
    """The rename went onto the link itself: the link became a regular file and the file it
    named was left as it was."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link.onlinear").symlink_to(tmp_path / "real" / "m.onlinear")
    first, second = onlinear.make("pa").fit(X, LABELS), onlinear.make("pa1").fit(X, LABELS)
    for model in (first, second):  # (a new target, then an existing one)
        onlinear.save(model, tmp_path / "link.onlinear")
        assert (tmp_path / "link.onlinear").is_symlink()
        _assert_same_model(onlinear.load(tmp_path / "real" / "m.onlinear"), model)
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["m.onlinear"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.onlinear", "real"]


def test_a_long_legal_file_name_is_saved_and_loaded(tmp_path):
    """The temporary file's name (``.<name>.<8 random>.tmp``) was 14 characters longer than the
    name and failed (ENAMETOOLONG) for names the file system takes."""
    model = onlinear.make("pa").fit(X, LABELS)
    for length in (240, 255):
        path = tmp_path / ("m" * (length - len(".onlinear")) + ".onlinear")
        onlinear.save(model, path)
        _assert_same_model(onlinear.load(path), model)
        assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
        path.unlink()


def test_stale_temporaries_of_a_path_are_its_own_only(tmp_path):
    """``m``'s leftovers, not those of ``m.onlinear`` (whose name starts as ``m``'s do) nor
    other files: a write of ``m.onlinear`` in progress would lose its temporary file."""
    from onlinear.persistence import remove_stale_temporaries

    names = [".m.abc12_89.tmp", ".m.onlinear.abc12_89.tmp", ".m.abc.tmp", "m", ".m.x1234567.tmp",
             ".m.abc12_89.tmpx"]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    remove_stale_temporaries(tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        set(names) - {".m.abc12_89.tmp", ".m.x1234567.tmp"})


_WRITER = """
import sys, time
from onlinear.persistence import replacing
with replacing(sys.argv[1]) as temporary:
    with open(temporary, "wb") as handle:
        handle.write(b"half a model")
    print("writing", flush=True)
    sys.stdin.readline()  # (held here until told, or killed)
"""


def _writer(path):
    """A process in the middle of a write of ``path`` (its temporary file made and locked)."""
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "writing\n"
    return process


def _temporaries(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.skipif(os.name != "posix", reason="the writer's lock is POSIX's flock")
def test_a_save_removes_the_temporary_file_of_a_killed_save(tmp_path):
    """A process killed during a write left ``.m.onlinear.XXXXXXXX.tmp`` for good: only
    ``learn_stream(resume=True)`` removed it.  The next write of the same path now does."""
    path = tmp_path / "m.onlinear"
    process = _writer(path)
    process.kill()
    process.wait(timeout=30)
    assert len(_temporaries(tmp_path)) == 1 and not path.exists()
    model = onlinear.make("pa").fit(X, LABELS)
    onlinear.save(model, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onlinear"]
    _assert_same_model(onlinear.load(path), model)


@pytest.mark.skipif(os.name != "posix", reason="the writer's lock is POSIX's flock")
def test_a_save_leaves_another_process_write_in_progress_alone(tmp_path):
    """Two processes writing the same path: the one that finishes first must not remove the
    other's temporary file (which would make the other's rename fail)."""
    path = tmp_path / "m.onlinear"
    process = _writer(path)
    try:
        held = _temporaries(tmp_path)
        model = onlinear.make("pa").fit(X, LABELS)
        onlinear.save(model, path)
        assert _temporaries(tmp_path) == held and len(held) == 1
    finally:
        out, _ = process.communicate("go\n", timeout=60)
    assert process.returncode == 0
    assert path.read_bytes() == b"half a model"  # (the other write, renamed last)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onlinear"]


@pytest.mark.skipif(os.name != "posix", reason="the writer's lock is POSIX's flock")
def test_a_temporary_file_removed_before_its_lock_is_given_up_for_a_new_one(tmp_path,
                                                                             monkeypatch):
    """Between a writer's creation of its temporary file and its lock, another process's
    clean-up can find it unheld and remove it: the writer must not write into the removed
    file (its rename would fail), but start again."""
    import tempfile

    from onlinear import persistence

    made, mkstemp = [], tempfile.mkstemp

    def mkstemp_removed_once(**kwargs):
        descriptor, name = mkstemp(**kwargs)
        made.append(name)
        if len(made) == 1:
            os.unlink(name)  # (what the other process's clean-up does)
        return descriptor, name

    monkeypatch.setattr(persistence.tempfile, "mkstemp", mkstemp_removed_once)
    model = onlinear.make("pa").fit(X, LABELS)
    onlinear.save(model, tmp_path / "m.onlinear")
    assert len(made) == 2
    _assert_same_model(onlinear.load(tmp_path / "m.onlinear"), model)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onlinear"]


def test_without_locks_only_a_caller_that_knows_no_other_writer_removes(tmp_path,
                                                                         monkeypatch):
    """Where there are no locks (not POSIX) a write in progress cannot be told from a killed
    one's: a write leaves leftovers alone, a resumed stream's checkpoint (no other writer by
    the caller's word) removes them."""
    from onlinear import persistence

    monkeypatch.setattr(persistence, "fcntl", None)
    leftover = tmp_path / ".m.onlinear.abcd1234.tmp"
    leftover.write_bytes(b"")
    model = onlinear.make("pa").fit(X, LABELS)
    onlinear.save(model, tmp_path / "m.onlinear")
    assert leftover.exists()
    persistence.remove_stale_temporaries(tmp_path / "m.onlinear")
    assert leftover.exists()
    persistence.remove_stale_temporaries(tmp_path / "m.onlinear", no_other_writer=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onlinear"]


# ------------------------------------------------------------------------------ bad files
@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Bytes of saved models: a primal, a kernel and a multilabel one."""
    out = {}
    folder = tmp_path_factory.mktemp("saved")
    for name, task in [("pa", None), ("kernel-pa", None), ("simproj", "multilabel")]:
        model, learn = _stream(name, task)
        learn(model, np.arange(SPLIT))
        onlinear.save(model, folder / name)
        out[name] = (folder / name).read_bytes()
    # column names as scikit-learn sets them from a DataFrame, and a dict hyperparameter
    named = onlinear.make("pa", class_weight={0: 2.0}).fit(X, LABELS)
    named.feature_names_in_ = np.array(COLUMNS, dtype=object)
    onlinear.save(named, folder / "pa-named")
    out["pa-named"] = (folder / "pa-named").read_bytes()
    return out


def _rewrite(data, header_change=None, arrays=None, drop=(), extra=None, checksums=True):
    """The model file ``data`` with its header or arrays changed (checksums kept consistent
    unless ``checksums`` is False)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    header = json.loads(source.read(HEADER))
    members = {n: source.read(n) for n in source.namelist() if n != HEADER}
    for name, array in (arrays or {}).items():
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, array, allow_pickle=True)
        members[f"arrays/{name}.npy"] = buffer.getvalue()
        if checksums:
            header["arrays"][name] = {"dtype": array.dtype.str, "shape": list(array.shape),
                                      "sha256": hashlib.sha256(array.tobytes()).hexdigest()}
    for name in drop:
        members.pop(f"arrays/{name}.npy")
    members.update(extra or {})
    if header_change:
        header_change(header)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(HEADER, json.dumps(header))
        for name, content in members.items():
            archive.writestr(name, content)
    return out.getvalue()


def _array(data, name):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return np.lib.format.read_array(io.BytesIO(archive.read(f"arrays/{name}.npy")))


def _set(key, value):
    def change(header):
        header[key] = value
    return change


BAD_FILES = {
    "not a zip": (lambda s: b"\x89HDF\r\n" + s["pa"], "no zip signature"),
    "empty": (lambda s: b"", "no zip signature"),
    "truncated": (lambda s: s["pa"][: len(s["pa"]) // 2], "damaged or truncated"),
    "zip without header": (lambda s: _zip_of({"x.txt": b"hello"}), "no onlinear-model.json"),
    "header not json": (lambda s: _zip_of({HEADER: b"{not json"}), "not valid JSON"),
    "foreign format": (lambda s: _rewrite(s["pa"], _set("format", "other")), "wrong format"),
    "newer version": (lambda s: _rewrite(s["pa"], _set("format_version", 99)),
                      f"reads up to version {FORMAT_VERSION}"),
    "unknown estimator": (lambda s: _rewrite(s["pa"], _set("estimator", "os.system")),
                          "unknown estimator"),
    "private class": (lambda s: _rewrite(s["pa"], _set("estimator", "OnlineLinearClassifier")),
                      "unknown estimator"),
    "unknown algorithm": (lambda s: _rewrite(s["pa"], _set("algorithm", "zzz")),
                          "unknown algorithm"),
    "algorithm of another class": (lambda s: _rewrite(s["pa"], _set("algorithm", "mira")),
                                   "has no estimator"),
    "bad hyperparameter": (lambda s: _rewrite(s["pa"], lambda h: h["params"].update(C=-1.0)),
                           "C"),
    "unknown hyperparameter": (lambda s: _rewrite(s["pa"], lambda h: h["params"].update(z=1)),
                               "z"),
    "array bytes altered": (lambda s: _flip_array_byte(s["pa"], "_weights"), "checksum"),
    "weights of the wrong shape": (
        lambda s: _rewrite(s["pa"], arrays={"_weights": np.zeros((5, 3))}), "shape"),
    "weights of the wrong dtype": (
        lambda s: _rewrite(s["pa"], arrays={"_weights": np.zeros((6, 3), np.float16)}),
        "dtype"),  # (float32 weights are a float32 model's: dtype="auto" follows the file's)
    "NaN weights": (lambda s: _rewrite(s["pa"], arrays={"_weights": np.full((6, 3), np.nan)}),
                    "NaN"),
    "short state": (lambda s: _rewrite(s["pa"], arrays={"_state": np.ones((2, 3))}), "shape"),
    "negative counts": (lambda s: _rewrite(s["pa"], arrays={"_counts": np.array([-1, 0, 0])}),
                        "negative"),
    "counters disagree": (lambda s: _rewrite(s["pa"], lambda h: h["counters"].update(
        n_seen_=5)), "disagrees"),
    "missing array": (lambda s: _rewrite(s["pa"], drop=["_state"]), "missing"),
    "extra member": (lambda s: _rewrite(s["pa"], extra={"arrays/evil.npy": b"x"}), "unexpected"),
    "header shape lies": (lambda s: _rewrite(s["pa"], lambda h: h["arrays"]["_weights"].update(
        shape=[600000, 3])), "wrong size"),
    "pickled classes": (lambda s: _rewrite(
        s["pa"], arrays={"classes_": np.array([0, 1, 2], dtype=object)}, checksums=False),
        "dtype|object|cannot be read"),
    "unsorted classes": (lambda s: _rewrite(s["pa"], arrays={"classes_": np.array([2, 0, 1])}),
                         "sorted"),
    "one class": (lambda s: _rewrite(s["pa"], arrays={"classes_": np.array([0])}), "two"),
    "more support than stored": (lambda s: _rewrite(
        s["kernel-pa"], lambda h: h["scalars"].update(_n_support=10**6)), "_n_support"),
    "kernel arrays of disagreeing capacity": (lambda s: _rewrite(
        s["kernel-pa"], arrays={"_coef": np.zeros((3, 3))}), "shape"),
    "bad scalar type": (lambda s: _rewrite(
        s["pa"], lambda h: h["scalars"].update(n_features_in_="6")), "wrong type"),
    "negative feature count": (lambda s: _rewrite(
        s["pa"], lambda h: h["scalars"].update(n_features_in_=-6)), "negative"),
    "label kind of another task": (lambda s: _rewrite(
        s["simproj"], lambda h: h["scalars"].update(_label_kind="multiclass")), "task"),
    "too few column names": (lambda s: _rewrite(
        s["pa-named"], arrays={"feature_names_in_": _json_bytes(COLUMNS[:5])}),
        "name 5 features; the model has 6"),
    "a repeated column name": (lambda s: _rewrite(
        s["pa-named"], arrays={"feature_names_in_": _json_bytes(COLUMNS[:5] + ["x0"])}),
        r"feature_names_in_: they repeat \['x0'\]"),
    "column names not strings": (lambda s: _rewrite(
        s["pa-named"], arrays={"feature_names_in_": _json_bytes(list(range(6)))}),
        "a list of strings"),
    "column names not JSON": (lambda s: _rewrite(
        s["pa-named"], arrays={"feature_names_in_": np.frombuffer(b"[x0", dtype=np.uint8)}),
        "the bytes of a JSON list of strings"),
    "column names in 2-D": (lambda s: _rewrite(
        s["pa-named"], arrays={"feature_names_in_": _json_bytes(COLUMNS)[None, :]}),
        "the bytes of a JSON list of strings"),
    "column names as numpy strings": (lambda s: _rewrite(
        s["pa-named"], arrays={"feature_names_in_": np.array(COLUMNS)}),
        "feature_names_in_ has dtype <U2; expected uint8"),
    "pickled column names": (lambda s: _rewrite(
        s["pa-named"], arrays={"feature_names_in_": np.array(COLUMNS, dtype=object)},
        checksums=False), "dtype|object|cannot be read"),
    "a dict as a JSON object in version 2": (lambda s: _rewrite(
        s["pa-named"], lambda h: h["params"].update(class_weight={"0": 2.0})),
        "class_weight is stored as a JSON object"),
    "a dict's pairs malformed": (lambda s: _rewrite(
        s["pa-named"], lambda h: h["params"].update(class_weight={"__pairs__": [[0]]})),
        "class_weight is malformed"),
    "a dict's key a list": (lambda s: _rewrite(
        s["pa-named"], lambda h: h["params"].update(class_weight={"__pairs__": [[[0], 1.0]]})),
        "class_weight is malformed"),
    "a dict's key twice": (lambda s: _rewrite(
        s["pa-named"], lambda h: h["params"].update(
            class_weight={"__pairs__": [[1, 2.0], [True, 1.0]]})), "gives a key twice"),
    **{f"a class weight of {value!r}": (lambda s, value=value: _rewrite(
        s["pa-named"], lambda h: h["params"].update(class_weight={"__pairs__": [[1, value]]})),
        "class_weight gives 1 the weight .*a class's weight is a finite, non-negative number")
       for value in (-3.0, "x", [1, 2], {"a": 1}, None, True)},
    "a class weight of NaN in a version-1 file": (lambda s: _rewrite(
        s["pa"], lambda h: h["params"].update(class_weight={"1": float("nan")})),
        "class_weight gives 1 the weight nan"),
}


def _zip_of(members):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return out.getvalue()


def _flip_array_byte(data, name):
    """``data`` with one byte of an array's values changed and the zip's CRC recomputed
    (tampering that the zip format alone does not see)."""
    array = _array(data, name).copy()
    array.view(np.uint8)[5] ^= 0x10
    return _rewrite(data, arrays={name: array}, checksums=False)


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_model_files_are_refused_with_a_clear_error(tmp_path, saved, case):
    build, message = BAD_FILES[case]
    path = tmp_path / "bad.onlinear"
    path.write_bytes(build(saved))
    with pytest.raises(ModelFileError, match=message) as error:
        onlinear.load(path)
    assert str(path) in str(error.value)


def test_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        onlinear.load(tmp_path / "nothing")


@pytest.mark.parametrize("name", ["pa", "kernel-pa", "simproj"])
def test_random_corruption_never_loads_a_different_model(tmp_path, saved, name):
    """Fuzz: 300 files with random bytes overwritten, cut or inserted.  Each either loads the
    very model that was saved (a change in a part of the zip nobody reads, e.g. a timestamp)
    or raises ModelFileError; it never crashes and never loads anything else."""
    data = saved[name]
    path = tmp_path / "fuzz"
    path.write_bytes(data)
    original = onlinear.load(path)
    rng = np.random.default_rng(sum(map(ord, name)))
    outcomes = {"refused": 0, "identical": 0}
    for trial in range(300):
        corrupted = bytearray(data)
        kind = trial % 3
        at = int(rng.integers(0, len(data)))
        if kind == 0:
            for _ in range(int(rng.integers(1, 4))):
                corrupted[int(rng.integers(0, len(data)))] = int(rng.integers(0, 256))
        elif kind == 1:
            corrupted = corrupted[:at]
        else:
            corrupted[at:at] = bytes(rng.integers(0, 256, size=int(rng.integers(1, 9)),
                                                  dtype=np.uint8))
        path.write_bytes(bytes(corrupted))
        try:
            model = onlinear.load(path)
        except ModelFileError:
            outcomes["refused"] += 1
            continue
        _assert_same_model(model, original)
        outcomes["identical"] += 1
    assert outcomes["refused"] > 200


def test_load_runs_no_code_from_the_file(tmp_path, saved):
    """A pickle payload placed where an array belongs is refused, never unpickled."""
    class Boom:
        def __reduce__(self):
            return (exec, ("raise SystemExit('code ran')",))

    payload = pickle.dumps(Boom())
    weights = io.BytesIO()
    np.lib.format.write_array(weights, np.array([Boom()], dtype=object), allow_pickle=True)
    for content in (payload, weights.getvalue()):
        data = _rewrite(saved["pa"], extra={"arrays/_weights.npy": content})
        (tmp_path / "evil").write_bytes(data)
        with pytest.raises(ModelFileError):
            onlinear.load(tmp_path / "evil")


def test_a_loaded_model_is_independent_of_the_saved_one(tmp_path):
    model = onlinear.make("pa").fit(X, LABELS)
    onlinear.save(model, tmp_path / "m")
    loaded = onlinear.load(tmp_path / "m")
    before = copy.deepcopy(model)
    loaded.partial_fit(X, LABELS)
    np.testing.assert_array_equal(model.coef_, before.coef_)


@pytest.mark.parametrize("name, params, message", [
    ("pa", {"fit_intercept": True}, "fit_intercept=True was set after the model started"),
    ("pa", {"average": True}, "average=True was set after the model started"),
    ("pa", {"dtype": "float32"}, "dtype='float32' was set after the model started"),
    ("arow", {"matrix": "diagonal"}, "matrix='diagonal' was set after the model started")])
def test_a_hyperparameter_set_after_the_start_is_refused_by_save(tmp_path, name, params,
                                                                  message):
    """save wrote the new hyperparameter beside the arrays of the old one: a file load
    refused ("array _weights has shape (4, 3); expected (5, 3)"), replacing a good file.  It
    now refuses as partial_fit does, writing nothing; set back, the model saves."""
    model = onlinear.make(name).fit(X, LABELS)
    old = model.get_params()
    model.set_params(**params)
    with pytest.raises(ValueError, match=re.escape(message)):
        onlinear.save(model, tmp_path / "m")
    assert list(tmp_path.iterdir()) == []
    model.set_params(**{key: old[key] for key in params})
    onlinear.save(model, tmp_path / "m")
    _assert_same_model(onlinear.load(tmp_path / "m"), model)


def test_save_refuses_what_load_would_refuse_or_json_cannot_hold(tmp_path):
    """A class weight learning refuses (negative, NaN) was saved, and the file refused on load
    only by a later learning call, naming neither the file nor class_weight; a NaN in metadata
    was written as Python's non-standard ``NaN``, which strict JSON readers refuse."""
    model = onlinear.make("pa").fit(X, LABELS)
    model.set_params(class_weight={0: -1.0})
    with pytest.raises(ValueError, match="class_weight gives 0 the weight -1.0"):
        onlinear.save(model, tmp_path / "m")
    model.set_params(class_weight=None)
    with pytest.raises(TypeError, match="metadata cannot be stored as JSON"):
        onlinear.save(model, tmp_path / "m", metadata={"loss": float("nan")})
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name, params", [
    ("pa1", {"fit_intercept": True}), ("arow", {"matrix": "diagonal"}),
    ("simproj", {"update": "multiplicative"}), ("cellip", {"matrix": "diagonal"})])
def test_a_pickle_of_a_model_changed_after_its_start_is_refused_as_save_refuses_it(
        tmp_path, name, params):
    """pickle.dumps wrote such a model, and pickle.loads refused it ("not a ... the engine
    could have made"); an ellipsoid's matrix= also made onlinear.save write a file load
    refused.  Both now refuse at write time with partial_fit's message."""
    import pickle

    data = X / np.linalg.norm(X, axis=1).max()  # (the ellipsoid assumes ‖x‖ ≤ 1)
    model = onlinear.make(name).fit(data, LABELS)
    old = model.get_params()
    model.set_params(**params)
    message = f"{next(iter(params))}=.* was set after the model started"
    with pytest.raises(ValueError, match=message):
        pickle.dumps(model)
    with pytest.raises(ValueError, match=message):
        onlinear.save(model, tmp_path / "m")
    assert list(tmp_path.iterdir()) == []
    model.set_params(**{key: old[key] for key in params})
    _assert_same_model(pickle.loads(pickle.dumps(model)), model)
