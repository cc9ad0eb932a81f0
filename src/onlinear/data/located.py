"""A LIBSVM stream read in chunks with the lines of the chunk in use at hand (found again in the
file by their offsets, or kept for standard input), so that a value a consumer cannot take is
an error naming the file, the line and the token — as the reader names a line it cannot parse —
not a row of some chunk.  The command line's streaming commands read their DATA through it.
"""
import contextlib

import numpy as np

from .libsvm import whole_number_labels

__all__ = ["LocatedSource", "LocatedCsvSource", "located_source", "row_of_entry", "LISTED"]

#: labels listed in a message at most
LISTED = 20


class LocatedSource:
    """DATA (a LIBSVM file, or ``-`` for standard input) read in chunks, with the lines of the
    chunk in use at hand: a value a command cannot take is then an error naming the file, the line
    and the token, as the reader names a line it cannot parse (not a row of some chunk).

    Iterating yields ``(X, y)``: ``y`` a list of label tuples if ``multilabel``, else labels as
    :func:`onlinear.data.whole_number_labels` reads them.  The ``check_*`` methods raise a
    :class:`~onlinear.data.FileFormatError` for the first bad row of the chunk in use.

    Parameters
    ----------
    data : str or path-like
        The LIBSVM file, or ``"-"`` for standard input.
    chunk_size : int
        Rows per chunk.
    n_features : int or None
        Columns of every chunk (None: each chunk as wide as its largest index).
    multilabel : bool
        Label sets (``1,3 index:value ...``) rather than one label a row.
    rows_before_fault : bool, default=False
        On a line the reader cannot parse, yield the chunk's rows before it first (then
        raise), so that a consumer can keep what it learned up to the bad line.
    """

    def __init__(self, data, chunk_size, n_features, multilabel, rows_before_fault=False):
        self.data, self.chunk_size = data, chunk_size
        self.n_features, self.multilabel = n_features, multilabel
        self.rows_before_fault = rows_before_fault  # (see data.libsvm._located_chunks)
        self.X = self.numbers = self.lines = None  # the chunk in use
        self.bad_row = None  # the row of the chunk in use that the last error named

    def __iter__(self):
        from .libsvm import _located_chunks

        for X, y, numbers, lines in _located_chunks(self.data, self.chunk_size, self.n_features,
                                                    multilabel=self.multilabel,
                                                    rows_before_fault=self.rows_before_fault):
            self.X, self.numbers, self.lines = X, numbers, lines
            yield X, (y if self.multilabel else whole_number_labels(y))
            # the chunk used: the next one is parsed without it in memory
            X = y = numbers = lines = self.X = self.numbers = self.lines = None
        self.X = self.numbers = self.lines = None  # (an error after the stream is no row's)

    def error(self, row, problem):
        """The error naming row ``row`` of the chunk in use."""
        from .libsvm import _row_error

        self.bad_row = row
        return _row_error(self.data, self.numbers[row], self.lines[row], problem)

    def check_values(self, X):
        """Refuse a NaN or infinite feature value (the reader takes ``nan`` and ``inf``)."""
        finite = np.isfinite(X.data)
        if finite.all():
            return
        row = row_of_entry(X, int(np.argmin(finite)))
        raise self.error(row, "feature values must be finite numbers; got "
                         f"{self._token(row, lambda index, value: not np.isfinite(value))!r}")

    def check_width(self, X, width):
        """Refuse a feature index beyond a model's ``width`` features."""
        if X.shape[1] <= width:
            return
        beyond = np.flatnonzero(X.indices >= width)
        # (an explicit 0 beyond the width may not be stored: then look for it line by line)
        rows = [row_of_entry(X, int(beyond[0]))] if beyond.size else range(X.shape[0])
        for row in rows:
            token = self._token(row, lambda index, value: index > width)
            if token is not None:
                raise self.error(row, f"feature index {token.partition(':')[0]} of {token!r} "
                                 f"is beyond the model's {width} features")
        raise ValueError(f"the data has a feature index up to {X.shape[1]}, but the model "
                         f"knows {width} features.")

    def check_labels(self, y, allowed=None, ranks=False):
        """Refuse a label that is not a finite number, or (``allowed`` given) not one of
        ``allowed``: the classes, or with ``ranks`` an ordinal model's ranks."""
        listed = None if allowed is None else set(allowed)
        if self.multilabel:
            for row, labels in enumerate(y):
                for label in labels:
                    if not np.isfinite(label) or (listed is not None and label not in listed):
                        self._refuse_label(row, label, allowed, ranks)
            return
        finite = np.isfinite(y) if y.dtype.kind == "f" else np.ones(y.shape[0], dtype=bool)
        bad = ~finite
        if listed is not None:  # (one look-up per distinct label, not per row)
            values = y[finite]
            distinct = np.unique(values)
            known = np.array([v in listed for v in distinct.tolist()], dtype=bool)
            bad[finite] = ~known[np.searchsorted(distinct, values)]
        if bad.any():
            row = int(np.argmax(bad))
            self._refuse_label(row, y[row], allowed, ranks)

    def _refuse_label(self, row, label, allowed, ranks):

        written = self._label_text(row)
        if self.multilabel:  # the one label of the set, as written
            for part in written.split(","):
                with contextlib.suppress(ValueError):
                    value = float(part)
                    if value == label or (np.isnan(value) and np.isnan(label)):
                        written = part
                        break
        if not np.isfinite(label):
            raise self.error(row, f"label {written!r} is not a finite number")
        shown = ", ".join(str(v) for v in list(allowed)[:LISTED]) + (
            ", ..." if len(allowed) > LISTED else "")
        if ranks:
            raise self.error(row, f"label {written!r} is not a rank of the model (its ranks: "
                             f"{shown})")
        raise self.error(row, f"label {written!r} is not one of the classes {shown}")

    def refused(self, error, model):
        """The error to raise for ``error``, which ``model`` raised on the chunk in use (its
        message cannot name the line): the row that widens the chunk beyond a model that
        cannot grow, or the first row whose norm the model refuses, else the chunk's lines."""
        from ._files import FileFormatError
        from ..estimators.checks import check_row

        X = self.X
        width = getattr(model, "n_features_in_", None)
        if width is not None and X.shape[1] > width:  # the chunk widens a model that refused
            beyond = np.flatnonzero(X.indices >= width)
            row = row_of_entry(X, int(beyond[0])) if beyond.size else None
            token = None if row is None else self._token(row, lambda index, value: index > width)
            if token is not None:
                return self.error(row, f"feature index {token.partition(':')[0]} of {token!r} "
                                  f"is beyond the model's {width} features: "
                                  f"{str(error).rstrip('.')}")
        exponent = {}  # the model's range of row norms (see estimators.checks.check_row)
        with contextlib.suppress(AttributeError):
            exponent["exponent"] = model._row_exponent
        for row in range(X.shape[0]):
            values = np.ascontiguousarray(X.data[X.indptr[row]:X.indptr[row + 1]],
                                          dtype=np.float64)
            try:
                check_row(values, **exponent)
            except ValueError as refusal:
                largest = float(np.max(np.abs(values))) if values.size else 0.0
                token = self._token(row, lambda index, value: abs(value) == largest)
                message = str(refusal).replace("x has", "the row has", 1).rstrip(".")
                return self.error(row, f"{message} (its largest value: {token!r})")
        return FileFormatError(self.data, f"lines {self.numbers[0]}-{self.numbers[-1]}: "
                               f"{error}")

    def _label_text(self, row):
        """The label field of row ``row`` of the chunk in use, as written."""
        from .libsvm import _line_tokens

        return _line_tokens(self.lines[row])[0]

    def _token(self, row, test):
        from .libsvm import _token_where

        return _token_where(self.lines[row], test)


def row_of_entry(X, entry):
    """The row of the CSR matrix ``X`` that holds its stored entry number ``entry`` (an int;
    an array of entries gives an array of rows)."""
    rows = np.searchsorted(X.indptr, entry, side="right") - 1
    return int(rows) if np.ndim(rows) == 0 else rows


class LocatedCsvSource(LocatedSource):
    """:class:`LocatedSource` for a CSV stream (:func:`onlinear.data.iter_csv_chunks`: one label
    column, the last by default): chunks as CSR matrices (the commands' row checks read CSR),
    errors naming the line and quoting the field (as ``column:value``).

    Parameters
    ----------
    data : str or path-like
        The CSV file, or ``"-"`` for standard input.
    chunk_size : int
        Rows per chunk.
    n_features : int or None
        Unused (a table's width is its columns'); for :class:`LocatedSource`'s signature.
    multilabel : bool
        Must be False: a CSV row holds one label.
    rows_before_fault : bool, default=False
        Unused: a CSV chunk is parsed whole.
    label_column : int or str, default=-1
        As for :func:`onlinear.data.load_csv`.
    """

    def __init__(self, data, chunk_size, n_features, multilabel, rows_before_fault=False,
                 label_column=-1):
        if multilabel:
            raise ValueError("a CSV row holds one label: label sets are read from LIBSVM files "
                             "(1,3 index:value ...).")
        super().__init__(data, chunk_size, None, False, rows_before_fault)
        self.label_column = label_column

    def __iter__(self):
        from .csv import _located_csv_chunks

        for X, y, numbers, rows in _located_csv_chunks(self.data, self.chunk_size,
                                                       self.label_column, sparse=True):
            self.X, self.numbers, self.lines = X, numbers, rows
            yield X, y
            # the chunk used: the next one is parsed without it in memory
            X = y = numbers = rows = self.X = self.numbers = self.lines = None
        self.X = self.numbers = self.lines = None

    def error(self, row, problem):
        from ._files import FileFormatError

        self.bad_row = row
        fields = self.lines[row]
        shown = ",".join(fields)
        return FileFormatError(self.data, f"{problem}; the line reads "
                               f"{shown[:80] + '...' if len(shown) > 80 else shown!r}",
                               self.numbers[row])

    def _label_text(self, row):
        return self.lines[row][-1].strip()

    def _token(self, row, test):
        for column, field in enumerate(self.lines[row][:-1], 1):
            try:
                if test(column, float(field)):
                    return f"{column}:{field.strip()}"
            except ValueError:
                continue
        return None


def located_source(data, chunk_size, n_features, multilabel, rows_before_fault=False,
                   format=None):
    """The located source of ``data`` in ``format`` (by default its suffix's,
    :func:`onlinear.data.formats.format_of`): LIBSVM or CSV."""
    from .formats import format_of

    name = format_of(data, format).name
    if name == "csv":
        return LocatedCsvSource(data, chunk_size, n_features, multilabel, rows_before_fault)
    if name != "libsvm":
        raise ValueError(f"{name} files are not read as a stream; the streaming commands read "
                         "LIBSVM and CSV.")
    return LocatedSource(data, chunk_size, n_features, multilabel, rows_before_fault)
