"""``onlinear train`` without ``--classes`` reads DATA once: the first chunk's labels are taken
for all of the stream's, which gives the model ``--classes`` naming them gives, bit for bit; a
later row with another label starts the stream again with every label (read twice then only),
and a failure falls back to the scan of the labels, failing where a run with them fails."""
import gzip

import numpy as np
import pytest

import onlinear
from cli_runner import onlinear_cli
from onlinear.data import libsvm as libsvm_module


def _rows(n, labels, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=2.0, size=(10, 6))
    out = []
    for label in labels[:n]:
        x = centers[label] + rng.normal(size=6)
        out.append(f"{label} " + " ".join(f"{j + 1}:{v:.5f}" for j, v in enumerate(x)) + "\n")
    return "".join(out)


def _opened(monkeypatch):
    """The paths the reader opens, in order."""
    opened = []
    real = libsvm_module.open_binary

    def counted(path):
        opened.append(str(path))
        return real(path)

    monkeypatch.setattr(libsvm_module, "open_binary", counted)
    return opened


def _same_model(first, second):
    a, b = onlinear.load(first), onlinear.load(second)
    assert type(a) is type(b) and a.get_params() == b.get_params()
    np.testing.assert_array_equal(a.classes_, b.classes_, strict=True)
    np.testing.assert_array_equal(a.coef_, b.coef_, strict=True)
    np.testing.assert_array_equal(getattr(a, "intercept_", 0), getattr(b, "intercept_", 0))
    assert (a.n_seen_, a.n_mistakes_, a.n_updates_) == (b.n_seen_, b.n_mistakes_, b.n_updates_)
    assert onlinear.read_header(first)["metadata"] == onlinear.read_header(second)["metadata"]


@pytest.mark.parametrize("name", ["pa1", "mira", "ovr-perceptron"])
def test_a_gzip_file_is_read_once_and_learned_as_with_its_classes(tmp_path, monkeypatch, name):
    labels = np.random.default_rng(1).choice([7, 2, 9, 4], size=400).tolist()
    path = tmp_path / "train.svm.gz"
    path.write_bytes(gzip.compress(_rows(400, labels).encode()))
    opened = _opened(monkeypatch)
    result = onlinear_cli("train", name, path, "--save", tmp_path / "scanned", "--chunk-size",
                          "50", "--quiet")
    assert result.returncode == 0, result.stderr
    assert opened == [str(path)]  # one decompression: no scan before the pass
    appearance = ",".join(str(v) for v in dict.fromkeys(labels))  # first-appearance order
    given = onlinear_cli("train", name, path, "--save", tmp_path / "given", "--chunk-size",
                         "50", "--quiet", "--classes", appearance)
    assert given.returncode == 0, given.stderr
    _same_model(tmp_path / "scanned", tmp_path / "given")
    assert onlinear.load(tmp_path / "scanned").classes_.tolist() == [2, 4, 7, 9]


def test_a_label_after_the_first_chunk_starts_the_stream_again(tmp_path, monkeypatch):
    labels = [1, 2, 3] * 40 + [1, 2, 8, 3] * 20  # label 8 first on line 123
    path = tmp_path / "late.svm.gz"
    path.write_bytes(gzip.compress(_rows(200, labels).encode()))
    opened = _opened(monkeypatch)
    result = onlinear_cli("train", "pa", path, "--save", tmp_path / "m", "--chunk-size", "30")
    assert result.returncode == 0, result.stderr
    assert "note: label 8 on line 123 is not among the first chunk's labels" in result.stderr
    assert opened.count(str(path)) >= 2  # read again (and scanned) only in this case
    given = onlinear_cli("train", "pa", path, "--save", tmp_path / "given", "--chunk-size",
                         "30", "--quiet", "--classes", "1,2,3,8")
    assert given.returncode == 0, given.stderr
    _same_model(tmp_path / "m", tmp_path / "given")
    table = [line.split()[0] for line in result.stderr.splitlines()
             if line.split() and line.split()[0][0].isdigit()]
    assert table[-1] == "200" and table.count("1") == 2  # the second run's table from 1 again


def test_a_bad_line_fails_once_as_with_the_classes(tmp_path):
    labels = [1, 2, 3] * 30
    text = _rows(90, labels)
    lines = text.splitlines(keepends=True)
    (tmp_path / "data.svm").write_text("".join(lines[:61]) + "2 1:0.5 2:oops\n"
                                       + "".join(lines[61:]))
    result = onlinear_cli("train", "pa", "data.svm", "--save", "m", "--chunk-size", "8",
                          cwd=tmp_path)
    assert result.returncode == 1
    assert "data.svm, line 62" in result.stderr
    assert "saved m: the model after 61 examples of the stream" in result.stderr
    table = [line.split()[0] for line in result.stderr.splitlines()
             if line.split() and line.split()[0][0].isdigit()]
    assert table == ["1", "2", "4", "8", "16", "32"]  # each line once
    given = onlinear_cli("train", "pa", "data.svm", "--save", "given", "--chunk-size", "8",
                         "--classes", "1,2,3", "--quiet", cwd=tmp_path)
    assert given.returncode == 1
    _same_model(tmp_path / "m", tmp_path / "given")


def test_a_csv_stream_of_text_labels_grows_its_labels_the_same_way(tmp_path):
    rows = ["a,b,label"] + [f"{i % 3},{i % 5},{['cat', 'dog'][i % 2]}" for i in range(20)] \
        + ["4,4,bird"] + [f"{i % 4},1,{['cat', 'dog', 'bird'][i % 3]}" for i in range(20)]
    (tmp_path / "pets.csv").write_text("\n".join(rows) + "\n")
    result = onlinear_cli("train", "pa", "pets.csv", "--save", "m", "--chunk-size", "8",
                          "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "note: label bird on line 22 is not among the first chunk's labels" in result.stderr
    given = onlinear_cli("train", "pa", "pets.csv", "--save", "given", "--chunk-size", "8",
                         "--classes", "dog,bird,cat", "--quiet", cwd=tmp_path)
    assert given.returncode == 0, given.stderr
    _same_model(tmp_path / "m", tmp_path / "given")
