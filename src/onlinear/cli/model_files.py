"""The streaming commands of ``onlinear``, in the manner of Vowpal Wabbit (``vw -d … -f model``)
and SOL (``sol_train`` / ``sol_test``): learn a LIBSVM stream into a model file, then predict,
evaluate or describe with it.

    onlinear train pa1 train.svm --save pa1.onlinear --param C=0.1 --checkpoint-every 10000
    zcat train.svm.gz | onlinear train pa1 - --save pa1.onlinear --classes 1,2,3
    onlinear train --model pa1.onlinear more.svm --save pa1.onlinear   # continue training
    onlinear predict pa1.onlinear test.svm --output labels.txt
    onlinear evaluate pa1.onlinear test.svm
    onlinear info pa1.onlinear

DATA is read in chunks of ``--chunk-size`` rows: memory does not depend on the stream's length.
The progress table goes to standard error, so standard output stays clean for predictions.

This module holds what the streaming commands share; each command is a module of its own."""
import contextlib
import os
import sys

import click
import numpy as np

from ..streaming import padded
from ..data.located import LISTED, LocatedCsvSource, located_source, row_of_entry
from ..data import whole_number_labels
from .common import STDOUT, parse_value, replacing_output


TASKS = ("multiclass", "multilabel", "ordinal")


def data_path(data):
    if data != "-" and not os.path.exists(data):
        raise click.BadParameter(f"no such file: {data}", param_hint="DATA")
    return data


def parse_classes(text):
    if text is None:
        return None
    values = [parse_value(v) for v in text.split(",") if v.strip()]
    if len(values) < 1:
        raise click.BadParameter("give the labels as a comma-separated list.",
                                 param_hint="--classes")
    return values


def scan_classes(data, multilabel):
    """All the labels of a file: for LIBSVM a scan of its label fields at the speed of reading
    it (the features are parsed once, by the pass that learns); for CSV a read of it."""
    from ..data import libsvm_labels
    from ..data.formats import format_of
    from ..data.located import LocatedCsvSource

    if format_of(data).name == "csv":
        found = set()
        # (sparse chunks of the commands' size: a dense one of 65,536 rows of MNIST is 400 MB)
        for _, y in LocatedCsvSource(data, 4096, None, False):
            found.update(y.tolist())
        return sorted(found)
    labels = libsvm_labels(data, multilabel)
    if multilabel:
        return labels
    return whole_number_labels(np.array(labels, dtype=np.float64)).tolist()


def label_targets(y, multilabel):
    # label sets as frozensets (unambiguous: a list of 1-tuples of 0/1 would read as an
    # indicator column), whole-number labels as ints (LIBSVM stores them as floats)
    if multilabel:
        return [frozenset(int(v) if float(v).is_integer() else v for v in row) for row in y]
    return y


def model_and_source(model_path, data, chunk_size):
    from .. import load

    model = load(model_path)
    if not hasattr(model, "classes_"):
        raise click.ClickException(f"{model_path} holds a model that has learned nothing.")
    multilabel = bool(getattr(model, "multilabel_", False))
    data = data_path(data)
    return model, multilabel, located_source(data, chunk_size, None, multilabel)


class ReadableChunks:
    """The chunks of ``source`` as wide as ``model`` (a narrower one padded), after refusing a
    value that is not finite.  A feature beyond the model's width — one it never saw, so has
    no weight for — is dropped and counted, as Vowpal Wabbit ignores an unseen feature
    (:meth:`report` tells the count once, at the end), or with ``strict`` refused naming its
    line.  A CSV table narrower than the model is told too (its every row lacks the model's
    last features, which read as 0: likely another table than the model learned from); a
    LIBSVM row ends at its last non-zero, so its width tells nothing."""

    def __init__(self, source, model, strict):
        self.source, self.width, self.strict = source, model.n_features_in_, strict
        self.values = self.rows = self.widest = 0
        self.narrow_table = None  # (a CSV table's width, when narrower than the model)

    def __call__(self, X):
        self.source.check_values(X)
        if X.shape[1] < self.width and isinstance(self.source, LocatedCsvSource):
            self.narrow_table = X.shape[1]
        if X.shape[1] > self.width:
            if self.strict:
                self.source.check_width(X, self.width)
            beyond = X.indices >= self.width
            self.values += int(beyond.sum())
            self.rows += np.unique(row_of_entry(X, np.flatnonzero(beyond))).size
            self.widest = max(self.widest, X.shape[1])
            X = X[:, :self.width].tocsr()
        return padded(X, self.width)

    def report(self):
        from ..data import display_name

        if self.narrow_table is not None:
            click.echo(f"note: {display_name(self.source.data)} has {self.narrow_table:,} "
                       f"feature column(s), the model {self.width:,}: the features it lacks "
                       "read as 0.", err=True)
        if self.values:
            click.echo(f"note: {display_name(self.source.data)}: ignored {self.values:,} value(s) "
                       "of features "
                       f"beyond the model's {self.width:,} (the data reaches feature "
                       f"{self.widest:,}), on {self.rows:,} rows; --strict-features refuses "
                       "them.", err=True)


@contextlib.contextmanager
def output_file(path):
    """A text handle on ``path``, written to a temporary file renamed onto it on success only
    (a failed command leaves an existing file as it was); standard output if ``path`` is
    None."""
    if path is None or path == STDOUT:
        yield sys.stdout
        return
    with replacing_output(path) as temporary, open(temporary, "w", encoding="utf-8") as handle:
        yield handle


class UnseenLabels:
    """The rows of a labelled stream with a label ``model`` never saw (not one of its
    classes), counted for :meth:`report`."""

    def __init__(self, model, source):
        self.known, self.source = set(model.classes_.tolist()), source
        self.multilabel = bool(getattr(model, "multilabel_", False))
        self.rows, self.labels = 0, set()

    def count(self, y):
        rows = label_targets(y, True) if self.multilabel else np.asarray(y).tolist()
        for labels in rows:
            new = {v for v in (labels if self.multilabel else (labels,)) if v not in self.known}
            self.rows += bool(new)
            self.labels |= new

    def report(self, n):
        from ..data import display_name

        if self.rows:
            shown = ", ".join(map(str, sorted(self.labels)[:LISTED])) + (
                ", ..." if len(self.labels) > LISTED else "")
            counted = ("each such label a wrong label" if self.multilabel
                       else "each such row a mistake")
            click.echo(f"note: {display_name(self.source.data)}: {self.rows:,} of {n:,} rows "
                       f"have a label the model never saw ({shown}): scored, {counted}.",
                       err=True)


def strict_features_option(command):
    return click.option(
        "--strict-features", is_flag=True,
        help="Refuse a feature index beyond the model's features, naming the file and line "
        "(by default such features are ignored, as Vowpal Wabbit does, and counted on "
        "stderr).")(command)
