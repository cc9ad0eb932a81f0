"""learn_stream on the inputs partial_fit takes and on failures between examples: a NumPy integer
``checkpoint_every``; chunks of any sparse format, lists of rows (DataFrames, dense arrays and
CSR matrices as they are, uncopied); a ``report`` that raises (an interrupt while the progress
line prints) and a checkpoint's save that fails, with ``keep_on_failure``."""
import errno
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from onlinear import streaming
from onlinear.persistence import read_header

RNG = np.random.default_rng(21)
N, D = 300, 5
XD = RNG.normal(size=(N, D))
XD[RNG.random(size=(N, D)) < 0.4] = 0.0  # (zeros: the sparse formats store fewer values)
Y = RNG.integers(0, 3, size=N)
CLASSES = [0, 1, 2]


def _same(a, b):
    for name in a._model_arrays():
        np.testing.assert_array_equal(a._saved_array(name), b._saved_array(name), err_msg=name,
                                      strict=True)
    assert (a.n_seen_, a.n_mistakes_, a.n_updates_) == (b.n_seen_, b.n_mistakes_, b.n_updates_)


def _dense_chunks(size=37, X=XD, y=Y):
    return [(X[i:i + size], y[i:i + size]) for i in range(0, len(y), size)]


def _positions(monkeypatch):
    """The stream positions of the checkpoints learn_stream saves, in order."""
    positions = []
    real = streaming.save

    def recorded(model, path, metadata=None, **kwargs):
        positions.append(metadata[streaming.STREAM_POSITION])
        return real(model, path, metadata=metadata, **kwargs)

    monkeypatch.setattr(streaming, "save", recorded)
    return positions


# ------------------------------------------------------------------ checkpoint_every's type
@pytest.mark.parametrize("every", [np.int8(100), np.int16(50), np.int64(50), np.uint8(64)])
def test_a_numpy_integer_checkpoint_every_checkpoints_as_its_python_int(tmp_path, monkeypatch,
                                                                        every):
    """The argument check takes a NumPy integer, but the stream then did its arithmetic with
    it: after the first checkpoint, np.int64(50) failed ("'numpy.int64' object has no
    attribute 'bit_length'") and np.int8(100) overflowed at the 128th example — outside the
    keep_on_failure handling, so what was learned since the checkpoint was lost.  Now it is
    the Python int it holds: the same checkpoints, the same model."""
    positions = _positions(monkeypatch)
    path = tmp_path / "numpy.onlinear"
    model = onlinear.learn_stream(onlinear.make("pa"), _dense_chunks(20), classes=CLASSES,
                                  checkpoint=path, checkpoint_every=every,
                                  keep_on_failure=True)
    expected = list(range(int(every), N + 1, int(every)))
    assert positions[:len(expected)] == expected and positions[-1] == N
    assert all(type(p) is int for p in positions)
    assert read_header(path)["metadata"][streaming.STREAM_POSITION] == N
    _same(model, onlinear.make("pa").partial_fit(XD, Y, classes=CLASSES))


def test_a_numpy_integer_checkpoint_every_resumes_as_its_python_int(tmp_path):
    path = tmp_path / "resumed.onlinear"
    onlinear.learn_stream(onlinear.make("pa"), _dense_chunks(20)[:7], classes=CLASSES,
                          checkpoint=path, checkpoint_every=np.int32(30))
    resumed = onlinear.learn_stream(onlinear.make("pa"), _dense_chunks(20), classes=CLASSES,
                                    checkpoint=path, checkpoint_every=np.int32(30),
                                    resume=True)
    _same(resumed, onlinear.make("pa").partial_fit(XD, Y, classes=CLASSES))


# ------------------------------------------------------------------ the chunks' types
SPARSE = {
    "coo_matrix": sp.coo_matrix, "coo_array": sp.coo_array, "csc_matrix": sp.csc_matrix,
    "dia_matrix": sp.dia_matrix, "bsr_matrix": sp.bsr_matrix, "bsr_array": sp.bsr_array,
    "lil_matrix": sp.lil_matrix, "dok_array": sp.dok_array,
}


@pytest.mark.parametrize("name", sorted(SPARSE))
def test_sparse_chunks_of_any_format_are_learned_as_their_csr(tmp_path, name):
    """partial_fit takes a sparse matrix of any format, but learn_stream sliced each chunk at
    the report stops before any conversion: a COO or DIA chunk failed with "'coo_matrix' object
    is not subscriptable", a BSR chunk with an empty NotImplementedError.  A chunk of another
    format is converted to CSR: the model is the one the CSR stream learns, and it resumes
    (the checkpoint falls inside a chunk, which is sliced after the conversion)."""
    make = SPARSE[name]
    chunks = [(make(XD[i:i + 37]), Y[i:i + 37]) for i in range(0, N, 37)]
    csr = [(sp.csr_matrix(XD[i:i + 37]), Y[i:i + 37]) for i in range(0, N, 37)]
    streamed = onlinear.learn_stream(onlinear.make("pa1"), chunks, classes=CLASSES)
    _same(streamed, onlinear.learn_stream(onlinear.make("pa1"), csr, classes=CLASSES))
    path = tmp_path / f"{name}.onlinear"
    first = [(make(XD[i:j]), Y[i:j]) for i, j in ((0, 37), (37, 74), (74, 100))]
    onlinear.learn_stream(onlinear.make("pa1"), first, classes=CLASSES, checkpoint=path,
                          checkpoint_every=50)
    assert read_header(path)["metadata"][streaming.STREAM_POSITION] == 100
    resumed = onlinear.learn_stream(onlinear.make("pa1"), chunks, classes=CLASSES,
                                    checkpoint=path, checkpoint_every=50, resume=True)
    _same(resumed, streamed)


@pytest.mark.parametrize("form", ["list of lists", "tuple of tuples", "list of int lists",
                                  "list of arrays"])
def test_chunks_of_rows_as_lists_are_learned_as_arrays(form):
    """A chunk whose X is a list of rows (partial_fit takes it) failed with "'list' object has
    no attribute 'shape'".  It is converted as the estimators' validation converts it, and
    learned as partial_fit learns it."""
    X = np.round(XD * 4) if form == "list of int lists" else XD
    convert = {"list of lists": lambda a: a.tolist(),
               "tuple of tuples": lambda a: tuple(map(tuple, a.tolist())),
               "list of int lists": lambda a: a.astype(int).tolist(),
               "list of arrays": list}[form]
    chunks = [(convert(part), list(labels)) for part, labels in _dense_chunks(37, X)]
    streamed = onlinear.learn_stream(onlinear.make("arow"), chunks, classes=CLASSES)
    _same(streamed, onlinear.make("arow").partial_fit(X, Y, classes=CLASSES))
    rows32 = [list(row) for row in XD[:40].astype(np.float32)]  # (np.float32 values)
    taken = onlinear.learn_stream(onlinear.make("pa"), [(rows32, Y[:40])], classes=CLASSES)
    _same(taken, onlinear.make("pa").partial_fit(rows32, Y[:40], classes=CLASSES))


def test_an_empty_list_chunk_is_skipped_as_an_empty_array_is():
    chunks = _dense_chunks(37)
    with_empty = chunks[:2] + [([], [])] + chunks[2:] + [([], [])]
    _same(onlinear.learn_stream(onlinear.make("pa"), with_empty, classes=CLASSES),
          onlinear.learn_stream(onlinear.make("pa"), chunks, classes=CLASSES))


@pytest.mark.parametrize("bad,match", [
    (XD[0], r"chunk 2 has an X \(ndarray\).*Expected 2D array, got 1D array"),
    ([[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0]], r"chunk 2 has an X \(list\).*inhomogeneous"),
    ([["a"] * 5], r"chunk 2 has an X \(list\).*could not convert string to float"),
    (sp.coo_array(XD[0]), r"chunk 2 has an X \(coo_array\).*sparse array of 1 dimension"),
    (None, r"chunk 2 has an X \(NoneType\)"),
])
def test_a_chunk_that_is_no_matrix_is_refused_naming_it_and_the_model_kept(tmp_path, bad,
                                                                          match):
    """What cannot be read as a matrix of examples is refused with a ValueError naming the
    chunk, its type and the remedy (it failed with an IndexError, an AttributeError…): before
    any of its rows, so that keep_on_failure keeps the model of the chunks before it."""
    path = tmp_path / "kept.onlinear"
    chunks = [(XD[:40], Y[:40]), (bad, Y[:2]), (XD[40:80], Y[40:80])]
    with pytest.raises(ValueError, match=match) as caught:
        onlinear.learn_stream(onlinear.make("pa"), chunks, classes=CLASSES, checkpoint=path,
                              keep_on_failure=True)
    assert "Give each chunk's X as a 2-D array, a sparse matrix or a list of rows" in str(
        caught.value)
    assert any("after 40 examples" in note for note in caught.value.__notes__)
    _same(onlinear.load(path), onlinear.make("pa").partial_fit(XD[:40], Y[:40],
                                                               classes=CLASSES))


def test_dense_and_csr_chunks_reach_partial_fit_uncopied(monkeypatch):
    """The conversion leaves the chunks that worked before as they are: a dense array or a
    CSR matrix (or array) that is learned whole is given to partial_fit itself, and the parts
    of one learned in parts (crossing a report stop) are views of it."""
    given = []
    model = onlinear.make("pa")
    real = model.partial_fit

    def recorded(X, y, classes=None):
        given.append(X)
        return real(X, y, classes=classes)

    monkeypatch.setattr(model, "partial_fit", recorded)
    dense = np.ascontiguousarray(XD[:64])
    csr, csr_array = sp.csr_matrix(XD[64:128]), sp.csr_array(XD[128:256])
    onlinear.learn_stream(model, [(dense, Y[:64]), (csr, Y[64:128]), (csr_array, Y[128:256]),
                                  (XD[256:], Y[256:])], classes=CLASSES)
    # (stops at 1, 2, 4, …, 64: the first chunk in parts, the second and third whole)
    assert [x.shape[0] for x in given] == [1, 1, 2, 4, 8, 16, 32, 64, 128, 44]
    assert all(np.shares_memory(x, dense) for x in given[:7])
    assert given[7] is csr and given[8] is csr_array
    assert np.shares_memory(given[9], XD)


def test_dataframe_chunks_are_learned_as_dataframes():
    """A DataFrame chunk is given to partial_fit as it is (as before): the model learns its
    feature names."""
    pd = pytest.importorskip("pandas")
    columns = [f"f{j}" for j in range(D)]
    chunks = [(pd.DataFrame(part, columns=columns), labels) for part, labels in
              _dense_chunks(37)]
    model = onlinear.learn_stream(onlinear.make("pa"), chunks, classes=CLASSES)
    assert model.feature_names_in_.tolist() == columns
    reference = onlinear.make("pa").partial_fit(XD, Y, classes=CLASSES)
    np.testing.assert_array_equal(model.coef_, reference.coef_)


# ------------------------------------------------------------------ failures between examples
def _failing_report(at, kind):
    def report(progress):
        if progress.examples >= at:
            raise kind("Ctrl-C as the progress line prints")
    return report


@pytest.mark.parametrize("kind", [KeyboardInterrupt, RuntimeError])
def test_a_report_that_raises_keeps_the_model_and_resumes(tmp_path, kind):
    """The report runs between examples, the model whole, but an interrupt (or an error) it
    raised propagated with nothing saved, where one raised by the chunks saved a checkpoint.
    It is kept the same way: a checkpoint of the examples learned, noted on the error, from
    which the stream resumes to the model of a stream never stopped."""
    path = tmp_path / "report.onlinear"
    with pytest.raises(kind) as caught:
        onlinear.learn_stream(onlinear.make("pa"), _dense_chunks(10), classes=CLASSES,
                              checkpoint=path, keep_on_failure=True,
                              report=_failing_report(128, kind))
    assert read_header(path)["metadata"][streaming.STREAM_POSITION] == 128
    assert any("the model after 128 examples" in note for note in caught.value.__notes__)
    resumed = onlinear.learn_stream(onlinear.make("pa"), _dense_chunks(10), classes=CLASSES,
                                    checkpoint=path, resume=True)
    _same(resumed, onlinear.make("pa").partial_fit(XD, Y, classes=CLASSES))
    # (without keep_on_failure, the checkpoint is not touched)
    with pytest.raises(kind):
        onlinear.learn_stream(onlinear.make("pa"), _dense_chunks(10), classes=CLASSES,
                              checkpoint=tmp_path / "not", report=_failing_report(128, kind))
    assert not (tmp_path / "not").exists()


def test_a_report_that_raises_at_the_end_keeps_the_model(tmp_path):
    path = tmp_path / "end.onlinear"
    with pytest.raises(KeyboardInterrupt) as caught:
        onlinear.learn_stream(onlinear.make("pa"), _dense_chunks(10), classes=CLASSES,
                              checkpoint=path, checkpoint_every=100, keep_on_failure=True,
                              report=_failing_report(N, KeyboardInterrupt))
    assert read_header(path)["metadata"][streaming.STREAM_POSITION] == N
    assert any(f"the model after {N} examples" in note for note in caught.value.__notes__)
    _same(onlinear.load(path), onlinear.make("pa").partial_fit(XD, Y, classes=CLASSES))


def test_a_report_that_raises_as_a_row_is_refused_keeps_the_rows_before_it(tmp_path):
    """A refused row also reports (at a stop of the schedule): a report that raises then
    raises its error, the refusal its context, and the rows before the refused one are kept
    all the same."""
    X = XD[:40].copy()
    X[16, 0] = np.nan  # (the 17th example: a stop of the schedule is 16)
    seen = []

    def report(progress):
        seen.append(progress.examples)
        if seen.count(16) > 1 or progress.examples > 16:
            raise KeyboardInterrupt("Ctrl-C as the line prints")

    path = tmp_path / "refused.onlinear"
    with pytest.raises((KeyboardInterrupt, ValueError)) as caught:
        onlinear.learn_stream(onlinear.make("pa"), [(X, Y[:40])], classes=CLASSES,
                              checkpoint=path, keep_on_failure=True, report=report)
    error = caught.value
    if isinstance(error, KeyboardInterrupt):  # (the report, run at the refusal, raised)
        assert isinstance(error.__context__, ValueError) and "NaN" in str(error.__context__)
    assert any("the model after 16 examples" in note for note in error.__notes__)
    assert read_header(path)["metadata"][streaming.STREAM_POSITION] == 16
    _same(onlinear.load(path), onlinear.make("pa").partial_fit(X[:16], Y[:16],
                                                               classes=CLASSES))


@pytest.mark.parametrize("failing_save,failed,held", [(2, 240, 120),  # (one on the way)
                                                      (3, 300, 240)])  # (the final one)
def test_a_checkpoint_that_cannot_be_saved_leaves_the_previous_one_and_says_so(
        tmp_path, monkeypatch, failing_save, failed, held):
    """A checkpoint's save that fails (a full disk) leaves the file holding the previous
    checkpoint (the writes are atomic), and keep_on_failure's note says so (the error had no
    note); the save is not tried again."""
    calls = itertools.count(1)
    real = streaming.save

    def full_disk(model, path, **kwargs):
        if next(calls) == failing_save:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(model, path, **kwargs)

    monkeypatch.setattr(streaming, "save", full_disk)
    path = tmp_path / "full.onlinear"
    with pytest.raises(OSError, match="No space left") as caught:
        onlinear.learn_stream(onlinear.make("pa"), _dense_chunks(20), classes=CLASSES,
                              checkpoint=path, checkpoint_every=120, keep_on_failure=True)
    notes = caught.value.__notes__
    assert len(notes) == 1 and f"the checkpoint after {failed} examples" in notes[0]
    assert f"still holds the model after {held} examples of the stream" in notes[0]
    assert next(calls) == failing_save + 1  # (not tried again)
    assert read_header(path)["metadata"][streaming.STREAM_POSITION] == held
    _same(onlinear.load(path), onlinear.make("pa").partial_fit(XD[:held], Y[:held],
                                                               classes=CLASSES))


def test_a_first_checkpoint_that_cannot_be_saved_says_nothing_was_written(tmp_path,
                                                                          monkeypatch):
    def full_disk(model, path, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(streaming, "save", full_disk)
    path = tmp_path / "none.onlinear"
    with pytest.raises(OSError) as caught:
        onlinear.learn_stream(onlinear.make("pa"), _dense_chunks(20), classes=CLASSES,
                              checkpoint=path, checkpoint_every=100, keep_on_failure=True)
    assert caught.value.__notes__ == [f"the checkpoint after 100 examples of the stream could "
                                      f"not be saved to {path}; {path} not written"]
