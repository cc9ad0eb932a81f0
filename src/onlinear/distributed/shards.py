"""Placing the training data: one shard per partition, read or computed where the work runs.

Accepted data (``X``, ``y``):

* a ``dask.array`` ``X`` (2-D) with ``y`` a 1-D ``dask.array`` or numpy array: one shard per
  block of rows of ``X`` (columns are brought into one block; ``y`` follows ``X``'s row chunks);
* a ``dask.dataframe`` ``X`` with ``y`` the name of its label column (the other columns are the
  features, as float64) or a ``dask`` Series with the same partitions: one shard per partition;
* a list of data file paths (``y=None``), of one format of :data:`onlinear.data.formats.FORMATS`
  (by their suffix: LIBSVM, CSV): one shard per file, read *on the workers* (the paths must
  be readable there: a shared file system, or every worker on this machine).  LIBSVM files are
  read as the command line reads a training and a test file: one-based unless some index of
  some file is 0, all as wide as the widest, labels integers when they all are; the files of
  another format must have the same columns;
* a list of ``(X, y)`` pairs of numpy arrays or CSR matrices: one shard each (scattered to the
  workers once on a cluster); other array-likes (nested lists, a pandas DataFrame and Series)
  are taken as the estimator takes them, through ``np.asarray``.

The labels of every shard must be of one kind, numbers or strings: a model has one set of
classes, and numpy would turn numbers mixed with strings into strings (``0`` into ``'0'``).

Rechunk (``X.rechunk``) or repartition (``X.repartition``) to choose the number of shards: the
partitions *are* the shards of iterative parameter mixing.  On a cluster a shard's data is
computed or read once and stays on its worker (a future); only models travel each epoch.
"""
import numbers
import os
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass
class Shards:
    """The training data, one handle per shard where the work runs.

    Parameters
    ----------
    handles : list
        One ``(X, y)`` per shard: futures on a cluster, the arrays in this process.
    classes : ndarray
        Every label of every shard, sorted (or the ``classes`` given).
    n_features : int
        Columns of every shard.
    dtype : numpy dtype, default=float64
        float32 when every shard's X is float32, else float64: what a model of
        ``dtype="auto"`` learning the data in one process would take.
    pairs : list or None, default=None
        The ``(X, y)`` pairs given, as arrays (to scatter again one lost with a worker); None
        for shards computed or read where the work runs.
    names : list or None, default=None
        The file each shard was read from (a list of files), to name it in errors; else None.
    """

    handles: list
    classes: np.ndarray
    n_features: int
    dtype: np.dtype = np.dtype(np.float64)
    pairs: list | None = None
    names: list | None = None


def place(X, y, runner, *, classes=None, n_features=None):
    """The :class:`Shards` of ``(X, y)`` (see the module doc) for ``runner``.

    Parameters
    ----------
    X : dask.array.Array, dask.dataframe.DataFrame, list of paths or list of (X, y) pairs
        The training data.
    y : dask.array.Array, ndarray, str, dask Series or None
        The labels (None for a list of files or of pairs; a column name for a data frame).
    runner : InProcess or OnDask
        Where the work runs (:func:`onlinear.distributed.engine.runner_for`).
    classes : array-like, default=None
        Every label the data can hold; by default the labels found in the data.
    n_features : int, default=None
        Columns of the data (LIBSVM files: at least the widest file's); by default found.
    """
    if n_features is not None:  # (a string would be compared with the width found, and differ)
        if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) \
                or n_features < 1:
            raise ValueError(f"n_features must be a positive integer (the number of columns) or "
                             f"None to find it in the data; got {n_features!r}.")
        n_features = int(n_features)
    if isinstance(X, (list, tuple)):
        if not X:
            raise ValueError("no shard: the list of files or (X, y) pairs is empty.")
        if all(isinstance(item, (str, os.PathLike)) for item in X):
            if y is not None:
                raise ValueError("data files hold their labels: give y=None.")
            return _file_shards(list(X), runner, classes, n_features)
        if all(isinstance(item, tuple) and len(item) == 2 for item in X):
            if y is not None:
                raise ValueError("(X, y) pairs hold their labels: give y=None.")
            pairs = [_as_pair(i, pair) for i, pair in enumerate(X)]
            shards = _summarized(runner.put(pairs), runner, classes, n_features)
            shards.pairs = pairs
            return shards
        raise TypeError("a list of shards must hold data file paths or (X, y) pairs.")
    kind = type(X).__module__.split(".")[0]
    if kind == "dask" and hasattr(X, "to_delayed") and hasattr(X, "chunks"):
        return _summarized(_array_shards(X, y, runner), runner, classes, n_features)
    if kind in ("dask", "dask_expr") and hasattr(X, "npartitions"):
        return _summarized(_frame_shards(X, y, runner), runner, classes, n_features)
    raise TypeError(f"X must be a dask array, a dask data frame, a list of data files or a "
                    f"list of (X, y) pairs; got {type(X).__name__} (for one in-memory data "
                    "set, use the estimator itself).")


# ------------------------------------------------------------------------------ dask inputs
def _computed(runner, delayed_pairs):
    """Compute ``delayed_pairs`` where the work runs: futures that stay on the workers, or the
    values here."""
    if hasattr(runner, "client"):
        return runner.client.compute(delayed_pairs)
    import dask

    return list(dask.compute(*delayed_pairs))


def _array_shards(X, y, runner):
    import dask
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"X must be 2-D; got {X.ndim} dimensions.")
    if y is None:
        raise ValueError("give the labels y of a dask array X.")
    if not hasattr(y, "dask"):
        y = np.asarray(y)
    # (checked before y takes X's row chunks: chunks of another length fail inside dask)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, one label per row of X; got y of shape {y.shape}.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} labels for {X.shape[0]} rows of X: give one label "
                         f"per row.")
    X = X.rechunk({1: -1})  # a shard holds whole rows
    y = da.from_array(y, chunks=(X.chunks[0],)) if not hasattr(y, "dask") \
        else y.rechunk((X.chunks[0],))
    blocks = zip(X.to_delayed().ravel(), y.to_delayed().ravel())
    return _computed(runner, [dask.delayed(_pair)(xb, yb) for xb, yb in blocks])


def _pair(X, y):
    return X, np.asarray(y)


def _frame_shards(frame, y, runner):
    import dask

    if isinstance(y, str):
        if y not in frame.columns:
            raise ValueError(f"no label column {y!r} in the data frame.")
        parts = [dask.delayed(_frame_pair)(part, y) for part in frame.to_delayed()]
    elif y is not None and hasattr(y, "npartitions"):
        if y.npartitions != frame.npartitions:
            raise ValueError("the labels must have the data frame's partitions.")
        parts = [dask.delayed(_frame_pair)(part, None, labels)
                 for part, labels in zip(frame.to_delayed(), y.to_delayed())]
    else:
        raise ValueError("give y, the label column's name or a dask Series of labels.")
    return _computed(runner, parts)


def _frame_pair(part, label, labels=None):
    if label is not None:
        labels, part = part[label], part.drop(columns=[label])
    return np.ascontiguousarray(part.to_numpy(dtype=np.float64)), np.asarray(labels)


def _as_pair(index, pair):
    """Pair ``index`` of a list of ``(X, y)`` shards as arrays: a sparse ``X`` as it is, any
    other array-like (nested lists, a pandas DataFrame) as ``np.asarray`` makes it — what the
    estimator itself takes — and ``y`` as ``np.asarray`` makes it."""
    X, y = pair
    try:
        return (X if sp.issparse(X) else np.asarray(X)), np.asarray(y)
    except (TypeError, ValueError) as error:  # (ragged nested lists, objects numpy refuses)
        raise ValueError(f"shard {index}: its X and y must be arrays (numpy, CSR or an array-"
                         f"like numpy takes); numpy refuses them: {error}") from error


# ------------------------------------------------------------------------------ summaries
def shard_note(index, n_shards, step, *, names=None, on_cluster=False, found=False):
    """The note that names shard ``index`` on an error of its own, the same in this process
    and on a cluster (where it adds that the error is not a lost worker's).

    Parameters
    ----------
    index, n_shards : int
        The shard, counting from 0, of how many.
    step : str
        What its work was doing (``"checking its data"``, ``"learning epoch 2"``).
    names : list or None, default=None
        The shards' files (:attr:`Shards.names`), to name the shard's file.
    on_cluster : bool, default=False
        The error was raised on a Dask cluster.
    found : bool, default=False
        The error was found here, in what the shards' work returned, not raised by the work.

    Returns
    -------
    note : str
    """
    shard = f"parameter mixing's shard {index}, counting from 0 of {n_shards}"
    if names is not None and names[index] is not None:
        shard += f", the file {names[index]!r}"
    lead = "found in" if found else "raised on the Dask cluster by" if on_cluster \
        else "raised by"
    tail = "; an error of the shard's own, not a lost worker: not tried again" if on_cluster \
        else ""
    return f"({lead} {shard}, {step}{tail})"


def _summary(shard):
    """``(X's shape, y's shape, y's labels or None, X is float32)``: the client checks the
    shapes, naming the shard (:func:`_summarized`)."""
    X, y = shard
    y = np.asarray(y)
    return tuple(X.shape), y.shape, np.unique(y) if y.ndim == 1 else None, \
        X.dtype == np.float32


def _summarized(handles, runner, classes, n_features, names=None):
    summaries = runner.gather(runner.map(_summary, handles))
    for i, (shape, labels_shape, _, _) in enumerate(summaries):
        if len(shape) != 2 or labels_shape != (shape[0],):
            one = " (one value for every row: np.full(X.shape[0], value) repeats it)" \
                if labels_shape == () else ""
            raise ValueError(f"{_shard_name(i, names)}: X must be 2-D with one label per row; "
                             f"got X of shape {shape} and y of shape {labels_shape}{one}.")
    widths = {shape[1] for shape, _, _, _ in summaries}
    if len(widths) != 1:
        raise ValueError(f"the shards have different numbers of features: {sorted(widths)}.")
    width = widths.pop()
    if n_features is not None and n_features != width:
        raise ValueError(f"n_features={n_features}, but the shards have {width} features.")
    dtype = np.dtype(np.float32 if all(single for _, _, _, single in summaries) else np.float64)
    found = [labels for _, _, labels, _ in summaries]
    mixed = _mixed_label_kinds(found, names)
    if mixed is not None:
        message, index, first = mixed
        error = ValueError(message)
        error.add_note(shard_note(index, len(found), f"its labels checked against shard "
                                  f"{first}'s before any training", names=names,
                                  on_cluster=hasattr(runner, "client"), found=True))
        raise error
    return Shards(handles, _classes(classes, found), width, dtype, names=names)


def _shard_name(index, names):
    if names is not None and names[index] is not None:
        return f"shard {index} (the file {names[index]!r})"
    return f"shard {index}"


def _label_kind(labels):
    """``"numbers"`` or ``"strings"`` (or the dtype's name) of the labels ``labels``; None when
    there are none."""
    if labels.size == 0:
        return None
    if labels.dtype.kind in "biuf":
        return "numbers"
    if labels.dtype.kind in "US":
        return "strings"
    if labels.dtype.kind == "O":  # (a pandas Series of strings: objects)
        if all(isinstance(label, str) for label in labels):
            return "strings"
        if all(isinstance(label, numbers.Number) for label in labels):
            return "numbers"
    return f"{labels.dtype} values"


def _examples(labels):
    shown = ", ".join(map(repr, labels[:3].tolist()))
    return shown + (", …" if labels.size > 3 else "")


def _mixed_label_kinds(found, names):
    """``(message, shard, first shard)`` if the shards' labels (``found``, each shard's) are of
    two kinds, else None: numpy would turn numbers mixed with strings into strings, and a
    shard's ``0`` would then be refused as a label not among the classes ``'0'``, ….  The
    shard blamed is the first whose kind is not that of the first shard with labels."""
    kinds = [_label_kind(labels) for labels in found]
    labelled = [i for i, kind in enumerate(kinds) if kind is not None]
    if not labelled:
        return None
    first = labelled[0]
    other = next((i for i in labelled if kinds[i] != kinds[first]), None)
    if other is None:
        return None
    return (f"the shards hold labels of two kinds: {_shard_name(first, names)}'s are "
            f"{kinds[first]} ({_examples(found[first])}), {_shard_name(other, names)}'s "
            f"{kinds[other]} ({_examples(found[other])}); a model has one set of classes, and "
            f"numbers mixed with strings would all become strings. Give every shard labels of "
            f"one kind (e.g. y.astype(str) in every shard)."), other, first


def _classes(classes, found):
    found = np.unique(np.concatenate(found))
    if classes is None:
        if found.size == 0:
            raise ValueError("the data holds no rows (every shard is empty): nothing to learn.")
        return found
    classes = np.unique(np.asarray(classes))
    kinds = {_label_kind(classes), _label_kind(found)} - {None}
    if len(kinds) > 1:  # (np.setdiff1d would compare them as strings)
        raise ValueError(f"classes are {_label_kind(classes)} ({_examples(classes)}), but the "
                         f"shards' labels {_label_kind(found)} ({_examples(found)}): give "
                         f"classes of the labels' kind.")
    missing = np.setdiff1d(found, classes)
    if missing.size:
        raise ValueError(f"the data holds labels not in classes: {missing.tolist()[:10]}.")
    return classes


# ------------------------------------------------------------------------------ data files
def _file_shards(paths, runner, classes, n_features):
    from ..data.formats import format_of

    formats = {format_of(path).name for path in paths}
    if len(formats) != 1:
        raise ValueError(f"the files are of several formats ({sorted(formats)}): give files of "
                         "one format.")
    if formats == {"libsvm"}:
        return _libsvm_shards(paths, runner, classes, n_features)
    names = [os.fspath(p) for p in paths]
    handles = runner.map(_read_file, names)
    return _summarized(handles, runner, classes, n_features, names)


def _read_file(path):
    from ..data.formats import read_file

    return read_file(path)


def _libsvm_shards(paths, runner, classes, n_features):
    read = runner.map(_read_libsvm, [os.fspath(p) for p in paths])
    summaries = runner.gather(runner.map(_libsvm_summary, read))
    one_based = not any(has_zero for has_zero, _, _ in summaries)
    width = max(width for _, width, _ in summaries) - one_based
    if n_features is not None:
        if n_features < width:
            raise ValueError(f"n_features={n_features}, but the files reach feature {width}.")
        width = n_features
    labels = np.unique(np.concatenate([found for _, _, found in summaries]))
    integral = bool(np.all(labels == np.round(labels)))
    handles = runner.map(_fit_width, read, one_based, width, integral)
    runner.release(read)
    found = labels.astype(np.int64) if integral else labels
    return Shards(handles, _classes(classes, [found]), width,
                  names=[os.fspath(p) for p in paths])


def _read_libsvm(path):
    from ..data import load_libsvm

    return load_libsvm(path, zero_based=True)


def _libsvm_summary(shard):
    X, y = shard
    return bool(X.nnz and X.indices.min() == 0), X.shape[1], np.unique(y)


def _fit_width(shard, one_based, width, integral):
    import scipy.sparse as sp

    X, y = shard
    indices = X.indices - 1 if one_based else X.indices
    X = sp.csr_matrix((X.data, indices, X.indptr), shape=(X.shape[0], width))
    return X, y.astype(np.int64) if integral else y
