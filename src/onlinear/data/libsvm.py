"""LIBSVM / SVMlight files: read whole, or stream in chunks of rows for files larger than memory.

One example per line, ``label index:value index:value ...`` with increasing feature indices,
optional ``# comment``; LIBSVM files number features from 1.  Plain, gzip and bzip2 (and xz)
files are read alike, the compression being recognised from the file's first bytes.
Parsing is scikit-learn's :func:`sklearn.datasets.load_svmlight_file`; what this module adds is
an error that names the file *and the line* at fault, and streaming.
"""
from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from numbers import Integral

import numpy as np
from sklearn.datasets import load_svmlight_file

from ._files import FileFormatError, open_binary, reading, shorten

__all__ = ["load_libsvm", "iter_libsvm_chunks"]

_SCAN_BATCH = 4096  # lines parsed at once when looking for the line at fault
# scikit-learn's parser stores feature indices as C ints: a larger one overflows.
_MAX_INDEX = 2**31 - 1
_PARSE_ERRORS = (ValueError, OverflowError)


def load_libsvm(path: str | os.PathLike, n_features: int | None = None, *,
                zero_based: bool | str = "auto", dtype=np.float64,
                multilabel: bool = False) -> tuple:
    """Read a whole LIBSVM/SVMlight file.

    Parameters
    ----------
    path : str or path-like
        The file: plain, ``.gz``, ``.bz2`` or ``.xz`` (recognised by content).
    n_features : int, optional
        Number of columns of ``X``.  Pass it so that a training file and a test file agree
        (a test file need not use the last feature); by default the largest index in the file.
    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0.  ``"auto"`` (scikit-learn's rule) takes the file as
        one-based unless some index is 0.
    dtype : numpy dtype, default=float64
        Type of the values of ``X``.
    multilabel : bool, default=False
        Labels are comma-separated lists (``1,3 1:0.5 ...``); ``y`` is then a list of tuples.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), float64 (or a list of tuples if ``multilabel``)

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    FileFormatError
        (a ``ValueError``) if a line is malformed, or an index is ≥ ``n_features`` or above
        2³¹ − 1: the message names the file and the line number.

    Examples
    --------
    >>> import os, tempfile
    >>> from onlinear.data import load_libsvm
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.libsvm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 1:0.5 3:1\\n2 2:-1\\n")
    >>> X, y = load_libsvm(path, n_features=4)
    >>> X.toarray()
    array([[ 0.5,  0. ,  1. ,  0. ],
           [ 0. , -1. ,  0. ,  0. ]])
    >>> y
    array([1., 2.])
    >>> with open(path, "a") as f:
    ...     _ = f.write("1 2:x\\n")
    >>> load_libsvm(path)
    Traceback (most recent call last):
    ...
    onlinear.data._files.FileFormatError: .../tiny.libsvm, line 3: could not convert string to float: b'x'; the line reads '1 2:x'
    """
    with reading(path), open_binary(path) as handle:
        try:
            return load_svmlight_file(handle, n_features=n_features, dtype=dtype,
                                      multilabel=multilabel, zero_based=zero_based)
        except _PARSE_ERRORS as error:
            cause = error
    raise _explain(path, cause, n_features, zero_based, multilabel) from cause


def iter_libsvm_chunks(path: str | os.PathLike, chunk_size: int, n_features: int | None, *,
                       zero_based: bool = False, dtype=np.float64,
                       multilabel: bool = False) -> Iterator[tuple]:
    """Stream a LIBSVM/SVMlight file in chunks of ``chunk_size`` rows.

    Lines are read one at a time, so only one chunk is ever in memory: a file larger than
    memory can be learned with ``partial_fit`` chunk by chunk, and doing so gives exactly the
    model that one ``partial_fit`` on the whole file gives (an online learner sees the same
    stream in the same order).

    Parameters
    ----------
    path : str, path-like or binary file object
        The file: plain, ``.gz``, ``.bz2`` or ``.xz`` (recognised by content); ``"-"`` reads
        standard input.
    chunk_size : int
        Rows per chunk (the last chunk may be shorter).  Blank and comment-only lines are not
        rows.
    n_features : int or None
        Number of columns of every chunk (a larger feature index is an error naming its
        line).  ``None``: each chunk is as wide as the largest index it holds, for streams whose
        width is not known in advance (see :meth:`~onlinear.OnlineLinearClassifier.grow_features`
        and :func:`onlinear.learn_stream`, which widen the model as the stream does).
    zero_based : bool, default=False
        Whether feature indices start at 0.  LIBSVM files are one-based; there is no
        ``"auto"`` here, since one chunk cannot tell for the whole file.
    dtype : numpy dtype, default=float64
    multilabel : bool, default=False
        As in :func:`load_libsvm`.

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (n_rows, n_features)
    y : ndarray of shape (n_rows,) (a list of tuples if ``multilabel``)

    Raises
    ------
    FileNotFoundError, FileFormatError
        As :func:`load_libsvm`; the line number counts from the start of the file.  Chunks
        before the bad line have already been yielded when the error is raised.

    Examples
    --------
    >>> import os, tempfile
    >>> import onlinear
    >>> from onlinear.data import iter_libsvm_chunks
    >>> path = os.path.join(tempfile.mkdtemp(), "stream.libsvm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 1:1\\n2 2:1\\n1 1:0.9 2:0.1\\n2 1:0.1 2:0.9\\n1 1:1\\n")
    >>> model = onlinear.make("pa")
    >>> for X, y in iter_libsvm_chunks(path, chunk_size=2, n_features=2):
    ...     print(X.shape, y)
    ...     _ = model.partial_fit(X, y, classes=[1, 2])
    (2, 2) [1. 2.]
    (2, 2) [1. 2.]
    (1, 2) [1.]
    >>> model.n_seen_, model.predict([[1.0, 0.0], [0.0, 1.0]])
    (5, array([1, 2]))
    """
    if not isinstance(chunk_size, Integral) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer; got {chunk_size!r}.")
    if n_features is not None and (not isinstance(n_features, Integral) or n_features < 1):
        raise ValueError(f"n_features must be a positive integer or None; got {n_features!r}.")
    if not isinstance(zero_based, (bool, np.bool_)):
        raise ValueError(f"zero_based must be True or False when streaming; got {zero_based!r}.")
    for X, y, _, _ in _located_chunks(path, chunk_size, n_features,
                                      zero_based=bool(zero_based), dtype=dtype,
                                      multilabel=multilabel):
        yield X, y


def _located_chunks(path, chunk_size, n_features, *, zero_based=False, dtype=np.float64,
                    multilabel=False):
    """:func:`iter_libsvm_chunks`' chunks (arguments checked by it) with where their rows come
    from, so that a reader of the values can name the line of a bad one (see
    :func:`_row_error`).

    Yields
    ------
    X, y
        As :func:`iter_libsvm_chunks`.
    numbers : list of int
        The 1-based line number of each row.
    lines : list of bytes
        Each row's line as read.
    """
    options = dict(n_features=n_features, dtype=dtype, multilabel=multilabel,
                   zero_based=bool(zero_based))
    for numbers, lines in _batches(path, chunk_size):
        try:
            X, y = load_svmlight_file(io.BytesIO(b"".join(lines)), **options)
        except _PARSE_ERRORS as error:
            raise _bad_line(path, numbers, lines, options, error) from error
        yield X, y, numbers, lines


def _row_error(path, number, line, problem):
    """The :class:`FileFormatError` of a line that parses but holds a value its reader refuses:
    ``"<file>, line <number>: <problem>; the line reads '<line>'"``."""
    return FileFormatError(path, f"{problem}; the line reads {shorten(line)}", number)


def _line_tokens(line):
    """``(labels, tokens)`` of a LIBSVM line: its label field and its ``index:value`` tokens as
    written (the comment and any ``qid:`` token left out), to quote one in an error."""
    fields = line.split(b"#", 1)[0].decode("latin-1").split()
    if not fields:
        return "", []
    return fields[0], [f for f in fields[1:] if not f.startswith("qid:")]


def _token_where(line, test):
    """The first ``index:value`` token of ``line`` for which ``test(index, value)`` holds
    (``index`` an int as written, ``value`` a float), or None."""
    for token in _line_tokens(line)[1]:
        index, _, value = token.partition(":")
        try:
            if test(int(index), float(value)):
                return token
        except ValueError:
            continue
    return None


# ---------------------------------------------------------------------------------- helpers
def _is_row(line):
    """Whether a line holds an example (not blank, not only a comment), as scikit-learn reads it."""
    return bool(line.split(b"#", 1)[0].strip())


def _batches(path, size):
    """``(line_numbers, lines)`` of the file's rows, ``size`` rows at a time, read lazily."""
    numbers, lines = [], []
    with reading(path), open_binary(path) as handle:
        for number, line in enumerate(handle, 1):
            if _is_row(line):
                if not line.endswith(b"\n"):
                    line += b"\n"  # the file's last line, joined to nothing after it
                numbers.append(number)
                lines.append(line)
                if len(lines) == size:
                    yield numbers, lines
                    numbers, lines = [], []
    if lines:
        yield numbers, lines


def _bad_line(path, numbers, lines, options, error):
    """The first of ``lines`` that scikit-learn rejects with ``options``, as a FileFormatError."""
    for number, line in zip(numbers, lines):
        try:
            load_svmlight_file(io.BytesIO(line), **options)
        except _PARSE_ERRORS as line_error:
            return FileFormatError(path, f"{_reason(line_error)}; the line reads {shorten(line)}",
                                   number)
    return FileFormatError(path, _reason(error))


def _reason(error):
    """scikit-learn's message, rephrased where it speaks of the whole file but means one line."""
    if isinstance(error, OverflowError):
        return f"feature index too large (the reader takes indices up to {_MAX_INDEX:,})"
    message = str(error).rstrip(".")
    match = re.fullmatch(r"n_features was set to (\d+), but input file contains (\d+) features",
                         message)
    if match:
        return (f"feature index out of range: the line needs {match[2]} features, "
                f"n_features={match[1]}")
    return message


def _scan(path, options):
    """Parse the file batch by batch with ``options``: the first bad line (or None), and the
    smallest feature index seen (None if there is none)."""
    smallest = None
    for numbers, lines in _batches(path, _SCAN_BATCH):
        try:
            X, _ = load_svmlight_file(io.BytesIO(b"".join(lines)), **options)
        except _PARSE_ERRORS as error:
            return _bad_line(path, numbers, lines, options, error), smallest
        if X.nnz:
            low = int(X.indices.min())
            smallest = low if smallest is None else min(smallest, low)
    return None, smallest


def _explain(path, error, n_features, zero_based, multilabel):
    """Find the line behind scikit-learn's ``error`` on the whole file (read again, only now)."""
    options = dict(n_features=None, multilabel=multilabel, zero_based=True)
    if zero_based == "auto":
        # First syntax, with indices taken as they are; then the bounds, once the file's
        # numbering is known (one-based unless some index is 0, as scikit-learn decides).
        bad, smallest = _scan(path, options)
        if bad is not None:
            return bad
        zero_based = smallest == 0
    options.update(n_features=n_features, zero_based=bool(zero_based))
    bad, _ = _scan(path, options)
    return bad if bad is not None else FileFormatError(path, _reason(error))
