"""Saving and loading models: a zip of ``.npy`` arrays and a JSON header, loaded without
running any code from the file.

A model is its hyperparameters plus a few named arrays (each estimator lists them:
``_model_arrays``) and scalars (``_model_scalars``).  :func:`save` writes them as

* ``onlinear-model.json`` (the first member): the format name and version, the onlinear
  version, the estimator class and registered algorithm name, the hyperparameters, the class
  labels' dtype, the counters, ``metadata`` given by the caller, and for every array its dtype,
  shape and SHA-256;
* ``arrays/<name>.npy``: every array in numpy's own ``.npy`` format (``classes_`` too, so
  string labels survive as strings; ``feature_names_in_``, the column names of a model fitted
  on a DataFrame, as the bytes of a JSON list: ``.npy`` without pickle holds no object
  array, and numpy's fixed-width strings would pad every name to the longest).

A JSON object's keys are strings, so a dict-valued hyperparameter (``class_weight``, keyed by
class labels) is stored as ``{"__pairs__": [[key, value], ...]}``: its keys load with their
types (numpy scalars as the Python values they equal), and the loaded model is the one saved.

The format version is that of the newest feature a file uses, not that of the writer (numpy
writes ``.npy`` 1.0 likewise unless a header needs 2.0), so that an older onlinear reads every
file it reads right and refuses, asking for an upgrade, one it would misread: version 2 added
the ``__pairs__`` dicts (version 1 stored ``class_weight={0: 2.0}`` as ``{"0": 2.0}``, and a
version-1 reader would load the pairs as a dict of that name) and ``feature_names_in_``.
Version-1 files load as before, the string keys of a fitted model's ``class_weight`` taken
back as the class whose key they were where exactly one class has that form (``"0"`` for the
class ``0``).

Why not pickle (scikit-learn's ``joblib.dump``)?  Unpickling runs code named by the file, and a
model file is something users download and share.  Why not safetensors?  It holds numeric
tensors only (no string class labels) and is one more dependency; ``.npy`` read with
``allow_pickle=False`` is numpy's own data-only format.  Pickle and joblib keep working
(with their usual caveat) and give the same guarantees as this format: a loaded model predicts
exactly as the saved one and, fed the rest of a stream, ends bit-identical to a model that never
stopped.

:func:`load` checks everything before it builds the model — the zip signature, the format name
and version, the estimator name (a fixed list: the public estimators of onlinear), the
hyperparameters (the estimator's own validation), every array's presence, dtype, shape
(against what the estimator expects for the header's classes and number of features), checksum
and finiteness, and the model's invariants, those each estimator family states for the engine
(``_check_model``: lazy scales in range, tracked norms equal to the arrays', positive-definite
metrics, kernel values in range, counters in order; :mod:`onlinear.estimators.invariants`) — and
raises :class:`ModelFileError` (a ``ValueError``) naming the file and the problem: nothing
compiled ever sees an array that does not fit, nor a model the engine could not have made.  What
a file declares is bounded before anything is allocated: members stored uncompressed, their
sizes within the file's own and within ``max_bytes`` (:data:`MAX_MODEL_BYTES`), every ``.npy``
header read and checked before its data.  Unpickling a model runs the same checks.

>>> import os, tempfile
>>> import numpy as np
>>> import onlinear
>>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]])
>>> y = np.array(["ham", "spam", "spam", "ham"])
>>> model = onlinear.make("pa").partial_fit(X[:2], y[:2], classes=["ham", "spam"])
>>> path = os.path.join(tempfile.mkdtemp(), "pa.onlinear")
>>> onlinear.save(model, path)
>>> again = onlinear.load(path)
>>> again.predict([[2.0, 0.0]]), again.n_seen_
(array(['ham'], dtype='<U4'), 2)
>>> _ = again.partial_fit(X[2:], y[2:]); _ = model.partial_fit(X[2:], y[2:])
>>> bool(np.array_equal(again.coef_, model.coef_))
True
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import stat
import struct
import tempfile
import zipfile
import zlib
from collections import Counter
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

try:  # a lock tells a live write's temporary file from one a killed process left behind
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: a killed write's temporary file stays
    fcntl = None

if TYPE_CHECKING:
    from .estimators.base import OnlineLinearClassifier

FORMAT = "onlinear-model"
FORMAT_VERSION = 2
HEADER = "onlinear-model.json"
_ARRAYS = "arrays/"
_ZIP_SIGNATURE = b"PK\x03\x04"
_MAX_HEADER_BYTES = 1 << 20
MAX_MODEL_BYTES = 1 << 34
"""Default cap (16 GiB), in bytes, on the arrays a model file may hold (``load``'s
``max_bytes``): what a file declares is checked against it, and against the file's own size,
before anything is allocated."""
#: class-label dtypes stored as they are (object labels are stored as strings or numbers)
_LABEL_KINDS = "biuUf"
#: the tag of a dict-valued hyperparameter stored as ``[key, value]`` pairs (format version 2)
_PAIRS = "__pairs__"
#: the hyperparameters whose dict is keyed by class labels: a version-1 file stored their keys
#: as JSON strings
_LABEL_KEYED = ("class_weight",)
#: scikit-learn's column names of a model fitted on a DataFrame (format version 2)
_FEATURE_NAMES = "feature_names_in_"
#: arrays a fitted model's file may hold besides ``classes_`` and the model's arrays
_OPTIONAL_ARRAYS = ("random_state.keys", _FEATURE_NAMES)

__all__ = ["save", "load", "read_header", "ModelFileError", "FORMAT_VERSION", "MAX_MODEL_BYTES",
           "atomic_write", "replacing", "remove_stale_temporaries", "new_file_mode"]


class ModelFileError(ValueError):
    """A model file that cannot be loaded: not a model file, a newer format, a damaged or
    tampered file.  The message names the file and the problem.

    Parameters
    ----------
    path : str or path-like
        The file.
    message : str
        What is wrong with it.
    """

    def __init__(self, path, message):
        self.path = os.fspath(path)
        super().__init__(f"{self.path}: {message}")


# ---------------------------------------------------------------------------------- saving
def save(model: OnlineLinearClassifier, path: str | os.PathLike, *,
         metadata: dict | None = None) -> None:
    """Write ``model`` (any onlinear estimator, fitted or not) to ``path``.

    The file is written atomically: to a temporary file in the same folder, flushed to disk,
    then renamed over ``path``, so a crash at any instant leaves either the previous file or the
    new one, whole.  Nothing is written anywhere else.

    Parameters
    ----------
    model : OnlineLinearClassifier
        The estimator.  A model with a callable kernel cannot be saved (a function is code:
        pickle it, or use a built-in kernel).
    path : str or path-like
        The file to write (conventionally ``*.onlinear``); replaced if it exists.
    metadata : dict, optional
        JSON-serializable values stored in the header (e.g. how far a stream was read; see
        :func:`read_header`).

    Raises
    ------
    TypeError
        If ``model`` is not an onlinear estimator, or a hyperparameter or ``metadata`` cannot
        be stored as JSON (a dict hyperparameter's keys must be str, int, float or bool, numpy
        scalars included).
    ValueError
        If the model's ``feature_names_in_`` (the columns of a DataFrame it was fitted on)
        could not be loaded back as they are (not one distinct string per feature); or if a
        hyperparameter that shapes the started model (``fit_intercept``, ``dtype``,
        ``average``, ``matrix``) was set after it started (``fit`` restarts it with the new
        value).
    """
    from .estimators.base import OnlineLinearClassifier

    if not isinstance(model, OnlineLinearClassifier):
        raise TypeError(f"save expects an onlinear estimator; got {type(model).__name__}.")
    _check_loadable_class(type(model))
    with model._model_lock():  # (a snapshot: another thread may learn while the file is written)
        if hasattr(model, "classes_"):
            # (a hyperparameter set after the start and shaping the model — fit_intercept,
            # dtype, average, matrix — would describe arrays of another shape: a file load
            # refuses; the message is the one partial_fit gives)
            model._check_as_started()
        header, arrays = _describe(model)
    if metadata is not None:
        header["metadata"] = _json_checked(metadata, "metadata")
    with atomic_write(path) as handle:
        _encode(handle, header, arrays)


def _check_loadable_class(cls):
    """Refuse (TypeError) to save an instance of a class :func:`load` would not rebuild:
    :func:`load` makes only onlinear's own public estimators (it runs no code a file names),
    so a file of a subclass would be written and then refused."""
    from . import estimators

    name = cls.__name__
    if name not in estimators.__all__ or getattr(estimators, name, None) is not cls:
        public = next((base.__name__ for base in cls.__mro__[1:]
                       if base.__name__ in estimators.__all__
                       and getattr(estimators, base.__name__, None) is base), None)
        raise TypeError(f"{cls.__module__}.{name} is not one of onlinear's estimators"
                        + (f" (a subclass of onlinear.{public})" if public else "")
                        + ": onlinear.load rebuilds only those, so it could not read the file "
                        "back. Save it with pickle (or joblib), which keeps the class.")


def _describe(model):
    """``(header, {name: array})`` of ``model``: copies of its arrays, so that the caller, who
    holds the model's lock, can write them after releasing it."""
    from .registry import algorithm_of

    params = model.get_params(deep=False)
    arrays = {}
    if callable(params.get("kernel")):
        raise TypeError("a model with a callable kernel cannot be saved in the safe format (a "
                        "function is code); use pickle, or a built-in kernel.")
    random_state = params.get("random_state")
    if isinstance(random_state, np.random.RandomState):
        # the shuffling generator's exact state, so that a later fit shuffles as it would have
        name, keys, position, has_gauss, gauss = random_state.get_state(legacy=True)
        params["random_state"] = {"MT19937": {"position": int(position),
                                              "has_gauss": int(has_gauss),
                                              "cached_gaussian": float(gauss)}}
        arrays["random_state.keys"] = np.asarray(keys, dtype=np.uint32)
    elif random_state is not None and not isinstance(random_state, (int, np.integer)):
        raise TypeError(f"random_state={random_state!r} cannot be saved; use an int, None or a "
                        "numpy RandomState.")
    for name, value in params.items():
        if isinstance(value, dict) and name != "random_state":  # (random_state's is ours)
            params[name] = _pairs(name, value)
    algorithm = algorithm_of(model)
    header = {
        "format": FORMAT,
        "format_version": 1,  # (raised below if the file needs more)
        "onlinear_version": _version(),
        "estimator": type(model).__name__,
        "algorithm": algorithm,
        "params": _json_checked(params, "hyperparameters"),
        "fitted": hasattr(model, "classes_"),
    }
    if header["fitted"]:
        classes = _storable_labels(model.classes_)
        arrays["classes_"] = classes
        header["classes_dtype"] = "object" if model.classes_.dtype == object else classes.dtype.str
        header["scalars"] = {name: _plain(getattr(model, name, None))
                             for name in model._model_scalars}
        expected = model._model_arrays()
        for name in expected:
            array = np.array(model._saved_array(name), order="C", copy=True)
            # (the file holds native byte order, which load expects: an array of the other
            # order, set by hand, would be written and then refused)
            arrays[name] = array if array.dtype.isnative else array.astype(
                array.dtype.newbyteorder("="))
        saved = {"classes_", *model._model_scalars, *expected}
        if hasattr(model, _FEATURE_NAMES):
            arrays[_FEATURE_NAMES] = _storable_feature_names(model)
            saved.add(_FEATURE_NAMES)
        # (the lock and the per-example context are rebuilt, never saved)
        forgotten = set(vars(model)) - saved - set(params) - model._derived - set(model._not_state)
        if forgotten:  # a new attribute nobody declared: the file would not restore the model
            raise RuntimeError(f"{type(model).__name__} has undeclared model attributes "
                               f"{sorted(forgotten)}: add them to _model_arrays, "
                               "_model_scalars or _derived.")
        header["counters"] = {name: _plain(getattr(model, name)) for name in _counter_names(model)}
    header["arrays"] = {name: {"dtype": array.dtype.str, "shape": list(array.shape),
                               "sha256": hashlib.sha256(_bytes_of(array)).hexdigest()}
                        for name, array in arrays.items()}
    if _FEATURE_NAMES in arrays or any(_is_pairs(value) for value in params.values()):
        header["format_version"] = 2
    return header, arrays


def _counter_names(model):
    names = ["n_seen_", "n_mistakes_", "n_updates_"]
    return [name for name in names if hasattr(type(model), name)]


def _storable_labels(classes):
    """``classes`` as an array ``.npy`` stores without pickle (object labels as str, int or
    float)."""
    if classes.dtype.kind in _LABEL_KINDS:
        return classes
    values = classes.tolist()
    for kind in (str, int, float):
        if all(isinstance(v, kind) and not isinstance(v, bool) for v in values):
            return np.array(values)
    raise TypeError(f"class labels of mixed or unsupported types cannot be saved: "
                    f"{values!r:.200}; use strings or integers.")


def _plain(value):
    """A numpy scalar as the Python value JSON stores."""
    return value.item() if isinstance(value, np.generic) else value


def _weights_problem(name, mapping):
    """What is wrong with the values of ``mapping``, the label-keyed dict hyperparameter
    ``name`` (a class's weight: a finite, non-negative number), or None."""
    for key, value in mapping.items():
        value = _plain(value)
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or value < 0):
            return (f"{name} gives {key!r} the weight {value!r:.80}: a class's weight is a "
                    "finite, non-negative number")
    return None


def _pairs(name, mapping):
    """The dict hyperparameter ``name`` as the header stores it: ``[key, value]`` pairs, so
    that its keys (class labels) keep their types; a JSON object would make them strings.
    A class weight that learning would refuse is refused (ValueError): the file could not be
    loaded back."""
    problem = _weights_problem(name, mapping) if name in _LABEL_KEYED else None
    if problem is not None:
        raise ValueError(f"the model cannot be saved: {problem}.")
    pairs = []
    for key, value in mapping.items():
        key = _plain(key)
        if not isinstance(key, (str, int, float)):  # (bool is an int)
            raise TypeError(f"the hyperparameter {name}={mapping!r:.200} cannot be saved: its "
                            "keys must be str, int, float or bool (numpy's too), not "
                            f"{type(key).__name__}.")
        pairs.append([key, _plain(value)])
    return {_PAIRS: pairs}


def _is_pairs(value):
    return isinstance(value, dict) and set(value) == {_PAIRS}


def _storable_feature_names(model):
    """The model's ``feature_names_in_`` as the file stores them: the bytes of a JSON list of
    strings (uint8), refused (ValueError) unless :func:`load` would take them back as they
    are (a file load refuses would replace a good one, a checkpoint say).  Not numpy's
    fixed-width strings: one long name would pad every other to its length (a name of a
    million characters among a thousand made a file of gigabytes)."""
    names = model.feature_names_in_
    values = names.tolist() if isinstance(names, np.ndarray) else None
    problem = _feature_names_problem(values, model.n_features_in_)
    if problem is not None:
        raise ValueError(f"{type(model).__name__}.feature_names_in_ cannot be saved: {problem}"
                         "; delete the attribute to save the model without column names.")
    return np.frombuffer(json.dumps(values).encode("ascii"), dtype=np.uint8).copy()


def _feature_names_problem(values, n_features):
    """What is wrong with ``values`` (a list) as the column names of a model of
    ``n_features`` features, or None: scikit-learn keeps one distinct string per column."""
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return "they must be a list of strings"
    if len(values) != n_features:
        return f"they name {len(values)} features; the model has {n_features}"
    if len(set(values)) != len(values):
        repeated = sorted(v for v, count in Counter(values).items() if count > 1)
        return f"they repeat {repeated!r:.200}"
    return None


def _json_checked(value, what):
    value = {k: _jsonable(v) for k, v in value.items()} if isinstance(value, dict) else value
    try:
        # (no NaN or infinity: JSON has none, and a strict reader refuses Python's spelling)
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise TypeError(f"the {what} cannot be stored as JSON: {error}") from None
    return value


def _jsonable(value):
    """``value`` with numpy's scalars and arrays, and tuples, as the Python values and lists
    JSON stores (an ordinal learner's ``classes`` may be an array of np.int64); a tuple comes
    back as a list, which the hyperparameters' comparisons take as equal
    (:func:`onlinear.streaming.same_hyperparameter`)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return _plain(value)


def _version():
    from ._version import __version__

    return __version__


def _member(name):
    """The zip entry ``name`` with a fixed date: zipfile stamps an entry written by name with
    the clock's, so the same model saved twice would give two different files (a checksum or
    a build cache comparing them would see a change where there is none)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.external_attr = 0o600 << 16  # (what zipfile gives an entry written by name)
    return info


def _encode(handle, header, arrays):
    """Write the model file of ``header`` and ``arrays`` to the binary ``handle`` (seekable).
    Each array goes from its own memory to the file: no copy of it, nor of the file, is made
    on the way (a file built in memory first took three times the model's arrays at its peak).
    The bytes are those :meth:`zipfile.ZipFile.writestr` writes for the member's ``.npy``
    content (the member's size told before its data, as ``writestr`` tells it)."""
    with zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(_member(HEADER), json.dumps(header, indent=1, sort_keys=True))
        for name, array in arrays.items():
            npy_header = io.BytesIO()  # (the version 1.0 header: what write_array picks)
            np.lib.format.write_array_header_1_0(
                npy_header, np.lib.format.header_data_from_array_1_0(array))
            info = _member(_ARRAYS + name + ".npy")
            info.file_size = npy_header.tell() + array.nbytes
            with archive.open(info, "w") as member:
                member.write(npy_header.getvalue())
                member.write(_bytes_of(array))


def _bytes_of(array):
    """The bytes of the C-contiguous ``array`` in memory, as a view (``tobytes`` copies)."""
    return array.reshape(-1).view(np.uint8) if array.size else b""


@contextmanager
def replacing(path, suffix=".tmp"):
    """A temporary path beside ``path`` to write to, renamed onto ``path`` once the ``with``
    block ends without error: an existing file is replaced whole or not at all, and nothing is
    written outside ``path``'s folder (a symbolic link's: that of the file it names, which is
    the one replaced).

    The temporary file (``.<name>.<random><suffix>`` in the same folder, so that the rename is
    atomic on POSIX and Windows) is synced to disk before the rename, and the rename itself
    after it.  On an error (an interrupt too) it is removed and ``path`` is untouched.  A
    process killed meanwhile leaves it; the next write of ``path`` removes it (on POSIX, where
    the writer holds a lock on its temporary file while it is in use, so that another
    process's write in progress is left alone: :func:`remove_stale_temporaries`).  The file gets
    the permissions of the file it replaces, or those an ordinary ``open`` would give a new
    file (``0o666`` less the umask).  An existing ``path`` that is not a regular file (a pipe,
    a device such as ``/dev/null``) cannot be replaced: it is yielded itself and written
    through.

    Parameters
    ----------
    path : str or path-like
        The file to write.
    suffix : str, default=".tmp"
        The temporary file's suffix (a writer that picks a format by the name's suffix, such
        as matplotlib's, wants ``path``'s own).

    Yields
    ------
    str
        The path to write to.
    """
    path = os.fspath(path)
    if not os.path.basename(path):  # ("" or "folder/": abspath would drop the last part, and
        # the temporary file would go to the folder above)
        raise IsADirectoryError(f"{path!r} names no file" + (" (it ends with a separator)"
                                                             if path else "")
                                + ": give a file's path.")
    if os.path.islink(path):
        # the file the link names is written (a rename onto the link itself would replace
        # the link by a file and leave its target as it was); a link into /dev or /proc
        # (/dev/stdout, a process's descriptor) is a stream: written through
        target = os.path.realpath(path)
        if _stream_path(path) or _stream_path(target):
            yield path
            return
        path = target
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        yield path
        return
    folder = os.path.dirname(os.path.abspath(path))
    try:
        descriptor, temporary = _locked_temporary(folder, path, suffix)
    except OSError as error:  # (mkstemp's names the temporary file, which the user never named)
        raise type(error)(error.errno, f"{error.strerror} (writing through a temporary file in "
                                       f"{folder!r})", path) from None
    try:
        try:
            yield temporary
            _sync_file(temporary)
            os.chmod(temporary, stat.S_IMODE(mode) if mode is not None else new_file_mode())
            os.replace(temporary, path)
        except BaseException:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
            raise
    finally:
        os.close(descriptor)  # (releases the lock: after the rename or the removal)
    _sync_folder(folder)  # make the rename itself durable
    remove_stale_temporaries(path, suffix=suffix)  # those of earlier writes a kill cut short


def _locked_temporary(folder, path, suffix):
    """A new temporary file for a write of ``path`` and a descriptor holding an exclusive lock
    on it (POSIX), which tells :func:`remove_stale_temporaries` that a live process writes it.
    A file that another process's clean-up removed between its creation and the lock (it
    locked it first, finding it unheld) is given up for a new one."""
    while True:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=_temporary_prefix(path),
                                                 suffix=suffix)
        if fcntl is None:
            return descriptor, temporary
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError:  # (a file system without locks: written unlocked, never removed)
            return descriptor, temporary
        if os.fstat(descriptor).st_nlink > 0:
            return descriptor, temporary
        os.close(descriptor)


@contextmanager
def atomic_write(path):
    """A binary handle whose content replaces ``path`` only once the ``with`` block ends
    without error (see :func:`replacing`): on an error ``path`` is untouched."""
    with replacing(path) as temporary, open(temporary, "wb") as handle:
        yield handle


def _sync_file(path):
    """Flush a written file to disk: an error (a full disk, a failing device) is the write's.
    (Opened for writing: Windows syncs only such a descriptor.)"""
    descriptor = os.open(path, os.O_RDWR)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _sync_folder(folder):
    """Flush a folder's entries (a rename) to disk, where the system allows it."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def new_file_mode():
    """The permissions an ordinary ``open`` gives a new file: ``0o666`` less the process's
    umask (for a file made elsewhere, as a temporary file of mode 0o600, then moved into
    place)."""
    return 0o666 & ~_umask()


def _umask():
    """The process's umask, read without changing it where the system tells it (setting it to
    read it back would race with another thread creating a file)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _stream_path(path):
    """Whether ``path`` lies in /dev or /proc, whose entries are devices and descriptors."""
    absolute = os.path.abspath(path)
    return absolute.startswith(("/dev/", "/proc/"))


def _temporary_prefix(path):
    """The start of the temporary files' names of a write of ``path``: ``.<name>.``, the name
    cut (with a digest of it kept, so that two long names stay apart) where the random part
    and the suffix :func:`tempfile.mkstemp` adds would take a legal name past the 255
    characters of common file systems."""
    name = os.path.basename(path)
    if len(name) > _LONGEST_KEPT_NAME:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        name = f"{name[:_LONGEST_KEPT_NAME - 13]}~{digest}"
    return f".{name}."


#: the longest file name kept whole in a temporary file's name: 255 less the dot, the dot
#: after it, the 8 random characters and a suffix of up to 32
_LONGEST_KEPT_NAME = 255 - 2 - 8 - 32


def remove_stale_temporaries(path, *, suffix=".tmp", no_other_writer=False):
    """Remove the temporary files :func:`replacing` (``suffix``: the one it was given) leaves
    next to ``path`` when a process is killed during a write: exactly ``path``'s, not those of
    another file whose name starts with it (``m`` and ``m.onlinear``), and only those no live
    process holds (the writer's lock, POSIX).  Where there are no such locks a write in
    progress cannot be told apart, so nothing is removed unless ``no_other_writer`` (the
    caller knows that no other process writes ``path``: a resumed stream's checkpoint).
    :func:`replacing` calls it after every write."""
    path = os.fspath(path)
    if os.path.islink(path):  # (a link's file is written beside its target: replacing)
        path = os.path.realpath(path)
    folder = os.path.dirname(os.path.abspath(path))
    pattern = re.compile(re.escape(_temporary_prefix(path)) + r"[a-z0-9_]{8}"
                         + re.escape(suffix))
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not pattern.fullmatch(name):
            continue
        _remove_unheld(os.path.join(folder, name), no_other_writer)


def _remove_unheld(temporary, no_other_writer):
    """Remove the regular file ``temporary`` unless a live writer holds its lock (where
    there are no locks: only if ``no_other_writer``); it is removed while locked here, so a
    writer that created it but has not locked it yet finds it gone (:func:`_locked_temporary`)
    rather than written and then removed."""
    try:
        descriptor = os.open(temporary, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:  # (gone meanwhile, a link, not ours to read)
        return
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return
        held = _held_by_another(descriptor)
        if held or (held is None and not no_other_writer):
            return
        try:
            if os.lstat(temporary).st_ino == os.fstat(descriptor).st_ino:
                os.unlink(temporary)
        except OSError:
            pass
    finally:
        os.close(descriptor)


def _held_by_another(descriptor):
    """Whether another process holds the lock of the open file ``descriptor`` (a live write);
    if not, it is locked here until closed.  None where there are no locks (not POSIX, or a
    file system without them)."""
    if fcntl is None:  # pragma: no cover - not POSIX
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return None
    return False


# ---------------------------------------------------------------------------------- loading
def read_header(path: str | os.PathLike) -> dict:
    """The JSON header of the model file ``path`` (format checked; arrays not read).

    Parameters
    ----------
    path : str or path-like
        The model file.

    Returns
    -------
    dict
        ``algorithm`` (the registered name, or None), ``estimator``, ``params``, ``counters``
        (``n_seen_``, ``n_mistakes_``, ``n_updates_``), the versions of the format and of
        onlinear, and the ``metadata`` given to :func:`save`.

    Raises
    ------
    ModelFileError
        A file that is not an onlinear model file, damaged or of a newer format.
    """
    with _archive(path) as archive:
        return _header(path, archive)


def load(path: str | os.PathLike, *, max_bytes: int | None = None) -> OnlineLinearClassifier:
    """The model saved in ``path`` by :func:`save`.

    Parameters
    ----------
    path : str or path-like
        The model file.
    max_bytes : int, optional
        The most bytes of arrays the file may hold (default :data:`MAX_MODEL_BYTES`, 16 GiB):
        a larger model is refused before anything is allocated.  Whatever the cap, a file
        cannot declare more than it holds: its members are stored uncompressed, as
        :func:`save` writes them, and their sizes must add up within the file's own size.

    Returns
    -------
    model : OnlineLinearClassifier
        A new estimator of the saved class, with the saved hyperparameters and model: it
        predicts exactly as the saved one and continues learning as it would have.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ModelFileError
        (a ``ValueError``) if the file is not a model file, comes from a newer format version,
        names an unknown estimator, holds arrays that are missing, truncated, altered, larger
        than ``max_bytes`` or do not fit the header, or a model the engine could not have
        made (the estimator's invariants: lazy scales and norms in range and consistent with
        the arrays, positive-definite metrics, finite kernel values, counters in order).
        Nothing is loaded.
    """
    if max_bytes is None:
        max_bytes = MAX_MODEL_BYTES
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise TypeError(f"max_bytes must be a non-negative int; got {max_bytes!r}.")
    with _archive(path, max_bytes) as archive:
        header = _header(path, archive)
        try:
            return _build(path, archive, header)
        except ModelFileError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as error:
            raise ModelFileError(path, f"the model does not hold together: {error}") from None


#: what the zip reader raises on a damaged archive (a bad offset, an unknown compression
#: method or version, a CRC mismatch, a cut stream)
_DAMAGED = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError,
            RuntimeError, struct.error, zlib.error, UnicodeDecodeError, OverflowError)


@contextmanager
def _archive(path, max_bytes=None):
    if os.path.isdir(path):  # (open's "[Errno 21] Is a directory" names no remedy)
        raise ModelFileError(path, "a folder, not an onlinear model file: give the model "
                                   "file's path.")
    with open(path, "rb") as handle:
        if handle.read(4) != _ZIP_SIGNATURE:
            raise ModelFileError(path, "not an onlinear model file (no zip signature).")
        file_size = os.fstat(handle.fileno()).st_size
    try:
        with zipfile.ZipFile(path) as archive:
            _check_declared_sizes(path, archive, file_size,
                                  MAX_MODEL_BYTES if max_bytes is None else max_bytes)
            yield archive
    except ModelFileError:
        raise
    except _DAMAGED as error:
        raise ModelFileError(path, f"damaged or truncated model file ({error}).") from None


def _check_declared_sizes(path, archive, file_size, max_bytes):
    """What the zip directory declares, bounded before anything is read: every member stored
    (not compressed: nothing expands), their sizes within the file's own size, the arrays'
    within ``max_bytes``."""
    declared = 0
    for info in archive.infolist():
        if info.compress_type != zipfile.ZIP_STORED:
            raise ModelFileError(path, f"member {info.filename!r:.80} is compressed; onlinear "
                                       "model files store their members uncompressed.")
        if info.file_size != info.compress_size:
            raise ModelFileError(path, f"member {info.filename!r:.80} declares {info.file_size:,} "
                                       f"bytes but stores {info.compress_size:,}.")
        declared += info.file_size
    if declared > file_size:
        raise ModelFileError(path, f"the members declare {declared:,} bytes; the file holds "
                                   f"{file_size:,} (damaged or tampered).")
    if declared > max_bytes:
        raise ModelFileError(path, f"the model holds {declared:,} bytes, more than max_bytes="
                                   f"{max_bytes:,}; pass a larger max_bytes to load it.")


def _header(path, archive):
    try:
        info = archive.getinfo(HEADER)
    except KeyError:
        raise ModelFileError(path, f"not an onlinear model file (no {HEADER}).") from None
    if info.file_size > _MAX_HEADER_BYTES:
        raise ModelFileError(path, "the header is implausibly large.")
    try:
        header = json.loads(archive.read(HEADER))
    except (ValueError, UnicodeDecodeError) as error:
        raise ModelFileError(path, f"the header is not valid JSON ({error}).") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ModelFileError(path, "not an onlinear model file (wrong format name).")
    version = header.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelFileError(path, f"bad format version {version!r}.")
    if version > FORMAT_VERSION:
        raise ModelFileError(path, f"written in format version {version} by onlinear "
                                   f"{header.get('onlinear_version')}; this onlinear "
                                   f"({_version()}) reads up to version {FORMAT_VERSION}: "
                                   "upgrade onlinear.")
    for key, kind in (("estimator", str), ("params", dict), ("fitted", bool),
                      ("arrays", dict)):
        if not isinstance(header.get(key), kind):
            raise ModelFileError(path, f"the header's {key!r} is missing or not a "
                                       f"{kind.__name__}.")
    return header


def _estimator_class(path, header):
    from . import estimators, registry
    from .estimators.base import OnlineLinearClassifier

    name = header["estimator"]
    cls = getattr(estimators, name, None) if name in estimators.__all__ else None
    if not (isinstance(cls, type) and issubclass(cls, OnlineLinearClassifier)) \
            or cls is OnlineLinearClassifier:
        raise ModelFileError(path, f"unknown estimator {name!r}.")
    algorithm = header.get("algorithm")
    if algorithm is not None:
        record = registry.REGISTRY.get(algorithm) if isinstance(algorithm, str) else None
        if record is None:
            raise ModelFileError(path, f"unknown algorithm {algorithm!r}.")
        if not record.runs(cls):
            raise ModelFileError(path, f"algorithm {algorithm!r} has no estimator {name}.")
    return cls


def _build(path, archive, header):
    from .models.invariants import check_model_array, check_scalar

    cls = _estimator_class(path, header)
    specs = header["arrays"]
    # (the classes first: a version-1 file's label-keyed dicts are read back by them)
    classes = _classes(path, archive, specs, header) if header["fitted"] else None
    params = _params(path, header, classes)
    random_state = params.get("random_state")
    if isinstance(random_state, dict):
        params["random_state"] = _random_state(path, archive, specs, random_state)
    model = cls(**params)
    model._validate_params()
    if not header["fitted"]:
        _check_members(path, archive, specs, set(specs))
        return model

    model.classes_ = classes
    scalars = header.get("scalars")
    if not isinstance(scalars, dict) or set(scalars) != set(model._model_scalars):
        raise ModelFileError(path, f"the header's scalars must be {sorted(model._model_scalars)}.")
    for name, kind in model._model_scalars.items():
        try:
            setattr(model, name, check_scalar(name, scalars[name], kind))
        except ValueError as error:
            raise ModelFileError(path, str(error)) from None
    model._check_classes()
    model._take_saved_weight_dtype(_declared_dtype(specs.get("_weights")))
    expected = model._model_arrays()
    _check_members(path, archive, specs, {"classes_", *expected}
                   | {name for name in _OPTIONAL_ARRAYS if name in specs})
    if _FEATURE_NAMES in specs:  # (a file without them: a model fitted on no DataFrame)
        model.feature_names_in_ = _feature_names(path, archive, specs, model.n_features_in_)
    free = {}
    for name, (shape, dtype) in expected.items():
        array = _read(path, archive, specs, name, np.dtype(dtype))
        try:
            check_model_array(name, array, shape, np.dtype(dtype), free)
        except ValueError as error:
            raise ModelFileError(path, str(error)) from None
        model._load_array(name, array)
    try:
        model._restore_derived()
    except MemoryError as error:  # (a width no array of the file holds values for)
        raise ModelFileError(path, str(error)) from None
    model._check_model()
    counters = header.get("counters", {})
    if not isinstance(counters, dict):
        raise ModelFileError(path, "the header's 'counters' is not a dict.")
    for name, value in counters.items():
        if name not in _counter_names(model) or getattr(model, name) != value:
            raise ModelFileError(path, f"the header's counter {name}={value!r} disagrees with "
                                       "the model's arrays.")
    return model


def _classes(path, archive, specs, header):
    classes = _read(path, archive, specs, "classes_", None)
    if classes.ndim != 1 or classes.dtype.kind not in _LABEL_KINDS:
        raise ModelFileError(path, "classes_ must be a 1-D array of labels.")
    if header.get("classes_dtype") == "object":
        classes = classes.astype(object)
    return classes


def _params(path, header, classes):
    """The hyperparameters of the header, their dicts rebuilt from ``[key, value]`` pairs
    (those of a version-1 file, stored as JSON objects, with their keys read back by the
    ``classes`` of a fitted model)."""
    params = dict(header["params"])
    for name, value in params.items():
        if name == "random_state" or not isinstance(value, dict):  # (random_state: its own)
            continue
        if _is_pairs(value):
            params[name] = _dict_of_pairs(path, name, value[_PAIRS])
        elif header["format_version"] >= 2:  # (save writes every dict as pairs)
            raise ModelFileError(path, f"the hyperparameter {name} is stored as a JSON object; "
                                       f"format version {header['format_version']} stores a "
                                       f"dict as {{{_PAIRS!r}: [[key, value], ...]}}.")
        elif name in _LABEL_KEYED and classes is not None:
            params[name] = _label_keys_of_version_1(value, classes)
        problem = _weights_problem(name, params[name]) if name in _LABEL_KEYED else None
        if problem is not None:
            raise ModelFileError(path, f"{problem}.")
    return params


def _dict_of_pairs(path, name, pairs):
    if not (isinstance(pairs, list)
            and all(isinstance(pair, list) and len(pair) == 2
                    and isinstance(pair[0], (str, int, float)) for pair in pairs)):
        raise ModelFileError(path, f"the hyperparameter {name} is malformed: {pairs!r:.200} is "
                                   "not a list of [key, value] pairs with str, int, float or "
                                   "bool keys.")
    mapping = {key: value for key, value in pairs}
    if len(mapping) != len(pairs):  # (1 and true are one key in Python as well)
        raise ModelFileError(path, f"the hyperparameter {name} gives a key twice: "
                                   f"{pairs!r:.200}.")
    return mapping


def _label_keys_of_version_1(mapping, classes):
    """``mapping``, whose keys JSON made strings (``"0"`` for 0, ``"0.5"`` for 0.5,
    ``"true"`` for True), with each key that is the string form of exactly one of ``classes``
    replaced by that class; other keys are left as they are (the model names them if it uses
    them)."""
    forms = {}
    for label in map(_plain, classes.tolist()):
        forms.setdefault(label if isinstance(label, str) else json.dumps(label), []).append(label)
    return {(forms[key][0] if len(forms.get(key, ())) == 1 else key): value
            for key, value in mapping.items()}


def _feature_names(path, archive, specs, n_features):
    """The column names the file holds, as scikit-learn keeps them (an object array of
    ``str``), after the checks :func:`save` made of them."""
    stored = _read(path, archive, specs, _FEATURE_NAMES, np.dtype(np.uint8))
    try:
        values = json.loads(stored.tobytes().decode("ascii")) if stored.ndim == 1 else None
    except (UnicodeDecodeError, ValueError):
        values = None
    problem = _feature_names_problem(values, n_features) if values is not None else (
        "they must be the bytes of a JSON list of strings")
    if problem is not None:
        raise ModelFileError(path, f"{_FEATURE_NAMES}: {problem}.")
    return np.array(values, dtype=object)


def _check_members(path, archive, specs, names):
    """The file's arrays must be exactly ``names``, each described in the header."""
    members = {info.filename for info in archive.infolist()} - {HEADER}
    stored = {m[len(_ARRAYS):-len(".npy")] for m in members
              if m.startswith(_ARRAYS) and m.endswith(".npy")}
    if members != {_ARRAYS + n + ".npy" for n in stored} or stored != set(specs) \
            or stored != set(names):
        missing = sorted(set(names) - stored)
        extra = sorted(members - {_ARRAYS + n + ".npy" for n in names})
        raise ModelFileError(path, "the arrays do not match the model: "
                                   + (f"missing {missing}" if missing else "")
                                   + ("; " if missing and extra else "")
                                   + (f"unexpected {extra}" if extra else "")
                                   + ("" if missing or extra else "header and members differ")
                                   + ".")


def _declared_dtype(spec):
    """The dtype an array's header entry declares, or None if it declares none that numpy
    reads (the array's own check then refuses the entry)."""
    try:
        return np.dtype(spec["dtype"])
    except (KeyError, TypeError, ValueError, SyntaxError):
        return None


def _read(path, archive, specs, name, dtype):
    """Array ``name``, checked against its header entry (dtype, shape, size, checksum) before
    and after reading; ``dtype`` the one the model needs (None: any the header gives)."""
    spec = specs.get(name)
    if not isinstance(spec, dict):
        raise ModelFileError(path, f"array {name} is not described in the header.")
    try:
        stored = np.dtype(spec["dtype"])
        shape = tuple(int(s) for s in spec["shape"])
        digest = str(spec["sha256"])
    except (KeyError, TypeError, ValueError):
        raise ModelFileError(path, f"the header's entry of array {name} is malformed.") from None
    if dtype is not None and stored != dtype:
        raise ModelFileError(path, f"array {name} has dtype {stored}; expected {dtype}.")
    if stored.hasobject or any(s < 0 for s in shape):
        raise ModelFileError(path, f"array {name}: unsupported dtype or shape in the header.")
    member = _ARRAYS + name + ".npy"
    try:
        info = archive.getinfo(member)
    except KeyError:
        raise ModelFileError(path, f"array {name} is missing.") from None
    nbytes = stored.itemsize * int(np.prod(shape, dtype=np.float64))
    if not nbytes <= info.file_size <= nbytes + 4096:  # .npy's header is at most a few KB
        raise ModelFileError(path, f"array {name} is truncated or has the wrong size "
                                   f"({info.file_size} bytes stored for {nbytes} of data).")
    try:
        with archive.open(member) as handle:
            array = _read_npy(path, name, handle, stored, shape, nbytes)
    except ModelFileError:
        raise
    except (ValueError, *_DAMAGED) as error:
        raise ModelFileError(path, f"array {name} cannot be read ({error}).") from None
    array = np.ascontiguousarray(array)
    if hashlib.sha256(_bytes_of(array)).hexdigest() != digest:
        raise ModelFileError(path, f"array {name} does not match its checksum (altered or "
                                   "damaged).")
    if not array.flags.writeable:
        array = array.copy()
    return array


#: bytes of an array read from a model file at a time
_READ_BLOCK = 1 << 20


def _read_npy(path, name, handle, stored, shape, nbytes):
    """The ``.npy`` member ``name``: its own header must say ``stored`` and ``shape`` (checked
    before its data are read: the data read are at most ``nbytes``, the size the model file's
    header gave and the zip directory bounded)."""
    version = np.lib.format.read_magic(handle)
    if version == (1, 0):
        npy_shape, fortran, npy_dtype = np.lib.format.read_array_header_1_0(handle)
    elif version == (2, 0):
        npy_shape, fortran, npy_dtype = np.lib.format.read_array_header_2_0(handle)
    else:
        raise ModelFileError(path, f"array {name}: .npy version {version} is not one numpy "
                                   "writes for these arrays.")
    if npy_dtype != stored or tuple(npy_shape) != shape:
        raise ModelFileError(path, f"array {name} holds {npy_dtype}{list(npy_shape)}; the "
                                   f"header says {stored}{list(shape)}.")
    # (read into the array itself, a block at a time: reading the member whole, then making
    # a writable array of it, held the array twice)
    array = np.empty(shape, dtype=stored, order="F" if fortran else "C")
    into = _bytes_of(array.reshape(-1, order="A"))
    done = 0
    while done < nbytes:
        block = handle.read(min(_READ_BLOCK, nbytes - done))
        if not block:
            break
        into[done:done + len(block)] = np.frombuffer(block, dtype=np.uint8)
        done += len(block)
    if done != nbytes or handle.read(1):
        held = f"{done:,}" if done != nbytes else f"more than {nbytes:,}"
        raise ModelFileError(path, f"array {name} holds {held} bytes of data where "
                                   f"{stored}{list(shape)} needs {nbytes:,}.")
    return array


def _random_state(path, archive, specs, description):
    try:
        mt = description["MT19937"]
        position, has_gauss, gauss = int(mt["position"]), int(mt["has_gauss"]), \
            float(mt["cached_gaussian"])
    except (KeyError, TypeError, ValueError):
        raise ModelFileError(path, "the header's random_state is malformed.") from None
    keys = _read(path, archive, specs, "random_state.keys", np.dtype(np.uint32))
    if keys.shape != (624,) or not 0 <= position <= 624:
        raise ModelFileError(path, "the saved random_state is malformed.")
    generator = np.random.RandomState()
    generator.set_state(("MT19937", keys, position, has_gauss, gauss))
    return generator
