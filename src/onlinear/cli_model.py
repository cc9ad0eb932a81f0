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
"""
import contextlib
import json
import os
import sys

import click
import numpy as np

from .cli import (
    _check_distinct,
    _check_output,
    _clean_errors,
    _labels,
    _parse_params,
    _replacing,
    _usage,
    cli,
)
from .streaming import padded

_TASKS = ("multiclass", "multilabel", "ordinal")
_LISTED = 20  # labels listed in a message at most


def _source(data):
    if data != "-" and not os.path.exists(data):
        raise click.BadParameter(f"no such file: {data}", param_hint="DATA")
    return data


class _Source:
    """DATA (a LIBSVM file, or ``-`` for standard input) read in chunks, with the lines of the
    chunk in use kept: a value a command cannot take is then an error naming the file, the line
    and the token, as the reader names a line it cannot parse (not a row of some chunk).

    Iterating yields ``(X, y)``: ``y`` a list of label tuples if ``multilabel``, else labels as
    :func:`onlinear.cli._labels` reads them.  The ``check_*`` methods raise a
    :class:`~onlinear.data.FileFormatError` for the first bad row of the chunk in use.
    """

    def __init__(self, data, chunk_size, n_features, multilabel, rows_before_fault=False):
        self.data, self.chunk_size = data, chunk_size
        self.n_features, self.multilabel = n_features, multilabel
        self.rows_before_fault = rows_before_fault  # (see data.libsvm._located_chunks)
        self.X = self.numbers = self.lines = None  # the chunk in use
        self.bad_row = None  # the row of the chunk in use that the last error named

    def __iter__(self):
        from .data.libsvm import _located_chunks

        for X, y, numbers, lines in _located_chunks(self.data, self.chunk_size, self.n_features,
                                                    multilabel=self.multilabel,
                                                    rows_before_fault=self.rows_before_fault):
            self.X, self.numbers, self.lines = X, numbers, lines
            yield X, (y if self.multilabel else _labels(y))
        self.X = self.numbers = self.lines = None  # (an error after the stream is no row's)

    def error(self, row, problem):
        """The error naming row ``row`` of the chunk in use."""
        from .data.libsvm import _row_error

        self.bad_row = row
        return _row_error(self.data, self.numbers[row], self.lines[row], problem)

    def check_values(self, X):
        """Refuse a NaN or infinite feature value (the reader takes ``nan`` and ``inf``)."""
        finite = np.isfinite(X.data)
        if finite.all():
            return
        row = _row_of(X, int(np.argmin(finite)))
        raise self.error(row, "feature values must be finite numbers; got "
                         f"{self._token(row, lambda index, value: not np.isfinite(value))!r}")

    def check_width(self, X, width):
        """Refuse a feature index beyond a model's ``width`` features."""
        if X.shape[1] <= width:
            return
        beyond = np.flatnonzero(X.indices >= width)
        # (an explicit 0 beyond the width may not be stored: then look for it line by line)
        rows = [_row_of(X, int(beyond[0]))] if beyond.size else range(X.shape[0])
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
        from .data.libsvm import _line_tokens

        written = _line_tokens(self.lines[row])[0]
        if self.multilabel:  # the one label of the set, as written
            for part in written.split(","):
                with contextlib.suppress(ValueError):
                    value = float(part)
                    if value == label or (np.isnan(value) and np.isnan(label)):
                        written = part
                        break
        if not np.isfinite(label):
            raise self.error(row, f"label {written!r} is not a finite number")
        shown = ", ".join(str(v) for v in list(allowed)[:_LISTED]) + (
            ", ..." if len(allowed) > _LISTED else "")
        if ranks:
            raise self.error(row, f"label {written!r} is not a rank of the model (its ranks: "
                             f"{shown})")
        raise self.error(row, f"label {written!r} is not one of the classes {shown}")

    def refused(self, error, model):
        """The error to raise for ``error``, which ``model`` raised on the chunk in use (its
        message cannot name the line): the row that widens the chunk beyond a model that
        cannot grow, or the first row whose norm the model refuses, else the chunk's lines."""
        from .data import FileFormatError
        from .estimators.checks import check_row

        X = self.X
        width = getattr(model, "n_features_in_", None)
        if width is not None and X.shape[1] > width:  # the chunk widens a model that refused
            beyond = np.flatnonzero(X.indices >= width)
            row = _row_of(X, int(beyond[0])) if beyond.size else None
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

    def _token(self, row, test):
        from .data.libsvm import _token_where

        return _token_where(self.lines[row], test)


def _row_of(X, entry):
    """The row of the CSR matrix ``X`` that holds its stored entry number ``entry`` (an int;
    an array of entries gives an array of rows)."""
    rows = np.searchsorted(X.indptr, entry, side="right") - 1
    return int(rows) if np.ndim(rows) == 0 else rows


def _parse_classes(text):
    from .cli import parse_value

    if text is None:
        return None
    values = [parse_value(v) for v in text.split(",") if v.strip()]
    if len(values) < 1:
        raise click.BadParameter("give the labels as a comma-separated list.",
                                 param_hint="--classes")
    return values


def _scan_classes(data, multilabel):
    """All the labels of a file: a scan of its label fields at the speed of reading it (the
    features are parsed once, by the pass that learns)."""
    from .data.libsvm import libsvm_labels

    labels = libsvm_labels(data, multilabel)
    return labels if multilabel else _labels(np.array(labels, dtype=np.float64)).tolist()


def _targets(y, multilabel):
    # label sets as frozensets (unambiguous: a list of 1-tuples of 0/1 would read as an
    # indicator column), whole-number labels as ints (LIBSVM stores them as floats)
    if multilabel:
        return [frozenset(int(v) if float(v).is_integer() else v for v in row) for row in y]
    return y


@cli.command("train", short_help="Learn a LIBSVM stream into a model file.")
@click.argument("arguments", nargs=-1, metavar="[ALGORITHM] DATA")
@click.option("--save", "save_path", required=True, callback=_check_output,
              help="Model file to write (also the checkpoint file, and where a failed or "
              "interrupted run keeps what it learned).")
@click.option("--model", "model_path", default=None, type=click.Path(dir_okay=False),
              help="Continue training this saved model instead of starting ALGORITHM.")
@click.option("--param", "params", multiple=True, callback=_parse_params, metavar="KEY=VALUE",
              help="Hyperparameter of ALGORITHM (repeatable).")
@click.option("--task", type=click.Choice(_TASKS), default="multiclass", show_default=True,
              help="multilabel: labels are comma-separated sets (1,3 1:0.5 …); ordinal: "
              "labels are ranks, in the order given by --classes.")
@click.option("--classes", default=None, help="All the labels of the stream, comma-separated "
              "(required for standard input; a file is scanned for them otherwise).")
@click.option("--n-features", type=click.IntRange(1), default=None,
              help="Fix the number of features: a larger index is an error naming its line. "
              "By default the model grows as the stream reaches new features.")
@click.option("--chunk-size", type=click.IntRange(1), default=4096, show_default=True,
              help="Rows read and learned at a time.")
@click.option("--checkpoint-every", type=click.IntRange(1), default=None,
              help="Save the model to --save every N examples (atomic writes).")
@click.option("--resume", is_flag=True,
              help="If --save holds a checkpoint of this stream, continue from it (give the "
              "same ALGORITHM and --param as the run that wrote it).")
@click.option("--quiet", is_flag=True, help="No progress table.")
@_clean_errors
def train_command(arguments, save_path, model_path, params, task, classes, n_features,
                  chunk_size, checkpoint_every, resume, quiet):
    """Learn DATA (a LIBSVM file, plain or compressed, or - for standard input) one example at
    a time with ALGORITHM, and save the model.  Prints a progressive-validation table (every
    example predicted before it is learned) on a doubling schedule to standard error.

    On Ctrl-C (at the end of the chunk in use; twice: at once) or a line it cannot learn, the
    model learned from the rows before is saved to --save, atomically, as a checkpoint (the
    same command with --resume goes on from it), and standard error says how many examples it
    holds, or that nothing was learned (--save then left as it was).  --resume checks the
    checkpoint's algorithm and hyperparameters before reading DATA."""
    from . import load

    if len(arguments) != (1 if model_path is not None else 2):
        raise click.UsageError("give ALGORITHM DATA, or DATA with --model (a saved model to "
                               "continue).")
    algorithm, data = (None, *arguments) if model_path is not None else arguments
    if model_path is not None and params:
        raise click.UsageError("--param applies to a new ALGORITHM, not to --model.")
    # (--model may be --save: continuing a model in its own file reads it whole first, and
    # replaces it atomically)
    _check_distinct({"DATA": data}, {"--save": save_path})
    data = _source(data)
    labels = _parse_classes(classes)
    multilabel = task == "multilabel"
    try:
        if model_path is not None:
            model = load(model_path)
        else:
            model = _new_model(algorithm, None if task == "multiclass" else task, params)
        _train(model, data, save_path, task, labels, classes, multilabel, n_features,
               chunk_size, checkpoint_every, resume, quiet)
    except KeyboardInterrupt as error:
        for note in getattr(error, "__notes__", None) or [
                f"nothing learned: {save_path} "
                f"{'left as it was' if os.path.exists(save_path) else 'not written'}"]:
            click.echo(note, err=True)
        click.echo("interrupted.", err=True)
        raise click.exceptions.Exit(130) from None


def _train(model, data, save_path, task, labels, classes, multilabel, n_features, chunk_size,
           checkpoint_every, resume, quiet):
    """``train``'s stream learned into ``save_path``; on a bad line or an interrupt, what was
    learned before it is saved there (a checkpoint ``--resume`` continues) and said."""
    from . import learn_stream
    from .data import FileFormatError
    from .streaming import resumable

    started = hasattr(model, "classes_")
    allowed = model.classes_.tolist() if started else labels
    if resume and os.path.exists(save_path):
        # checked before the stream is read (or scanned for its labels): a checkpoint of other
        # hyperparameters fails at once; one that has learned knows the labels
        checkpoint = resumable(model, save_path)
        if hasattr(checkpoint, "classes_"):
            started, allowed = True, checkpoint.classes_.tolist()
    if not started and labels is None:
        if data == "-":
            raise click.UsageError("--classes is required when DATA is standard input (a "
                                   "model must know every label before the first example).")
        labels = allowed = _scan_classes(data, multilabel)
    if task == "ordinal" and labels is not None and classes is None and not started:
        click.echo("note: ranks ordered by value (give --classes for another order)", err=True)
    table = None if quiet else _ProgressTable()
    source = _Source(data, chunk_size, n_features, multilabel, rows_before_fault=True)
    interrupt = _Interrupt()

    def chunks():
        # what the model would refuse, refused here naming its line (the model cannot); the
        # rows before a bad one are learned first
        for X, y in source:
            interrupt.check()
            try:
                source.check_values(X)
                source.check_labels(y, allowed)
            except FileFormatError:
                if source.bad_row:
                    yield X[:source.bad_row], _targets(y[:source.bad_row], multilabel)
                raise
            yield X, _targets(y, multilabel)

    try:
        with interrupt:
            model = learn_stream(model, chunks(), classes=labels, checkpoint=save_path,
                                 checkpoint_every=checkpoint_every, resume=resume,
                                 grow=n_features is None, report=table, keep_on_failure=True)
    except ValueError as error:
        for note in getattr(error, "__notes__", ()):
            click.echo(note, err=True)
        if isinstance(error, FileFormatError) or source.X is None:
            raise  # named already, or not about a row (e.g. a checkpoint of another model)
        raise source.refused(error, model) from error
    if not hasattr(model, "classes_"):
        raise click.ClickException(f"{'standard input' if data == '-' else data} holds no "
                                   "example: nothing learned, no model saved.")
    click.echo(f"saved {save_path} ({model.n_seen_:,} examples learned)", err=True)


class _Interrupt:
    """Ctrl-C (SIGINT) while ``train`` learns: the first stops the stream between two chunks,
    so the model is whole and can be saved; a second stops at once (the model is then saved
    only if the interrupt lands between chunks).  Outside the main thread (no signal handler
    can be set there) a Ctrl-C is Python's KeyboardInterrupt as usual."""

    def __init__(self):
        self.requested, self.previous = False, None

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exception):
        import signal

        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        click.echo("interrupt: stopping after the chunk in use (Ctrl-C again to stop at once)",
                   err=True)

    def check(self):
        if self.requested:
            raise KeyboardInterrupt


def _new_model(algorithm, task, params):
    """The estimator ALGORITHM for ``task`` with ``params``: an unknown name, task or
    hyperparameter, or a bad value, is a usage error (exit code 2)."""
    from .registry import describe, make

    with _usage():
        known = describe(algorithm)
        estimator = known.estimator if task in (None, known.task) else known.tasks.get(task)
        if estimator is not None:  # (else make names the tasks there are)
            names = [n for n in estimator._get_param_names() if n not in known.fixed]
            for key in params:
                if key not in names:
                    raise ValueError(f"{algorithm} has no hyperparameter {key!r} (its "
                                     f"hyperparameters: {', '.join(names) or 'none'}).")
        return make(algorithm, task=task, **params)


class _ProgressTable:
    """Vowpal Wabbit's progress table: one line per doubling of the examples seen."""

    def __init__(self):
        click.echo(f"{'examples':>12} {'mistakes':>9} {'since last':>10} {'updates':>10} "
                   f"{'examples/s':>11}", err=True)

    def __call__(self, progress):
        click.echo(f"{progress.examples:>12,} {progress.mistake_rate:>9.4f} "
                   f"{progress.mistake_rate_since:>10.4f} {progress.updates:>10,} "
                   f"{progress.examples_per_second:>11,.0f}", err=True)


def _model_and_source(model_path, data, chunk_size):
    from . import load

    model = load(model_path)
    if not hasattr(model, "classes_"):
        raise click.ClickException(f"{model_path} holds a model that has learned nothing.")
    multilabel = bool(getattr(model, "multilabel_", False))
    data = _source(data)
    return model, multilabel, _Source(data, chunk_size, None, multilabel)


class _Readable:
    """The chunks of ``source`` as wide as ``model`` (a narrower one padded), after refusing a
    value that is not finite.  A feature beyond the model's width — one it never saw, so has
    no weight for — is dropped and counted, as Vowpal Wabbit ignores an unseen feature
    (:meth:`report` tells the count once, at the end), or with ``strict`` refused naming its
    line."""

    def __init__(self, source, model, strict):
        self.source, self.width, self.strict = source, model.n_features_in_, strict
        self.values = self.rows = self.widest = 0

    def __call__(self, X):
        self.source.check_values(X)
        if X.shape[1] > self.width:
            if self.strict:
                self.source.check_width(X, self.width)
            beyond = X.indices >= self.width
            self.values += int(beyond.sum())
            self.rows += np.unique(_row_of(X, np.flatnonzero(beyond))).size
            self.widest = max(self.widest, X.shape[1])
            X = X[:, :self.width].tocsr()
        return padded(X, self.width)

    def report(self):
        from .data._files import display_name

        if self.values:
            click.echo(f"note: {display_name(self.source.data)}: ignored {self.values:,} value(s) "
                       "of features "
                       f"beyond the model's {self.width:,} (the data reaches feature "
                       f"{self.widest:,}), on {self.rows:,} rows; --strict-features refuses "
                       "them.", err=True)


@contextlib.contextmanager
def _output(path):
    """A text handle on ``path``, written to a temporary file renamed onto it on success only
    (a failed command leaves an existing file as it was); standard output if ``path`` is
    None."""
    if path is None:
        yield sys.stdout
        return
    with _replacing(path) as temporary, open(temporary, "w", encoding="utf-8") as handle:
        yield handle


class _UnseenLabels:
    """The rows of a labelled stream with a label ``model`` never saw (not one of its
    classes), counted for :meth:`report`."""

    def __init__(self, model, source):
        self.known, self.source = set(model.classes_.tolist()), source
        self.multilabel = bool(getattr(model, "multilabel_", False))
        self.rows, self.labels = 0, set()

    def count(self, y):
        rows = _targets(y, True) if self.multilabel else np.asarray(y).tolist()
        for labels in rows:
            new = {v for v in (labels if self.multilabel else (labels,)) if v not in self.known}
            self.rows += bool(new)
            self.labels |= new

    def report(self, n):
        from .data._files import display_name

        if self.rows:
            shown = ", ".join(map(str, sorted(self.labels)[:_LISTED])) + (
                ", ..." if len(self.labels) > _LISTED else "")
            counted = ("each such label a wrong label" if self.multilabel
                       else "each such row a mistake")
            click.echo(f"note: {display_name(self.source.data)}: {self.rows:,} of {n:,} rows "
                       f"have a label the model never saw ({shown}): scored, {counted}.",
                       err=True)


def _strict_features_option(command):
    return click.option(
        "--strict-features", is_flag=True,
        help="Refuse a feature index beyond the model's features, naming the file and line "
        "(by default such features are ignored, as Vowpal Wabbit does, and counted on "
        "stderr).")(command)


@cli.command("predict", short_help="Predict a LIBSVM stream with a saved model.")
@click.argument("model_path", metavar="MODEL")
@click.argument("data")
@click.option("--output", default=None, callback=_check_output,
              help="Write the predictions here instead of standard output.")
@click.option("--scores", is_flag=True, help="Print the decision values (tab-separated) "
              "after each prediction.")
@click.option("--chunk-size", type=click.IntRange(1), default=4096, show_default=True)
@_strict_features_option
@_clean_errors
def predict_command(model_path, data, output, scores, chunk_size, strict_features):
    """One predicted label per line of DATA (a label set as comma-separated labels).  With
    --output, the file is written whole or not at all: a failed command leaves an existing one
    as it was.  A feature index beyond the model's features (one it never saw) is ignored,
    their count told on standard error at the end; --strict-features refuses it instead."""
    _check_distinct({"MODEL": model_path, "DATA": data}, {"--output": output})
    model, multilabel, source = _model_and_source(model_path, data, chunk_size)
    readable = _Readable(source, model, strict_features)
    try:
        with _output(output) as handle:
            for X, _ in source:
                X = readable(X)
                predicted = model.predict_label_sets(X) if multilabel else model.predict(X)
                values = model.decision_function(X) if scores else None
                for i, label in enumerate(predicted):
                    text = ",".join(map(str, label)) if multilabel else str(label)
                    if scores:
                        row = np.atleast_1d(values[i])
                        text += "\t" + "\t".join(f"{v:.17g}" for v in row)
                    handle.write(text + "\n")
    except BrokenPipeError:  # the reader stopped (e.g. `| head`): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the exit's flush does not fail again
        sys.exit(0)
    readable.report()


@cli.command("evaluate", short_help="Score a saved model on a labelled LIBSVM stream.")
@click.argument("model_path", metavar="MODEL")
@click.argument("data")
@click.option("--chunk-size", type=click.IntRange(1), default=4096, show_default=True)
@_strict_features_option
@_clean_errors
def evaluate_command(model_path, data, chunk_size, strict_features):
    """Accuracy (multiclass), Hamming loss (multilabel) or mean absolute rank error and
    accuracy (ordinal) of MODEL on DATA; the model does not learn.  Features beyond the
    model's are ignored as by predict.  A row whose label the model never saw (not one of its
    classes) is scored, and told on standard error: a mistake in the accuracy, each unseen
    label of a set a wrong label of the Hamming loss (over the model's classes); an ordinal
    model refuses a rank it does not know."""
    from .estimators.simultaneous import SimultaneousProjectionOrdinal

    model, multilabel, source = _model_and_source(model_path, data, chunk_size)
    ordinal = isinstance(model, SimultaneousProjectionOrdinal)
    rank = {label: i for i, label in enumerate(model.classes_.tolist())}
    readable, unseen = _Readable(source, model, strict_features), _UnseenLabels(model, source)
    n = correct = wrong_labels = rank_error = 0
    for X, y in source:
        X = readable(X)
        source.check_labels(y, list(rank) if ordinal else None, ranks=ordinal)
        unseen.count(y)
        if multilabel:
            predicted = model.predict_label_sets(X)
            for truth, guess in zip(_targets(y, True), predicted):
                wrong_labels += len(set(truth) ^ set(guess))
        else:
            predicted = model.predict(X)
            correct += int(np.sum(predicted == y))
            if ordinal:
                rank_error += sum(abs(rank[a] - rank[b]) for a, b in zip(predicted.tolist(),
                                                                          y.tolist()))
        n += X.shape[0]
    if n == 0:
        raise click.ClickException("no example to evaluate.")
    readable.report()
    unseen.report(n)
    result = {"examples": n}
    if multilabel:
        result["hamming_loss"] = wrong_labels / (n * model.classes_.shape[0])
    else:
        result["accuracy"] = correct / n
        if ordinal:
            result["mean_absolute_rank_error"] = rank_error / n
    for key, value in result.items():
        click.echo(f"{key}: {value:,}" if isinstance(value, int) else f"{key}: {value:.6f}")


@cli.command("info", short_help="Print a model file's header.")
@click.argument("model_path", metavar="MODEL")
@_clean_errors
def info_command(model_path):
    """The header of MODEL (format, versions, algorithm, hyperparameters, counters) as JSON;
    the arrays are not read."""
    from .persistence import read_header

    header = read_header(model_path)
    header.pop("arrays", None)
    click.echo(json.dumps(header, indent=2, sort_keys=True))
