"""Input checks shared by the estimators: run before anything is learned, so that a call that
raises leaves the model as it was (see :class:`onlinear.estimators.base.OnlineLinearClassifier`).
"""
import os

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import _assert_all_finite

from .._core import rows

#: the dtypes rows are taken in (others are converted to the first)
ROW_DTYPES = [np.float64, np.float32]



def label_kind(label):
    """A label's kind: labels are sorted, so those of a model must be all numbers or all
    strings (bytes, or another type, is a kind of its own)."""
    if isinstance(label, (str, np.str_)):
        return "strings"
    if isinstance(label, (int, float, np.number, np.bool_)):  # (bool among them)
        return "numbers"
    return type(label).__name__


def check_class_labels(classes, known=None):
    """Raise ``ValueError`` if ``classes`` holds NaN or None (a missing label is not a class),
    labels of different kinds (numbers and strings do not sort together), a label that is not
    a scalar (a tuple, a list), or, given the model's ``known`` classes, labels of another
    kind than theirs (or fractional numbers beside whole ones: each would change the type of
    every label the model predicts).  A set is refused: its order is arbitrary.

    (``np.unique`` would otherwise keep NaN as a class that no label ever equals, since
    NaN != NaN, fail on None with a ``TypeError`` about ordering, turn ``[0, 1, "x"]`` into
    the strings ``["0", "1", "x"]``, or take a tuple for several labels.)

    Parameters
    ----------
    classes : array-like
        The labels passed as ``classes``.
    known : ndarray, optional
        The classes of the started model the labels are added to.
    """
    if isinstance(classes, (set, frozenset, dict)):
        raise ValueError(f"classes must be a list or an array of labels, not a "
                         f"{type(classes).__name__} (whose order is arbitrary): pass "
                         "sorted(...), or the rank order of an ordinal model.")
    given = np.asarray(classes, dtype=object)
    if given.ndim > 1:
        raise ValueError(f"classes must be a 1-D list of labels; got an array of shape "
                         f"{given.shape} (a label is a number or a string, not a tuple).")
    labels = given.ravel().tolist()
    missing = [label for label in labels
               if label is None or (isinstance(label, (float, complex)) and label != label)]
    if missing:
        raise ValueError(f"classes must not contain NaN or None (a missing label is not a "
                         f"class); got {missing[0]!r} among {np.asarray(classes).tolist()}.")
    first = None
    for label in labels:
        kind = label_kind(label)
        if isinstance(label, (tuple, list, set, frozenset, dict, np.ndarray)):
            raise ValueError(f"a class label must be a number or a string; got {label!r} "
                             f"({kind}).")
        if first is None:
            first = (kind, label)
        elif kind != first[0]:
            raise ValueError(f"class labels must be all numbers or all strings: {label!r} "
                             f"({kind}) and {first[1]!r} ({first[0]}).")
    if known is None or first is None or known.shape[0] == 0:
        return
    model_kind = label_kind(known.tolist()[0])
    if first[0] != model_kind:
        raise ValueError(f"the model's classes are {model_kind} ({known.tolist()[:5]}); "
                         f"{first[1]!r} is not: a new class must be of the same kind.")
    if known.dtype.kind in "biu":
        fractional = [label for label in labels  # (an int is whole however large)
                      if isinstance(label, (float, np.floating)) and not float(label).is_integer()]
        if fractional:
            raise ValueError(f"the model's classes are whole numbers; {fractional[0]!r} is "
                             "not (it would make every label the model predicts a float).")
        # (cast to the classes' dtype, a label out of its range wraps around: 300 became 44
        # in uint8, 2**63 a negative int64, and 2 added nothing to a bool model)
        low, high = ((0, 1) if known.dtype.kind == "b"
                     else (int(np.iinfo(known.dtype).min), int(np.iinfo(known.dtype).max)))
        outside = [label for label in labels if not low <= int(label) <= high]
        if outside:
            raise ValueError(f"the model's classes are {known.dtype} (from {low} to {high}); "
                             f"{outside[0]!r} does not fit: start the model on labels of a "
                             "wider type (y.astype(np.int64), or strings) to add it.")


def check_discrete_labels(classes):
    """Raise ``ValueError`` if ``classes``, the labels of a model learning one label per
    example, hold a fractional number: :meth:`fit` refuses such targets (scikit-learn's
    "continuous" type, a regression target), so a model started on them one example at a time
    could never be continued by ``partial_fit`` or scored.  Label sets may hold any labels."""
    fractional = [label for label in np.asarray(classes, dtype=object).ravel().tolist()
                  if isinstance(label, (float, np.floating)) and not float(label).is_integer()]
    if fractional:
        raise ValueError(f"class labels must be whole numbers or strings: {fractional[0]!r} is "
                         "not (fit refuses such labels as continuous, a regression target); "
                         "encode the classes as integers or strings.")


class RowRefusedError(ValueError):
    """The ``ValueError`` refusing row ``row`` of the ``X`` given, every row before it accepted:
    a NaN or infinite value, or a norm outside the range the learners accept.  The estimator
    learned nothing from ``X`` (it is left as it was), so a caller learning a stream
    (:func:`onlinear.learn_stream`) can learn the rows before ``row`` and stop there.

    Parameters
    ----------
    message : str
        The error's message.
    row : int
        The index, in the ``X`` given, of the first row refused.
    """

    def __init__(self, message, row):
        super().__init__(message)
        self.row = row

    def __reduce__(self):  # (pickled as raised: a Dask worker's error reaches the client)
        return type(self), (str(self), self.row)


def row_norm(values):
    """‖values‖ without overflow or underflow (scaled by the largest magnitude first).

    Parameters
    ----------
    values : array-like
        The entries of one row (a dense row, or a CSR row's stored values).

    Returns
    -------
    float
        The Euclidean norm; 0 for an empty or zero row, and the largest magnitude itself
        (``inf`` or ``nan``) when it is not finite.
    """
    values = np.abs(np.asarray(values, dtype=np.float64))
    largest = values.max(initial=0.0)
    if not 0.0 < largest < np.inf:
        return largest
    return largest * np.sqrt(np.sum(np.square(values / largest)))


def row_scale_error(norm, row=None, exponent=rows.ROW_NORM_EXPONENT):
    """The ``ValueError`` refusing a row whose norm is outside the range the learners accept
    (see :data:`onlinear.rows.ROW_NORM_EXPONENT`).

    Parameters
    ----------
    norm : float
        The row's norm (:func:`row_norm`).
    row : int or None, default=None
        The row's index in ``X``, named in the message; None for the one-example paths (``x``).
    exponent : int, default=ROW_NORM_EXPONENT
        The range's exponent e (norms in ``[2^-e, 2^e]``): ``ROW_NORM_EXPONENT_FLOAT32`` for a
        model with float32 weights.

    Returns
    -------
    ValueError
        The error, to raise: a :class:`RowRefusedError` when ``row`` is given.
    """
    where = "x" if row is None else f"X row {row}"
    if exponent == rows.ROW_NORM_EXPONENT:
        who, within = "the learners accept", "float64"
    else:
        who, within = ("a model with float32 weights (dtype='float32', or 'auto' on float32 "
                       "data) accepts", "float32")
    advice = "rescale the data" + ("" if exponent == rows.ROW_NORM_EXPONENT else
                                   ", or start the model with dtype='float64'")
    message = (f"{where} has norm {norm:.3g}; {who} rows of norm 0 or between "
               f"2^-{exponent} ≈ {2.0 ** -exponent:.2g} and 2^{exponent} ≈ "
               f"{2.0 ** exponent:.2g}, where ‖x‖², the steps and the scores stay within "
               f"{within}: {advice}.")
    return ValueError(message) if row is None else RowRefusedError(message, row)


def check_rows(X, estimator_name, exponent=rows.ROW_NORM_EXPONENT):
    """Refuse X (2-D C-contiguous or CSR) if a value is NaN or infinite (scikit-learn's error)
    or a row's norm is outside the range every learner can represent (see
    :data:`onlinear.rows.ROW_NORM_EXPONENT`) — one compiled sweep, before anything is learned.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
        The validated data (float64 or float32; CSR in canonical format).
    estimator_name : str
        Named in scikit-learn's message for NaN or infinite values.
    exponent : int, default=ROW_NORM_EXPONENT
        The range's exponent (see :func:`row_scale_error`).

    Raises
    ------
    RowRefusedError
        On the first row with a NaN or infinite value (scikit-learn's message), or with a norm
        out of range.
    """
    sparse = sp.issparse(X)
    bad = (rows.first_bad_row_sparse(X.data, X.indptr, exponent) if sparse
           else rows.first_bad_row_dense(rows.read_only_rows(X), exponent))
    if bad < 0:
        return
    try:
        _assert_all_finite(X.data if sparse else X, input_name="X",
                           estimator_name=estimator_name)
    except ValueError as error:
        raise RowRefusedError(str(error), bad) from None
    values = X.data[X.indptr[bad]:X.indptr[bad + 1]] if sparse else X[bad]
    raise row_scale_error(row_norm(values), bad, exponent)


def check_row(vals, exponent=rows.ROW_NORM_EXPONENT):
    """:func:`check_rows` for one row's values (``learn_one``).

    Parameters
    ----------
    vals : ndarray of shape (n_values,)
        The row's values (dense, or a sparse row's stored values).
    exponent : int, default=ROW_NORM_EXPONENT
        The range's exponent (see :func:`row_scale_error`).

    Raises
    ------
    ValueError
        If a value is NaN or infinite, or the row's norm is out of range.
    """
    if rows._row_ok(vals, exponent):  # one compiled sweep: a NaN or an infinity fails it too
        return
    if not np.isfinite(vals).all():
        raise ValueError("x contains NaN or infinity.")
    raise row_scale_error(row_norm(vals), exponent=exponent)


def canonical_csr(X):
    """``X`` itself, or — a CSR matrix not in canonical format (duplicate column indices or
    unsorted ones) — a copy with its duplicates summed and its indices sorted.

    A CSR row that stores column j twice means ``x_j`` = the sum of the entries (scipy's own
    reading, e.g. in ``X @ W`` or ``toarray``); the compiled loops read the stored entries one
    by one (``‖x‖²`` summed per entry, a dense work row keeping the last one), so every CSR entry
    point canonicalizes it first.  The user's matrix is never modified.

    Parameters
    ----------
    X : ndarray or sparse matrix
        The data; anything but a non-canonical sparse matrix is returned as it is.

    Returns
    -------
    ndarray or sparse matrix
        ``X``, or its canonical copy.

    Raises
    ------
    ValueError
        If a CSR matrix's arrays do not describe its rows (:func:`.rows.check_csr_structure`:
        row pointers out of order, a column index outside its width).
    """
    if sp.issparse(X) and X.format == "csr":
        rows.check_csr_structure(X)  # (before scipy's own sweeps read the arrays unchecked)
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def _refuse_complex(x):
    """scikit-learn's refusal of complex data (``check_array``), for the one-example paths."""
    if getattr(getattr(x, "dtype", None), "kind", None) == "c":
        raise ValueError(f"Complex data not supported\n{x}\n")


#: public methods that read or change the model, run under the estimator's lock (see
#: :class:`OnlineLinearClassifier`, "Threads"); a subclass's own definitions are wrapped too.


def physical_memory():
    """The memory this process may use in bytes: the machine's physical memory, or less where
    a control group (a container, a batch job) limits it; None where it cannot be read (not
    POSIX)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    limit = _cgroup_limit()
    return total if limit is None else min(total, limit)


def _cgroup_limit():
    """The smallest memory limit of this process's control group and those above it (cgroup
    v2's ``memory.max``, v1's ``memory.limit_in_bytes``), or None."""
    try:
        with open("/proc/self/cgroup", encoding="ascii") as groups:
            lines = groups.read().splitlines()
    except OSError:
        return None
    limits = []
    for line in lines:
        hierarchy, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if hierarchy == "0" and not controllers:
            root, name = "/sys/fs/cgroup", "memory.max"
        elif "memory" in controllers.split(","):
            root, name = "/sys/fs/cgroup/memory", "memory.limit_in_bytes"
        else:
            continue
        parts = [part for part in path.split("/") if part]
        for depth in range(len(parts), -1, -1):
            try:
                with open(os.path.join(root, *parts[:depth], name), encoding="ascii") as file:
                    text = file.read().strip()
            except OSError:
                continue
            if text.isdigit():
                limits.append(int(text))
    return min(limits) if limits else None


def check_memory(n_bytes, owner, what):
    """Refuse, before allocating, a model array larger than this machine's memory.

    numpy can "allocate" far more zeros than there is memory (the pages are only reserved), so
    without this check a wrong feature index (10¹² columns) or an ellipsoid metric over too many
    features would start, then be killed by the system when the arrays are touched.

    Parameters
    ----------
    n_bytes : int
        The size of what is about to be allocated.
    owner : str
        Who allocates it (the estimator's class name), for the message.
    what : str
        What it is, e.g. ``"its weights (1,000,000,000,000 features × 3 outputs × 8 bytes)"``.

    Raises
    ------
    MemoryError
        If ``n_bytes`` exceeds half the memory this process may use (:func:`physical_memory`):
        a call copies the arrays it may have to undo, and saving writes them once more.
    """
    total = physical_memory()
    if total is not None and n_bytes > total // 2:
        raise MemoryError(
            f"{owner} would need {n_bytes / 2**30:,.1f} GiB for {what}, more than this "
            f"machine's {total / 2**31:,.1f} GiB (half its {total / 2**30:,.1f} GiB of memory: "
            "a call copies the arrays it may have to undo); check the data's feature indices "
            "(or choose a smaller model, e.g. a diagonal metric).")

