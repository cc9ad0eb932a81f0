"""The compiled CSV parser (``onlinear.data._csv``) gives what the Python path (numpy's text
parser, the csv module, ``float``) gives, bit for bit: the same numbers (subnormal, huge, -0.0,
nan and inf included), the same CSR arrays, labels, line numbers and rows; a line it does not
read hands the rest of the stream to the Python path mid-chunk, so that errors are the same."""
import gzip

import numpy as np
import pytest

from onlinear.data import FileFormatError
from onlinear.data import csv as csv_module
from onlinear.data.csv import _located_csv_chunks

# every number form the parser reads itself, and values at the edges of float64 and float32
NUMBERS = ["0", "1", "-1", "0.5", " -.25", "3. ", "\t7", "+7", "1e-3", "2.5E+2", "0.1", "-0",
           "-0.0", "0.0e5", "1e-310", "4.9e-324", "2.2250738585072014e-308", "1e300", "1e400",
           "-1e400", "1.7976931348623157e308", "1e-50", "3.4028236e38", "nan", "-nan", "NaN",
           "inf", "-inf", "Infinity", "0.30000000000000004", "9007199254740993",
           "123456789012345678901234567890", "1e23", "8.5e-23", "255", "0.7294117647058823"]
# what it leaves to the Python path (which reads them): the lines from the first on are read there
ODD = ['"4"', "1_000", "1_0.5", "١"]


def _table(rng, rows, columns, label, delimiter, odd):
    """Text of a table of numeric rows with blank lines, CRLF ends, the label (an integer) in
    column ``label``; with ``odd``, a field the compiled parser does not read now and then."""
    sep = delimiter or " "
    lines = []
    for _ in range(rows):
        if rng.random() < 0.05:
            lines.append(rng.choice(["", "  ", sep * (columns - 1) if delimiter else "\t"]))
        fields = [rng.choice(NUMBERS) for _ in range(columns - 1)]
        if delimiter is None:
            fields = [field.strip() for field in fields]
        elif delimiter == "\t":
            fields = [field.replace("\t", " ") for field in fields]
        if odd and rng.random() < 0.02:
            # (a quote is a quote with a delimiter only)
            fields[int(rng.integers(0, columns - 1))] = str(rng.choice(ODD[delimiter is None:]))
        fields.insert(label % columns, f" {rng.integers(0, 5)}")
        lines.append(sep.join(fields) + ("\r" if rng.random() < 0.1 else ""))
    return "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")


def _chunks(path, chunk_size, compiled, monkeypatch, **options):
    """The located chunks of ``path``, read by the compiled parser (as far as it reads) or by
    the Python path alone; and how many times the stream went to the Python path."""
    switched = []
    with monkeypatch.context() as patch:
        if not compiled:
            patch.setattr(csv_module._TableReader, "_compiles", lambda self: False)
        read_text = csv_module._TableReader._read_text

        def counted(self, raw, encoding):
            switched.append(encoding)
            return read_text(self, raw, encoding)

        patch.setattr(csv_module._TableReader, "_read_text", counted)
        chunks = [(X, y, numbers, [rows[i] for i in range(len(rows))])
                  for X, y, numbers, rows in _located_csv_chunks(path, chunk_size, **options)]
    return chunks, switched


def _bits(array):
    """An array's values as their bit patterns (nan's sign and -0.0 told apart)."""
    array = np.asarray(array)
    return array.view(np.uint64 if array.dtype == np.float64 else np.uint32)


def _assert_same(compiled, python, sparse):
    assert len(compiled) == len(python)
    for (X, y, numbers, rows), (X0, y0, numbers0, rows0) in zip(compiled, python):
        assert numbers == numbers0 and rows == rows0
        assert y.dtype == y0.dtype and y.tolist() == y0.tolist()
        assert X.dtype == X0.dtype and X.shape == X0.shape
        if sparse:
            for name in ("data", "indices", "indptr"):
                assert getattr(X, name).dtype == getattr(X0, name).dtype, name
            np.testing.assert_array_equal(X.indptr, X0.indptr)
            np.testing.assert_array_equal(X.indices, X0.indices)
            np.testing.assert_array_equal(_bits(X.data), _bits(X0.data))
        else:
            np.testing.assert_array_equal(_bits(np.ascontiguousarray(X)),
                                          _bits(np.ascontiguousarray(X0)))


@pytest.mark.parametrize("delimiter", [",", "\t", None])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_compiled_parser_reads_fuzzed_tables_as_the_python_path(tmp_path, monkeypatch,
                                                                     delimiter, dtype, sparse):
    rng = np.random.default_rng([11, len(delimiter or ""), sparse, dtype == np.float32])
    for trial in range(8):
        label = int(rng.integers(-2, 4))
        text = _table(rng, int(rng.integers(1, 300)), 5, label, delimiter, odd=False)
        if rng.random() < 0.5:
            text = "a,b,c,d,e\n".replace(",", delimiter or " ") + text
        path = tmp_path / f"t{trial}.csv"
        path.write_bytes(text.encode())
        chunk_size = int(rng.integers(1, 90))
        options = dict(label_column=label, delimiter=delimiter, dtype=dtype, sparse=sparse)
        compiled, switched = _chunks(path, chunk_size, True, monkeypatch, **options)
        assert switched == []  # every line the compiled parser's
        python, _ = _chunks(path, chunk_size, False, monkeypatch, **options)
        _assert_same(compiled, python, sparse)
        # (nan reaches X: the reader leaves it to the learners' checks, as before)
        assert any(np.isnan(X.data if sparse else X).any() for X, *_ in compiled) == (
            "nan" in text.lower())


@pytest.mark.parametrize("delimiter", [",", None])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_line_it_does_not_read_hands_the_rest_to_the_python_path(tmp_path, monkeypatch,
                                                                    delimiter, sparse):
    rng = np.random.default_rng([12, len(delimiter or ""), sparse])
    went = 0
    for trial in range(8):
        text = _table(rng, int(rng.integers(50, 400)), 4, -1, delimiter, odd=True)
        path = tmp_path / f"o{trial}.csv"
        if trial % 2:
            path = path.with_suffix(".csv.gz")
            path.write_bytes(gzip.compress(text.encode()))
        else:
            path.write_bytes(text.encode())
        chunk_size = int(rng.integers(1, 60))
        options = dict(delimiter=delimiter, header=False, sparse=sparse)
        python, _ = _chunks(path, chunk_size, False, monkeypatch, **options)
        compiled, switched = _chunks(path, chunk_size, True, monkeypatch, **options)
        went += len(switched)
        _assert_same(compiled, python, sparse)
    assert went > 0


def _big_table(path, rows, bad_line, bad_field):
    rng = np.random.default_rng(5)
    values = rng.integers(0, 256, size=(rows, 20)) * (rng.random((rows, 20)) < 0.4)
    lines = ["p" + ",p".join(map(str, range(19))) + ",label"]
    lines += [",".join(map(str, row)) for row in values]
    fields = lines[bad_line - 1].split(",")
    fields[3] = bad_field
    lines[bad_line - 1] = ",".join(fields)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("bad_field, message", [
    ("12x", "line 7001: column 3 ('p3'): '12x' is not a number"),
    ("", "line 7001: column 3 ('p3'): '' is not a number"),
    ("4,5", "line 7001: 21 fields where the first row has 20")])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_malformed_line_mid_file_is_the_same_error_as_before(tmp_path, monkeypatch, bad_field,
                                                               message, sparse):
    path = tmp_path / "big.csv"
    _big_table(path, 9000, 7001, bad_field)
    for compiled in (True, False):
        yielded = []
        with monkeypatch.context() as patch:
            if not compiled:
                patch.setattr(csv_module._TableReader, "_compiles", lambda self: False)
            with pytest.raises(FileFormatError) as error:
                for X, y, numbers, rows in _located_csv_chunks(path, 1000, label_column="label",
                                                               sparse=sparse):
                    yielded.append(numbers[-1])
        assert str(error.value) == f"{path}, {message}"
        assert yielded == [1001 + 1000 * k for k in range(6)]
