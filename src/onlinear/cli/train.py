"""``onlinear train``: learn a stream into a model file."""
import os

import click

from .common import (
    check_distinct,
    check_output,
    clean_errors,
    naming_output,
    parse_params,
    usage_errors,
)
from .group import cli
from .imports import import_estimators
from ..data.located import located_source
from .model_files import TASKS, data_path, label_targets, parse_classes, scan_classes


@cli.command("train", short_help="Learn a LIBSVM stream into a model file.")
@click.argument("arguments", nargs=-1, metavar="[ALGORITHM] DATA")
@click.option("--save", "save_path", required=True, callback=check_output,
              help="Model file to write (also the checkpoint file, and where a failed or "
              "interrupted run keeps what it learned).")
@click.option("--model", "model_path", default=None, type=click.Path(dir_okay=False),
              help="Continue training this saved model instead of starting ALGORITHM.")
@click.option("--param", "params", multiple=True, callback=parse_params, metavar="KEY=VALUE",
              help="Hyperparameter of ALGORITHM (repeatable).")
@click.option("--task", type=click.Choice(TASKS), default=None,
              help="multilabel: labels are comma-separated sets (1,3 1:0.5 …); ordinal: "
              "labels are ranks, in the order given by --classes.  [default: multiclass; "
              "with --model, the model's own task (another is refused)]")
@click.option("--classes", default=None, help="All the labels of the stream, comma-separated "
              "(required for standard input).  Without it, a file's first chunk's labels are "
              "taken for all (the file read once, as with --classes naming them), and the file "
              "is read again with every label if a later row holds another; with "
              "--checkpoint-every, the labels are found by a scan first.  With --model: the "
              "model's classes and any new ones, which are added to it (if its learner can "
              "grow); an ordinal model's ranks, in its order.")
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
@clean_errors
def train_command(arguments, save_path, model_path, params, task, classes, n_features,
                  chunk_size, checkpoint_every, resume, quiet):
    """Learn DATA (a LIBSVM file, plain or compressed, or - for standard input; or a CSV file,
    .csv or .tsv, label in the last column) one example at a time with ALGORITHM, and save
    the model.  Prints a progressive-validation table (every
    example predicted before it is learned) on a doubling schedule to standard error.

    On Ctrl-C (at the end of the chunk in use; twice: at once) or a line it cannot learn, the
    model learned from the rows before is saved to --save, atomically, as a checkpoint (the
    same command with --resume goes on from it), and standard error says how many examples it
    holds, or that nothing was learned (--save then left as it was).  --resume checks the
    checkpoint's algorithm and hyperparameters before reading DATA.

    With --model, the model keeps its task (read from the file; another --task is refused)
    and its classes: --classes may add classes to a learner that can grow, not leave any out
    (nor reorder an ordinal model's ranks)."""
    from .. import load

    import_estimators()
    if len(arguments) != (1 if model_path is not None else 2):
        raise click.UsageError("give ALGORITHM DATA, or DATA with --model (a saved model to "
                               "continue).")
    algorithm, data = (None, *arguments) if model_path is not None else arguments
    if model_path is not None and params:
        raise click.UsageError("--param applies to a new ALGORITHM, not to --model.")
    # (--model may be --save: continuing a model in its own file reads it whole first, and
    # replaces it atomically)
    check_distinct({"DATA": data}, {"--save": save_path})
    data = data_path(data)
    labels = parse_classes(classes)
    try:
        # SIGTERM (timeout, docker stop, a batch scheduler) keeps what was learned as Ctrl-C
        # does, instead of Python's default of dying with nothing saved
        with _Terminate():
            if model_path is not None:
                model = load(model_path)
                task = _continued_task(model, model_path, task)
            else:
                task = task or "multiclass"
                model = _new_model(algorithm, None if task == "multiclass" else task, params)
            multilabel = task == "multilabel"
            with naming_output(save_path):  # (the model is saved by learn_stream, deep down)
                _train(model, model_path, data, save_path, task, labels, classes, multilabel,
                       n_features, chunk_size, checkpoint_every, resume, quiet)
    except KeyboardInterrupt as error:
        # (no note: before the stream, or a second Ctrl-C inside a chunk: nothing whole to save)
        for note in getattr(error, "__notes__", None) or [
                f"nothing saved: {save_path} "
                f"{'left as it was' if os.path.exists(save_path) else 'not written'}"]:
            click.echo(note, err=True)
        terminated = isinstance(error, _Terminated)
        click.echo("terminated." if terminated else "interrupted.", err=True)
        # (the shell's codes for a process that SIGTERM, or SIGINT, stopped: 128 + the signal)
        raise click.exceptions.Exit(143 if terminated else 130) from None


def _train(model, model_path, data, save_path, task, labels, classes, multilabel, n_features,
           chunk_size, checkpoint_every, resume, quiet):
    """``train``'s stream learned into ``save_path``; on a bad line or an interrupt, what was
    learned before it is saved there (a checkpoint ``--resume`` continues) and said."""
    from ..streaming import resumable

    started = hasattr(model, "classes_")
    continued, where = (model, model_path) if started else (None, None)
    if resume and os.path.exists(save_path):
        # checked before the stream is read (or scanned for its labels): a checkpoint of other
        # hyperparameters fails at once; one that has learned knows the labels
        checkpoint = resumable(model, save_path)
        if hasattr(checkpoint, "classes_"):
            where = f"the checkpoint {save_path}"
            if checkpoint.task_.name != task:  # (the same estimator learns sets or labels)
                raise click.UsageError(
                    f"--resume: {where} holds a {checkpoint.task_.name} model, not a {task} "
                    f"one: give --task {checkpoint.task_.name}, as the run that wrote it.")
            started, continued = True, checkpoint
    if continued is not None and labels is not None:
        # learn_stream passes no classes to a started model: --classes is checked, and the
        # model grown, here (the checkpoint is read again by learn_stream: it cannot grow)
        _continue_classes(continued, labels, classes, where, grow=continued is model)
    allowed = continued.classes_.tolist() if started else labels
    if not started and labels is None and data == "-":
        raise click.UsageError("--classes is required when DATA is standard input (a "
                               "model must know every label before the first example).")
    if task == "ordinal" and classes is None and not started:
        click.echo("note: ranks ordered by value (give --classes for another order)", err=True)
    table = None if quiet else _ProgressTable()
    stream = _Stream(data, chunk_size, n_features, multilabel)
    if not started and labels is None:
        if checkpoint_every is None:
            # the first chunk's labels taken for all: read once, the stream learns what it
            # learns with --classes, unless a later row holds another label
            learned = _first_chunk_labels(model, stream, save_path, resume, table)
            if learned is not None:
                return _saved(learned, data, save_path)
            from sklearn.base import clone

            model = clone(model)  # (a new model: nothing learned is kept)
        labels = allowed = scan_classes(data, multilabel)
    model = _learn(model, stream, save_path, labels, allowed, checkpoint_every, resume, table)
    _saved(model, data, save_path)


def _task_of(model):
    """The task of a loaded model ("multiclass", "multilabel", "ordinal"), or None for one that
    has learned nothing (its estimator may learn more than one)."""
    return model.task_.name if hasattr(model, "classes_") else None


def _learnable_tasks(model):
    """The tasks of :data:`TASKS` an estimator that has learned nothing can learn, by its
    registration (:mod:`onlinear.registry`); None for an estimator not registered."""
    from ..registry import algorithm_of, describe

    name = algorithm_of(model)
    if name is None:
        return None
    known = describe(name)
    main = "multiclass" if known.task == "binary" else known.task
    tasks = {task for task, cls in known.tasks.items() if cls is type(model)}
    if known.estimator is type(model):
        tasks.add(main)
    return [task for task in TASKS if task in tasks]


def _continued_task(model, model_path, task):
    """The task ``train --model`` continues: the model's own (``task``, the --task given or
    None, must be it), or for a model that has learned nothing, ``task`` if its estimator can
    learn it (default: the first it can)."""
    own = _task_of(model)
    if own is not None:
        if task not in (None, own):
            raise click.BadParameter(
                f"{model_path} holds a {own} model, not a {task} one (a continued model keeps "
                "its task): leave --task out, or start a new model.",
                param_hint="--task")
        return own
    tasks = _learnable_tasks(model)
    if tasks is None or task in tasks:
        return task or "multiclass"
    if task is None:
        return tasks[0] if tasks else "multiclass"
    raise click.BadParameter(
        f"{model_path} holds a {type(model).__name__} that has learned nothing and learns "
        f"{' or '.join(tasks) or 'none of the tasks of train'} targets, not {task}.",
        param_hint="--task")


def _continue_classes(model, labels, text, where, grow):
    """Check ``labels`` (--classes, as typed: ``text``) against the classes of ``model``, a
    continued model (of --model, or the checkpoint ``--resume`` continues): the same, or with
    ``grow`` more, which are added to it; ``partial_fit(classes=...)`` takes the same."""
    known = model.classes_.tolist()
    shown = ", ".join(map(str, known))
    if model.task_.name == "ordinal":
        # (a rank order is fixed when the model starts: ranks cannot be added or reordered)
        if labels != known:
            raise click.BadParameter(
                f"{where} is an ordinal model of the ranks {shown}, in this order; --classes "
                f"gives {', '.join(map(str, labels))}.  A continued model keeps its ranks and "
                f"their order: give --classes {','.join(map(str, known))}, or leave it out.",
                param_hint="--classes")
        return
    lacking = [c for c in known if c not in labels]
    if lacking:
        raise click.BadParameter(
            f"{text} lacks {', '.join(map(str, lacking))} of the classes of {where} ({shown}): a "
            "continued model keeps its classes, --classes may only add to them.",
            param_hint="--classes")
    new = [v for v in labels if v not in known]
    if not new:
        return
    added = ", ".join(map(str, new))
    if not grow:
        raise click.BadParameter(
            f"{text} adds {added} to the classes of {where} ({shown}), which --resume "
            "continues as it is: give its classes, as the run that wrote it.",
            param_hint="--classes")
    try:
        model.add_classes(new)
    except ValueError as error:
        raise click.BadParameter(
            f"{text} adds {added} to the classes of {where} ({shown}), but the model cannot "
            f"take new classes: {error}", param_hint="--classes") from None


def _saved(model, data, save_path):
    if not hasattr(model, "classes_"):
        raise click.ClickException(f"{'standard input' if data == '-' else data} holds no "
                                   "example: nothing learned, no model saved.")
    click.echo(f"saved {save_path} ({model.n_seen_:,} examples learned)", err=True)


class _Stream:
    """DATA read for ``train``: the chunks of a located source (:mod:`onlinear.data.located`),
    refusing what the model would refuse naming its line (the model cannot)."""

    def __init__(self, data, chunk_size, n_features, multilabel):
        self.data, self.chunk_size, self.n_features = data, chunk_size, n_features
        self.multilabel = multilabel
        self.source = None

    def chunks(self, allowed, interrupt, first_labels=None):
        """The stream's ``(X, y)``, each label one of ``allowed``; with ``allowed`` None, the
        labels of the first chunk, put in ``first_labels``, and a label none of them is
        :class:`_NewLabel`."""
        from ..data import FileFormatError

        self.source = source = located_source(self.data, self.chunk_size, self.n_features,
                                              self.multilabel, rows_before_fault=True)
        first = allowed is None
        for X, y in source:
            interrupt.check()
            if first:
                allowed = _finite_labels(y, self.multilabel)
                first_labels.extend(allowed)
            elif first_labels is not None:
                _check_foreseen(source, y, allowed, self.multilabel)
            first = False
            # the rows before a bad one are learned first
            try:
                source.check_values(X)
                source.check_labels(y, allowed)
            except FileFormatError:
                if source.bad_row:
                    yield X[:source.bad_row], label_targets(y[:source.bad_row], self.multilabel)
                raise
            yield X, label_targets(y, self.multilabel)
            X = y = None  # (the next chunk is parsed without this one in memory)


class _NewLabel(Exception):
    """A row's label that the first chunk did not hold: the stream's labels were not all
    known when it started."""


def _finite_labels(y, multilabel):
    """The distinct finite labels of a chunk's ``y``, sorted (a stream's classes, as
    :func:`~onlinear.cli.model_files.scan_classes` finds them)."""
    import numpy as np

    from ..data.libsvm import whole_number_labels

    values = np.array([v for row in y for v in row], dtype=np.float64) if multilabel else \
        np.asarray(y)
    values = values[np.isfinite(values)] if values.dtype.kind == "f" else values
    # (a label set's labels come as floats: whole numbers are ints, as a label's are, so that
    # the model's classes, and the labels predict prints, are 2, not 2.0)
    return whole_number_labels(np.unique(values)).tolist()


def _check_foreseen(source, y, allowed, multilabel):
    """Raise :class:`_NewLabel` for the first finite label of ``y`` not in ``allowed``."""
    import numpy as np

    known = set(allowed)
    for row, labels in enumerate(y if multilabel else y.tolist()):
        for label in (labels if multilabel else (labels,)):
            if label in known or (isinstance(label, float) and not np.isfinite(label)):
                continue  # (a label that is no finite number is refused as with --classes)
            shown = f"{label:g}" if isinstance(label, float) else str(label)
            raise _NewLabel(f"label {shown} on line {source.numbers[row]:,} is not among the "
                            "first chunk's labels")


def _first_chunk_labels(model, stream, save_path, resume, table):
    """``model`` learned from the stream with its first chunk's labels taken for all of its
    labels (the stream read once), or None if a later row holds another label or the stream
    fails (then nothing is saved: the labels are found by a scan, and the stream learned again
    with them, failing where it fails).  Classes are sorted, so the model is the one
    ``--classes`` naming the same labels gives."""
    from .. import learn_stream

    first_labels = []  # (filled from the first chunk, before the model's first call)
    interrupt = _Interrupt()
    try:
        with interrupt:
            return learn_stream(model, stream.chunks(None, interrupt, first_labels),
                                classes=first_labels, checkpoint=save_path, resume=resume,
                                grow=stream.n_features is None, report=table)
    except KeyboardInterrupt as stop:
        kept = "left as it was" if os.path.exists(save_path) else "not written"
        stop.add_note(f"nothing saved: {save_path} {kept} (the stream's labels were not all "
                      "known yet: give --classes to keep what is learned when interrupted)")
        raise
    except _NewLabel as unforeseen:
        click.echo(f"note: {unforeseen}: reading DATA again, with every label", err=True)
    except (ValueError, OSError):
        if table is not None:  # (its lines up to the failure are printed already)
            table.printed_before = table.printed
    return None


def _learn(model, stream, save_path, labels, allowed, checkpoint_every, resume, table):
    """``model`` learned from ``stream``; on a bad line or an interrupt, what was learned
    before is saved to ``save_path`` (a checkpoint) and said."""
    from .. import learn_stream
    from ..data import FileFormatError

    interrupt = _Interrupt()
    try:
        with interrupt:
            return learn_stream(model, stream.chunks(allowed, interrupt), classes=labels,
                                checkpoint=save_path, checkpoint_every=checkpoint_every,
                                resume=resume, grow=stream.n_features is None, report=table,
                                keep_on_failure=True)
    except ValueError as error:
        for note in getattr(error, "__notes__", ()):
            click.echo(note, err=True)
        source = stream.source
        if isinstance(error, FileFormatError) or source is None or source.X is None:
            raise  # named already, or not about a row (e.g. a checkpoint of another model)
        raise source.refused(error, model) from error


class _Terminated(KeyboardInterrupt):
    """SIGTERM, taken as Ctrl-C is (what was learned is saved), but exiting with 143."""


class _Terminate:
    """For the duration of ``train``, SIGTERM raises :class:`_Terminated` (at once: outside
    the stream nothing is half learned; inside it, :class:`_Interrupt` stops between chunks
    instead).  The previous handler is restored afterwards, so that a program calling the
    command keeps its own.  Outside the main thread no handler can be set: nothing changes."""

    def __init__(self):
        self.previous = None

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._handle)
        return self

    def __exit__(self, *exception):
        import signal

        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)

    @staticmethod
    def _handle(signum, frame):
        raise _Terminated


class _Interrupt:
    """Ctrl-C (SIGINT) or SIGTERM while ``train`` learns: the first stops the stream between
    two chunks, so the model is whole and can be saved; a second stops at once (the model is
    then saved only if the signal lands between chunks).  Outside the main thread (no signal
    handler can be set there) a Ctrl-C is Python's KeyboardInterrupt as usual."""

    def __init__(self):
        self.requested, self.terminated, self.previous = False, False, {}

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self.previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exception):
        import signal

        for signum, previous in self.previous.items():
            signal.signal(signum, previous)
        self.previous = {}

    def _handle(self, signum, frame):
        import signal

        # (a SIGTERM among the signals makes the exit 143: the run was told to end, not asked)
        self.terminated = self.terminated or signum == signal.SIGTERM
        if self.requested:
            self._raise()
        self.requested = True
        what, again = (("terminate (SIGTERM)", "again") if signum == signal.SIGTERM
                       else ("interrupt", "Ctrl-C again"))
        click.echo(f"{what}: stopping after the chunk in use ({again} to stop at once)",
                   err=True)

    def _raise(self):
        raise _Terminated if self.terminated else KeyboardInterrupt

    def check(self):
        if self.requested:
            self._raise()


def _new_model(algorithm, task, params):
    """The estimator ALGORITHM for ``task`` with ``params``: an unknown name, task or
    hyperparameter, a bad value, or a hyperparameter ALGORITHM takes but does not read with
    these settings (``C`` of the hard ``pa``, refused as ``run`` refuses it), is a usage error
    (exit code 2)."""
    from ..registry import describe, make

    with usage_errors():
        known = describe(algorithm)
        estimator = known.estimator if task in (None, known.task) else known.tasks.get(task)
        if estimator is not None:  # (else make names the tasks there are)
            names = [n for n in estimator._get_param_names() if n not in known.fixed]
            for key in params:
                if key not in names:
                    raise ValueError(f"{algorithm} has no hyperparameter {key!r} (its "
                                     f"hyperparameters: {', '.join(names) or 'none'}).")
        model = make(algorithm, task=task, **params)
        # (a parameter the rule does not read with these settings, refused as run and compare
        # refuse it)
        unread = known.unread(params)
        if unread:
            raise ValueError(next(iter(unread.values())))
        return model


class _ProgressTable:
    """Vowpal Wabbit's progress table: one line per doubling of the examples seen."""

    def __init__(self):
        self.printed = self.printed_before = 0  # examples of the last line, of a run before
        click.echo(f"{'examples':>12} {'mistakes':>9} {'since last':>10} {'updates':>10} "
                   f"{'examples/s':>11}", err=True)

    def __call__(self, progress):
        if progress.examples <= self.printed_before:
            return
        self.printed = progress.examples
        click.echo(f"{progress.examples:>12,} {progress.mistake_rate:>9.4f} "
                   f"{progress.mistake_rate_since:>10.4f} {progress.updates:>10,} "
                   f"{progress.examples_per_second:>11,.0f}", err=True)
