"""The file formats onlinear reads, one entry each: what reads a whole file, what streams one in
chunks, the suffixes that name it, and how the catalogue reads a data set's files in it.

The catalogue (:func:`onlinear.data.load`), the command line (``--format``; by default the
file's suffix decides), :func:`read_file` / :func:`read_chunks` (for
:func:`onlinear.learn_stream`) and the Dask shards (:mod:`onlinear.distributed.shards`) all
read files through :data:`FORMATS`: a new format is its reader's module and one entry here.

Examples
--------
>>> from onlinear.data.formats import FORMATS, format_of
>>> sorted(FORMATS)
['csv', 'idx', 'libsvm', 'news20', 'reuters']
>>> format_of("train.csv.gz").name, format_of("a9a.t").name
('csv', 'libsvm')
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from .csv import iter_csv_chunks, load_csv
from .idx import load_idx_pair
from .libsvm import iter_libsvm_chunks, load_libsvm, whole_number_labels
from .text import load_20newsgroups, load_reuters21578

__all__ = ["FileFormat", "FORMATS", "format_of", "read_file", "read_chunks"]

_COMPRESSION = (".gz", ".bz2", ".xz")


@dataclass(frozen=True)
class FileFormat:
    """One file format: its readers and the suffixes that name it.

    Parameters
    ----------
    name : str
        The format's name (``--format NAME`` on the command line, ``Dataset.format``).
    description : str
        One line for help texts.
    suffixes : tuple of str
        File suffixes of the format (compression suffixes aside), for :func:`format_of`.
    read : callable or None
        ``read(path, **options) -> (X, y)``: one whole file (None: a format whose data set is
        several files or a folder).
    chunks : callable or None
        ``chunks(path, chunk_size, **options)``, an iterator of ``(X, y)`` chunks (None: not
        streamed).
    load_split : callable
        ``load_split(paths, options) -> (X, y, X_test, y_test)``: a catalogue data set's
        files (``X_test`` and ``y_test`` None without a test split).
    options : tuple of str
        The keyword options ``read`` and ``chunks`` take.
    """

    name: str
    description: str
    suffixes: tuple
    read: Callable | None
    chunks: Callable | None
    load_split: Callable
    options: tuple = field(default_factory=tuple)


def _libsvm_file(path, options):
    X, y = load_libsvm(path, n_features=options.get("n_features"))
    return (X if options.get("sparse") else X.toarray()), whole_number_labels(y)


def _libsvm_split(paths, options):
    X, y = _libsvm_file(paths[0], options)
    if len(paths) == 1:
        return X, y, None, None
    return (X, y) + _libsvm_file(paths[1], options)


def _csv_split(paths, options):
    read = {key: options[key] for key in ("label_column", "delimiter") if key in options}
    X, y = load_csv(paths[0], **read)
    if len(paths) > 1:
        return (X, y) + load_csv(paths[1], **read)
    if "split_at" in options:
        cut = options["split_at"]
        return X[:cut], y[:cut], X[cut:], y[cut:]
    return X, y, None, None


def _idx_split(paths, options):
    X, y = load_idx_pair(paths[0], paths[1])
    X_test, y_test = load_idx_pair(paths[2], paths[3])
    return (X.astype(np.float64), y.astype(np.int64), X_test.astype(np.float64),
            y_test.astype(np.int64))


FORMATS: dict[str, FileFormat] = {
    "libsvm": FileFormat(
        "libsvm", "LIBSVM/SVMlight: 'label index:value ...' per line (multilabel: 'a,b ...')",
        (".libsvm", ".svm", ".svmlight", ".scale", ".t", ".txt", ".dat"),
        load_libsvm, iter_libsvm_chunks, _libsvm_split,
        ("n_features", "zero_based", "dtype", "multilabel")),
    "csv": FileFormat(
        "csv", "delimited text, one example a row, one label column",
        (".csv", ".tsv"), load_csv, iter_csv_chunks, _csv_split,
        ("label_column", "delimiter", "header", "encoding", "dtype")),
    "idx": FileFormat(
        "idx", "MNIST's IDX image and label files (a pair per split)",
        ("-ubyte", ".idx"), None, None, _idx_split),
    "news20": FileFormat(
        "news20", "the 20 Newsgroups 'bydate' tarball (tf-idf of the messages)", (".tar",),
        None, None, lambda paths, options: tuple(load_20newsgroups(paths[0])[:4])),
    "reuters": FileFormat(
        "reuters", "the Reuters-21578 SGML tarball (tf-idf, single-label version)", (),
        None, None,
        lambda paths, options: tuple(load_reuters21578(paths[0], labels="single")[:4])),
}


def format_of(path: str | os.PathLike, format: str | None = None) -> FileFormat:
    """The format ``format`` names, or by default the one of ``path``'s suffix (after a
    ``.gz``, ``.bz2`` or ``.xz``); LIBSVM when no suffix names one (standard input too).

    Raises ``ValueError`` naming the known formats for an unknown ``format``.
    """
    if format is not None:
        if format not in FORMATS:
            raise ValueError(f"unknown data format {format!r}; known: {sorted(FORMATS)}.")
        return FORMATS[format]
    name = os.fspath(path).lower() if isinstance(path, (str, os.PathLike)) else ""
    for suffix in _COMPRESSION:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    for entry in FORMATS.values():
        if any(name.endswith(s) for s in entry.suffixes):
            return entry
    return FORMATS["libsvm"]


def read_file(path: str | os.PathLike, format: str | None = None, **options) -> tuple:
    """``(X, y)`` of a whole file in ``format`` (by default its suffix's, :func:`format_of`),
    read with the format's reader and ``options`` (e.g. ``label_column`` for CSV)."""
    entry = format_of(path, format)
    if entry.read is None:
        raise ValueError(f"a {entry.name} data set is not one file: load it from the "
                         "catalogue (onlinear.data.load).")
    _check_options(entry, options)
    return entry.read(path, **options)


def read_chunks(path: str | os.PathLike, chunk_size: int, format: str | None = None,
                **options) -> Iterator[tuple]:
    """The ``(X, y)`` chunks of a file in ``format`` (by default its suffix's), read with the
    format's streaming reader and ``options``: what :func:`onlinear.learn_stream` takes.

    Examples
    --------
    >>> import os, tempfile
    >>> import onlinear
    >>> from onlinear.data.formats import read_chunks
    >>> path = os.path.join(tempfile.mkdtemp(), "stream.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1,0,3\\n0,1,7\\n1,0.1,3\\n0.2,1,7\\n")
    >>> model = onlinear.make("pa")
    >>> _ = onlinear.learn_stream(model, read_chunks(path, 2), classes=[3, 7])
    >>> model.n_seen_, model.predict([[1.0, 0.0]]).tolist()
    (4, [3])
    """
    entry = format_of(path, format)
    if entry.chunks is None:
        raise ValueError(f"{entry.name} files are not read as a stream; formats that are: "
                         f"{sorted(n for n, e in FORMATS.items() if e.chunks is not None)}.")
    _check_options(entry, options)
    if entry.name == "libsvm":
        options.setdefault("n_features", None)
    return entry.chunks(path, chunk_size, **options)


def _check_options(entry, options):
    unknown = sorted(set(options) - set(entry.options))
    if unknown:
        raise ValueError(f"{entry.name} files take the options {list(entry.options)}; "
                         f"got {unknown}.")
