"""The compiled LIBSVM/SVMlight reader: what scikit-learn's reader reads, bit for bit (fuzzed
files, cut into blocks anywhere); its errors name file, line and token; a cut-off standard input
is an error; the class scan parses no feature; reading ahead on a thread learns the model a
serial read learns, bit for bit."""
import gzip
import io
import sys
import threading

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_svmlight_file

import onlinear
from onlinear.cli import cli
from onlinear.data import FileFormatError, iter_libsvm_chunks, load_libsvm
from onlinear.data import libsvm as libsvm_module
from onlinear.data._ahead import read_ahead

NUMBERS = ["0", "1", "-1", "0.5", "-.25", "3.", "1e-3", "2.5E+2", "+7", "0.1", "1e308",
           "4.9e-324", "-0", "123456789.123456789", "0.30000000000000004", "inf", "-inf"]


MODERATE = ["0", "1", "-1", "0.5", "-.25", "3.", "1e-3", "2.5E+2", "+7", "0.1", "-0"]


def _fuzzed_file(rng, rows, *, multilabel=False, zero_based=False, numbers=NUMBERS):
    """LIBSVM text of ``rows`` random rows with comments, blank lines, qid tokens, tabs, CRLF
    line ends and every number format of NUMBERS."""
    lines = []
    for i in range(rows):
        if rng.random() < 0.05:
            lines.append(rng.choice(["", "# a comment", "   ", "\t# indented comment"]))
        if multilabel:
            labels = sorted(rng.choice(9, size=rng.integers(0, 3), replace=False).tolist())
            label = ",".join(str(v) for v in labels)
        else:
            label = rng.choice(["1", "2", "-1", "3.0", "+4", "1e0"])
        count = int(rng.integers(0, 8))
        indices = np.sort(rng.choice(40, size=count, replace=False)) + (0 if zero_based else 1)
        tokens = [f"{j}:{rng.choice(numbers)}" for j in indices]
        if rng.random() < 0.1 and label:
            tokens.insert(0, f"qid:{rng.integers(100)}")
        line = " ".join(([label] if label else []) + tokens)
        if not label and not tokens:
            line = "0"  # (a row with no label and no feature is a blank line)
            if multilabel:
                continue
        if rng.random() < 0.2:
            line = line.replace(" ", "\t", 1)
        if rng.random() < 0.1:
            line += "  # trailing comment 1:2"
        lines.append(line + ("\r" if rng.random() < 0.1 else ""))
    return ("\n".join(lines) + "\n").encode()


def _same_csr(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.data, b.data)  # (NaN-free: inf compared exactly)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("multilabel", [False, True])
def test_whole_files_read_as_scikit_learn_reads_them(tmp_path, seed, multilabel):
    rng = np.random.default_rng(seed)
    zero_based = bool(seed % 2)
    text = _fuzzed_file(rng, 300, multilabel=multilabel, zero_based=zero_based)
    path = tmp_path / "fuzz.svm"
    path.write_bytes(text)
    for option in (zero_based, "auto"):
        for dtype in (np.float64, np.float32):
            X, y = load_libsvm(path, zero_based=option, multilabel=multilabel, dtype=dtype)
            X_ref, y_ref = load_svmlight_file(str(path), zero_based=option,
                                              multilabel=multilabel, dtype=dtype)
            _same_csr(X, X_ref)
            if multilabel:
                assert y == y_ref
            else:
                np.testing.assert_array_equal(y, y_ref, strict=True)


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
@pytest.mark.parametrize("chunk_size", [1, 13, 1000])
def test_chunks_are_the_rows_wherever_blocks_cut_the_lines(tmp_path, monkeypatch, block,
                                                           chunk_size):
    monkeypatch.setattr(libsvm_module, "_BLOCK", block)
    text = _fuzzed_file(np.random.default_rng(block + chunk_size), 120)
    path = tmp_path / "blocks.svm.gz"
    path.write_bytes(gzip.compress(text))
    X_ref, y_ref = load_svmlight_file(io.BytesIO(text), n_features=40, zero_based=False)
    chunks = list(iter_libsvm_chunks(path, chunk_size, n_features=40))
    assert [c[0].shape[0] for c in chunks[:-1]] == [chunk_size] * (len(chunks) - 1)
    import scipy.sparse as sp
    _same_csr(sp.vstack([c[0] for c in chunks], format="csr"), X_ref)
    np.testing.assert_array_equal(np.concatenate([c[1] for c in chunks]), y_ref)


@pytest.mark.parametrize("content, line, words", [
    (b"1 1:1\n2 2:abc\n", 2, "could not convert string to float: b'abc'"),
    (b"1 1:1\n2 3:1 2:1\n", 2, "sorted and unique ('2:1'"),
    (b"1 1:1\nfoo 3:1\n", 2, "float: 'foo' (the label)"),
    (b"1 1:1\n2 3\n", 2, "'3' is not index:value"),
    (b"1 1:1\n\n# c\n2 1:\n", 4, "'1:' has no value"),
    (b"1 x:1\n", 1, "feature index 'x' of 'x:1' is not an integer"),
    (b"1 1:0x10\n", 1, "b'0x10'"),  # hexadecimal: C reads it, Python's float does not
    (b"1 1:nan(7)\n", 1, "b'nan(7)'"),
    (b"1 -3:1\n", 1, "Invalid index -3"),
    (b"1 2147483648:1\n", 1, "indices up to 2,147,483,647"),
    (b"1 1:1\n1 1:1\n2 6:1\n", 3, "the line needs 6 features, n_features=5"),
])
def test_a_bad_line_is_named_with_its_token(tmp_path, content, line, words):
    path = tmp_path / "bad.svm"
    path.write_bytes(content)
    for read in (lambda: load_libsvm(path, n_features=5, zero_based=False),
                 lambda: list(iter_libsvm_chunks(path, 1, n_features=5))):
        with pytest.raises(FileFormatError) as caught:
            read()
        assert caught.value.line == line
        assert str(caught.value).startswith(f"{path}, line {line}: ")
        assert words in str(caught.value)
        assert "the line reads " + repr(content.split(b"\n")[line - 1].decode()) \
            in str(caught.value)


def _train_from_stdin(data, tmp_path, *extra):
    result = CliRunner().invoke(cli, ["train", "pa", "-", "--save", str(tmp_path / "m"),
                                      "--classes", "1,2", "--quiet", *extra], input=data)
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


@pytest.mark.parametrize("cut", [b"2 1:0.", b"2 1:", b"2 1:0.5 2", b"2"])
def test_standard_input_cut_off_inside_a_line_is_an_error(tmp_path, cut):
    # A pipe whose writer dies mid-line ends without the line's newline: "2 1:0." of
    # "2 1:0.5" parses as a row, and was learned with exit 0.
    code, output = _train_from_stdin(b"1 1:0.5 2:1\n" + cut, tmp_path)
    assert code == 1
    assert "<stdin>, line 2: the stream ends inside this line" in output
    assert onlinear.load(tmp_path / "m").n_seen_ == 1  # the whole line before it, kept


def test_standard_input_whose_last_line_is_whole_is_learned(tmp_path):
    code, output = _train_from_stdin(b"1 1:0.5 2:1\n2 1:0.5\n# the end", tmp_path)
    assert code == 0, output
    assert onlinear.load(tmp_path / "m").n_seen_ == 2


def test_a_slow_stream_is_read_as_its_rows_arrive():
    # a pipe fed a few rows, its writer then waiting (a log tailed into `onlinear train -`):
    # the chunk is read from what the pipe holds, not once a megabyte has arrived or the
    # writer has closed it
    import os

    readable, writable = os.pipe()
    chunk_read = threading.Event()
    waited_out = []

    def write():
        with os.fdopen(writable, "wb") as out:
            out.write(b"1 1:0.5\n2 2:1.5\n1 1:2\n")
            out.flush()
            waited_out.append(not chunk_read.wait(timeout=60))
            out.write(b"2 3:1\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with os.fdopen(readable, "rb") as source:
        chunks = iter_libsvm_chunks(source, 3, n_features=None)
        X, y = next(chunks)
        chunk_read.set()
        rest = [X.toarray() for X, _ in chunks]
    writer.join(timeout=60)
    assert waited_out == [False]  # (the first chunk came before the writer went on)
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0.0], [0.0, 1.5], [2.0, 0.0]])
    assert y.tolist() == [1, 2, 1] and len(rest) == 1 and rest[0].tolist() == [[0, 0, 1]]


def test_a_file_object_with_read_and_peek_alone_is_read():
    # (a stream is read by read1 where it has one: what it holds; a minimal file object, read)
    class Minimal:
        def __init__(self, data):
            self._bytes = io.BytesIO(data)

        def read(self, size=-1):
            return self._bytes.read(size)

        def peek(self, size=0):
            at = self._bytes.tell()
            data = self._bytes.read(max(size, 1))
            self._bytes.seek(at)
            return data

    X, y = next(iter_libsvm_chunks(Minimal(b"1 1:0.5\n2 2:1\n"), 10, n_features=None))
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0.0], [0.0, 1.0]])
    assert y.tolist() == [1, 2]


def test_a_file_whose_last_line_has_no_newline_is_read_whole(tmp_path):
    path = tmp_path / "no-newline.svm"
    path.write_bytes(b"1 1:0.5 2:1\n2 1:0.25")
    X, y = next(iter_libsvm_chunks(path, 10, n_features=None))
    np.testing.assert_array_equal(X.toarray(), [[0.5, 1.0], [0.25, 0.0]])


def test_the_class_scan_parses_no_feature(tmp_path, monkeypatch):
    # without --classes the labels are found by a scan of the label fields only: the
    # features are parsed once, by the pass that learns (a bad feature is found there)
    parses = []
    real = libsvm_module._parsed_chunks

    def counted(*args, **kwargs):
        parses.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(libsvm_module, "_parsed_chunks", counted)
    path = tmp_path / "train.svm"
    path.write_bytes(b"3 1:1\n1 2:1\n2 1:0.5 2:0.5\n3 2:2\n")
    result = CliRunner().invoke(cli, ["train", "pa", str(path), "--save", str(tmp_path / "m"),
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    assert parses == [str(path)]
    model = onlinear.load(tmp_path / "m")
    assert model.classes_.tolist() == [1, 2, 3] and model.n_seen_ == 4


def test_the_class_scan_names_a_bad_label(tmp_path):
    path = tmp_path / "train.svm"
    path.write_bytes(b"1 1:1\n\n2 1:1\nfoo 1:1\n")
    result = CliRunner().invoke(cli, ["train", "pa", str(path), "--save", str(tmp_path / "m")])
    assert result.exit_code == 1
    assert f"{path}, line 4: could not convert string to float: 'foo'" in result.output


@pytest.mark.parametrize("name", ["pa1", "mira", "kernel-pa"])
def test_reading_ahead_learns_the_serial_model_bit_for_bit(tmp_path, name):
    rng = np.random.default_rng(5)
    path = tmp_path / "stream.svm"
    path.write_bytes(_fuzzed_file(rng, 2000, numbers=MODERATE))
    params = {"gamma": 0.5} if name.startswith("kernel") else {}
    classes = [-1.0, 1.0, 2.0, 3.0, 4.0]
    serial = onlinear.make(name, **params)
    for X, y, _, _ in libsvm_module._located_chunks(path, 97, 40):
        serial.partial_fit(X, y, classes=classes)
    ahead = onlinear.learn_stream(onlinear.make(name, **params),
                                  iter_libsvm_chunks(path, 97, n_features=40, read_ahead=True),
                                  classes=classes)
    for key in serial._model_arrays():
        np.testing.assert_array_equal(ahead._saved_array(key), serial._saved_array(key),
                                      strict=True)
    assert (ahead.n_seen_, ahead.n_mistakes_) == (serial.n_seen_, serial.n_mistakes_)


def test_read_ahead_keeps_order_raises_in_place_and_stops_when_left():
    def items():
        yield from range(3)
        raise ValueError("bad line")

    seen = []
    with pytest.raises(ValueError, match="bad line"):
        for item in read_ahead(items()):
            seen.append(item)
    assert seen == [0, 1, 2]

    before = threading.active_count()
    endless = read_ahead(iter(range(10**9)))
    assert next(endless) == 0
    endless.close()  # the consumer leaves: the producer thread ends
    assert threading.active_count() == before


def test_multilabel_rows_may_have_no_label(tmp_path):
    path = tmp_path / "multi.svm"
    path.write_bytes(b"2,1 1:1\n1:0.5 3:2\n3 2:1\n")
    X, y = load_libsvm(path, multilabel=True)
    assert y == [(1.0, 2.0), (), (3.0,)]
    np.testing.assert_array_equal(X.toarray(), [[1, 0, 0], [0.5, 0, 2], [0, 1, 0]])


def test_an_error_names_a_line_of_an_earlier_block(tmp_path, monkeypatch):
    # a row refused after parsing (a NaN value) is quoted from the block it was read in
    monkeypatch.setattr(libsvm_module, "_BLOCK", 8)
    path = tmp_path / "nan.svm"
    path.write_bytes(b"1 1:1\n2 1:nan 2:1\n1 2:1\n2 1:1\n")
    result = CliRunner().invoke(cli, ["train", "pa", str(path), "--save", str(tmp_path / "m"),
                                      "--classes", "1,2", "--quiet"])
    assert result.exit_code == 1
    assert f"{path}, line 2: feature values must be finite numbers; got '1:nan'" in result.output
    assert "the line reads '2 1:nan 2:1'" in result.output


if sys.platform.startswith("linux"):
    def test_a_big_chunk_holds_no_python_object_per_line(tmp_path):
        # the lines of a chunk are cut from its blocks only when an error quotes one
        path = tmp_path / "rows.svm"
        path.write_bytes(b"1 1:1 2:2\n" * 5000)
        X, y, numbers, lines = next(libsvm_module._located_chunks(path, 5000, None))
        assert isinstance(numbers, np.ndarray) and len(lines) == 5000
        assert not isinstance(lines, list) and lines[4999] == b"1 1:1 2:2"


def test_every_decimal_reads_as_pythons_float_reads_it(tmp_path):
    # the fast path (an exact integer scaled by an exact power of ten) and strtod's, at their
    # border: 15 to 20 significant digits, exponents around ±22, mantissas around 2**53
    rng = np.random.default_rng(8)
    words = []
    for _ in range(20000):
        digits = "".join(rng.choice(list("0123456789"), size=rng.integers(1, 21)))
        point = int(rng.integers(0, len(digits) + 1))
        word = digits[:point] + "." + digits[point:] if rng.random() < 0.8 else digits
        if rng.random() < 0.5:
            word += f"e{int(rng.integers(-30, 31))}"
        words.append(("-" if rng.random() < 0.3 else "") + word)
    words += [str(2**53), str(2**53 + 1), str(2**53 - 1), "9007199254740993e-5", "1e22", "1e23",
              "1e-22", "1e-23", "0.1e-22", "00000000000000000000001", ".0000000000000000000001"]
    words = [w for w in words if w not in ("", "-", ".", "-.")]
    path = tmp_path / "decimals.svm"
    path.write_bytes("".join(f"1 1:{w}\n" for w in words).encode())
    X, _ = load_libsvm(path, zero_based=False)
    expected = np.array([float(w) for w in words])
    assert X.nnz == len(words)  # (one stored value a row, explicit zeros and -0.0 kept)
    np.testing.assert_array_equal(X.data.view(np.int64), expected.view(np.int64))


@pytest.mark.parametrize("content", [b"", b"# only a comment\n", b"1\n2 # no feature\n",
                                     b"1 1:0 3:0\n"])
def test_files_without_values_read_as_scikit_learn_reads_them(tmp_path, content):
    path = tmp_path / "sparse.svm"
    path.write_bytes(content)
    X, y = load_libsvm(path)
    X_ref, y_ref = load_svmlight_file(str(path))
    _same_csr(X, X_ref)  # (explicit zeros kept, as scikit-learn keeps them)
    np.testing.assert_array_equal(y, y_ref, strict=True)


def test_a_query_id_is_skipped_where_scikit_learn_skips_it(tmp_path):
    path = tmp_path / "qid.svm"
    path.write_bytes(b"1,2 qid:3 1:1\nqid:4 2:1\n3 qid:5 3:0.5\n")
    X, y = load_libsvm(path, multilabel=True)
    X_ref, y_ref = load_svmlight_file(str(path), multilabel=True)
    _same_csr(X, X_ref)
    assert y == y_ref == [(1.0, 2.0), (), (3.0,)]
    path.write_bytes(b"1 1:1 qid:3\n")  # (only the first feature token may be one)
    with pytest.raises(FileFormatError, match="feature index 'qid' of 'qid:3'"):
        load_libsvm(path)


# ------------------------------------------------------------------ what a chunk holds in memory
def _bytes_held(obj, depth=3):
    """The bytes objects ``obj`` refers to, ``depth`` references deep."""
    import gc

    found, frontier, seen = [], [obj], set()
    for _ in range(depth):
        frontier = [r for o in frontier for r in gc.get_referents(o)
                    if id(r) not in seen and not seen.add(id(r))]
        found += [r for r in frontier if isinstance(r, (bytes, bytearray))]
    return found


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_a_chunk_of_a_file_holds_no_text_and_finds_its_lines_again(tmp_path, monkeypatch,
                                                                   compress):
    monkeypatch.setattr(libsvm_module, "_BLOCK", 64)  # lines across many blocks
    lines = [f"{i % 3 + 1} 1:{i} 2:{i / 7:.6f}  # row {i}".encode() for i in range(200)]
    text = b"\n".join(lines) + b"\n"
    path = tmp_path / ("rows.svm.gz" if compress else "rows.svm")
    path.write_bytes(gzip.compress(text) if compress else text)
    chunks = list(libsvm_module._located_chunks(path, 30, None))
    assert sum(c[0].shape[0] for c in chunks) == 200
    for X, y, numbers, found in chunks:
        assert _bytes_held(found) == []  # (no block, no line: offsets only)
    X, y, numbers, found = chunks[4]
    assert numbers.tolist() == list(range(121, 151))
    assert [found[row] for row in (0, 17, 29)] == [lines[120], lines[137], lines[149]]


def test_standard_input_keeps_the_text_it_cannot_read_again(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 1:1\n2 2:1 # two\n")))
    X, y, numbers, found = next(libsvm_module._located_chunks("-", 5, None))
    assert [found[0], found[1]] == [b"1 1:1", b"2 2:1 # two"]


def test_a_value_refused_deep_in_a_gzip_file_is_quoted_from_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(libsvm_module, "_BLOCK", 16)
    body = b"".join(b"%d 1:%d 2:1\n" % (i % 2 + 1, i) for i in range(300))
    path = tmp_path / "nan.svm.gz"
    path.write_bytes(gzip.compress(body + b"2 1:inf 2:1 # here\n" + body))
    result = CliRunner().invoke(cli, ["train", "pa", str(path), "--save", str(tmp_path / "m"),
                                      "--classes", "1,2", "--quiet", "--chunk-size", "7"])
    assert result.exit_code == 1
    assert f"{path}, line 301: feature values must be finite numbers; got '1:inf'" \
        in result.output
    assert "the line reads '2 1:inf 2:1 # here'" in result.output


# ------------------------------------------------------------------ a whole file, in memory once
@pytest.mark.parametrize("multilabel", [False, True])
def test_a_whole_file_read_across_many_blocks_is_scikit_learns(tmp_path, monkeypatch,
                                                                multilabel):
    monkeypatch.setattr(libsvm_module, "_BLOCK", 97)
    text = _fuzzed_file(np.random.default_rng(5), 3000, multilabel=multilabel,
                        numbers=MODERATE)
    path = tmp_path / "many.svm"
    path.write_bytes(text)
    for dtype in (np.float64, np.float32):
        X, y = load_libsvm(path, multilabel=multilabel, dtype=dtype)
        X_ref, y_ref = load_svmlight_file(str(path), multilabel=multilabel, dtype=dtype)
        _same_csr(X, X_ref)
        assert X.dtype == dtype and X.has_sorted_indices
        if multilabel:
            assert y == y_ref
        else:
            np.testing.assert_array_equal(y, y_ref, strict=True)
        streamed = list(iter_libsvm_chunks(path, 256, X.shape[1], multilabel=multilabel,
                                           dtype=dtype))
        import scipy.sparse as sp
        _same_csr(sp.vstack([c[0] for c in streamed], format="csr"), X)


if sys.platform.startswith("linux"):
    def test_a_whole_file_is_in_memory_once(tmp_path):
        # the arrays the parser grows are handed over, not copied, nor concatenated from chunks
        # (which held the data twice): the peak grows by about the data's size
        import subprocess
        import textwrap

        path = tmp_path / "wide.svm"
        line = "1 " + " ".join(f"{j}:0.{j}" for j in range(1, 201)) + "\n"
        path.write_text(line * 25_000)  # 5 million values: 60 MB of arrays
        code = textwrap.dedent(f"""
            from onlinear.data import load_libsvm

            def peak():  # (this process's own peak: ru_maxrss keeps its parent's across exec)
                with open("/proc/self/status") as status:
                    return 1024 * int(next(line for line in status
                                           if line.startswith("VmHWM")).split()[1])

            load_libsvm({str(tmp_path / 'tiny.svm')!r})
            before = peak()
            X, y = load_libsvm({str(path)!r})
            after = peak()
            data = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes + y.nbytes
            print((after - before) / data)
        """)
        (tmp_path / "tiny.svm").write_text("1 1:1\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        assert 0.9 < float(done.stdout) < 1.3
