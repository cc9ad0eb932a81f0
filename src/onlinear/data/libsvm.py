"""LIBSVM / SVMlight files: read whole, or stream in chunks of rows for files larger than memory.

One example per line, ``label index:value index:value ...`` with increasing feature indices,
optional ``# comment``; LIBSVM files number features from 1.  Plain, gzip and bzip2 (and xz)
files are read alike, the compression being recognised from the file's first bytes.
Parsing is compiled (:mod:`onlinear.data._svmlight`, scikit-learn's grammar): blocks of bytes
go straight into CSR arrays, with no Python object per line, at the speed the compiled passes
learn; an error names the file, *the line* and the token at fault.
"""
from __future__ import annotations

import codecs
import os
from collections.abc import Iterator
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from ._files import STDIN, FileFormatError, display_name, open_binary, reading, shorten

__all__ = ["load_libsvm", "iter_libsvm_chunks", "libsvm_labels", "whole_number_labels"]

_BLOCK = 1 << 20  # bytes read (after decompression) at a time
_WHOLE_FILE = 1 << 62  # rows a chunk when a whole file is read: all of them
# the compiled passes index columns with int32: a larger index is refused
_MAX_INDEX = 2**31 - 1


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
    if not (zero_based == "auto" or isinstance(zero_based, (bool, np.bool_))):
        raise ValueError(f"zero_based must be True, False or 'auto'; got {zero_based!r}.")
    if n_features is not None and (not isinstance(n_features, Integral) or n_features < 1):
        raise ValueError(f"n_features must be a positive integer or None; got {n_features!r}.")
    auto = zero_based == "auto"
    # "auto" reads indices as written (0 allowed), then decides: one-based unless some index is
    # 0 (scikit-learn's rule), and only then can it check the width.  The file is parsed as
    # one chunk, whose arrays the parser grows in place and hands over: the data is in memory
    # once (a concatenation of chunks would hold it twice).
    whole = None
    for whole in _parsed_chunks(path, _WHOLE_FILE, None if auto else n_features,
                                zero_based=True if auto else bool(zero_based), dtype=dtype,
                                multilabel=multilabel, keep_lines=False):
        pass
    if whole is None:
        X, labels, numbers = sp.csr_matrix((0, 0), dtype=dtype), np.empty(0), None
        y = [] if multilabel else labels
    else:
        X, labels, label_pointers, numbers, _ = whole
        y = _targets(labels, label_pointers, multilabel)
    width = X.shape[1]
    if auto:
        if X.nnz and X.indices.min() > 0:
            X.indices -= 1
            width -= 1
        if n_features is not None and width > n_features:
            first = int(np.flatnonzero(X.indices >= n_features)[0])
            row = int(np.searchsorted(X.indptr, first, side="right")) - 1
            raise FileFormatError(path, f"feature index out of range: the line needs "
                                  f"{int(X.indices[X.indptr[row]:X.indptr[row + 1]].max()) + 1}"
                                  f" features, n_features={n_features}", int(numbers[row]))
    if n_features is None:
        width = max(width, 1)  # (scikit-learn's width for a file without a feature)
    X = sp.csr_matrix((X.data, X.indices, X.indptr),
                      shape=(X.shape[0], width if n_features is None else n_features),
                      copy=False)
    X.has_sorted_indices = True
    return X, y


def iter_libsvm_chunks(path: str | os.PathLike, chunk_size: int, n_features: int | None, *,
                       zero_based: bool = False, dtype=np.float64,
                       multilabel: bool = False, read_ahead: bool = False) -> Iterator[tuple]:
    """Stream a LIBSVM/SVMlight file in chunks of ``chunk_size`` rows.

    The compiled reader parses blocks of the file straight into each chunk's CSR arrays, so
    only one chunk's arrays are in memory (no text: standard input alone keeps the blocks its
    chunk's lines lie in, for an error to quote): a file larger than memory can be learned with
    ``partial_fit`` chunk by chunk, and doing so gives exactly the model that one
    ``partial_fit`` on the whole file gives (an online learner sees the same stream in the
    same order).

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
    read_ahead : bool, default=False
        Parse the next chunk on a thread while the consumer uses this one (the parse runs
        without the GIL, so on another core): the same chunks in the same order, so a model
        learns bit for bit what it learns from a serial read, with one more chunk in memory.
        It pays only where a core is free and the consumer is slow next to the parse (a kernel
        learner); the linear learners spend a few percent of a stream's time learning (see
        ``benchmarks/README.md``).

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (n_rows, n_features)
    y : ndarray of shape (n_rows,) (a list of tuples if ``multilabel``)

    Raises
    ------
    FileNotFoundError, FileFormatError
        As :func:`load_libsvm`; the line number counts from the start of the file.  Chunks
        before the bad line have already been yielded when the error is raised.  On standard
        input, a last line without its newline is an error (the writer was cut off: ``1 1:0.``
        of ``1 1:0.5`` would read as a row).

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
    chunks = _located_chunks(path, chunk_size, n_features, zero_based=bool(zero_based),
                             dtype=dtype, multilabel=multilabel)
    if read_ahead:
        from ._ahead import read_ahead as ahead

        chunks = ahead(chunks)  # the next chunk parsed (without the GIL) while this one is used
    for X, y, _, _ in chunks:
        yield X, y


def _located_chunks(path, chunk_size, n_features, *, zero_based=False, dtype=np.float64,
                    multilabel=False, need_newline=None, rows_before_fault=False):
    """:func:`iter_libsvm_chunks`' chunks (arguments checked by it) with where their rows come
    from, so that a reader of the values can name the line of a bad one (see
    :func:`_row_error`).  The compiled reader (:mod:`onlinear.data._svmlight`) parses blocks of
    the (decompressed) bytes straight into each chunk's CSR arrays.

    Yields
    ------
    X, y
        As :func:`iter_libsvm_chunks`.
    numbers : ndarray of int64
        The 1-based line number of each row.
    lines : sequence of bytes
        Each row's line as read (cut from the blocks only when asked for).

    With ``rows_before_fault``, the rows of a chunk before a line the reader cannot parse are
    yielded (a shorter chunk) before its error is raised: a learner then learns every row
    before the bad line.
    """
    for X, labels, label_pointers, numbers, lines in _parsed_chunks(
            path, chunk_size, n_features, zero_based=bool(zero_based), dtype=dtype,
            multilabel=multilabel, need_newline=need_newline,
            rows_before_fault=rows_before_fault):
        yield X, _targets(labels, label_pointers, multilabel), numbers, lines
        X = labels = label_pointers = numbers = lines = None  # (the next chunk without it)


def _next_block(handle, block, position, offset=0, streaming=False):
    """``(block, position, final, offset)`` after reading the next bytes: the unread tail of
    ``block`` (from ``position``) followed by them, or ``final`` when the file has no more;
    ``offset`` is where the block starts in the stream (``block``'s own given).  A stream
    (``streaming``: standard input, a file object) gives what it holds, up to a block, where a
    file gives a whole block: a slow source (a pipe fed line by line) is then learned as its
    rows arrive, not a megabyte at a time."""
    read = handle.read1 if streaming and hasattr(handle, "read1") else handle.read
    more = read(_BLOCK)
    if more:
        return block[position:] + more, 0, False, offset + position
    return block, position, True, offset


def _parsed_chunks(path, chunk_size, n_features, *, zero_based, dtype, multilabel,
                   need_newline=None, keep_lines=True, rows_before_fault=False):
    """The compiled reader's chunks: ``(X, labels, label_pointers, numbers, lines)``.

    Standard input's last line must end with a newline (``need_newline``, by default for
    ``"-"`` only): a pipe whose writer was cut off would otherwise end with a shorter row
    (``1 1:0.`` of ``1 1:0.5``) learned as if whole.

    ``lines[row]`` is a row's line as bytes.  A chunk of a file holds no text: its lines are
    read again from the file, by their offsets, when asked for (an error quotes one), so that
    a chunk in memory is its arrays alone.  A stream that cannot be read twice (standard input,
    a file object) keeps the blocks its chunk's lines lie in, unless ``keep_lines`` is False
    (a whole file read: ``lines`` is then None).
    """
    from ._svmlight import SvmlightParser

    if need_newline is None:
        need_newline = path == STDIN
    again = _can_read_again(path)
    parser = SvmlightParser(-1 if n_features is None else int(n_features), zero_based,
                            multilabel, need_newline, keep_lines and not again)
    located = path if again else None
    block, position, final, offset = b"", 0, False, 0
    with reading(path), open_binary(path) as handle:
        while True:
            position = parser.parse(block, position, final, chunk_size, offset)
            if parser.fault:
                error = _fault(path, parser, n_features)
                if rows_before_fault and parser.n_rows:
                    X, *rest = _chunk(parser, n_features, dtype, located)
                    if n_features is None:  # (the bad line may have widened it)
                        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(
                            X.shape[0], int(X.indices.max()) + 1 if X.nnz else 0))
                        X.has_sorted_indices = True
                    yield (X, *rest)
                raise error
            if parser.n_rows == chunk_size:
                yield _chunk(parser, n_features, dtype, located)
                continue
            if final:
                break
            block, position, final, offset = _next_block(handle, block, position, offset,
                                                         streaming=not again)
            if offset == 0 and position == 0 and block.startswith(codecs.BOM_UTF8):
                position = len(codecs.BOM_UTF8)  # (an editor's UTF-8 mark: not the label's)
    if parser.n_rows:
        yield _chunk(parser, n_features, dtype, located)


def _can_read_again(path):
    """Whether ``path`` names a file (which can be read again), not a stream."""
    return path != STDIN and isinstance(path, (str, bytes, os.PathLike))


def _chunk(parser, n_features, dtype, located):
    """The chunk ``parser`` holds as ``(X, labels, label_pointers, numbers, lines)``; the lines
    of the file ``located`` are read again from it (when it is not None)."""
    (data, indices, indptr, labels, label_pointers, numbers, starts, stops, lines,
     width) = parser.take(dtype)
    width = width if n_features is None else n_features
    X = sp.csr_matrix((data, indices, indptr), shape=(numbers.shape[0], width), copy=False)
    X.has_sorted_indices = True  # (the reader refuses indices out of order)
    if located is not None:
        lines = _LinesReadAgain(located, starts, stops)
    return X, labels, label_pointers, numbers, lines


class _LinesReadAgain:
    """The lines of a chunk's rows, as bytes, read again from their file by their offsets in
    it (after decompression) when asked for: an error quotes one, and a chunk holds no text.
    (The file is read up to the line: slow for a line deep in a compressed file, but only an
    error asks.)"""

    def __init__(self, path, starts, stops):
        self.path, self.starts, self.stops = path, starts, stops
        self.last = (None, None)

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, row):
        if self.last[0] == row:
            return self.last[1]
        start, stop = int(self.starts[row]), int(self.stops[row])
        with open_binary(self.path) as handle:
            while start > 0:
                skipped = len(handle.read(min(start, _BLOCK)))
                if not skipped:
                    break
                start -= skipped
            line = handle.read(stop - int(self.starts[row]))
        self.last = (row, line)
        return line


def _targets(labels, label_pointers, multilabel):
    """``y``: one float64 label a row, or with ``multilabel`` a list of sorted tuples."""
    if not multilabel:
        return labels
    values, bounds = labels.tolist(), label_pointers.tolist()
    return [tuple(values[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]


def _fault(path, parser, n_features):
    """The :class:`FileFormatError` of the line the compiled reader stopped at."""
    from ._svmlight import Fault

    if parser.fault == Fault.NO_MEMORY:
        return MemoryError(f"{display_name(path)}: out of memory reading line "
                           f"{parser.fault_line}")
    token, line = parser.fault_bytes()
    index, _, value = token.partition(b":")
    problem = {
        Fault.BAD_LABEL: lambda: f"could not convert string to float: {_text(token)!r} "
                                 "(the label)",
        Fault.NO_COLON: lambda: f"{token.decode('latin-1')!r} is not index:value",
        Fault.BAD_INDEX: lambda: f"feature index {index.decode('latin-1')!r} of "
                                 f"{token.decode('latin-1')!r} is not an integer",
        Fault.BAD_VALUE: lambda: (f"could not convert string to float: {value!r}" if value
                                  else f"{token.decode('latin-1')!r} has no value"),
        Fault.INVALID_INDEX: lambda: f"Invalid index {parser.fault_index} in SVMlight/LibSVM "
                                     "data file",
        Fault.UNSORTED: lambda: "Feature indices in SVMlight/LibSVM data file should be sorted "
                                f"and unique ({token.decode('latin-1')!r} does not follow a "
                                "smaller index)",
        Fault.INDEX_TOO_LARGE: lambda: "feature index too large (the reader takes indices up "
                                       f"to {_MAX_INDEX:,})",
        Fault.BEYOND_WIDTH: lambda: f"feature index out of range: the line needs "
                                    f"{parser.fault_index} features, n_features={n_features}",
        Fault.UNFINISHED: lambda: "the stream ends inside this line (no newline after it): "
                                  "was it cut off?",
    }[parser.fault]()
    return FileFormatError(path, f"{problem}; the line reads {shorten(line)}", parser.fault_line)


def libsvm_labels(path, multilabel=False):
    """The distinct finite labels of a LIBSVM file, sorted, read at the speed of a line scan:
    only each line's label field is parsed (its features are not), so finding a stream's
    classes costs a read of it, not a parse.  A label that is not a number is a
    :class:`FileFormatError` naming its line; a non-finite one is left out (the pass that
    learns refuses it, naming its line)."""
    from ._svmlight import scan_labels

    found, lines = set(), 0
    block, position, final = b"", 0, False
    with reading(path), open_binary(path) as handle:
        while True:
            position, read, fault = scan_labels(block, position, final, multilabel, found)
            if fault is not None:
                start, token = fault
                stop = block.find(b"\n", start)
                line = block[start:stop if stop >= 0 else len(block)]
                raise FileFormatError(path, "could not convert string to float: "
                                      f"{_text(token)!r} (the label); the line reads "
                                      f"{shorten(line)}",
                                      lines + read)
            lines += read
            if final:
                break
            block, position, final, _ = _next_block(handle, block, position)
    return sorted(v for v in found if np.isfinite(v))


def _text(token):
    """A label field (bytes) as the text written, for a message: UTF-8, or byte for byte
    (Latin-1, as a quoted line is) when it is not UTF-8."""
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:
        return token.decode("latin-1")


def whole_number_labels(y):
    """Integer labels when every label is a whole number within int64 (LIBSVM stores them as
    floats)."""
    y = np.asarray(y)
    # (beyond int64 the cast would wrap: 1e19 and -1e19 would both be -2**63, one class)
    if (y.size and y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y))
            and np.all((y >= -2.0**63) & (y < 2.0**63))):
        return y.astype(np.int64)
    return y


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
