"""The CSV reader parses a chunk's lines straight into numbers (numpy's text parser): what
Python's csv module and ``float`` read, for fuzzed tables cut into chunks anywhere; its errors
name the file, the line and the field in any chunk; a quoted file still reads; memory holds one
chunk, whatever the file's length."""
import csv
import io
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from cli_runner import onlinear_cli
from onlinear.data import FileFormatError, iter_csv_chunks, load_csv
from onlinear.data.csv import _located_csv_chunks
from onlinear.data.located import LocatedCsvSource

NUMBERS = ["0", "1", "-1", "0.5", " -.25", "3. ", "1e-3", "2.5E+2", "+7", "0.1", "-0", "nan",
           "inf", "4.9e-324", "0.30000000000000004", "123456789.123456789", "1_000"]


def _fuzzed_table(rng, rows, columns, label, delimiter):
    """Text of a table of ``rows`` rows with blank and delimiter-only lines, CRLF line ends and
    every number format of NUMBERS; its integer labels in column ``label``."""
    sep = delimiter or " "
    lines = []
    for _ in range(rows):
        if rng.random() < 0.1:
            lines.append(rng.choice(["", "   ", sep * (columns - 1) if delimiter else "\t"]))
        fields = [rng.choice(NUMBERS).strip() if delimiter is None else rng.choice(NUMBERS)
                  for _ in range(columns - 1)]
        fields.insert(label % columns, str(rng.integers(0, 5)))
        lines.append(sep.join(fields) + ("\r" if rng.random() < 0.1 else ""))
    return "\n".join(lines) + "\n"


def _reference(text, label, delimiter, dtype):
    """``(X, y)`` as Python reads the table: the csv module's fields, numpy's ``float``."""
    if delimiter is None:
        rows = [line.split() for line in text.splitlines()]
    else:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    rows = [r for r in rows if any(f.strip() for f in r)]
    label = label % len(rows[0])
    X = np.array([r[:label] + r[label + 1:] for r in rows], dtype=dtype)
    return X, [int(r[label]) for r in rows]


@pytest.mark.parametrize("delimiter", [",", ";", None])
@pytest.mark.parametrize("label", [0, 2, -1])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_chunks_hold_what_python_reads(tmp_path, delimiter, label, dtype):
    rng = np.random.default_rng([7, label % 5, len(delimiter or "")])
    for trial in range(6):
        text = _fuzzed_table(rng, int(rng.integers(1, 40)), 5, label, delimiter)
        path = tmp_path / f"t{trial}.csv"
        path.write_text(text, newline="")
        X, y = _reference(text, label, delimiter, dtype)
        chunk_size = int(rng.integers(1, 9))
        chunks = list(iter_csv_chunks(path, chunk_size, label, delimiter=delimiter,
                                      header=False, dtype=dtype))
        assert [c[0].shape[0] for c in chunks[:-1]] == [chunk_size] * (len(chunks) - 1)
        assert all(c[0].flags.c_contiguous and c[0].dtype == dtype for c in chunks)
        np.testing.assert_array_equal(np.concatenate([c[0] for c in chunks]), X)
        assert sum((c[1].tolist() for c in chunks), []) == y
        whole_X, whole_y = load_csv(path, label, delimiter=delimiter, header=False, dtype=dtype)
        np.testing.assert_array_equal(whole_X, X)
        assert whole_y.tolist() == y
        sparse = [c[0] for c in _located_csv_chunks(path, chunk_size, label, delimiter=delimiter,
                                                    header=False, dtype=dtype, sparse=True)]
        assert all(sp.isspmatrix_csr(c) and c.dtype == dtype for c in sparse)
        np.testing.assert_array_equal(sp.vstack(sparse).toarray(), X)


def test_a_chunk_larger_than_a_sparse_slice_is_whole(tmp_path):
    from onlinear.data import csv as csv_module

    rows = 3 * csv_module._SPARSE_SLICE + 5
    X = np.arange(rows * 3, dtype=np.float64).reshape(rows, 3) % 7
    path = tmp_path / "long.csv"
    np.savetxt(path, np.column_stack([X, np.arange(rows) % 3]), delimiter=",", fmt="%g")
    (chunk, y, numbers, _), = _located_csv_chunks(path, rows, sparse=True)
    np.testing.assert_array_equal(chunk.toarray(), X)
    assert numbers == list(range(1, rows + 1)) and y.tolist() == (np.arange(rows) % 3).tolist()


def _second_chunk_error(path, text, **options):
    path.write_text(text)
    chunks = iter_csv_chunks(path, 2, **options)
    first = next(chunks)[0]
    with pytest.raises(FileFormatError) as error:
        next(chunks)
    return first, str(error.value)


def test_a_field_that_is_not_a_number_in_a_later_chunk_names_line_and_column(tmp_path):
    first, message = _second_chunk_error(tmp_path / "f.csv",
                                         "a,b,label\n1,2,x\n3,4,y\n\n5,oops,z\n")
    np.testing.assert_array_equal(first, [[1, 2], [3, 4]])
    assert message == "%s, line 5: column 1 ('b'): 'oops' is not a number" % (tmp_path / "f.csv")
    _, message = _second_chunk_error(tmp_path / "e.csv", "1,2,3\n4,5,6\n7,,9\n")
    assert message.endswith("e.csv, line 3: column 1: '' is not a number")


@pytest.mark.parametrize("row, fields", [("1,2,3,4", 4), ("1,2", 2)])
def test_a_ragged_row_in_a_later_chunk_names_its_line(tmp_path, row, fields):
    # every row of the second chunk alike: the parser alone would take them
    _, message = _second_chunk_error(tmp_path / "r.csv", f"1,2,3\n4,5,6\n{row}\n{row}\n")
    assert message.endswith(f"r.csv, line 3: {fields} fields where the first row has 3")


def test_a_label_of_another_kind_in_a_later_chunk_names_its_line(tmp_path):
    _, message = _second_chunk_error(tmp_path / "k.csv", "1,2,3\n4,5,6\n\n7,8,9.5\n")
    assert message.endswith("k.csv, line 4: label '9.5' is not an integer like the labels "
                            "before it (the first chunk's labels decide their type)")


def test_a_header_alone_is_an_empty_table_and_an_empty_file_has_no_rows(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("\ufeffa,b,species\n\n")
    X, y = load_csv(path, label_column="species")
    assert X.shape == (0, 2) and y.shape == (0,)
    assert list(iter_csv_chunks(path, 3, label_column="species")) == []
    path.write_text("\n , \n")
    with pytest.raises(FileFormatError, match=r"h\.csv: no rows"):
        next(iter_csv_chunks(path, 3))


def test_quoted_fields_are_read_by_the_csv_module_from_the_first_quote_on(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('a,b,label\n1,2,plain\n"3",4,"two\nlines"\n5,"6",x\n7,8,y\n9,ten,z\n')
    chunks = iter_csv_chunks(path, 2, label_column="label")
    X, y = next(chunks)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    assert y.tolist() == ["plain", "two\nlines"]
    X, y = next(chunks)
    np.testing.assert_array_equal(X, [[5, 6], [7, 8]])
    with pytest.raises(FileFormatError, match=r"q\.csv, line 7: column 1 \('b'\): 'ten'"):
        next(chunks)


def test_a_located_csv_chunk_quotes_the_line_of_a_refused_label(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("1,2,0\n3,4,1\n\n5,6,1\n7,8,9\n")
    source = LocatedCsvSource(path, 2, None, False)
    chunks = iter(source)
    next(chunks)
    X, y = next(chunks)
    assert sp.isspmatrix_csr(X) and X.toarray().tolist() == [[5, 6], [7, 8]]
    with pytest.raises(FileFormatError) as error:
        source.check_labels(y, allowed=[0, 1])
    assert str(error.value) == (f"{path}, line 5: label '9' is not one of the classes 0, 1; "
                                "the line reads '7,8,9'")


def test_train_names_the_line_of_a_bad_field_in_a_later_chunk(tmp_path):
    rows = [f"{i % 3},{(i * 7) % 5},{i % 2}" for i in range(9)] + ["1,two,0"]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    result = onlinear_cli("train", "pa", "d.csv", "--save", "m", "--chunk-size", "4",
                          "--classes", "0,1", "--quiet", cwd=tmp_path)
    assert result.returncode == 1
    assert "d.csv, line 10: column 1: 'two' is not a number" in result.stderr, result.stderr


def _peak_streaming(path, chunk_size):
    """The peak traced memory while a consumer streams ``path`` a chunk at a time, as the
    command line does (each chunk dropped before the next is read)."""
    tracemalloc.start()
    try:
        for X, y in LocatedCsvSource(path, chunk_size, None, False):
            X = y = None
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_holds_one_chunk_whatever_the_files_length(tmp_path):
    rng = np.random.default_rng(3)
    chunk_size, columns = 200, 60
    table = np.round(rng.uniform(0, 255, size=(chunk_size * 32, columns))
                     * (rng.random((chunk_size * 32, columns)) < 0.3))
    table[:, -1] = rng.integers(0, 10, size=table.shape[0])
    short, long = tmp_path / "short.csv", tmp_path / "long.csv"
    np.savetxt(short, table[:chunk_size * 8], delimiter=",", fmt="%g")
    np.savetxt(long, table, delimiter=",", fmt="%g")
    _peak_streaming(short, chunk_size)  # (first-use allocations out of the measure)
    peak_short, peak_long = _peak_streaming(short, chunk_size), _peak_streaming(long,
                                                                                   chunk_size)
    assert peak_long <= 1.1 * peak_short + 32 * 1024, (peak_short, peak_long)
    # a chunk's text and numbers, not the file's
    assert peak_long < long.stat().st_size / 2, (peak_long, long.stat().st_size)


@pytest.mark.parametrize("base", [10**19, 2**64])
def test_integer_labels_beyond_int64_are_their_digits_in_every_chunk(tmp_path, base):
    """Labels from 2**63 on were uint64 (or Python ints past 2**64) in the first chunk and
    strings in the next, so that a stream's classes could not be sorted ("'<' not supported
    between instances of 'int' and 'str'"); numpy would also have made them float64 beside a
    negative one.  Each is now its decimal digits, in every chunk and in the whole column."""
    labels = [base + i % 3 for i in range(10)] + [-1]
    path = tmp_path / "ids.csv"
    path.write_text("".join(f"{i % 2},{i},{label}\n" for i, label in enumerate(labels)))
    expected = [str(label) for label in labels]
    X, y = load_csv(path)
    assert y.dtype.kind == "U" and y.tolist() == expected
    for chunk_size in (1, 3, 11):
        for chunks in (iter_csv_chunks(path, chunk_size),
                       LocatedCsvSource(path, chunk_size, None, False)):
            ys = [y for _, y in chunks]
            assert {y.dtype.kind for y in ys} == {"U"}, chunk_size
            assert [v for y in ys for v in y.tolist()] == expected
    # a stream of int64 labels that meets a larger one names its line
    path.write_text(f"1,2,3\n4,5,6\n7,8,{base}\n")
    assert load_csv(path)[1].tolist() == ["3", "6", str(base)]
    chunks = iter_csv_chunks(path, 2)
    assert next(chunks)[1].tolist() == [3, 6]
    with pytest.raises(FileFormatError, match=rf"ids\.csv, line 3: label {base} is beyond the "
                                              "64-bit integers of the labels before it"):
        next(chunks)


@pytest.mark.parametrize("chunk_size", ["100", "1"])
@pytest.mark.parametrize("base", [10**19, 2**64])
def test_train_and_predict_a_csv_of_integer_labels_beyond_int64(tmp_path, chunk_size, base):
    rng = np.random.default_rng(5)
    labels = [base + int(k) for k in rng.integers(0, 3, size=300)]
    X = np.round(rng.normal(size=(300, 2)), 3)
    (tmp_path / "ids.csv").write_text("".join(f"{a},{b},{label}\n"
                                              for (a, b), label in zip(X, labels)))
    result = onlinear_cli("train", "pa1", "ids.csv", "--save", "m.onlinear", "--quiet",
                          "--chunk-size", chunk_size, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    result = onlinear_cli("predict", "m.onlinear", "ids.csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    predicted = result.stdout.split()
    assert len(predicted) == 300 and set(predicted) <= {str(v) for v in labels}


@pytest.mark.parametrize("first", [",2,0", "NA,2,0", " ,2,0", '"",2,0', "n/a,2,0"])
def test_a_first_row_with_a_missing_value_is_an_error_not_a_header(tmp_path, first):
    """A first data row with an empty or NA field was taken for a header and silently dropped,
    where the same row on line 2 is an error.  (A quote sends the row to the csv module's
    reader, the others to the compiled parser.)"""
    path = tmp_path / "missing.csv"
    path.write_text(f"{first}\n1,4,1\n3,4,1\n")
    at_line_1 = r"missing\.csv, line 1: column 0: '.*' is not a number"
    with pytest.raises(FileFormatError, match=at_line_1):
        load_csv(path)
    with pytest.raises(FileFormatError, match=at_line_1):
        list(iter_csv_chunks(path, 1))
    with pytest.raises(FileFormatError, match=at_line_1):
        list(LocatedCsvSource(path, 1, None, False))
    path.write_text(f"1,4,1\n{first}\n3,4,1\n")
    with pytest.raises(FileFormatError, match=r"line 2: column 0: '.*' is not a number"):
        load_csv(path)


def test_a_header_is_a_row_of_names_and_a_row_of_names_and_numbers_is_told(tmp_path):
    path = tmp_path / "named.csv"
    path.write_text("length,width,label\n1,2,0\n3,4,1\n")  # every feature's field a name
    X, y = load_csv(path)
    assert X.tolist() == [[1, 2], [3, 4]] and y.tolist() == [0, 1]
    path.write_text("id,2019,label\n1,2,0\n")  # a number among the names: data, and told
    with pytest.raises(FileFormatError, match=r"line 1: column 0: 'id' is not a number; the "
                                              r"line is read as data.*header=True"):
        load_csv(path)
    assert load_csv(path, header=True)[0].tolist() == [[1, 2]]
    path.write_text("id,NA,label\n1,2,0\n")  # a missing-value mark: data, and told why
    with pytest.raises(FileFormatError, match=r"line 1: column 0: 'id' is not a number; the "
                                              r"line is read as data.*header=True"):
        load_csv(path)
    assert load_csv(path, header=True)[0].tolist() == [[1, 2]]
    path.write_text("1,,a\n1,2,b\n")  # a word as the label only: no hint
    with pytest.raises(FileFormatError) as error:
        load_csv(path)
    assert str(error.value) == f"{path}, line 1: column 1: '' is not a number"


@pytest.mark.parametrize("first", ["1.0,2.O,1", "1.0,abc,2", '"1.0",abc,2'])
def test_a_first_row_with_a_malformed_number_is_an_error_not_a_header(tmp_path, first):
    """A first data row with one field that is not a number among numbers was taken for a
    header and dropped silently ("3 examples learned" of 4), where the same row on line 2 is
    an error.  A header is now a row whose every feature's field is a name.  (A quote sends
    the row to the csv module's reader, the others to the compiled parser.)"""
    path = tmp_path / "typo.csv"
    path.write_text(f"{first}\n3,4,1\n5,6,2\n7,8,1\n")
    at_line_1 = (r"typo\.csv, line 1: column 1: '.*' is not a number; the line is read as data, "
                 r"not as the columns' names.*header=True reads it as names")
    with pytest.raises(FileFormatError, match=at_line_1):
        load_csv(path)
    with pytest.raises(FileFormatError, match=at_line_1):
        list(iter_csv_chunks(path, 2))
    with pytest.raises(FileFormatError, match=at_line_1):
        list(LocatedCsvSource(path, 2, None, False))
    result = onlinear_cli("train", "pa1", "typo.csv", "--save", "m", "--quiet", cwd=tmp_path)
    assert result.returncode == 1 and "typo.csv, line 1: column 1:" in result.stderr, (
        result.stderr)
    assert not (tmp_path / "m").exists()
    path.write_text(f"3,4,1\n{first}\n")  # on line 2: the same error, no hint (no header there)
    with pytest.raises(FileFormatError) as error:
        load_csv(path)
    assert str(error.value).endswith("line 2: column 1: %r is not a number"
                                     % first.split(",")[1])


@pytest.mark.parametrize("label, problem", [("", "the label is empty"),
                                            ("  ", "the label is empty"),
                                            ('""', "the label is empty"),
                                            ("NA", "the label 'NA' marks a missing value"),
                                            ("nan", "the label 'nan' marks a missing value"),
                                            ("NaN", "the label 'NaN' marks a missing value"),
                                            ("?", "the label '?' marks a missing value")])
def test_an_empty_or_missing_label_is_an_error_naming_its_line(tmp_path, label, problem):
    """An empty label was a class ('' beside '1' and '2', the numeric labels then read as
    strings); a 'nan' label a NaN one, which no class equals.  A missing label is no class: it
    is an error naming its line, on the first line or in a later chunk, as an empty feature
    is.  (A quote sends the row to the csv module's reader, the others to the compiled
    parser.)"""
    path = tmp_path / "e.csv"
    path.write_text(f"1.0,2.0,{label}\n3.0,4.0,2\n5.0,6.0,1\n")
    message = f"{path}, line 1: {problem}"
    for read in (lambda: load_csv(path), lambda: list(iter_csv_chunks(path, 2)),
                 lambda: list(LocatedCsvSource(path, 2, None, False))):
        with pytest.raises(FileFormatError) as error:
            read()
        assert str(error.value) == message
    result = onlinear_cli("train", "pa1", "e.csv", "--save", "m", "--quiet", cwd=tmp_path)
    assert result.returncode == 1 and f"e.csv, line 1: {problem}" in result.stderr, (
        result.stderr)
    path.write_text(f"1.0,2.0,1\n3.0,4.0,2\n\n5.0,6.0,{label}\n")
    chunks = iter_csv_chunks(path, 2)
    assert next(chunks)[1].tolist() == [1, 2]
    with pytest.raises(FileFormatError) as error:
        next(chunks)
    assert str(error.value) == f"{path}, line 4: {problem}"


def test_a_label_none_is_a_class_not_a_missing_value(tmp_path):
    """'none' may well name a class ("none", "mild", "severe"): only the marks of a missing
    value refused as labels are."""
    path = tmp_path / "none.csv"
    path.write_text("1,2,none\n3,4,mild\n")
    assert load_csv(path)[1].tolist() == ["none", "mild"]
