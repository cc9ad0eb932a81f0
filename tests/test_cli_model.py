"""The streaming commands: ``onlinear train`` / ``predict`` / ``evaluate`` / ``info``."""
import csv
import gzip
import io
import json
import os
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

import onlinear
from onlinear.persistence import read_header
from cli_runner import onlinear_cli
from onlinear.data import load_libsvm


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A 3-class LIBSVM training file whose later rows use more features, and a test file."""
    folder = tmp_path_factory.mktemp("stream")
    rng = np.random.default_rng(1)
    centers = rng.normal(scale=3.0, size=(3, 8))
    y = rng.integers(1, 4, size=700)
    X = centers[y - 1] + rng.normal(size=(700, 8))
    X[:300, 5:] = 0.0  # the first rows never reach features 6..8: the model grows
    dump_svmlight_file(X[:500], y[:500], str(folder / "train.svm"), zero_based=False)
    dump_svmlight_file(X[500:], y[500:], str(folder / "test.svm"), zero_based=False)
    (folder / "train.svm.gz").write_bytes(gzip.compress((folder / "train.svm").read_bytes()))
    return folder


def test_train_then_evaluate_predict_and_info(files, tmp_path):
    model_path = tmp_path / "pa1.onlinear"
    result = onlinear_cli("train", "pa1", files / "train.svm", "--save", model_path,
                          "--param", "C=0.5", "--chunk-size", "64", "--checkpoint-every", "100")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # the progress table goes to stderr
    lines = result.stderr.splitlines()
    assert lines[0].split() == ["examples", "mistakes", "since", "last", "updates",
                                "examples/s"]
    assert [line.split()[0] for line in lines[1:-1]] == ["1", "2", "4", "8", "16", "32", "64",
                                                         "128", "256", "500"]
    model = onlinear.load(model_path)
    X, y = load_libsvm(files / "train.svm")
    reference = onlinear.make("pa1", C=0.5).fit(X, y.astype(int))
    np.testing.assert_array_equal(model.coef_, reference.coef_)  # grown = started wide
    assert float(lines[-2].split()[1]) == pytest.approx(reference.n_mistakes_ / 500, abs=1e-4)

    X_test, y_test = load_libsvm(files / "test.svm", n_features=8)
    result = onlinear_cli("evaluate", model_path, files / "test.svm")
    accuracy = reference.score(X_test, y_test.astype(int))
    assert result.stdout == f"examples: 200\naccuracy: {accuracy:.6f}\n"

    result = onlinear_cli("predict", model_path, files / "test.svm")
    assert result.stdout.split() == [str(v) for v in reference.predict(X_test)]
    result = onlinear_cli("predict", model_path, files / "test.svm", "--scores",
                          "--output", tmp_path / "p.txt")
    rows = [line.split("\t") for line in (tmp_path / "p.txt").read_text().splitlines()]
    np.testing.assert_array_equal(np.array([r[1:] for r in rows], dtype=float),
                                  reference.decision_function(X_test))

    info = json.loads(onlinear_cli("info", model_path).stdout)
    assert info["algorithm"] == "pa1" and info["counters"]["n_seen_"] == 500
    assert info["params"]["C"] == 0.5 and info["metadata"]["stream_examples"] == 500


def test_standard_input_needs_the_classes_and_then_learns_the_same(files, tmp_path):
    data = (files / "train.svm.gz").read_bytes()
    command = [sys.executable, "-m", "onlinear.cli", "train", "pa", "-", "--save",
               str(tmp_path / "m")]
    refused = subprocess.run(command, input=data, capture_output=True, timeout=300)
    assert refused.returncode == 2 and b"--classes is required" in refused.stderr
    done = subprocess.run(command + ["--classes", "1,2,3", "--quiet"], input=data,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    X, y = load_libsvm(files / "train.svm")
    np.testing.assert_array_equal(onlinear.load(tmp_path / "m").coef_,
                                  onlinear.make("pa").fit(X, y.astype(int)).coef_)


def test_continue_training_a_saved_model_and_resume(files, tmp_path):
    first = tmp_path / "first"
    assert onlinear_cli("train", "mira", files / "test.svm", "--save", first,
                        "--quiet").returncode == 0
    both = tmp_path / "both"
    result = onlinear_cli("train", "--model", first, files / "train.svm", "--save", both,
                          "--quiet")
    assert result.returncode == 0, result.stderr
    X1, y1 = load_libsvm(files / "test.svm", n_features=8)
    X2, y2 = load_libsvm(files / "train.svm")
    reference = onlinear.make("mira").partial_fit(X1, y1.astype(int), classes=[1, 2, 3])
    reference.partial_fit(X2, y2.astype(int))
    np.testing.assert_array_equal(onlinear.load(both).coef_, reference.coef_)
    # --resume on a finished stream learns nothing more
    again = onlinear_cli("train", "--model", first, files / "train.svm", "--save", both,
                         "--quiet", "--resume")
    assert again.returncode == 0 and onlinear.load(both).n_seen_ == 700


def test_fixed_width_names_the_line_and_usage_errors_exit_2(files, tmp_path):
    result = onlinear_cli("train", "pa", files / "train.svm", "--save", tmp_path / "m",
                          "--n-features", "6")
    assert result.returncode == 1
    assert "train.svm, line 301" in result.stderr and "feature index" in result.stderr
    assert onlinear.load(tmp_path / "m").n_seen_ == 300  # the rows before it, kept
    for args in (["train", "nope", files / "train.svm", "--save", tmp_path / "m"],
                 ["train", files / "train.svm", "--save", tmp_path / "m"],
                 ["train", "pa", files / "train.svm", "--save", tmp_path / "no" / "m"],
                 ["train", "pa", files / "missing.svm", "--save", tmp_path / "m"],
                 ["train", "pa", files / "train.svm"]):
        result = onlinear_cli(*args)
        assert result.returncode == 2, (args, result.stderr)


def test_bad_model_files_and_wider_data_exit_1(files, tmp_path):
    (tmp_path / "bad").write_bytes(b"not a model")
    result = onlinear_cli("predict", tmp_path / "bad", files / "test.svm")
    assert result.returncode == 1 and "not an onlinear model file" in result.stderr
    narrow = tmp_path / "narrow"
    X, y = load_libsvm(files / "train.svm")
    onlinear.save(onlinear.make("pa").fit(X[:, :4], y.astype(int)), narrow)
    result = onlinear_cli("evaluate", narrow, files / "test.svm", "--strict-features")
    assert result.returncode == 1
    assert "test.svm, line 1: feature index 5 of '5:" in result.stderr
    assert "is beyond the model's 4 features" in result.stderr


def test_a_csv_table_narrower_than_the_model_is_told(files, tmp_path):
    """A CSV table has every row as wide as its columns: narrower than the model, it is
    likely another table than the model learned from, and its missing features read as 0.
    predict and evaluate padded it without a word; they now tell it on standard error (the
    predictions unchanged).  A LIBSVM file narrower than the model is not told: its rows end
    at their last non-zero."""
    X, y = load_libsvm(files / "train.svm", n_features=8)
    model_path = tmp_path / "m.onlinear"
    model = onlinear.make("pa").fit(X, y.astype(int))
    onlinear.save(model, model_path)
    narrow = tmp_path / "narrow.csv"
    np.savetxt(narrow, np.column_stack([X[:50, :5].toarray(), y[:50]]), delimiter=",",
               fmt="%.17g")
    padded = X[:50].toarray()
    padded[:, 5:] = 0.0
    for command in ("predict", "evaluate"):
        result = onlinear_cli(command, model_path, narrow)
        assert result.returncode == 0, result.stderr
        assert ("narrow.csv has 5 feature column(s), the model 8: the features it lacks read "
                "as 0.") in result.stderr
    assert result.stdout.split()[:2] == ["examples:", "50"]
    assert onlinear_cli("predict", model_path, narrow).stdout.split() == \
        [str(v) for v in model.predict(padded)]
    wide = tmp_path / "wide.csv"
    np.savetxt(wide, np.column_stack([X[:50].toarray(), y[:50]]), delimiter=",", fmt="%.17g")
    assert "lacks" not in onlinear_cli("predict", model_path, wide).stderr
    short = tmp_path / "short.svm"
    short.write_text("1 1:0.5\n2 2:0.25\n")
    assert "lacks" not in onlinear_cli("predict", model_path, short).stderr


def test_multilabel_and_ordinal_streams(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 5))
    Y = (X[:, :3] + 0.3 * rng.normal(size=(120, 3)) > 0).astype(int)
    lines = [",".join(str(j + 1) for j in np.flatnonzero(row)) + " " +
             " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(x)) for x, row in zip(X, Y)]
    (tmp_path / "ml.svm").write_text("\n".join(lines) + "\n")
    result = onlinear_cli("train", "simproj", tmp_path / "ml.svm", "--task", "multilabel",
                          "--save", tmp_path / "ml", "--quiet")
    assert result.returncode == 0, result.stderr
    report = onlinear_cli("evaluate", tmp_path / "ml", tmp_path / "ml.svm").stdout
    assert report.startswith("examples: 120\nhamming_loss: ")
    assert float(report.split()[-1]) < 0.3
    predictions = onlinear_cli("predict", tmp_path / "ml", tmp_path / "ml.svm").stdout
    assert len(predictions.splitlines()) == 120
    # the labels as the file writes them (the first chunk's classes were floats: "1.0,3.0")
    assert set(",".join(predictions.split()).split(",")) <= {"1", "2", "3", ""}
    assert read_header(tmp_path / "ml")["classes_dtype"] == "<i8"

    ranks = np.digitize(X[:, 0], [-0.5, 0.5]) + 1
    dump_svmlight_file(X, ranks, str(tmp_path / "ord.svm"), zero_based=False)
    result = onlinear_cli("train", "simproj", tmp_path / "ord.svm", "--task", "ordinal",
                          "--classes", "1,2,3", "--save", tmp_path / "ord", "--quiet")
    assert result.returncode == 0, result.stderr
    report = onlinear_cli("evaluate", tmp_path / "ord", tmp_path / "ord.svm").stdout
    assert "mean_absolute_rank_error" in report and "accuracy" in report


# ---------------------------------------------------------- nothing lost, nothing half-written
SMALL = "1 1:0.5 2:1\n2 1:-1 3:0.2\n1 1:0.4 2:0.9\n2 1:-0.8 3:0.1\n"


def _folder(tmp_path):
    """A folder with a data file and a model trained on it: every file's bytes, to compare."""
    (tmp_path / "data.svm").write_text(SMALL)
    assert onlinear_cli("train", "pa", "data.svm", "--save", "model.onlinear", "--quiet",
                        cwd=tmp_path).returncode == 0
    return {p.name: p.read_bytes() for p in tmp_path.iterdir()}


def _same_folder(tmp_path, before):
    """Every file as it was, and nothing added (no temporary file left behind)."""
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def _links(tmp_path):
    os.symlink("data.svm", tmp_path / "data-symlink.svm")
    os.link(tmp_path / "data.svm", tmp_path / "data-hardlink.svm")
    os.link(tmp_path / "model.onlinear", tmp_path / "model-hardlink.onlinear")


@pytest.mark.parametrize("args", [
    ["train", "pa", "data.svm", "--save", "data.svm"],
    ["train", "pa", "data.svm", "--save", "data.svm", "--checkpoint-every", "1"],
    ["train", "pa", "data.svm", "--save", "./data.svm", "--classes", "1,2"],
    ["train", "pa", "data.svm", "--save", "data-symlink.svm"],
    ["train", "pa", "data-hardlink.svm", "--save", "data.svm"],
    ["train", "--model", "model.onlinear", "data.svm", "--save", "data-hardlink.svm"],
    ["train", "--model", "model.onlinear", "model.onlinear", "--save", "model-hardlink.onlinear"],
    ["predict", "model.onlinear", "data.svm", "--output", "data.svm"],
    ["predict", "model.onlinear", "data.svm", "--output", "./data.svm"],
    ["predict", "model.onlinear", "data.svm", "--output", "data-hardlink.svm"],
    ["predict", "model.onlinear", "data.svm", "--output", "model.onlinear"],
    ["predict", "model.onlinear", "data.svm", "--output", "model-hardlink.onlinear"],
    ["run", "pa", "data.svm", "--out", "data.svm"],
    ["run", "pa", "data.svm", "--curve", "data-symlink.svm"],
    ["run", "pa", "data.svm", "--test", "data-hardlink.svm", "--plot", "data.svm"],
    ["compare", "pa", "--data", "data.svm", "--out", "./data.svm"],
    ["run", "pa", "data.svm", "--out", "same.txt", "--curve", "same.txt"],
], ids=lambda args: " ".join(args))
def test_an_output_that_is_an_input_is_a_usage_error_and_nothing_is_touched(tmp_path, args):
    _folder(tmp_path)
    _links(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    result = onlinear_cli(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "same file" in result.stderr and "Traceback" not in result.stderr
    _same_folder(tmp_path, before)


@pytest.mark.parametrize("args, first_line", [
    (["predict", "model.onlinear", "data.svm", "--output", "-"], "1"),
    (["run", "pa", "data.svm", "--out", "-", "--format", "csv"], "algorithm,"),
    (["run", "pa", "data.svm", "--curve", "-"], "algorithm,permutation,"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else value)
def test_a_text_output_of_dash_is_standard_output(tmp_path, args, first_line):
    """"-" made a file named "-" (and "wrote -"), where DATA "-" reads standard input."""
    before = _folder(tmp_path)
    result = onlinear_cli(*args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(first_line)
    assert "wrote -" not in result.stderr
    _same_folder(tmp_path, before)


@pytest.mark.parametrize("out, words", [("newdir/", "newdir/ is a folder"),
                                        ("", "an empty path")])
def test_an_output_that_names_no_file_is_a_usage_error_before_any_work(tmp_path, out, words):
    """"newdir/" passed the check and failed after the training (exit 1); "" was called
    " is a folder"."""
    before = _folder(tmp_path)
    result = onlinear_cli("run", "pa", "data.svm", "--out", out, cwd=tmp_path)
    assert result.returncode == 2 and words in result.stderr, result.stderr
    assert "examples" not in result.stdout + result.stderr  # (refused before the run)
    _same_folder(tmp_path, before)


def test_an_output_through_a_symbolic_link_writes_the_file_it_names(tmp_path):
    """The link was replaced by a regular file and its target left as it was."""
    _folder(tmp_path)
    (tmp_path / "out").mkdir()
    os.symlink(tmp_path / "out" / "p.txt", tmp_path / "p-link.txt")
    result = onlinear_cli("predict", "model.onlinear", "data.svm", "--output", "p-link.txt",
                          cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "p-link.txt").is_symlink()
    assert (tmp_path / "out" / "p.txt").read_text().splitlines() == ["1", "2", "1", "2"]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["p.txt"]


def test_continuing_a_model_into_its_own_file_is_allowed(tmp_path):
    # the documented `train --model m.onlinear more.svm --save m.onlinear`: the model is read
    # whole before anything is written, and replaced atomically
    _folder(tmp_path)
    result = onlinear_cli("train", "--model", "model.onlinear", "data.svm", "--save",
                          "model.onlinear", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert onlinear.load(tmp_path / "model.onlinear").n_seen_ == 8


BAD_ROWS = {
    "malformed": ("1 1:0.3 2:x", "line 3", "could not convert string to float"),
    "NaN": ("1 1:0.3 2:nan", "line 3", "'2:nan'"),
    "infinity": ("2 3:-inf", "line 3", "'3:-inf'"),
    "too wide": ("1 1:0.3 7:0.9", "line 3", "'7:0.9'"),  # (with --strict-features)
}


@pytest.mark.parametrize("bad", list(BAD_ROWS), ids=list(BAD_ROWS))
@pytest.mark.parametrize("existing", [False, True], ids=["new output", "existing output"])
def test_a_failed_predict_leaves_its_output_as_it_was(tmp_path, bad, existing):
    _folder(tmp_path)
    row, where, token = BAD_ROWS[bad]
    lines = SMALL.splitlines()
    (tmp_path / "test.svm").write_text("\n".join(lines[:2] + [row] + lines[2:]) + "\n")
    if existing:
        (tmp_path / "out.txt").write_text("previous predictions\n")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    # one row a chunk: two predictions are made before the bad line is read
    result = onlinear_cli("predict", "model.onlinear", "test.svm", "--output", "out.txt",
                          "--chunk-size", "1", "--strict-features", cwd=tmp_path)
    assert result.returncode == 1
    assert f"test.svm, {where}" in result.stderr and token in result.stderr, result.stderr
    _same_folder(tmp_path, before)


def test_predict_replaces_an_existing_output_whole_and_keeps_its_permissions(tmp_path):
    _folder(tmp_path)
    (tmp_path / "out.txt").write_text("previous predictions\n")
    os.chmod(tmp_path / "out.txt", 0o640)
    result = onlinear_cli("predict", "model.onlinear", "data.svm", "--output", "out.txt",
                          cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.txt").read_text() == "1\n2\n1\n2\n"
    assert os.stat(tmp_path / "out.txt").st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.svm", "model.onlinear",
                                                          "out.txt"]


def test_predict_into_a_fifo_writes_through_it(tmp_path):
    # a pipe (or a device) is written in place: it cannot be replaced by a renamed file
    _folder(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    result = onlinear_cli("predict", "model.onlinear", "data.svm", "--output", "pipe",
                          cwd=tmp_path)
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert received == ["1\n2\n1\n2\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("args, content, message", [
    (["train", "pa", "DATA", "--save", "m"], "1 1:1\n2 2:1\n1 1:nan 2:1\n",
     "DATA, line 3: feature values must be finite numbers; got '1:nan'"),
    (["train", "pa", "DATA", "--save", "m", "--chunk-size", "2"],
     "1 1:1\n\n# a comment\n2 2:1\n1 1:1 2:inf\n", "DATA, line 5: feature values must be finite "
     "numbers; got '2:inf'"),
    (["train", "pa", "DATA", "--save", "m", "--classes", "1,2"], "1 1:1\n2 2:1\n3 1:1 2:1\n",
     "DATA, line 3: label '3' is not one of the classes 1, 2"),
    (["train", "--model", "MODEL", "DATA", "--save", "m"], "1 1:1\n2 2:1\n5 1:1\n",
     "DATA, line 3: label '5' is not one of the classes 1, 2"),
    (["train", "pa", "DATA", "--save", "m", "--classes", "1,2"], "1 1:1\n2 2:1\nnan 1:1\n",
     "DATA, line 3: label 'nan' is not a finite number"),
    (["train", "pa", "DATA", "--save", "m"], "1 1:1\n2 2:1\nnan 1:1\n",
     "DATA, line 3: label 'nan' is not a finite number"),
    (["train", "pa", "DATA", "--save", "m"], "1 1:1\n2 2:1\n1 1:1e200 2:1\n",
     "DATA, line 3: the row has norm 1e+200; the learners accept rows of norm 0 or between"),
    (["train", "winnow", "DATA", "--save", "m", "--chunk-size", "2"],
     "1 1:1\n2 2:1\n1 1:1 3:0.5\n2 2:1\n", "DATA, line 3: feature index 3 of '3:0.5' is "
     "beyond the model's 2 features: BalancedWinnow cannot grow new features"),
    (["train", "simproj", "DATA", "--task", "multilabel", "--save", "m", "--classes", "1,2"],
     "1 1:1\n2 2:1\n1,3 1:1\n", "DATA, line 3: label '3' is not one of the classes 1, 2"),
    (["predict", "MODEL", "DATA", "--strict-features"], "1 1:1\n2 2:1\n1 1:1 9:0.5\n",
     "DATA, line 3: feature index 9 of '9:0.5' is beyond the model's 3 features"),
    (["evaluate", "MODEL", "DATA", "--strict-features"], "1 1:1\n2 2:1\n1 1:1 9:0.5\n",
     "DATA, line 3: feature index 9 of '9:0.5' is beyond the model's 3 features"),
    (["evaluate", "MODEL", "DATA"], "1 1:1\n2 2:1\n1 1:nan\n",
     "DATA, line 3: feature values must be finite numbers; got '1:nan'"),
    (["evaluate", "ORDINAL", "DATA"], "1 1:1\n2 1:0.5\n7 1:1\n",
     "DATA, line 3: label '7' is not a rank of the model (its ranks: 1, 2, 3)"),
])
def test_data_errors_name_the_file_the_line_and_the_token(tmp_path, args, content, message):
    _folder(tmp_path)
    (tmp_path / "bad.svm").write_text(content)
    (tmp_path / "ord.svm").write_text("1 1:-1\n2 1:0.1\n3 1:1\n")
    assert onlinear_cli("train", "simproj", "ord.svm", "--task", "ordinal", "--save", "ordinal",
                        "--quiet", cwd=tmp_path).returncode == 0
    files = {"DATA": "bad.svm", "MODEL": "model.onlinear", "ORDINAL": "ordinal"}
    result = onlinear_cli(*[files.get(a, a) for a in args], "--quiet"
                          if args[0] == "train" else "--chunk-size=1", cwd=tmp_path)
    assert result.returncode == 1
    assert message.replace("DATA", "bad.svm") in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()[-1]) > 0
    if (tmp_path / "m").exists():  # the rows before the bad line, learned and kept (and said)
        assert "saved m: the model after" in result.stderr
        kept = onlinear.read_header(tmp_path / "m")["metadata"]["stream_examples"]
        assert 0 < kept < content.count("\n")


# ------------------------------------------- features and labels a model never saw
UNSEEN = "1 1:0.5 2:1\n2 1:-1 3:0.2 7:4\n1 1:0.4 2:0.9 5:1 9:-2\n9 1:-0.8 3:0.1\n2 1:-0.8\n"


@pytest.mark.parametrize("command", ["predict", "evaluate"])
def test_features_beyond_the_model_are_ignored_and_counted(tmp_path, command):
    _folder(tmp_path)  # a model of 3 features and the classes 1, 2
    (tmp_path / "new.svm").write_text(UNSEEN)
    model = onlinear.load(tmp_path / "model.onlinear")
    X, y = load_libsvm(tmp_path / "new.svm")
    result = onlinear_cli(command, "model.onlinear", "new.svm", "--chunk-size", "2",
                          cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = model.predict(X[:, :3])  # what the model knows of each row
    if command == "predict":
        assert result.stdout.split() == [str(v) for v in expected]
    else:
        assert result.stdout == f"examples: 5\naccuracy: {np.mean(expected == y):.6f}\n"
    assert ("new.svm: ignored 3 value(s) of features beyond the model's 3 (the data reaches "
            "feature 9), on 2 rows; --strict-features refuses them.") in result.stderr
    strict = onlinear_cli(command, "model.onlinear", "new.svm", "--strict-features",
                          cwd=tmp_path)
    assert strict.returncode == 1
    assert "new.svm, line 2: feature index 7 of '7:4' is beyond the model's 3" in strict.stderr


def test_evaluate_tells_how_many_rows_have_labels_the_model_never_saw(tmp_path):
    _folder(tmp_path)
    (tmp_path / "new.svm").write_text(UNSEEN.replace("2 1:-0.8\n", "7 1:-0.8\n"))
    result = onlinear_cli("evaluate", "model.onlinear", "new.svm", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    model = onlinear.load(tmp_path / "model.onlinear")
    X, y = load_libsvm(tmp_path / "new.svm")
    accuracy = np.mean(model.predict(X[:, :3]) == y)  # the unseen labels: mistakes
    assert f"accuracy: {accuracy:.6f}" in result.stdout
    assert ("new.svm: 2 of 5 rows have a label the model never saw (7, 9): scored, each such "
            "row a mistake.") in result.stderr


def test_a_multilabel_evaluate_counts_unseen_labels_as_wrong_labels(tmp_path):
    (tmp_path / "tags.svm").write_text("1,2 1:1\n2 2:1\n1 1:1 2:0.2\n2,3 2:1\n")
    assert onlinear_cli("train", "simproj", "tags.svm", "--task", "multilabel", "--save", "m",
                        "--classes", "1,2,3", "--quiet", cwd=tmp_path).returncode == 0
    (tmp_path / "more.svm").write_text("1,4 1:1\n2 2:1\n5,6 1:1\n")
    result = onlinear_cli("evaluate", "m", "more.svm", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert ("more.svm: 2 of 3 rows have a label the model never saw (4, 5, 6): scored, each "
            "such label a wrong label.") in result.stderr


def test_run_with_a_wider_test_set_ignores_and_tells_or_refuses(tmp_path):
    (tmp_path / "train.svm").write_text(SMALL * 5)
    (tmp_path / "test.svm").write_text(UNSEEN)
    result = onlinear_cli("run", "pa", "train.svm", "--test", "test.svm", "--format", "csv",
                          cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    X, y = load_libsvm(tmp_path / "train.svm")
    X_test, y_test = load_libsvm(tmp_path / "test.svm")
    model = onlinear.make("pa").fit(X, y.astype(int))
    error = np.mean(model.predict(X_test[:, :3]) != y_test)
    from onlinear.harness import Table

    assert Table.from_csv(result.stdout)[-1]["test_error"] == pytest.approx(error)
    assert ("test.svm has 9 features, the training data 3: ignored 3 value(s) of features "
            "beyond, on 2 of 5 rows (--strict-features refuses them)") in result.stderr
    assert ("test.svm: 1 of 5 test rows have a label the training data lacks (9); each counts "
            "as a test error") in result.stderr
    strict = onlinear_cli("run", "pa", "train.svm", "--test", "test.svm", "--strict-features",
                          cwd=tmp_path)
    assert strict.returncode == 1 and "test.svm, line 2" in strict.stderr, strict.stderr


@pytest.mark.parametrize("param, phrase", [("nosuch=1", "pa has no hyperparameter 'nosuch'"),
                                           ("C=-1", "The 'C' parameter"),
                                           ("task=ordinal", "no hyperparameter 'task'")])
def test_a_bad_param_of_train_is_a_usage_error(tmp_path, param, phrase):
    (tmp_path / "data.svm").write_text(SMALL)
    result = onlinear_cli("train", "pa", "data.svm", "--save", "m", "--param", param,
                          cwd=tmp_path)
    assert result.returncode == 2 and phrase in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.svm"]


def test_the_streaming_commands_read_csv_files(files, tmp_path):
    """train, predict and evaluate read a CSV stream (by its suffix, compressed too), as they
    read LIBSVM: the same model as fit on its arrays, errors naming the line and the field."""
    X, y = load_libsvm(files / "train.svm", n_features=8)
    X_test, y_test = load_libsvm(files / "test.svm", n_features=8)
    train_csv, test_csv = tmp_path / "train.csv.gz", tmp_path / "test.csv"
    with gzip.open(train_csv, "wt") as handle:
        np.savetxt(handle, np.column_stack([X.toarray(), y]), delimiter=",", fmt="%.17g")
    np.savetxt(test_csv, np.column_stack([X_test.toarray(), y_test]), delimiter=",",
               fmt="%.17g")
    model_path = tmp_path / "m.onlinear"
    result = onlinear_cli("train", "pa1", train_csv, "--save", model_path, "--chunk-size", "64",
                          "--quiet")
    assert result.returncode == 0, result.stderr
    reference = onlinear.make("pa1").fit(X, y.astype(int))  # (CSR rows, as the stream's chunks)
    np.testing.assert_array_equal(onlinear.load(model_path).coef_, reference.coef_)
    accuracy = reference.score(X_test, y_test.astype(int))
    assert onlinear_cli("evaluate", model_path, test_csv).stdout == \
        f"examples: 200\naccuracy: {accuracy:.6f}\n"
    assert onlinear_cli("predict", model_path, test_csv).stdout.split() == \
        [str(v) for v in reference.predict(X_test)]
    bad = tmp_path / "bad.csv"
    bad.write_text("0,1,0,0,0,0,0,0,1\n0,0,nan,0,0,0,0,0,2\n")
    result = onlinear_cli("train", "pa1", bad, "--save", tmp_path / "b.onlinear", "--quiet")
    assert result.returncode == 1 and "bad.csv, line 2" in result.stderr
    assert "'3:nan'" in result.stderr, result.stderr


# ---------------------------------------------------- continuing a model: its task, its classes
def _multilabel_file(path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 4))
    Y = X[:, :3] + 0.3 * rng.normal(size=(90, 3)) > 0
    path.write_text("".join(",".join(str(j + 1) for j in np.flatnonzero(row)) + " " + " ".join(
        f"{i + 1}:{v:.6f}" for i, v in enumerate(x)) + "\n" for x, row in zip(X, Y)))


def test_a_continued_model_keeps_its_own_task(tmp_path):
    """``train --model`` reads the task from the model: a multilabel model goes on learning
    label sets without --task (it failed: "the model was started on sets targets; got
    multiclass targets"), and a --task naming another task is a usage error naming the
    model's, before DATA is read (a multiclass model given label sets failed with
    scikit-learn's "Unknown label type: unknown")."""
    _multilabel_file(tmp_path / "ml.svm")
    (tmp_path / "data.svm").write_text(SMALL)
    (tmp_path / "ord.svm").write_text("1 1:-1\n2 1:0.1\n3 1:1\n")
    for args in (["simproj", "ml.svm", "--task", "multilabel", "--save", "ml"],
                 ["pa", "data.svm", "--save", "pa"],
                 ["simproj", "ord.svm", "--task", "ordinal", "--save", "ord"]):
        assert onlinear_cli("train", *args, "--quiet", cwd=tmp_path).returncode == 0
    result = onlinear_cli("train", "--model", "ml", "ml.svm", "--save", "more", "--quiet",
                          cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    told = onlinear_cli("train", "--model", "ml", "ml.svm", "--task", "multilabel", "--save",
                        "told", "--quiet", cwd=tmp_path)
    assert told.returncode == 0, told.stderr
    more = onlinear.load(tmp_path / "more")
    assert more.multilabel_ and more.n_seen_ == 180
    np.testing.assert_array_equal(more.coef_, onlinear.load(tmp_path / "told").coef_)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for model, data, task, own in [("ml", "ml.svm", "multiclass", "multilabel"),
                                   ("pa", "ml.svm", "multilabel", "multiclass"),
                                   ("pa", "data.svm", "ordinal", "multiclass"),
                                   ("ord", "ord.svm", "multiclass", "ordinal")]:
        result = onlinear_cli("train", "--model", model, data, "--task", task, "--save", "new",
                              "--quiet", cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert f"{model} holds a {own} model, not a {task} one" in result.stderr, result.stderr
    # --resume continues the checkpoint in --save, whose task is its own too
    result = onlinear_cli("train", "simproj", "ml.svm", "--save", "ml", "--resume", "--quiet",
                          cwd=tmp_path)
    assert result.returncode == 2
    assert "the checkpoint ml holds a multilabel model, not a multiclass one: give --task " \
        "multilabel" in result.stderr, result.stderr
    _same_folder(tmp_path, before)


def test_classes_given_to_a_continued_model_grow_it_or_are_refused(tmp_path):
    """``train --model M DATA --classes ...`` ignored --classes (a new label was refused as not
    one of M's classes, and an ordinal model took its ranks in another order silently): more
    classes than M's grow it, as ``partial_fit(classes=...)`` does; fewer, a learner that
    cannot grow, or an ordinal model's ranks in another order are usage errors, before DATA
    is read."""
    (tmp_path / "three.svm").write_text("1 1:0.5 2:1\n2 1:-1 3:0.2\n3 1:0.4 2:0.9\n")
    (tmp_path / "four.svm").write_text("4 1:0.3 2:-1\n1 1:0.5 2:1\n4 2:-0.7 3:0.2\n")
    (tmp_path / "two.svm").write_text("1 1:0.5 2:1\n2 1:-1 3:0.2\n")
    (tmp_path / "ord.svm").write_text("1 1:-1\n2 1:0.1\n3 1:1\n")
    for args in (["pa", "three.svm", "--save", "three"],
                 ["perceptron", "two.svm", "--save", "binary"],
                 ["simproj", "ord.svm", "--task", "ordinal", "--classes", "3,2,1", "--save",
                  "ord"]):
        assert onlinear_cli("train", *args, "--quiet", cwd=tmp_path).returncode == 0
    result = onlinear_cli("train", "--model", "three", "four.svm", "--classes", "4,1,2,3",
                          "--save", "four", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    X, y = load_libsvm(tmp_path / "four.svm", n_features=3)
    reference = onlinear.load(tmp_path / "three")
    reference.partial_fit(X, y.astype(int), classes=[1, 2, 3, 4])
    four = onlinear.load(tmp_path / "four")
    assert four.classes_.tolist() == [1, 2, 3, 4] and four.n_seen_ == 6
    np.testing.assert_array_equal(four.coef_, reference.coef_)
    for args in (["--model", "three", "three.svm", "--classes", "3,1,2"],  # the same classes
                 ["--model", "ord", "ord.svm", "--classes", "3,2,1"]):  # the same rank order
        result = onlinear_cli("train", *args, "--save", "same", "--quiet", cwd=tmp_path)
        assert result.returncode == 0, result.stderr

    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for args, phrase in [
            (["three", "three.svm", "--classes", "1,2"], "1,2 lacks 3 of the classes of three "
             "(1, 2, 3): a continued model keeps its classes"),
            (["binary", "two.svm", "--classes", "1,2,3"], "1,2,3 adds 3 to the classes of "
             "binary (1, 2), but the model cannot take new classes: Perceptron"),
            (["ord", "ord.svm", "--classes", "1,2,3"], "ord is an ordinal model of the ranks "
             "3, 2, 1, in this order; --classes gives 1, 2, 3."),
            (["ord", "ord.svm", "--classes", "4,3,2,1"], "of the ranks 3, 2, 1, in this order; "
             "--classes gives 4, 3, 2, 1.")]:
        result = onlinear_cli("train", "--model", *args, "--save", "new", "--quiet",
                              cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert "Invalid value for --classes" in result.stderr
        assert phrase in " ".join(result.stderr.split()), result.stderr
    _same_folder(tmp_path, before)


@pytest.mark.parametrize("args", [[], ["--checkpoint-every", "10"]],
                         ids=["parsed", "scanned first"])
def test_a_label_that_is_no_number_is_shown_as_text(tmp_path, args):
    (tmp_path / "data.svm").write_text("1 1:0.5\nlow 1:1\n")
    result = onlinear_cli("train", "pa", "data.svm", "--save", "m", "--quiet", *args,
                          cwd=tmp_path)
    assert result.returncode == 1
    assert "data.svm, line 2: could not convert string to float: 'low' (the label); the line " \
        "reads 'low 1:1'" in result.stderr, result.stderr  # (not b'low', the bytes)


def test_predict_writes_each_label_as_a_csv_field(tmp_path):
    """A label saved from Python may hold a comma, a quote or a line break: predict quotes it
    as Python's csv module does (a line break broke the row in two, and a label "a,b" read as
    the set {a, b}); other labels are written as they were."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 3))
    names = np.array(["a,b", "two\nlines", 'say "hi"', "plain"])
    single = onlinear.make("pa").fit(X, names[np.argmax(np.column_stack([X, -X[:, 0]]), 1)])
    sets = [frozenset(names[np.flatnonzero(np.append(x > 0, x[0] + x[1] > 0))]) for x in X]
    multilabel = onlinear.make("simproj", task="multilabel").fit(X, sets)
    onlinear.save(single, tmp_path / "single")
    onlinear.save(multilabel, tmp_path / "multilabel")
    dump_svmlight_file(X, np.ones(80), str(tmp_path / "data.svm"), zero_based=False)
    X, _ = load_libsvm(tmp_path / "data.svm", n_features=3)  # (the rows as predict reads them)
    result = onlinear_cli("predict", "single", "data.svm", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    predicted = single.predict(X).tolist()
    assert set(predicted) == set(names)
    assert list(csv.reader(io.StringIO(result.stdout))) == [[label] for label in predicted]
    assert "\nplain\n" in result.stdout and '\n"a,b"\n' in result.stdout
    assert '"say ""hi"""' in result.stdout and '"two\nlines"' in result.stdout
    scored = onlinear_cli("predict", "single", "data.svm", "--scores", cwd=tmp_path)
    rows = list(csv.reader(io.StringIO(scored.stdout), delimiter="\t"))
    assert [row[0] for row in rows] == predicted
    np.testing.assert_array_equal(np.array([row[1:] for row in rows], dtype=float),
                                  single.decision_function(X))
    result = onlinear_cli("predict", "multilabel", "data.svm", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [sorted(row) for row in csv.reader(io.StringIO(result.stdout))] == \
        [sorted(labels) for labels in multilabel.predict_label_sets(X)]


def test_train_sent_sigterm_saves_what_it_learned_and_exits_143(tmp_path):
    """timeout, docker stop and batch schedulers send SIGTERM: it keeps what was learned, as
    Ctrl-C does, where Python's default ended the run with nothing saved."""
    import signal

    rng = np.random.default_rng(5)
    y = rng.integers(1, 4, size=200_000)
    (tmp_path / "big.svm").write_text("".join(
        f"{label} 1:{a:.3f} 2:{b:.3f}\n" for label, a, b in zip(y, *rng.normal(size=(2, y.size)))))
    path = tmp_path / "m.onlinear"
    process = subprocess.Popen(
        [sys.executable, "-m", "onlinear", "train", "pa1", "big.svm", "--save", str(path),
         "--classes", "1,2,3", "--chunk-size", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        while True:  # (the progress table: a line once 1,024 examples are learned)
            line = process.stderr.readline().decode()
            assert line, process.stderr.read()
            if line.split()[0].replace(",", "").isdigit() and \
                    int(line.split()[0].replace(",", "")) >= 1024:
                break
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    stderr = stderr.decode()
    assert process.returncode == 143, stderr
    k = read_header(path)["metadata"]["stream_examples"]
    assert 1024 <= k < 200_000
    assert f"saved {path}: the model after {k:,} examples" in stderr
    assert "terminated." in stderr and "Traceback" not in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.svm", "m.onlinear"]


def test_train_restores_the_sigterm_handler_it_replaced(files, tmp_path):
    import signal

    before = signal.getsignal(signal.SIGTERM)
    result = onlinear_cli("train", "pa1", files / "train.svm", "--save", tmp_path / "m",
                          "--quiet")
    assert result.returncode == 0, result.stderr
    assert signal.getsignal(signal.SIGTERM) is before
