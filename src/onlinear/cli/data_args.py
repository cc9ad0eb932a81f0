"""A command's DATA and --test arguments: the shipped USPS, a catalogue name, or a LIBSVM or
CSV file (each by its own suffix)."""
import os

import click
import numpy as np

from ..data import whole_number_labels
from .common import SHIPPED, DataError


def load_data(spec, test=None, strict_features=False):
    """``(X, y, X_test, y_test, name)`` for ``usps``, a catalogue name or a LIBSVM or CSV file,
    with an optional LIBSVM or CSV test file (each file's format its own suffix's), read as
    wide as the training data.

    A test feature beyond the training data's width is ignored (the model has no weight for
    it, as Vowpal Wabbit ignores an unseen feature), and the values ignored are counted on
    standard error; with ``strict_features`` it is an error naming the test file's line (or,
    for a CSV test file, its width).  A CSV test file of a CSV training file must have its
    columns."""
    if spec.lower() in SHIPPED:
        from ..data import load_usps

        X, y, X_test, y_test = load_usps()
        if test is not None:
            X_test, y_test = _test_data(test, X.shape[1], strict_features)
            X_test = X_test.toarray()
            y_test = _checked_test_labels(y, y_test, test)
        return X, y, X_test, y_test, SHIPPED[spec.lower()]
    if test is None and not os.path.exists(spec) and spec.lower() in _catalogue():
        from ..data import load

        try:
            X, y, X_test, y_test = load(spec.lower())
        except (FileNotFoundError, ValueError, OSError) as error:
            raise DataError(str(error)) from None
        y_test = None if y_test is None else whole_number_labels(y_test)
        return X, whole_number_labels(y), X_test, y_test, spec.lower()
    if _format(spec) == "csv":
        return _csv_data(spec, test, strict_features)
    if test is None:
        X, y = _read_libsvm(spec)
        return X, whole_number_labels(y), None, None, spec
    if _format(test) == "csv":  # (its columns are features 1, 2, ...: read X as one-based)
        X, y = _read_libsvm(spec)
        y = whole_number_labels(y)
        X_test, y_test = _test_data(test, X.shape[1], strict_features)
        y_test = _checked_test_labels(y, y_test, test)
        return X, y, X_test, y_test, spec
    # As scikit-learn's load_svmlight_files: one-based unless some index of either file is 0;
    # the test set as wide as the training data (padded, or narrowed as above).
    (X, y), (X_test, y_test) = _read_libsvm(spec, zero_based=True), \
        _read_libsvm(test, zero_based=True)
    zero_based = any(M.nnz and M.indices.min() == 0 for M in (X, X_test))
    if not zero_based:
        X, X_test = _one_based(X), _one_based(X_test)
    width = X.shape[1]
    if strict_features and X_test.shape[1] > width:  # the reader names the first line beyond
        _read_libsvm(test, n_features=width, zero_based=zero_based)
    X_test = _narrowed(X_test, width, test)
    X_test.resize((X_test.shape[0], width))
    y, y_test = whole_number_labels(y), whole_number_labels(y_test)
    y_test = _checked_test_labels(y, y_test, test)
    return X, y, X_test, y_test, spec


def _format(path):
    from ..data.formats import format_of

    return format_of(path).name


def _csv_data(spec, test, strict_features):
    """A CSV training file (label in the last column) and its test file: a CSV one must have
    its columns, a LIBSVM one is read as wide as it (as any LIBSVM test file is)."""
    X, y = _read_file(spec)
    y = whole_number_labels(y)
    if test is None:
        return X, y, None, None, spec
    if _format(test) == "csv":
        X_test, y_test = _read_file(test)
        if X_test.shape[1] != X.shape[1]:
            raise DataError(f"{test} has {X_test.shape[1]} feature columns, the training data "
                            f"{X.shape[1]}: a CSV test file needs the training file's columns.")
        y_test = whole_number_labels(y_test)
    else:
        X_test, y_test = _test_data(test, X.shape[1], strict_features)
        X_test = X_test.toarray()
    y_test = _checked_test_labels(y, y_test, test)
    return X, y, X_test, y_test, spec


def _test_data(test, width, strict_features):
    """The test file ``test`` in its own format, as a CSR matrix ``width`` wide, for training
    data of another format or the shipped USPS: a feature beyond ``width`` ignored (counted on
    standard error) or, with ``strict_features``, refused; a narrower file told.  A CSV file's
    width is its header's or first row's, so it is refused whole when wider, not a line."""
    import scipy.sparse as sp

    if _format(test) == "csv":
        X_test, y_test = _read_file(test)
        if strict_features and X_test.shape[1] > width:
            raise DataError(f"{test} has {X_test.shape[1]} feature columns, the training data "
                            f"{width} features: --strict-features refuses a test file wider "
                            "than the training data.")
        X_test = sp.csr_matrix(X_test)
    else:
        X_test, y_test = _read_libsvm(test, **({"n_features": width} if strict_features
                                               else {}))
    X_test = _narrowed(X_test, width, test)
    X_test.resize((X_test.shape[0], width))
    return X_test, whole_number_labels(y_test)


def _read_file(path):
    """:func:`onlinear.data.read_file` (a CSV file), its errors as :class:`DataError` s."""
    from ..data import read_file

    return _read(path, read_file, "CSV")


def _narrowed(X, width, path):
    """The CSR matrix ``X`` without its features beyond ``width``, their count told on
    standard error."""
    if X.shape[1] < width:
        click.echo(f"note: {path} has {X.shape[1]:,} features, the training data {width:,}: the "
                   "features it lacks read as 0.", err=True)
    if X.shape[1] <= width:
        return X
    beyond = X.indices >= width
    rows = np.unique(np.searchsorted(X.indptr, np.flatnonzero(beyond), side="right"))
    click.echo(f"note: {path} has {X.shape[1]:,} features, the training data {width:,}: ignored "
               f"{int(beyond.sum()):,} value(s) of features beyond, on {rows.size:,} of "
               f"{X.shape[0]:,} rows (--strict-features refuses them).", err=True)
    return X[:, :width].tocsr()


def _checked_test_labels(y, y_test, path):
    """``y_test``, of the type of the training labels ``y``, after telling on standard error
    how many test rows have a label the training data lacks (a model cannot predict it: each
    is an error of the test error)."""
    if y.dtype.kind == "U" and y_test.dtype.kind != "U":
        # words among the training labels (a CSV file's): a test file's numbers (a LIBSVM
        # file's, say) are compared as the text they would be in it, 1 as '1', not refused as
        # labels of another type
        y_test = y_test.astype(str)
    elif y_test.dtype.kind == "U" and y.dtype.kind != "U":
        word = next(v for v in y_test.tolist() if not _is_number(v))
        raise DataError(f"{path} has a test label that is not a number ({word!r}), but the "
                        "training data's labels are numbers: no model of them can predict it.")
    unseen = ~np.isin(y_test, np.unique(y))
    if unseen.any():
        labels = np.unique(y_test[unseen]).tolist()
        shown = ", ".join(map(str, labels[:10])) + (", ..." if len(labels) > 10 else "")
        click.echo(f"note: {path}: {int(unseen.sum()):,} of {y_test.shape[0]:,} test rows have a "
                   f"label the training data lacks ({shown}); each counts as a test error.",
                   err=True)
    return y_test


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _one_based(X):
    import scipy.sparse as sp

    if X.shape[1] == 0:
        return X
    return sp.csr_matrix((X.data, X.indices - 1, X.indptr), shape=(X.shape[0], X.shape[1] - 1))


def _catalogue():
    from ..data import list_datasets

    return set(list_datasets())


def _read_libsvm(path, **options):
    """:func:`onlinear.data.load_libsvm`, its errors as :class:`DataError` s."""
    from ..data import load_libsvm

    return _read(path, load_libsvm, "LIBSVM", **options)


def _read(path, reader, kind, **options):
    """``reader(path, **options)``, its errors as a :class:`DataError` naming the file (a file
    of no example too: scikit-learn's message for it names no file)."""
    try:
        X, y = reader(path, **options)
    except FileNotFoundError:
        raise DataError(f"no such file: {path} (DATA is 'usps', a catalogue name of "
                        "onlinear.data, or a LIBSVM or CSV file)") from None
    except IsADirectoryError:
        raise DataError(f"{path} is a directory, not a {kind} file") from None
    except ValueError as error:  # a FileFormatError names the file and the line
        raise DataError(f"cannot read a {kind} file: {error}") from None
    except OSError as error:
        raise DataError(f"cannot read {path}: {error.strerror or error}") from None
    if X.shape[0] == 0:
        raise DataError(f"{path} holds no example (an empty {kind} file, or one of blank lines "
                        "and comments only)")
    return X, y
