"""What :func:`onlinear.save` refuses before it writes anything, and how its errors name the
user's path: a model :func:`onlinear.load` could not rebuild (a subclass: load makes only
onlinear's own estimators), and a file whose folder is missing or not writable (the error names
the file the user gave, not the temporary file the write goes through)."""

import os
import pickle

import numpy as np
import pytest

import onlinear


def _fitted(cls=None):
    X = np.random.default_rng(0).normal(size=(20, 3))
    y = np.arange(20) % 2
    model = (cls or onlinear.PassiveAggressive)()
    return model.fit(X, y)


class MyPA(onlinear.PassiveAggressive):
    pass


def test_a_subclass_is_refused_before_any_file_is_written(tmp_path):
    model = _fitted(MyPA)
    with pytest.raises(TypeError, match=r"MyPA is not one of onlinear's estimators \(a subclass "
                                        r"of onlinear\.PassiveAggressive\).*pickle"):
        onlinear.save(model, tmp_path / "m.onlinear")
    assert os.listdir(tmp_path) == []
    copy = pickle.loads(pickle.dumps(model))  # (the remedy the message names)
    assert type(copy) is MyPA and np.array_equal(copy.coef_, model.coef_)


def test_a_missing_folder_is_named_by_the_path_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as error:
        onlinear.save(_fitted(), os.path.join("results", "m.onlinear"))
    assert error.value.filename == os.path.join("results", "m.onlinear")
    assert ".tmp" not in str(error.value) and "results" in str(error.value)
    assert os.listdir(tmp_path) == []


def test_a_folder_that_is_a_file_is_named_by_the_path_given(tmp_path):
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    target = tmp_path / "notes.txt" / "m.onlinear"
    with pytest.raises(NotADirectoryError) as error:
        onlinear.save(_fitted(), target)
    assert error.value.filename == str(target)
    assert ".tmp" not in str(error.value)
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]
