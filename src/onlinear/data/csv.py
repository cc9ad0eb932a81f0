"""Delimited text with one label column (UCI style): ``X`` from the other columns, ``y`` from it."""
import codecs
import csv as _csv
import io
from collections.abc import Iterator
from numbers import Integral

import numpy as np

from ._files import FileFormatError, open_binary, reading, shorten

__all__ = ["load_csv", "iter_csv_chunks"]


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
        name, otherwise yes exactly when a field of the first row that should be a feature
        is not a number.
    encoding : str, default="utf-8"
        A UTF-8 byte-order mark at the start is skipped.
    dtype : numpy dtype, default=float64
        Type of ``X``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_columns - 1)
    y : ndarray of shape (n_samples,)
        Integers if every label is an integer, else floats if every label is a number, else
        strings.  Blank lines are skipped.

    Raises
    ------
    FileFormatError
        (a ``ValueError``) naming the file and the line, if a row has the wrong number of
        fields or a feature that is not a number, or a line that is not in ``encoding``;
        also if the label column does not exist, or the table has a single column (no
        feature: the delimiter is most likely wrong).

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
    # A byte-order mark (as spreadsheet programs write) is not part of the first field.
    decoding = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
    with reading(path), open_binary(path) as raw, \
            io.TextIOWrapper(raw, encoding=decoding, newline="") as text:
        try:
            rows = _rows(text, delimiter)
        except UnicodeDecodeError as error:
            raise _undecodable(path, encoding, error) from None
        if not rows:
            raise FileFormatError(path, "no rows")
        names = None
        if header is None:
            header = isinstance(label_column, str) or _looks_like_header(rows[0][1], label_column)
        if header:
            names = [name.strip() for name in rows[0][1]]
            rows = rows[1:]
    width = len(names) if names is not None else (len(rows[0][1]) if rows else 0)
    if width == 1:
        raise _one_column(path, delimiter, rows, names)
    label = _label_index(path, label_column, names, width)
    X, values = _table(path, rows, width, label, names, dtype)
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
        As for :func:`load_csv` (``header=None`` decides from the first row).

    Yields
    ------
    X : ndarray of shape (n_rows, n_columns - 1)
    y : ndarray of shape (n_rows,)
        Typed as :func:`load_csv` types the whole column, decided on the first chunk: a later
        label of another kind (a word after integer labels) is an error naming its line.

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
        yield X, labels


def _located_csv_chunks(path, chunk_size, label_column=-1, *, delimiter=",", header=None,
                        encoding="utf-8", dtype=np.float64):
    """:func:`iter_csv_chunks`' chunks with where their rows come from: ``(X, y, numbers,
    rows)``, ``numbers`` the 1-based line of each row and ``rows`` its fields, the features'
    in order and the label's last."""
    if not isinstance(chunk_size, Integral) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer; got {chunk_size!r}.")
    decoding = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
    with reading(path), open_binary(path) as raw, \
            io.TextIOWrapper(raw, encoding=decoding, newline="") as text:
        rows = _iter_rows(text, delimiter)
        names, width, label, kind = None, None, None, None
        while True:
            try:
                chunk = [row for _, row in zip(range(chunk_size), rows)]
            except UnicodeDecodeError as error:
                raise _undecodable(path, encoding, error) from None
            if names is None and width is None:  # the first chunk decides the table's shape
                if not chunk:
                    raise FileFormatError(path, "no rows")
                if header is None:
                    header = (isinstance(label_column, str)
                              or _looks_like_header(chunk[0][1], label_column))
                if header:
                    names = [name.strip() for name in chunk[0][1]]
                    chunk = chunk[1:] + [row for _, row in zip(range(1), rows)]
                width = len(names) if names is not None else len(chunk[0][1])
                if width == 1:
                    raise _one_column(path, delimiter, chunk, names)
                label = _label_index(path, label_column, names, width)
            if not chunk:
                return
            X, values = _table(path, chunk, width, label, names, dtype)
            labels, kind = _labels_of_kind(path, values, kind, chunk)
            yield X, labels, [number for number, _ in chunk], [
                fields[:label] + fields[label + 1:] + [fields[label]] for _, fields in chunk]


def _iter_rows(text, delimiter):
    """``(line_number, fields)`` of the non-blank rows, one at a time."""
    if delimiter is None:
        return ((number, line.split()) for number, line in enumerate(text, 1) if line.strip())
    reader = _csv.reader(text, delimiter=delimiter)
    return ((reader.line_num, fields) for fields in reader
            if any(field.strip() for field in fields))


def _table(path, rows, width, label, names, dtype):
    """``(X, label strings)`` of parsed ``rows`` of ``width`` fields."""
    for number, fields in rows:
        if len(fields) != width:
            raise FileFormatError(path, f"{len(fields)} fields where the first row has {width}",
                                  number)
    features = [fields[:label] + fields[label + 1:] for _, fields in rows]
    try:
        X = np.array(features, dtype=dtype).reshape(len(rows), width - 1)
    except ValueError:
        raise _bad_feature(path, rows, label, names, dtype) from None
    return X, [fields[label].strip() for _, fields in rows]


def _labels_of_kind(path, values, kind, rows):
    """``(labels, kind)``: ``values`` typed as :func:`_labels` types them, or, once a first
    chunk chose ``kind``, as that kind (a value that is not one is an error naming its line)."""
    if kind is None:
        labels = _labels(values)
        return labels, {"i": int, "f": float}.get(labels.dtype.kind, str)
    try:
        return np.array([kind(value) for value in values]), kind
    except ValueError:
        for (number, _), value in zip(rows, values):
            try:
                kind(value)
            except ValueError:
                expected = {int: "an integer", float: "a number"}[kind]
                raise FileFormatError(path, f"label {value!r} is not {expected} like the labels "
                                      "before it (the first chunk's labels decide their type)",
                                      number) from None
        raise


def _rows(text, delimiter):
    """``(line_number, fields)`` of the non-blank rows."""
    return list(_iter_rows(text, delimiter))


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


def _looks_like_header(fields, label_column):
    if not isinstance(label_column, Integral) or not -len(fields) <= label_column < len(fields):
        return False
    label = label_column % len(fields)
    return any(not _is_number(field) for i, field in enumerate(fields) if i != label)


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


def _bad_feature(path, rows, label, names, dtype):
    for number, fields in rows:
        for column, field in enumerate(fields):
            if column == label:
                continue
            try:
                np.array(field, dtype=dtype)
            except ValueError:
                name = f" ({names[column]!r})" if names else ""
                return FileFormatError(
                    path, f"column {column}{name}: {field!r} is not a number", number)
    return FileFormatError(path, "a feature is not a number")


def _labels(values):
    for kind in (int, float):
        try:
            return np.array([kind(value) for value in values])
        except ValueError:
            pass
    return np.array(values)
