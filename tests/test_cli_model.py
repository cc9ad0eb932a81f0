"""The streaming commands: ``onlinear train`` / ``predict`` / ``evaluate`` / ``info``."""
import gzip
import json
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

import onlinear
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
    assert not (tmp_path / "m").exists()
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
    result = onlinear_cli("evaluate", narrow, files / "test.svm")
    assert result.returncode == 1 and "knows 4 features" in result.stderr


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

    ranks = np.digitize(X[:, 0], [-0.5, 0.5]) + 1
    dump_svmlight_file(X, ranks, str(tmp_path / "ord.svm"), zero_based=False)
    result = onlinear_cli("train", "simproj", tmp_path / "ord.svm", "--task", "ordinal",
                          "--classes", "1,2,3", "--save", tmp_path / "ord", "--quiet")
    assert result.returncode == 0, result.stderr
    report = onlinear_cli("evaluate", tmp_path / "ord", tmp_path / "ord.svm").stdout
    assert "mean_absolute_rank_error" in report and "accuracy" in report
