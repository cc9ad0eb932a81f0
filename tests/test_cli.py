"""The ``onlinear`` command end to end.

Most calls run the command in this process through click's runner (a subprocess spends seconds
importing numba and scikit-learn, each time); the help, the main job and ``fetch`` also run as a
user would, in a subprocess.
"""
import csv
import io
import json
import subprocess
import sys

import numpy as np
import pytest

import onlinear
from cli_runner import onlinear_cli
from onlinear.harness import Table

# The six-example stream traced by hand in test_harness.py, as a LIBSVM file (1-based indices).
TINY = "1 1:1\n-1 2:1\n1 1:1 2:1\n-1 1:-1\n1 2:-1\n1 1:1\n"


def onlinear_process(*args, cwd=None):
    """``python -m onlinear.cli ARGS`` in a subprocess, as a user runs the command."""
    return subprocess.run([sys.executable, "-m", "onlinear.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.svm"
    path.write_text(TINY)
    return path


@pytest.fixture
def blobs(tmp_path):
    """300 examples of 3 well-separated classes, as a LIBSVM file."""
    rng = np.random.default_rng(0)
    y = rng.integers(1, 4, size=300)
    X = rng.normal(scale=0.5, size=(300, 5))
    X[np.arange(300), y - 1] += 3.0
    path = tmp_path / "blobs.svm"
    path.write_text("".join(
        f"{label} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row)) + "\n"
        for label, row in zip(y, X)))
    return path


def assert_clean_failure(result, code, phrase):
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    assert phrase in result.stderr
    if code == 1:
        assert result.stderr.strip().count("\n") == 0  # one line


def test_help_everywhere():
    for args in ([], ["list"], ["run"], ["compare"]):
        result = onlinear_cli(*args, "--help")
        assert result.returncode == 0, result.stderr
        assert "Usage: " in result.stdout
    process = onlinear_process("--help")
    assert process.returncode == 0, process.stderr
    assert "Usage: onlinear" in process.stdout


def test_list_shows_every_registered_algorithm_with_its_hyperparameters():
    result = onlinear_cli("list")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["name", "task", "fixed", "paper"]
    assert [line.split()[0] for line in lines[1:-1]] == onlinear.available()
    assert "--kernel" in lines[-1]
    records = json.loads(onlinear_cli("list", "--format", "json").stdout)
    assert [r["name"] for r in records] == onlinear.available()
    mira = next(r for r in records if r["name"] == "mira")
    assert mira["hyperparameters"] == "beta=0.01" and "Crammer & Singer" in mira["paper"]
    assert next(r for r in records if r["name"] == "pa1")["hyperparameters"].startswith("C=1.0")


def test_list_fits_100_columns_and_tells_pa_pa1_pa2_apart_with_paper_and_year():
    for args in ([], ["--kernel"], ["--task", "binary"]):
        result = onlinear_cli("list", *args)
        assert result.returncode == 0, result.stderr
        assert max(len(line) for line in result.stdout.splitlines()) <= 100, args
    rows = {line.split()[0]: line for line in onlinear_cli("list").stdout.splitlines()}
    assert rows["pa"].split()[2] == "slack=none"
    assert rows["pa1"].split()[2] == "slack=linear"
    assert rows["pa2"].split()[2] == "slack=squared"
    assert rows["pa1"].endswith("Matsushima et al. 2010")
    assert rows["simperc"].endswith("Amit, Shalev-Shwartz & Singer 2008")
    assert rows["cellip"].endswith("Yang, Jin & Ye 2009")


def test_list_kernel_shows_the_kernel_learners_only():
    lines = onlinear_cli("list", "--kernel").stdout.splitlines()
    assert [line.split()[0] for line in lines[1:-1]] == onlinear.available(kernel=True)
    assert all(line.startswith("kernel-") for line in lines[1:-1])
    row = next(line for line in lines if line.startswith("kernel-pa2 "))
    assert row.split()[1:3] == ["multiclass", "slack=squared"]


def test_run_reports_the_hand_traced_numbers(tiny, tmp_path):
    curve = tmp_path / "curve.csv"
    result = onlinear_cli("run", "perceptron", tiny, "--tick", 2, "--epochs", 2, "--test", tiny,
                          "--curve", curve)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("perceptron on ") and "6 examples, 2 features, 2 classes" in lines[0]
    assert lines[2].split()[:6] == ["1", "6", "3", "50.00%", "4", "0.00%"]
    assert lines[3].split()[:6] == ["2", "12", "3", "25.00%", "4", "0.00%"]
    table = Table.from_csv(curve.read_text())
    assert table.column("examples") == [2, 4, 6, 8, 10, 12]
    assert table.column("mistakes") == [1, 2, 3, 3, 3, 3]
    assert table.column("updates") == [2, 3, 4, 4, 4, 4]


def test_run_takes_hyperparameters_and_other_formats(tiny):
    result = onlinear_cli("run", "pa1", tiny, "--param", "C=0.5", "--format", "json")
    assert result.returncode == 0, result.stderr
    (record,) = json.loads(result.stdout)
    assert record["examples"] == 6 and record["algorithm"] == "pa1"
    assert "test_error" not in record


def test_compare_two_algorithms_and_plot(blobs, tmp_path):
    png, out = tmp_path / "curves.png", tmp_path / "summary.csv"
    result = onlinear_cli("compare", "pa1", "mira", "--data", blobs, "--permutations", 2,
                          "--seed", 3, "--plot", png, "--format", "csv", "--out", out)
    assert result.returncode == 0, result.stderr
    table = Table.from_csv(out.read_text())
    assert table.column("algorithm") == ["pa1", "mira"]
    assert table.column("permutations") == [2, 2]
    assert all(0 <= rate < 0.2 for rate in table.column("mistake_rate"))
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    height, width, _ = matplotlib.image.imread(png).shape
    assert 1000 <= width <= 4000 and 300 <= height <= 2000 and width > height


def test_compare_prints_a_table_with_grid_search(blobs):
    result = onlinear_cli("compare", "pa1", "mcp", "--data", blobs, "--grid", "C=0.01,1")
    assert result.returncode == 0, result.stderr
    assert "grid search" in result.stdout
    summary = result.stdout.split("\n\n")[1].splitlines()
    assert "blobs.svm: 300 examples, 5 features, 3 classes; 1 epoch, given order" in summary[0]
    assert summary[1].split() == ["algorithm", "params", "mistake", "rate", "updates",
                                  "seconds"]
    assert summary[2].startswith("pa1 ") and "C=" in summary[2]
    assert summary[3].startswith("mcp ")


@pytest.mark.parametrize("fmt", ["markdown", "table"])
def test_a_grid_search_shows_every_configuration_and_marks_the_selected(blobs, fmt):
    result = onlinear_cli("compare", "pa1", "spa1", "--data", blobs, "--grid", "C=0.001,0.1,10",
                          "--format", fmt)
    assert result.returncode == 0, result.stderr
    title, grid_text, summary_text = result.stdout.split("\n\n", 2)[:3] if fmt == "markdown" \
        else ["", *result.stdout.split("\n\n", 1)]
    if fmt == "markdown":
        assert title.startswith("grid search")
        grid, summary = Table.from_markdown(grid_text), Table.from_markdown(summary_text)
        chosen = {row["algorithm"]: row["params"] for row in summary}
    else:
        lines = grid_text.splitlines()[1:]
        header = lines[0].split()
        grid = Table([dict(zip(header, line.split() + [""] * (len(header) - len(line.split()))))
                      for line in lines[1:]])
        chosen = {line.split()[0]: line.split()[1] for line in summary_text.splitlines()[2:]}
    assert len(grid) == 6  # every configuration, of both algorithms
    for name in ("pa1", "spa1"):
        rows = grid.where(algorithm=name)
        assert [str(c) for c in rows.column("C")] == ["0.001", "0.1", "10"]
        marked = [row for row in rows if row["selected"] == "yes"]
        assert len(marked) == 1
        assert float(marked[0]["mistake_rate"]) == min(float(v) for v in
                                                       rows.column("mistake_rate"))
        assert chosen[name] == f"C={marked[0]['C']}"


def test_compare_with_no_arguments_runs_every_multiclass_algorithm_on_usps():
    result = onlinear_process("compare")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("USPS: 7,291 examples, 256 features, 10 classes; 1 epoch")
    assert lines[1].split() == ["algorithm", "mistake", "rate", "updates", "test", "error",
                                "seconds"]
    assert [line.split()[0] for line in lines[2:]] == onlinear.available("multiclass")


@pytest.mark.parametrize("args, code, phrase", [
    (["run", "no-such-learner", "usps"], 2, "Error: unknown algorithm 'no-such-learner'"),
    (["compare", "pa1", "no-such-learner"], 2, "Error: unknown algorithm 'no-such-learner'"),
    (["run", "pa1", "missing.svm"], 1, "Error: no such file: missing.svm"),
    (["run", "pa1", "TINY", "--param", "C=-1"], 2, "Error: The 'C' parameter"),
    (["run", "pa1", "TINY", "--param", "gamma=2"], 2, "Error: pa1 has no hyperparameter"),
    (["run", "pa1", "BAD"], 1, "Error: cannot read"),
    (["run", "pa1", "EMPTY"], 1, "Error: empty.svm holds no example"),
    (["run", "pa1", "usps", "--test", "EMPTY"], 1, "Error: empty.svm holds no example"),
    (["compare", "winnow", "--data", "BLOBS"], 1, "Error: winnow learns two classes only"),
    (["run", "pa1", "TINY", "--param", "C"], 2, "expected KEY=VALUE"),
    (["run", "pa1", "TINY", "--epochs", "0"], 2, "Invalid value for '--epochs'"),
    # (numpy's bare "expected non-negative integer", exit 1, named no option)
    (["run", "pa1", "TINY", "--shuffle", "--seed", "-1"], 2, "Invalid value for '--seed'"),
    (["compare", "pa1", "mira", "--data", "TINY", "--permutations", "2", "--seed", "-1"], 2,
     "Invalid value for '--seed': -1 is not in the range x>=0"),
    (["compare", "--format", "xml"], 2, "Invalid value for '--format'"),
    (["frobnicate"], 2, "No such command"),
])
def test_errors_are_one_line_with_the_right_exit_code(tiny, blobs, tmp_path, args, code,
                                                      phrase):
    bad = tmp_path / "bad.svm"
    bad.write_text("this is not libsvm\n")
    (tmp_path / "empty.svm").write_text("# a comment, and no example\n\n")
    files = {"TINY": tiny, "BAD": bad, "BLOBS": blobs, "EMPTY": "empty.svm"}
    result = onlinear_cli(*[files.get(a, a) for a in args], cwd=tmp_path)
    assert_clean_failure(result, code, phrase)
    assert result.stdout == ""


# ------------------------------------------------------------------------------------ fetch
def _serve(directory):
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_fetch_downloads_and_verifies_a_file_from_a_local_server(tmp_path):
    import hashlib

    served = tmp_path / "served"
    served.mkdir()
    payload = b"1 1:0.5 2:-1\n2 1:1\n"
    (served / "tiny.libsvm").write_bytes(payload)
    digest = hashlib.sha256(payload).hexdigest()
    server = _serve(served)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/tiny.libsvm"
        dest = tmp_path / "data"
        good = onlinear_process("fetch", url, "--dest", dest, "--sha256", digest)
        assert good.returncode == 0, good.stderr
        assert (dest / "tiny.libsvm").read_bytes() == payload
        bad = onlinear_process("fetch", url, "--dest", tmp_path / "other", "--sha256", "0" * 64)
        assert bad.returncode == 1 and "Traceback" not in bad.stderr
        assert "sha" in bad.stderr.lower() or "checksum" in bad.stderr.lower()
        assert not (tmp_path / "other" / "tiny.libsvm").exists()
    finally:
        server.shutdown()


def test_compare_reads_csv_files_by_their_suffix(tmp_path):
    rng = np.random.default_rng(8)
    X = np.round(rng.normal(size=(120, 4)), 4)
    y = np.argmax(X[:, :3], axis=1)
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    np.savetxt(train, np.column_stack([X[:90], y[:90]]), delimiter=",", fmt="%.6g")
    np.savetxt(test, np.column_stack([X[90:], y[90:]]), delimiter=",", fmt="%.6g")
    result = onlinear_cli("compare", "pa", "mira", "--data", train, "--test", test,
                          "--format", "csv")
    assert result.returncode == 0, result.stderr
    rows = {row["algorithm"]: row for row in csv.DictReader(io.StringIO(result.stdout))}
    expected = onlinear.make("pa").fit(np.loadtxt(train, delimiter=",")[:, :4], y[:90])
    assert float(rows["pa"]["mistakes"]) == expected.n_mistakes_
    narrow = tmp_path / "narrow.csv"
    np.savetxt(narrow, np.column_stack([X[90:, :3], y[90:]]), delimiter=",", fmt="%.6g")
    result = onlinear_cli("compare", "pa", "--data", train, "--test", narrow)
    assert result.returncode == 1 and "3 feature columns, the training data 4" in result.stderr


# ------------------------------------------------------------------------------------ figures
# a stream without a mistake: the first prediction (score 0) is right, the rest separable
PERFECT = "-1 1:-1\n1 1:1\n-1 1:-1\n1 1:1\n"


@pytest.mark.parametrize("args, option, phrase", [
    (["--plot", "f.pgf"], "--plot", "needs LaTeX"),
    (["--plot", "f.png", "--plot-format", "pgf"], "--plot-format", "needs LaTeX"),
    (["--plot", "f.png", "--plot-dpi", "2000", "--plot-size", "100,100"],
     "--plot-size/--plot-dpi", "200,000 x 200,000 pixels"),
    (["--plot", "f.png", "--plot-dpi", "5"], "--plot-dpi", "dpi must be"),
    (["--plot", "f.png", "--plot-log", "speed"], "--plot-log", "unknown panel"),
])
def test_a_figure_that_would_fail_after_the_training_is_a_usage_error(tiny, tmp_path, args,
                                                                      option, phrase):
    result = onlinear_cli("run", "pa1", tiny, *args, cwd=tmp_path)
    assert_clean_failure(result, 2, f"Invalid value for {option}: ")
    assert phrase in " ".join(result.stderr.split())
    assert result.stdout == "" and sorted(p.name for p in tmp_path.iterdir()) == ["tiny.svm"]


def test_a_log_scale_on_a_run_without_a_mistake_draws_the_figure(tmp_path):
    data = tmp_path / "perfect.svm"
    data.write_text(PERFECT)
    result = onlinear_cli("run", "perceptron", data, "--plot", tmp_path / "f.png",
                          "--plot-log", "mistakes")
    assert result.returncode == 0, result.stderr
    assert "0.00%" in result.stdout and (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"


def test_a_figure_that_fails_after_the_training_keeps_the_table(tiny, tmp_path, monkeypatch):
    """The results of the training are written even when the figure cannot be (here matplotlib
    failing as it saves); the command then fails, naming the figure, and leaves no file."""
    import onlinear.plots

    def failing(evaluation, path, **options):
        with open(path, "wb") as handle:
            handle.write(b"half a figure")
        raise RuntimeError("the renderer failed")

    monkeypatch.setattr(onlinear.plots, "plot_curves", failing)
    result = onlinear_cli("run", "pa1", tiny, "--plot", "f.png", "--curve", "c.csv",
                          cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        "wrote c.csv", "Error: --plot f.png was not written (RuntimeError: the renderer "
        "failed); the table was written all the same."]
    assert "mistake rate" in result.stdout and "pa1" in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.csv", "tiny.svm"]
    # with --out, the table goes into its file all the same
    result = onlinear_cli("run", "pa1", tiny, "--plot", "f.png", "--out", "t.txt", cwd=tmp_path)
    assert result.returncode == 1 and "mistake rate" in (tmp_path / "t.txt").read_text()


def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path):
    """`onlinear compare ... --curve - | head -1`: the closed pipe is no error."""
    rng = np.random.default_rng(3)
    y = rng.integers(1, 3, size=3000)
    (tmp_path / "d.svm").write_text("".join(
        f"{label} 1:{a:.3f}\n" for label, a in zip(y, rng.normal(size=y.size))))
    process = subprocess.Popen(
        [sys.executable, "-m", "onlinear", "compare", "pa1", "mira", "--data", "d.svm",
         "--curve", "-", "--tick", "1"],  # (6,000 curve rows: more than a pipe holds)
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert process.stdout.readline().startswith(b"algorithm,")
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=300) == 0, stderr
    assert "Error" not in stderr and "Broken pipe" not in stderr and "Traceback" not in stderr


@pytest.mark.parametrize("value, shown", [
    ("0", False), ("false", False), ("No", False), ("OFF", False), ("", False),
    ("1", True), ("true", True), ("yes", True), ("on", True)])
def test_onlinear_traceback_is_read_as_a_flag(tmp_path, value, shown):
    from click.testing import CliRunner

    from onlinear.cli import cli

    result = CliRunner().invoke(cli, ["info", str(tmp_path / "missing")],
                                env={"ONLINEAR_TRACEBACK": value})
    if shown:
        assert isinstance(result.exception, FileNotFoundError)
    else:
        assert result.exit_code == 1 and "Error:" in result.output, result.output


@pytest.mark.parametrize("args", [
    ["--out", "/dev/full"],
    ["--curve", "/dev/full"],
], ids=["out", "curve"])
def test_a_full_disk_names_the_output_not_written(blobs, args):
    if not __import__("os").path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    result = onlinear_cli("compare", "pa1", "--data", blobs, *args)
    assert result.returncode == 1
    assert "/dev/full" in result.stderr and "No space left on device" in result.stderr


def test_train_and_predict_onto_a_full_disk_name_the_file(blobs, tmp_path):
    if not __import__("os").path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    result = onlinear_cli("train", "pa1", blobs, "--save", "/dev/full", "--quiet")
    assert_clean_failure(result, 1, "could not write /dev/full: No space left on device")
    assert onlinear_cli("train", "pa1", blobs, "--save", tmp_path / "m", "--quiet").returncode == 0
    result = onlinear_cli("predict", tmp_path / "m", blobs, "--output", "/dev/full")
    assert_clean_failure(result, 1, "could not write /dev/full: No space left on device")


def test_an_output_that_fails_to_be_written_is_named(blobs, tmp_path, monkeypatch):
    """The file system's error of write() holds no file name: the command adds it."""
    import errno

    import onlinear.cli.common as common

    def full(path, suffix):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(common, "replacing", __import__("contextlib").contextmanager(
        lambda path, suffix: (yield full(path, suffix))))
    result = onlinear_cli("compare", "pa1", "--data", blobs, "--out", tmp_path / "t.txt")
    assert_clean_failure(result, 1, f"could not write {tmp_path / 't.txt'}: No space left")


def test_workers_beyond_the_machines_bound_is_a_usage_error(blobs):
    import os

    bound = 4 * (getattr(os, "process_cpu_count", os.cpu_count)() or 1)
    result = onlinear_cli("compare", "pa1", "--data", blobs, "--workers", bound + 1)
    assert_clean_failure(result, 2, "--workers")
    assert f"more than {bound}" in result.stderr


@pytest.mark.parametrize("args, phrase", [
    (["--grid", "C=1", "--grid", "C=0.001"], "C given twice"),
    (["--grid", "C=,"], "gives C no value"),
    (["pa1"], "pa1 given more than once"),
], ids=["grid-twice", "grid-empty", "algorithm-twice"])
def test_grid_and_algorithm_mistakes_are_usage_errors(blobs, args, phrase):
    result = onlinear_cli("compare", "pa1", "--data", blobs, *args)
    assert_clean_failure(result, 2, phrase)
