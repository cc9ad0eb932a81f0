"""Delimited text with one label column (UCI style): ``X`` from the other columns, ``y`` from it."""
import codecs
import csv as _csv
import io
import itertools
import re
from collections.abc import Iterator
from numbers import Integral

import numpy as np

from ._files import FileFormatError, open_binary, reading, shorten

__all__ = ["load_csv", "iter_csv_chunks"]

# Rows parsed at a time by load_csv: the file's text is never in memory whole.
_WHOLE_FILE_CHUNK = 4096
# Rows of a sparse chunk parsed at a time: its dense table is never in memory whole.
_SPARSE_SLICE = 512
# Bytes read at a time for the compiled parser.
_BLOCK = 1 << 16
# Bytes of a line that Python reads otherwise than the compiled parser: control bytes but tab,
# \v and \f (a carriage return is a line break to Python)
_ODD_BYTES = re.compile(rb"[\x00-\x08\x0d-\x1f]")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
# The kind of a column of integer labels one of which is beyond int64: they are read as their
# decimal digits, in every chunk.  Not as numpy types them: it makes ints up to 2**64 uint64
# and those with a negative one float64 (no longer exact), so that a table's labels would be
# typed by the chunk they fall in; nor as Python ints, which the estimators (as
# scikit-learn's) refuse as labels, and a model file cannot store.
_BIG_INTEGERS = "integers beyond int64"


def load_csv(path, label_column=-1, *, delimiter=",", header=None, encoding="utf-8",
             dtype=np.float64):
    """Read a table whose rows are examples, one column holding the label.

    Parameters
    ----------
    path : str or path-like
        The file: plain, ``.gz``, ``.bz2`` or ``.xz`` (recognised by content).
    label_column : int or str, default=-1
        Position of the label column (negative counts from the end) or its name in the
        header.
    delimiter : str or None, default=","
        Field separator; ``None`` splits on runs of whitespace (e.g. UCI's Shuttle files).
    header : bool or None, default=None
        Whether the first row names the columns.  ``None``: yes if ``label_column`` is a
        name, otherwise yes only when every field of the first row that should be a feature
        is a name: not empty, not a number, not a missing-value mark (``NA``, ``n/a``,
        ``null``, ``?``).  A first row with a number or a missing value among those fields
        (``1.0,2.O,1``, ``id,2019,label``, ``NA,2,0``) is data, and so an error naming line
        1, as on any other line; pass ``header=True`` to read such a row as names.
    encoding : str, default="utf-8"
        A UTF-8 byte-order mark at the start is skipped.
    dtype : numpy dtype, default=float64
        Type of ``X``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_columns - 1)
    y : ndarray of shape (n_samples,)
        Integers (int64) if every label is an integer, each written as its decimal digits
        (strings) if one of them is beyond int64; else floats if every label is a number,
        else strings.  Blank lines are skipped.

    Raises
    ------
    FileFormatError
        (a ``ValueError``) naming the file and the line, if a row has the wrong number of
        fields, a feature that is not a number, or a missing label (empty, or a missing-value
        mark: ``NA``, ``n/a``, ``nan``, ``null``, ``?``), or a line that is not in
        ``encoding``; also if the label column does not exist, or the table has a single
        column (no feature: the delimiter is most likely wrong).

    Examples
    --------
    >>> import os, tempfile
    >>> from onlinear.data import load_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "flowers.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("length,width,species\\n5.1,3.5,setosa\\n6.3,2.9,virginica\\n")
    >>> X, y = load_csv(path, label_column="species")
    >>> X
    array([[5.1, 3.5],
           [6.3, 2.9]])
    >>> y
    array(['setosa', 'virginica'], dtype='<U9')
    """
    table = _TableReader(path, label_column, delimiter, header, encoding, dtype)
    parts, values = [], []
    for X, labels, _, _ in table.chunks(_WHOLE_FILE_CHUNK):
        parts.append(X)
        values += labels
    if not parts:  # a header and no row
        return np.empty((0, table.width - 1), dtype=dtype), _labels(values)
    X = np.ascontiguousarray(parts[0]) if len(parts) == 1 else np.concatenate(parts)
    return X, _labels(values)


def iter_csv_chunks(path, chunk_size: int, label_column=-1, *, delimiter=",", header=None,
                    encoding="utf-8", dtype=np.float64) -> Iterator[tuple]:
    """Stream a table like :func:`load_csv`'s in chunks of ``chunk_size`` rows, reading one
    chunk's lines at a time (a file larger than memory can be learned chunk by chunk).

    Parameters
    ----------
    path : str, path-like or binary file object
        The file: plain, ``.gz``, ``.bz2`` or ``.xz`` (recognised by content); ``"-"`` reads
        standard input.
    chunk_size : int
        Rows per chunk (the last chunk may be shorter); blank lines are not rows.
    label_column, delimiter, header, encoding, dtype
        As for :func:`load_csv` (``header=None`` reads the first row as names only when
        every feature's field in it is a name; a number among them makes it data).

    Yields
    ------
    X : ndarray of shape (n_rows, n_columns - 1)
    y : ndarray of shape (n_rows,)
        Typed as :func:`load_csv` types the whole column, decided on the first chunk: a later
        label of another kind (a word after integer labels, or an integer beyond int64 after
        int64 ones) is an error naming its line.

    Raises
    ------
    FileNotFoundError, FileFormatError
        As :func:`load_csv`; chunks before the bad line have already been yielded.

    Examples
    --------
    >>> import os, tempfile
    >>> from onlinear.data import iter_csv_chunks
    >>> path = os.path.join(tempfile.mkdtemp(), "stream.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("a,b,label\\n1,0,3\\n0,1,7\\n1,1,3\\n")
    >>> for X, y in iter_csv_chunks(path, chunk_size=2):
    ...     print(X.tolist(), y.tolist())
    [[1.0, 0.0], [0.0, 1.0]] [3, 7]
    [[1.0, 1.0]] [3]
    """
    for X, labels, _, _ in _located_csv_chunks(path, chunk_size, label_column,
                                               delimiter=delimiter, header=header,
                                               encoding=encoding, dtype=dtype):
        yield np.ascontiguousarray(X), labels


def _located_csv_chunks(path, chunk_size, label_column=-1, *, delimiter=",", header=None,
                        encoding="utf-8", dtype=np.float64, sparse=False):
    """:func:`iter_csv_chunks`' chunks with where their rows come from: ``(X, y, numbers,
    rows)``, ``numbers`` the 1-based line of each row and ``rows[i]`` its fields (split again
    from its line when asked for), the features' in order and the label's last.  ``X`` may be
    a view of the parsed table (its label column left out), or with ``sparse`` a CSR matrix."""
    if not isinstance(chunk_size, Integral) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer; got {chunk_size!r}.")
    kind = None
    table = _TableReader(path, label_column, delimiter, header, encoding, dtype, sparse)
    for X, values, numbers, rows in table.chunks(chunk_size):
        labels, kind = _labels_of_kind(path, values, kind, numbers)
        yield X, labels, numbers, rows
        X = values = labels = numbers = rows = None  # (the next chunk without this one)


class _TableReader:
    """A delimited text stream read a chunk of rows at a time, each chunk's lines parsed by
    the compiled CSV parser (:mod:`._csv`) or numpy's (:func:`numpy.loadtxt`) straight into
    numbers.

    The compiled parser reads the stream's bytes while its lines are plain numeric rows (UTF-8
    tables of float64 or float32 with a delimiter it knows); from the first line it does not
    read on (a quote, a field that is not a number, a ragged row...), the stream is read as
    text here, that line's chunk completed, and each chunk's lines parsed by numpy's parser.

    A chunk the parser refuses (a ragged row, a field that is not a number, or one only
    Python's ``float`` reads, such as ``1_000``) is split into fields and read as Python reads
    them, which names the line and the field at fault.  From the first line holding a quote
    on, the rows are the :mod:`csv` module's (a quoted field may hold the delimiter or a
    newline).  ``names``, ``width`` and ``label`` are known once the first row is read.
    With ``sparse``, each chunk's ``X`` is a CSR matrix.
    """

    def __init__(self, path, label_column, delimiter, header, encoding, dtype, sparse=False):
        self.path, self.label_column, self.delimiter = path, label_column, delimiter
        self.header, self.encoding, self.dtype = header, encoding, dtype
        self.sparse = sparse
        self.names = self.width = self.label = None
        self._named_data = None  # line 1, if it was taken for data though it holds a word
        self._lines = self._quoted = None
        self._number = 0  # physical lines read before the quoted rows start

    def chunks(self, chunk_size):
        """``(X, label strings, line numbers, rows)`` of each chunk of ``chunk_size`` rows."""
        # A byte-order mark (as spreadsheet programs write) is not part of the first field.
        utf8 = codecs.lookup(self.encoding).name == "utf-8"
        with reading(self.path), open_binary(self.path) as raw:
            compiled = _CompiledRows(self, raw) if utf8 and self._compiles() else None
            if compiled is not None and not compiled.started():
                raw, compiled = compiled.rest(), None  # a first line it does not read
            while compiled is not None:
                X, values, numbers, lines = compiled.chunk(chunk_size)
                if compiled.odd:  # the rest of the stream is read here, from the odd line on
                    self._read_text(compiled.rest(), self.encoding)
                    self._number, compiled = compiled.line, None
                    X, values, numbers, lines = self._completed(chunk_size, X, values, numbers,
                                                                list(lines))
                if not numbers:
                    return
                _refuse_missing_labels(self.path, values, numbers)
                yield X, values, numbers, _RowFields(lines, self._split, self.label)
                X = values = numbers = lines = None
            if self._lines is None:
                self._read_text(raw, "utf-8-sig" if utf8 else self.encoding)
                pending = self._first_rows()
            else:
                pending = ([], [], None)
            while True:
                numbers, lines, fields = self._gathered(chunk_size, *pending)
                pending = ([], [], None)
                if not numbers:
                    return
                X, values = self._parsed(numbers, lines, fields)
                _refuse_missing_labels(self.path, values, numbers)
                rows = _RowFields(fields if lines is None else lines, self._split, self.label)
                yield X, values, numbers, rows
                X = values = numbers = lines = fields = rows = None

    def _compiles(self):
        """Whether the compiled parser reads this table's rows (it reads what the Python path
        would read alike, and gives the rest back)."""
        from ._csv import DELIMITERS

        return ((self.delimiter is None or (isinstance(self.delimiter, str)
                                            and len(self.delimiter) == 1
                                            and self.delimiter in DELIMITERS))
                and np.dtype(self.dtype) in (np.float64, np.float32))

    def _read_text(self, raw, encoding):
        """Read the lines of the binary stream ``raw`` from here on."""
        self._lines = iter(io.TextIOWrapper(raw, encoding=encoding, newline=""))

    def _completed(self, chunk_size, X, values, numbers, lines):
        """The compiled parser's part of a chunk, completed to ``chunk_size`` rows (or the
        stream's end) by the lines after it."""
        more, more_lines, fields = self._gathered(chunk_size - len(numbers))
        if not more:
            return X, values, numbers, lines
        Y, more_values = self._parsed(more, more_lines, fields)
        if numbers:
            if self.sparse:
                import scipy.sparse as sp

                Y = sp.vstack([X, Y], format="csr")
            else:
                Y = np.concatenate([X, Y])
        return (Y, values + more_values, numbers + more,
                lines + (fields if more_lines is None else more_lines))

    def _first_rows(self):
        """Decide the table's shape from its first row; the rows read that are data (none
        after a header) as ``(numbers, lines, fields)``."""
        numbers, lines, fields = self._gathered(1)
        if not numbers:
            raise FileFormatError(self.path, "no rows")
        first = fields[0] if lines is None else self._split(lines[0])
        header = self._shape(numbers[0], first)
        return ([], [], None) if header else (numbers, lines, fields)

    def _shape(self, number, first):
        """Set ``names``, ``width`` and ``label`` from the fields ``first`` of the first row
        (line ``number``); whether that row is a header."""
        header, guessed = self.header, False
        if header is None:
            header = (isinstance(self.label_column, str)
                      or _looks_like_header(first, self.label_column))
            guessed = not header
        if header:
            self.names = [name.strip() for name in first]
        self.width = len(first)
        if self.width == 1:
            raise _one_column(self.path, self.delimiter, [(number, first)], self.names)
        self.label = _label_index(self.path, self.label_column, self.names, self.width)
        if guessed and any(field.strip() and not _is_number(field)
                           for i, field in enumerate(first) if i != self.label):
            self._named_data = number
        return header

    def _gathered(self, count, numbers=(), lines=(), fields=None):
        """The rows given and the next non-blank ones, ``count`` in all (fewer at the end), as
        ``(numbers, lines, None)`` or, once a quote is met, ``(numbers, None, fields)``."""
        numbers, lines = list(numbers), None if fields is not None else list(lines)
        if len(numbers) >= count:
            return numbers, lines, fields
        try:
            if self._quoted is None and fields is None:
                for line in self._lines:
                    self._number += 1
                    if self.delimiter is not None and '"' in line:
                        self._quoted = _quoted_rows(line, self._lines, self.delimiter,
                                                    self._number - 1)
                        break
                    if _blank(line, self.delimiter):
                        continue
                    numbers.append(self._number)
                    lines.append(line)
                    if len(numbers) == count:
                        return numbers, lines, None
                else:
                    return numbers, lines, None
            if fields is None:
                fields = [self._split(line) for line in lines]
            if self._quoted is not None:
                for number, row in itertools.islice(self._quoted, count - len(numbers)):
                    numbers.append(number)
                    fields.append(row)
        except UnicodeDecodeError as error:
            raise _undecodable(self.path, self.encoding, error) from None
        return numbers, None, fields

    def _split(self, line):
        """A line's fields, as the rows after a quote are split."""
        if self.delimiter is None:
            return line.split()
        return next(_csv.reader([line], delimiter=self.delimiter), [])

    def _parsed(self, numbers, lines, fields):
        """``(X, label strings)`` of a chunk's rows."""
        if lines is not None:
            parsed = self._parsed_lines(lines)
            if parsed is not None:
                return parsed
            fields = [self._split(line) for line in lines]
        X, values = _table(self.path, list(zip(numbers, fields)), self.width, self.label,
                           self.names, self.dtype, self._named_data)
        return (self._csr(X) if self.sparse else X), values

    def _parsed_lines(self, lines):
        """:func:`numpy.loadtxt`'s ``(X, label strings)`` of ``lines``, or None if it refuses
        them (:func:`_table` then names the fault).  A sparse chunk is parsed a slice of rows
        at a time, so that its dense table is never in memory whole."""
        values = []

        def label_text(field):
            values.append(field.strip())
            return 0

        step = _SPARSE_SLICE if self.sparse else max(len(lines), 1)
        parts = []
        for start in range(0, len(lines), step):
            try:
                table = np.loadtxt(lines[start:start + step], dtype=self.dtype,
                                   delimiter=self.delimiter, comments=None,
                                   converters={self.label: label_text}, ndmin=2)
            except ValueError:
                return None
            if table.shape[1] != self.width:  # a slice whose rows agree with each other only
                return None
            X = self._features(table)
            parts.append(self._csr(X) if self.sparse else X)
            table = X = None
        if len(parts) == 1:
            return parts[0], values
        import scipy.sparse as sp

        return sp.vstack(parts, format="csr"), values

    def _features(self, table):
        """``table`` without its label column (a view when the label is first or last)."""
        if self.label == self.width - 1:
            return table[:, :-1]
        if self.label == 0:
            return table[:, 1:]
        return np.delete(table, self.label, axis=1)

    @staticmethod
    def _csr(X):
        import scipy.sparse as sp

        return sp.csr_matrix(X)


class _CompiledRows:
    """A table's rows read from its bytes by the compiled parser (:class:`._csv.CsvParser`)
    while its lines are plain numeric rows: :meth:`started` reads the first row (the table's
    shape, as :meth:`_TableReader._first_rows` decides it), :meth:`chunk` parses chunks until
    the end or a line the parser does not read (``odd``), and :meth:`rest` gives the bytes from
    there on, for the Python reader."""

    def __init__(self, table, raw):
        self.table, self.raw = table, raw
        self.block, self.position, self.final = b"", 0, False
        self.parser = None

    @property
    def odd(self):
        return self.parser.odd

    @property
    def line(self):
        """Lines read (blank ones too)."""
        return self.parser.line

    def started(self):
        """Read the first non-blank line: False (nothing consumed) unless it is plain text."""
        table = self.table
        start = 3 if self._fill(3) and self.block.startswith(codecs.BOM_UTF8) else 0
        number = 0
        while True:
            end = self.block.find(b"\n", start)
            if end < 0 and not self.final:
                self._fill(2 * len(self.block))  # (doubling: a long line is read in log steps)
                continue
            end = len(self.block) if end < 0 else end + 1
            text = _plain(self.block[start:end], table.delimiter)
            if text is None or start == end:  # (no row: the Python reader says so)
                return False
            number += 1
            if not _blank(text, table.delimiter):
                break
            start = end
        header = table._shape(number, table._split(text))
        from ._csv import CsvParser

        self.parser = CsvParser(table.width, table.label, table.delimiter or "", table.sparse,
                                np.dtype(table.dtype) == np.float32)
        self.position = end if header else start
        self.parser.line = number if header else number - 1
        return True

    def chunk(self, count):
        """``(X, label strings, line numbers, lines)`` of the next ``count`` rows, fewer at the
        end or before an odd line."""
        parser = self.parser
        while True:
            self.position = parser.parse(self.block, self.position, self.final, count)
            if parser.odd or parser.n_rows >= count or (
                    self.final and self.position >= len(self.block)):
                break
            self.block, self.position = self.block[self.position:], 0
            self._fill(len(self.block) + max(len(self.block), _BLOCK))
        X, labels, numbers, lines = parser.take(self.table.dtype)
        if self.table.sparse:
            import scipy.sparse as sp

            X = sp.csr_matrix(X, shape=(len(numbers), self.table.width - 1))
        return X, labels, numbers, lines

    def rest(self):
        """The stream's bytes from the first not parsed on, as a binary file."""
        return io.BufferedReader(_Replayed(self.block[self.position:], self.raw))

    def _fill(self, size):
        """Read until the block holds ``size`` bytes or the stream ends; whether it holds any."""
        parts = [self.block]
        held = len(self.block)
        while held < size and not self.final:
            data = self.raw.read(max(size - held, _BLOCK))
            self.final = not data
            parts.append(data)
            held += len(data)
        self.block = b"".join(parts)
        return held > 0


class _Replayed(io.RawIOBase):
    """Bytes read ahead of a stream, then the rest of the stream."""

    def __init__(self, head, stream):
        self._head, self._stream = memoryview(head), stream

    def readable(self):
        return True

    def readinto(self, buffer):
        if len(self._head):
            size = min(len(buffer), len(self._head))
            buffer[:size], self._head = self._head[:size], self._head[size:]
            return size
        data = self._stream.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _plain(line, delimiter):
    """The text of the line ``line`` (bytes) if Python reads it as the compiled parser does (no
    quote, control byte or lone carriage return; UTF-8), else None."""
    body = line[:-1] if line.endswith(b"\n") else line
    body = body[:-1] if body.endswith(b"\r") else body
    if _ODD_BYTES.search(body) or (delimiter is not None and b'"' in body):
        return None
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return None


class _RowFields:
    """The fields of a chunk's rows, split from their lines when asked for (an error quotes
    one): the features' in order, the label's last."""

    def __init__(self, rows, split, label):
        self._rows, self._split, self._label = rows, split, label

    def __len__(self):
        return len(self._rows)

    def __getitem__(self, row):
        fields = self._rows[row]
        if isinstance(fields, str):
            fields = self._split(fields)
        return fields[:self._label] + fields[self._label + 1:] + [fields[self._label]]


def _blank(line, delimiter):
    """Whether a line holds no field but empty ones (as the :mod:`csv` module splits it)."""
    if delimiter is None:
        return not line.strip()
    return not line.replace(delimiter, " ").strip()


def _quoted_rows(line, lines, delimiter, before):
    """``(line_number, fields)`` of the non-blank rows from ``line`` on, the :mod:`csv`
    module's (``before`` lines precede ``line``)."""
    reader = _csv.reader(itertools.chain([line], lines), delimiter=delimiter)
    return ((before + reader.line_num, fields) for fields in reader
            if any(field.strip() for field in fields))


def _table(path, rows, width, label, names, dtype, named_data=None):
    """``(X, label strings)`` of split ``rows`` of ``width`` fields; ``named_data``: the line
    of the first row if it holds a word but was taken for data (an error there says why)."""
    for number, fields in rows:
        if len(fields) != width:
            raise FileFormatError(path, f"{len(fields)} fields where the first row has {width}",
                                  number)
    features = [fields[:label] + fields[label + 1:] for _, fields in rows]
    try:
        X = np.array(features, dtype=dtype).reshape(len(rows), width - 1)
    except ValueError:
        raise _bad_feature(path, rows, label, names, dtype, named_data) from None
    return X, [fields[label].strip() for _, fields in rows]


def _labels_of_kind(path, values, kind, numbers):
    """``(labels, kind)``: ``values`` typed as :func:`_labels` types them, or, once a first
    chunk chose ``kind``, as that kind (a value that is not one is an error naming its line,
    ``numbers`` the values' lines)."""
    if kind is None:
        return _typed_labels(values)
    convert = int if kind is _BIG_INTEGERS else kind
    try:
        typed = [convert(value) for value in values]
    except ValueError:
        for number, value in zip(numbers, values):
            try:
                convert(value)
            except ValueError:
                expected = {int: "an integer", float: "a number"}[convert]
                raise FileFormatError(path, f"label {value!r} is not {expected} like the labels "
                                      "before it (the first chunk's labels decide their type)",
                                      number) from None
        raise
    if kind is _BIG_INTEGERS:
        return np.array([str(value) for value in typed]), kind
    if kind is int and not _in_int64(typed):
        for number, value in zip(numbers, typed):
            if not _in_int64([value]):
                raise FileFormatError(path, f"label {value} is beyond the 64-bit integers of the "
                                      "labels before it (the first chunk's labels decide their "
                                      "type; in the first chunk, such a label would have made "
                                      "every integer label its decimal text)", number)
    return np.array(typed), kind


def _undecodable(path, encoding, error):
    """The first line that is not ``encoding``, as a FileFormatError (the file read again)."""
    with open_binary(path) as raw:
        for number, line in enumerate(raw, 1):
            try:
                line.decode(encoding)
            except UnicodeDecodeError as line_error:
                return FileFormatError(
                    path, f"not {encoding} text: {line_error.reason} at byte "
                    f"{line_error.start + 1} of the line (pass encoding=, e.g. 'latin-1'); the "
                    f"line reads {shorten(line)}", number)
    return FileFormatError(path, f"not {encoding} text ({error})")


def _one_column(path, delimiter, rows, names):
    """A table of one column has a label and no feature: most likely the delimiter is wrong."""
    first = names if names is not None else rows[0][1]
    found = [c for c in (",", ";", "\t", "|", " ") if c != delimiter and c in first[0].strip()]
    hint = f"; the first line holds {found[0]!r}: pass delimiter={found[0]!r}" if found else ""
    if delimiter is None:
        splitting = "whitespace"
    else:
        splitting = f"delimiter={delimiter!r}"
    return FileFormatError(path, f"a single column with {splitting}, so no feature besides the "
                           f"label{hint}", rows[0][0] if names is None else 1)


def _is_number(field):
    try:
        float(field)
    except ValueError:
        return False
    return True


#: fields that mark a missing value (compared lower-case): a first row holding one is data
_MISSING_MARKS = frozenset({"", "na", "n/a", "nan", "null", "none", "?"})


def _looks_like_header(fields, label_column):
    """Whether the first row's ``fields`` name the columns: every feature's field is a name
    (not empty, not a number, not a missing-value mark such as ``NA``, ``null``, ``?``).  A
    first data row with one malformed number (``1.0,2.O,1``) or a missing value (``NA,2,0``)
    must be an error naming line 1, as on any later line, not dropped silently as a header;
    so a row of words among numbers (``id,2019,label``) is data too."""
    if not isinstance(label_column, Integral) or not -len(fields) <= label_column < len(fields):
        return False
    label = label_column % len(fields)
    features = [field.strip() for i, field in enumerate(fields) if i != label]
    return all(field.lower() not in _MISSING_MARKS and not _is_number(field)
               for field in features)


def _label_index(path, label_column, names, width):
    if isinstance(label_column, str):
        if names is None:
            raise FileFormatError(path, f"label column {label_column!r} given by name, but the "
                                  "file has no header (pass header=True if it has one)")
        if label_column not in names:
            raise FileFormatError(path, f"no column named {label_column!r}; columns: {names}")
        return names.index(label_column)
    if not isinstance(label_column, Integral) or not -width <= label_column < width:
        raise FileFormatError(path, f"label_column={label_column!r} is not a column of a table "
                              f"with {width} columns")
    return int(label_column) % width


def _bad_feature(path, rows, label, names, dtype, named_data=None):
    for number, fields in rows:
        for column, field in enumerate(fields):
            if column == label:
                continue
            try:
                np.array(field, dtype=dtype)
            except ValueError:
                name = f" ({names[column]!r})" if names else ""
                # (a first row with a word may be meant as names: say how to read it so)
                why = ("; the line is read as data, not as the columns' names, since one of its "
                       "fields is a number, empty or a missing-value mark (header=True reads it "
                       "as names)" if number == named_data else "")
                return FileFormatError(
                    path, f"column {column}{name}: {field!r} is not a number{why}", number)
    return FileFormatError(path, "a feature is not a number")


#: label texts (compared lower-case) that mark a missing label: a missing label is no class
#: (``nan`` would be a NaN label, which the estimators refuse; ``NA`` a class of its own).
#: Not ``none``, which a table may well name a class ("none", "mild", "severe").
_MISSING_LABELS = frozenset({"", "na", "n/a", "nan", "+nan", "-nan", "null", "?"})


def _refuse_missing_labels(path, values, numbers):
    """Raise a FileFormatError naming the line of the first of a chunk's label texts
    ``values`` (stripped; ``numbers`` their lines) that is empty or marks a missing value."""
    missing = {value for value in set(values) if value.lower() in _MISSING_LABELS}
    if not missing:  # (a chunk's distinct labels are looked at, not each row's)
        return
    for number, value in zip(numbers, values):
        if value in missing:
            problem = (f"the label {value!r} marks a missing value" if value
                       else "the label is empty")
            raise FileFormatError(path, problem, number)


def _labels(values):
    return _typed_labels(values)[0]


def _typed_labels(values):
    """``(labels, kind)`` of label texts ``values``: int64 if all are integers, each written
    as its decimal digits (kind :data:`_BIG_INTEGERS`) if one of them is beyond int64, else
    floats if all are numbers, else the texts."""
    if not values:  # (a header and no row)
        return np.array([]), float
    try:
        integers = [int(value) for value in values]
    except ValueError:
        pass
    else:
        if _in_int64(integers):
            return np.array(integers, dtype=np.int64), int
        return np.array([str(value) for value in integers]), _BIG_INTEGERS
    try:
        return np.array([float(value) for value in values]), float
    except ValueError:
        return np.array(values), str


def _in_int64(integers):
    return min(integers) >= _INT64_MIN and max(integers) <= _INT64_MAX
