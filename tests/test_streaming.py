"""learn_stream: chunked learning equals one pass, checkpoints resume bit-identically (also after
SIGKILL at random instants), streams that widen grow the model, progress on a doubling
schedule; LIBSVM chunks from standard input and of unknown width."""
import contextlib
import gzip
import io
import itertools
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from cli_runner import onlinear_cli
from onlinear.data import iter_libsvm_chunks
from onlinear.persistence import read_header
from model_state import model_vars

RNG = np.random.default_rng(11)
N, D = 600, 12
X = sp.random(N, D, density=0.4, format="csr", random_state=3, data_rvs=RNG.standard_normal)
Y = RNG.integers(0, 4, size=N)
CLASSES = np.arange(4)


def _make(name):
    # a kernel's gamma="scale" is resolved from the first chunk seen: fix it to compare
    # streams cut differently
    return onlinear.make(name, gamma=0.5) if name.startswith("kernel-") else onlinear.make(name)


def _chunks(sizes=(37, 50, 13, 100)):
    start, i = 0, 0
    while start < N:
        stop = min(N, start + sizes[i % len(sizes)])
        yield X[start:stop], Y[start:stop]
        start, i = stop, i + 1


def _same(a, b):
    for name in a._model_arrays():
        np.testing.assert_array_equal(a._saved_array(name), b._saved_array(name), err_msg=name,
                                      strict=True)
    assert (a.n_seen_, a.n_mistakes_, a.n_updates_) == (b.n_seen_, b.n_mistakes_, b.n_updates_)


@pytest.mark.parametrize("name", ["pa1", "mira", "mc-romma", "multiplicative", "iellip",
                                  "kernel-pa", "simproj"])
def test_a_chunked_stream_with_checkpoints_learns_what_one_pass_learns(tmp_path, name):
    one_pass = _make(name).partial_fit(X, Y, classes=CLASSES)
    streamed = onlinear.learn_stream(_make(name), _chunks(), classes=CLASSES,
                                     checkpoint=tmp_path / "c", checkpoint_every=70)
    _same(streamed, one_pass)
    _same(onlinear.load(tmp_path / "c"), one_pass)
    assert read_header(tmp_path / "c")["metadata"]["stream_examples"] == N


class _Crash(Exception):
    pass


def _crashing(after_chunks):
    for i, chunk in enumerate(_chunks()):
        if i == after_chunks:
            raise _Crash
        yield chunk


@pytest.mark.parametrize("name", ["pa", "kernel-mira", "simproj"])
def test_resuming_after_a_crash_ends_bit_identical_and_counts_every_example_once(tmp_path,
                                                                                 name):
    path = tmp_path / "c"
    for crash_at in (3, 5, 9):  # three crashes, each after some checkpoints
        with pytest.raises(_Crash):
            onlinear.learn_stream(_make(name), _crashing(crash_at), classes=CLASSES,
                                  checkpoint=path, checkpoint_every=45, resume=True)
        position = read_header(path)["metadata"]["stream_examples"]
        assert position % 45 == 0 and 0 < position < N
    resumed = onlinear.learn_stream(_make(name), _chunks(), classes=CLASSES,
                                    checkpoint=path, checkpoint_every=45, resume=True)
    uninterrupted = _make(name).partial_fit(X, Y, classes=CLASSES)
    _same(resumed, uninterrupted)
    assert resumed.n_seen_ == N


KILLED_TRAINER = textwrap.dedent("""
    import sys, time
    import numpy as np, scipy.sparse as sp
    import onlinear
    rng = np.random.default_rng(11)
    X = sp.random({N}, {D}, density=0.4, format="csr", random_state=3,
                  data_rvs=rng.standard_normal)
    Y = rng.integers(0, 4, size={N})
    def chunks():
        for start in range(0, {N}, 23):
            time.sleep(0.01)  # a slow source: the kill lands anywhere in the stream
            yield X[start:start + 23], Y[start:start + 23]
    onlinear.learn_stream(onlinear.make("pa1"), chunks(), classes=np.arange(4),
                          checkpoint=sys.argv[1], checkpoint_every=40, resume=True)
    print("done")
""").format(N=N, D=D)


def test_a_trainer_killed_with_sigkill_resumes_bit_identically(tmp_path):
    path = tmp_path / "ckpt.onlinear"
    script = tmp_path / "trainer.py"
    script.write_text(KILLED_TRAINER)
    rng = np.random.default_rng(5)
    positions = []
    for _ in range(4):
        process = subprocess.Popen([sys.executable, str(script), str(path)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        previous = positions[-1] if positions else 0
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            try:  # wait for this run's first checkpoint, then kill at a random instant
                if read_header(path)["metadata"]["stream_examples"] > previous:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.005)
        time.sleep(float(rng.uniform(0.0, 0.08)))
        process.send_signal(signal.SIGKILL)
        process.wait()
        positions.append(read_header(path)["metadata"]["stream_examples"])
    assert positions == sorted(positions) and 0 < positions[0] and positions[-1] < N
    finished = subprocess.run([sys.executable, str(script), str(path)], capture_output=True,
                              text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    # a kill during a save may leave its temporary file: the next run removes it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt.onlinear", "trainer.py"]
    resumed = onlinear.load(path)
    _same(resumed, onlinear.make("pa1").partial_fit(X, Y, classes=CLASSES))
    assert resumed.n_seen_ == N


def _libsvm_lines(task):
    """The stream X as LIBSVM lines, labels for ``task`` (ranks 1..3, label sets, classes)."""
    lines = []
    for i in range(N):
        row = X[i]
        if task == "multilabel":
            label = ",".join(str(k + 1) for k in range(3) if (Y[i] >> k) & 1) or "4"
        else:
            label = str(Y[i] % 3 + 1 if task == "ordinal" else Y[i])
        lines.append(label + "".join(f" {j + 1}:{float(v)!r}" for j, v in
                                     zip(row.indices, row.data)) + "\n")
    return lines


@pytest.mark.parametrize("args", [
    ["pa", "--param", "average=true"],
    ["pa1", "--param", "dtype=float32"],
    ["kernel-pa", "--param", "gamma=0.5"],
    ["iellip"],
    ["simproj", "--task", "multilabel"],
    ["simproj", "--task", "ordinal"],
], ids=lambda args: " ".join(args))
def test_onlinear_train_killed_with_sigkill_resumes_bit_identically(tmp_path, args):
    # `onlinear train - --checkpoint-every 40 --resume` fed slowly on standard input, killed
    # at a random instant (during a checkpoint's write, at times), then run to the end: the
    # model is the one an uninterrupted run learns, and no temporary file is left (one
    # interruption per configuration: each run costs an interpreter's start)
    task = args[args.index("--task") + 1] if "--task" in args else None
    lines = _libsvm_lines(task)
    (tmp_path / "data.svm").write_text("".join(lines))
    classes = "1,2,3,4" if task == "multilabel" else "1,2,3" if task == "ordinal" else "0,1,2,3"
    command = [sys.executable, "-m", "onlinear.cli", "train", *args, "-", "--save",
               str(tmp_path / "m.onlinear"), "--classes", classes, "--chunk-size", "23",
               "--checkpoint-every", "40", "--resume", "--quiet"]

    def checkpointed():
        with contextlib.suppress(OSError, ValueError):
            return read_header(tmp_path / "m.onlinear")["metadata"]["stream_examples"] > 0
        return False

    def feed(process):
        with contextlib.suppress(BrokenPipeError, OSError):
            for start in range(0, N, 23):
                process.stdin.write("".join(lines[start:start + 23]).encode())
                process.stdin.flush()
                if start == 23:  # (a first checkpoint's rows sent, the rest waits for it: the
                    # pipe holds two chunks while the interpreter starts, and the kill lands
                    # in the stream however fast the machine learns)
                    deadline = time.monotonic() + 120
                    while not checkpointed() and time.monotonic() < deadline:
                        time.sleep(0.005)
                time.sleep(0.01)  # a slow source: the kill lands anywhere in the stream
            process.stdin.close()

    rng = np.random.default_rng(len(" ".join(args)))
    positions = []
    for _ in range(1):
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        feeder = threading.Thread(target=feed, args=(process,), daemon=True)
        feeder.start()
        previous = positions[-1] if positions else 0
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                if read_header(tmp_path / "m.onlinear")["metadata"]["stream_examples"] > \
                        previous:
                    break
            time.sleep(0.005)
        time.sleep(float(rng.uniform(0.0, 0.08)))
        process.send_signal(signal.SIGKILL)
        process.wait()
        feeder.join(timeout=60)
        positions.append(read_header(tmp_path / "m.onlinear")["metadata"]["stream_examples"])
    assert positions == sorted(positions) and 0 < positions[0] and positions[-1] < N
    finished = subprocess.run(command, input="".join(lines).encode(), capture_output=True,
                              timeout=300)
    assert finished.returncode == 0, finished.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.svm", "m.onlinear"]
    uninterrupted = onlinear_cli("train", *args, tmp_path / "data.svm", "--save",
                                 tmp_path / "u.onlinear", "--classes", classes, "--quiet")
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    resumed = onlinear.load(tmp_path / "m.onlinear")
    _same(resumed, onlinear.load(tmp_path / "u.onlinear"))
    assert resumed.n_seen_ == N


def test_a_widening_stream_grows_the_model_as_if_started_wide():
    widths = [4, 4, 7, 9, 12]
    pieces = np.array_split(np.arange(N), len(widths))

    def narrow_chunks():
        for rows, width in zip(pieces, widths):
            chunk = X[rows].tocsc()[:, :width].tocsr()  # the rest of each row is zero ...
            yield chunk, Y[rows]

    def wide_chunks():  # ... in the data the wide model sees too
        for rows, width in zip(pieces, widths):
            chunk = X[rows].tolil()
            chunk[:, width:] = 0
            yield sp.csr_matrix(chunk), Y[rows]

    for name in ("pa", "mcp", "kernel-pa", "simproj"):
        grown = onlinear.learn_stream(_make(name), narrow_chunks(), classes=CLASSES)
        wide = onlinear.learn_stream(_make(name), wide_chunks(), classes=CLASSES)
        assert grown.n_features_in_ == D
        _same(grown, wide)


def test_narrower_chunks_and_report_stops_are_learned_without_copying_the_chunk():
    # chunks narrower than the model are padded, and a chunk crossing a report's stop (1, 2,
    # 4, ...) is learned in parts: both from the chunk's own arrays, which stay as they were
    from onlinear.streaming import _rows, padded

    narrow = X[:, :7].tocsr()
    wider = padded(narrow, D)
    assert wider.shape == (N, D) and np.shares_memory(wider.data, narrow.data)
    assert (wider[:, :7] != narrow).nnz == 0 and wider[:, 7:].nnz == 0
    for start, stop in ((37, 600), (0, 1), (37, 300), (599, 600), (5, 5)):
        part = _rows(narrow, start, stop)
        assert part.shape == (stop - start, 7) and part.indptr[0] == 0
        assert (part != narrow[start:stop]).nnz == 0
    # (scipy copies a part smaller than half of the chunk's arrays: the larger are views)
    assert np.shares_memory(_rows(narrow, 37, 600).data, narrow.data)
    assert type(_rows(sp.csr_array(narrow), 5, 9)) is sp.csr_array

    def chunks():  # the first chunk full width, the others narrower
        for start, stop, width in ((0, 100, D), (100, 350, 7), (350, N, 9)):
            chunk = X[start:stop].tocsc()[:, :width].tocsr()
            kept = (chunk.data.copy(), chunk.indices.copy(), chunk.indptr.copy())
            yield chunk, Y[start:stop]
            for array, before in zip((chunk.data, chunk.indices, chunk.indptr), kept):
                np.testing.assert_array_equal(array, before)

    reports = []
    for name in ("pa1", "arow", "kernel-pa"):
        streamed = onlinear.learn_stream(_make(name), chunks(), classes=CLASSES,
                                         report=reports.append)
        whole = np.vstack([np.pad(chunk.toarray(), ((0, 0), (0, D - chunk.shape[1])))
                           for chunk, _ in chunks()])
        _same(streamed, _make(name).partial_fit(sp.csr_matrix(whole), Y, classes=CLASSES))
    assert [r.examples for r in reports[:10]] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


@pytest.mark.parametrize("name,task", [("multiplicative", None), ("iellip", None),
                                       ("cellip", None)])
def test_learners_that_cannot_grow_say_so_and_stay_as_they_were(name, task):
    model = _make(name).partial_fit(X[:, :5], Y, classes=CLASSES)
    before = {k: v.copy() for k, v in model_vars(model).items() if isinstance(v, np.ndarray)}
    with pytest.raises(ValueError, match="cannot grow new features"):
        onlinear.learn_stream(model, [(X, Y)])
    assert model.n_features_in_ == 5
    for key, value in before.items():
        np.testing.assert_array_equal(model_vars(model)[key], value)
    with pytest.raises(ValueError, match="growing is off"):
        onlinear.learn_stream(onlinear.make("pa").partial_fit(X[:, :5], Y, classes=CLASSES),
                              [(X, Y)], grow=False)


def test_grow_features_checks_its_argument():
    model = onlinear.make("pa").partial_fit(X, Y, classes=CLASSES)
    for bad in (D - 1, 3.5, True):
        with pytest.raises(ValueError, match="n_features"):
            model.grow_features(bad)
    assert model.grow_features(D) is model and model.n_features_in_ == D


def test_progress_is_reported_on_a_doubling_schedule_and_at_the_end():
    reports = []
    model = onlinear.learn_stream(onlinear.make("pa"), _chunks(), classes=CLASSES,
                                  report=reports.append)
    assert [r.examples for r in reports] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, N]
    assert reports[-1].mistakes == model.n_mistakes_
    assert sum(r.mistakes_since for r in reports) == model.n_mistakes_
    assert reports[-1].updates == model.n_updates_
    assert all(r.examples_since > 0 for r in reports)


def test_resuming_refuses_another_algorithm_or_a_plain_model_file(tmp_path):
    onlinear.learn_stream(onlinear.make("pa"), _chunks(), classes=CLASSES,
                          checkpoint=tmp_path / "c", checkpoint_every=100)
    with pytest.raises(ValueError, match="other hyperparameters"):
        onlinear.learn_stream(onlinear.make("pa1"), _chunks(), checkpoint=tmp_path / "c",
                              resume=True)
    onlinear.save(onlinear.make("pa").fit(X, Y), tmp_path / "plain")
    with pytest.raises(ValueError, match="not a checkpoint"):
        onlinear.learn_stream(onlinear.make("pa"), _chunks(), checkpoint=tmp_path / "plain",
                              resume=True)
    with pytest.raises(ValueError, match="only"):  # a shorter stream than the checkpoint's
        onlinear.learn_stream(onlinear.make("pa"), [(X[:50], Y[:50])],
                              checkpoint=tmp_path / "c", resume=True)
    with pytest.raises(ValueError, match="checkpoint_every"):
        onlinear.learn_stream(onlinear.make("pa"), _chunks(), checkpoint_every=0,
                              checkpoint=tmp_path / "d")


LIBSVM = b"1 1:0.5 3:1\n2 2:-1\n# a comment\n1 5:2\n3 1:1 2:1\n"


@pytest.mark.parametrize("compress", [lambda b: b, gzip.compress])
def test_libsvm_chunks_of_unknown_width_from_a_stream(compress, monkeypatch):
    stream = io.BytesIO(compress(LIBSVM))
    chunks = list(iter_libsvm_chunks(stream, chunk_size=2, n_features=None))
    assert [c[0].shape for c in chunks] == [(2, 3), (2, 5)]
    assert [c[1].tolist() for c in chunks] == [[1.0, 2.0], [1.0, 3.0]]

    fake_stdin = io.TextIOWrapper(io.BytesIO(compress(LIBSVM)))
    monkeypatch.setattr(sys, "stdin", fake_stdin)
    chunks = list(iter_libsvm_chunks("-", chunk_size=3, n_features=None))
    assert [c[0].shape[0] for c in chunks] == [3, 1]


def test_a_bad_line_on_standard_input_is_named(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 1:1\n2 x:1\n")))
    with pytest.raises(ValueError, match=r"<stdin>, line 2"):
        list(iter_libsvm_chunks("-", chunk_size=5, n_features=None))


# ------------------------------------------ an interrupt or a bad line keeps what was learned
def _stream_lines(n, seed=0):
    """``n`` LIBSVM lines of 3 classes, 3 features each."""
    rng = np.random.default_rng(seed)
    y = rng.integers(1, 4, size=n)
    X = rng.normal(size=(n, 3)) + np.eye(3)[y - 1] * 2.0
    return [f"{label} 1:{a:.4f} 2:{b:.4f} 3:{c:.4f}\n" for label, (a, b, c) in zip(y, X)]


def _learned_the_first(path, k, lines, name="pa", **params):
    """The model saved in ``path`` is the one ``name`` learned from the first ``k`` of
    ``lines``."""
    from onlinear.data import load_libsvm

    saved = onlinear.load(path)
    X, y = load_libsvm(io.BytesIO("".join(lines[:k]).encode()))
    reference = onlinear.make(name, **params).partial_fit(X, y.astype(int), classes=[1, 2, 3])
    _same(saved, reference)
    assert saved.n_seen_ == k == read_header(path)["metadata"]["stream_examples"]


def test_onlinear_train_sent_sigint_saves_what_it_learned_and_resumes(tmp_path):
    lines = _stream_lines(90_000)
    head = "".join(lines[:50_000]).encode()  # more than the reader's first 1 MiB block
    tail = "".join(lines[50_000:]).encode()
    path = tmp_path / "m.onlinear"
    command = [sys.executable, "-m", "onlinear", "train", "pa1", "-", "--save", str(path),
               "--classes", "1,2,3", "--param", "C=0.5", "--chunk-size", "1000"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=tmp_path)
    interrupted = threading.Event()

    def feed():  # the head, then (after the interrupt) the tail: the reader waits meanwhile
        with contextlib.suppress(BrokenPipeError, OSError):
            process.stdin.write(head)
            process.stdin.flush()
            interrupted.wait(timeout=120)
            process.stdin.write(tail)
            process.stdin.close()

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    seen = []
    while not seen or int(seen[-1].split()[0].replace(",", "")) < 32_768:
        line = process.stderr.readline().decode()
        assert line, process.stderr.read()
        if line.split()[0][0].isdigit():
            seen.append(line)
    process.send_signal(signal.SIGINT)
    time.sleep(0.5)  # (the handler runs before the tail arrives)
    interrupted.set()
    _, stderr = process.communicate(timeout=120)
    feeder.join(timeout=60)
    stderr = stderr.decode()
    assert process.returncode == 130, stderr
    k = read_header(path)["metadata"]["stream_examples"]
    assert 32_768 <= k < 90_000
    assert f"saved {path}: the model after {k:,} examples of the stream" in stderr
    assert "interrupted." in stderr and "Traceback" not in stderr
    _learned_the_first(path, k, lines, "pa1", C=0.5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onlinear"]  # no temporary left
    # the same command with --resume learns the rest, once
    (tmp_path / "all.svm").write_text("".join(lines))
    done = onlinear_cli("train", "pa1", tmp_path / "all.svm", "--save", path, "--param", "C=0.5",
                        "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    _learned_the_first(path, 90_000, lines, "pa1", C=0.5)


@pytest.mark.parametrize("bad, classes", [
    ("1 1:0.5 2:x\n", []),                    # the reader cannot parse it
    ("2 1:nan 2:1\n", []),                    # a value the learner cannot take
    ("7 1:0.5\n", ["--classes", "1,2,3"]),    # a label outside the classes
    ("2 1:1e300 2:1\n", []),                  # a norm the learner refuses (the model says)
], ids=["malformed", "nan", "label", "norm"])
def test_onlinear_train_on_a_bad_line_saves_the_rows_before_it(tmp_path, bad, classes):
    lines = _stream_lines(120, seed=1)
    (tmp_path / "data.svm").write_text("".join(lines[:57]) + bad + "".join(lines[57:]))
    result = onlinear_cli("train", "pa", "data.svm", "--save", "m", "--chunk-size", "10",
                          *classes, "--quiet", cwd=tmp_path)
    assert result.returncode == 1
    assert "data.svm, line 58" in result.stderr
    assert "saved m: the model after 57 examples of the stream" in result.stderr
    _learned_the_first(tmp_path / "m", 57, lines)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.svm", "m"]


def test_a_bad_first_line_saves_nothing_and_says_so(tmp_path):
    (tmp_path / "data.svm").write_text("1 1:x\n2 1:1\n")
    result = onlinear_cli("train", "pa", "data.svm", "--save", "m", "--quiet", cwd=tmp_path)
    assert result.returncode == 1
    assert "nothing learned from the stream: m not written" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.svm"]


def test_resuming_with_other_hyperparameters_fails_before_reading_the_stream(tmp_path):
    lines = _stream_lines(50)
    (tmp_path / "data.svm").write_text("".join(lines))
    assert onlinear_cli("train", "pa1", "data.svm", "--save", "m", "--param", "C=0.1",
                        "--checkpoint-every", "20", "--quiet", cwd=tmp_path).returncode == 0
    # a stream whose label scan would fail at its last line: the check comes first
    (tmp_path / "more.svm").write_text("".join(lines) + "x 1:1\n")
    result = onlinear_cli("train", "pa1", "more.svm", "--save", "m", "--resume", "--quiet",
                          cwd=tmp_path)
    assert result.returncode == 1
    assert "other hyperparameters than the model to train: C=0.1 (given: 1.0)" in result.stderr
    assert "line 51" not in result.stderr


@pytest.mark.parametrize("name", ["pa", "arow", "adagrad", "simproj", "narow"])
@pytest.mark.parametrize("sparse", [False, True])
def test_learn_stream_learns_the_rows_before_a_refused_one_and_stops_there(tmp_path, name,
                                                                          sparse):
    """A row the model refuses (here a norm out of range) falls inside a piece the stream
    learns at once (a chunk, cut at the progress report's and the checkpoints' stops): the rows
    before it are learned, the checkpoint holds them, and the error says where it stopped."""
    rows = np.asarray(X[:150].todense())
    rows[133, 1] = 1e300  # (inside the piece 128–150: the report stops at 128)
    chunks = [(sp.csr_matrix(rows[i:i + 75]) if sparse else rows[i:i + 75], Y[i:i + 75])
              for i in (0, 75)]
    path = tmp_path / "c"
    with pytest.raises(ValueError, match="norm") as caught:
        onlinear.learn_stream(_make(name), chunks, classes=CLASSES, checkpoint=path,
                              keep_on_failure=True, report=lambda *a: None)
    assert caught.value.row == 133 - 128
    notes = caught.value.__notes__
    assert any("example 134 was refused; the 133 before it are learned" in n for n in notes)
    assert any("after 133 examples" in note for note in notes)
    first = sp.csr_matrix(rows[:133]) if sparse else rows[:133]  # (pa's dense sums: rounding)
    _same(onlinear.load(path), _make(name).partial_fit(first, Y[:133], classes=CLASSES))


def test_learn_stream_keeps_the_model_when_the_stream_fails(tmp_path):
    def failing():
        yield X[:70], Y[:70]
        yield X[70:100], Y[70:100]
        raise OSError("the source went away")

    path = tmp_path / "c"
    with pytest.raises(OSError, match="went away") as caught:
        onlinear.learn_stream(onlinear.make("pa"), failing(), classes=CLASSES, checkpoint=path,
                              keep_on_failure=True)
    assert any("after 100 examples" in note for note in caught.value.__notes__)
    _same(onlinear.load(path), onlinear.make("pa").partial_fit(X[:100], Y[:100],
                                                                classes=CLASSES))
    resumed = onlinear.learn_stream(onlinear.make("pa"), _chunks(), classes=CLASSES,
                                    checkpoint=path, resume=True)
    _same(resumed, onlinear.make("pa").partial_fit(X, Y, classes=CLASSES))
    with pytest.raises(OSError):  # by default the checkpoint is not touched
        onlinear.learn_stream(onlinear.make("pa"), failing(), classes=CLASSES,
                              checkpoint=tmp_path / "d")
    assert not (tmp_path / "d").exists()


def test_a_wider_piece_refused_before_any_of_its_rows_leaves_the_model_as_narrow():
    """learn_stream widened the model for a wider piece, then the piece was refused (its
    first row NaN): the model stayed wider, and predict on the data it had learned failed.
    Refused before any of its rows, the piece now leaves the model as it was; refused at a
    later row, the rows before it are learned, in the widened model."""
    rng = np.random.default_rng(12)
    X, y = rng.normal(size=(50, 4)), rng.integers(0, 3, 50)
    model = onlinear.make("pa").fit(X, y)
    coef = model.coef_.copy()
    wide = rng.normal(size=(5, 6))
    wide[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        onlinear.learn_stream(model, [(wide, y[:5])])
    assert model.n_features_in_ == 4 and model.n_seen_ == 50
    np.testing.assert_array_equal(model.coef_, coef)
    model.predict(X)
    wide[0, 0], wide[3, 1] = 0.5, np.nan
    with pytest.raises(ValueError, match="NaN"):
        onlinear.learn_stream(model, [(wide, y[:5])])
    assert model.n_features_in_ == 6 and model.n_seen_ == 53


@pytest.mark.parametrize("given", ["array", "numpy ints", "tuple", "RandomState"])
def test_hyperparameters_a_file_holds_as_copies_resume(tmp_path, given):
    """An ordinal learner's classes given as an array (or a list of np.int64) could not be
    saved, so a stream's first checkpoint failed; given as a tuple it came back a list and
    resume refused the checkpoint, as it refused a RandomState (a file holds a copy, not the
    object).  Each now saves and resumes, the same model as a stream never stopped."""
    rng = np.random.default_rng(13)
    X = rng.normal(size=(60, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5]) + 1
    params = {"array": dict(task="ordinal", classes=np.array([1, 2, 3])),
              "numpy ints": dict(task="ordinal", classes=[np.int64(v) for v in (1, 2, 3)]),
              "tuple": dict(task="ordinal", classes=(1, 2, 3)),
              "RandomState": dict(random_state=np.random.RandomState(0))}[given]
    name = "simproj" if "task" in params else "pa1"

    def make():
        return onlinear.make(name, **{**params, **({"random_state": np.random.RandomState(0)}
                                                   if given == "RandomState" else {})})

    def chunks():
        return ((X[i:i + 10], y[i:i + 10]) for i in range(0, 60, 10))

    path = tmp_path / "c.onlinear"
    onlinear.learn_stream(make(), itertools.islice(chunks(), 2), classes=[1, 2, 3],
                          checkpoint=path)
    resumed = onlinear.learn_stream(make(), chunks(), classes=[1, 2, 3], checkpoint=path,
                                    resume=True)
    straight = onlinear.learn_stream(make(), chunks(), classes=[1, 2, 3])
    assert resumed.n_seen_ == 60
    np.testing.assert_array_equal(resumed.decision_function(X), straight.decision_function(X))


def test_a_first_chunk_of_labels_only_starts_a_model_of_one_feature(tmp_path):
    """Lines of a label and no feature are legal LIBSVM: a first chunk of them has no
    features, and the model could not start ("Found array with 0 feature(s)"), so the result
    depended on the chunk size.  It starts one feature wide, as load_libsvm reads the file."""
    from onlinear.data import iter_libsvm_chunks, load_libsvm

    path = tmp_path / "z.svm"
    path.write_text("1\n2 1:1\n1 2:1\n2 1:0.5 2:-1\n")
    chunked = onlinear.learn_stream(onlinear.make("pa1"), iter_libsvm_chunks(path, 1, None),
                                    classes=[1, 2])
    X, y = load_libsvm(path)
    whole = onlinear.make("pa1").fit(X, y.astype(int))
    assert chunked.n_seen_ == 4
    np.testing.assert_array_equal(chunked.coef_, whole.coef_)


def test_classes_reach_a_started_model_and_a_chunk_needs_a_label_per_row():
    """learn_stream gave ``classes`` only to a model not started yet: a started (or resumed)
    model met the stream's new label mid-stream and failed, where partial_fit(classes=...)
    grows it.  A chunk of 5 rows and 4 labels learned 4 rows, then failed."""
    rng = np.random.default_rng(14)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 2, 40)
    model = onlinear.make("pa").fit(X[:10], y[:10])
    y_new = y.copy()
    y_new[25] = 2
    onlinear.learn_stream(model, [(X[10:], y_new[10:])], classes=[0, 1, 2])
    assert model.classes_.tolist() == [0, 1, 2] and model.n_seen_ == 40
    before = model.coef_.copy()
    with pytest.raises(ValueError, match="has 5 rows and 4 labels"):
        onlinear.learn_stream(model, [(X[:5], y[:4])])
    assert model.n_seen_ == 40
    np.testing.assert_array_equal(model.coef_, before)
