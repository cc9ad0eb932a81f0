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
import json
import os
import sys

import click
import numpy as np

from .cli import _check_output, _clean_errors, _labels, _parse_params, _usage, cli
from .streaming import padded

_TASKS = ("multiclass", "multilabel", "ordinal")


def _source(data):
    if data != "-" and not os.path.exists(data):
        raise click.BadParameter(f"no such file: {data}", param_hint="DATA")
    return data


def _chunks(data, chunk_size, n_features, multilabel):
    """``(X, y)`` chunks of the LIBSVM stream ``data`` (``-``: standard input)."""
    from .data import iter_libsvm_chunks

    for X, y in iter_libsvm_chunks(data, chunk_size, n_features, multilabel=multilabel):
        yield X, (y if multilabel else _labels(y))


def _parse_classes(text):
    from .cli import parse_value

    if text is None:
        return None
    values = [parse_value(v) for v in text.split(",") if v.strip()]
    if len(values) < 1:
        raise click.BadParameter("give the labels as a comma-separated list.",
                                 param_hint="--classes")
    return values


def _scan_classes(data, chunk_size, multilabel):
    """All the labels of a file (one extra pass over it, chunk by chunk)."""
    labels = set()
    for _, y in _chunks(data, chunk_size, None, multilabel):
        if multilabel:
            labels.update(label for row in y for label in row)
        else:
            labels.update(np.unique(y).tolist())
    return sorted(labels)


def _targets(y, multilabel):
    # label sets as frozensets (unambiguous: a list of 1-tuples of 0/1 would read as an
    # indicator column), whole-number labels as ints (LIBSVM stores them as floats)
    if multilabel:
        return [frozenset(int(v) if float(v).is_integer() else v for v in row) for row in y]
    return y


@cli.command("train", short_help="Learn a LIBSVM stream into a model file.")
@click.argument("arguments", nargs=-1, metavar="[ALGORITHM] DATA")
@click.option("--save", "save_path", required=True, callback=_check_output,
              help="Model file to write (also the checkpoint file).")
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
              help="If --save holds a checkpoint of this stream, continue from it.")
@click.option("--quiet", is_flag=True, help="No progress table.")
@_clean_errors
def train_command(arguments, save_path, model_path, params, task, classes, n_features,
                  chunk_size, checkpoint_every, resume, quiet):
    """Learn DATA (a LIBSVM file, plain or compressed, or - for standard input) one example at
    a time with ALGORITHM, and save the model.  Prints a progressive-validation table (every
    example predicted before it is learned) on a doubling schedule to standard error."""
    from . import learn_stream, load, make

    if len(arguments) != (1 if model_path is not None else 2):
        raise click.UsageError("give ALGORITHM DATA, or DATA with --model (a saved model to "
                               "continue).")
    algorithm, data = (None, *arguments) if model_path is not None else arguments
    if model_path is not None and params:
        raise click.UsageError("--param applies to a new ALGORITHM, not to --model.")
    data = _source(data)
    labels = _parse_classes(classes)
    multilabel = task == "multilabel"
    if model_path is not None:
        model = load(model_path)
    else:
        with _usage():
            model = make(algorithm, task=None if task == "multiclass" else task, **params)
    started = hasattr(model, "classes_")
    if not started and labels is None:
        if data == "-":
            raise click.UsageError("--classes is required when DATA is standard input (a "
                                   "model must know every label before the first example).")
        labels = _scan_classes(data, chunk_size, multilabel)
    if task == "ordinal" and labels is not None and classes is None and not started:
        click.echo("note: ranks ordered by value (give --classes for another order)", err=True)
    table = None if quiet else _ProgressTable()
    chunks = ((X, _targets(y, multilabel)) for X, y in
              _chunks(data, chunk_size, n_features, multilabel))
    model = learn_stream(model, chunks, classes=labels, checkpoint=save_path,
                         checkpoint_every=checkpoint_every, resume=resume,
                         grow=n_features is None, report=table)
    if not hasattr(model, "classes_"):
        raise click.ClickException(f"{'standard input' if data == '-' else data} holds no "
                                   "example: nothing learned, no model saved.")
    click.echo(f"saved {save_path} ({model.n_seen_:,} examples learned)", err=True)


class _ProgressTable:
    """Vowpal Wabbit's progress table: one line per doubling of the examples seen."""

    def __init__(self):
        click.echo(f"{'examples':>12} {'mistakes':>9} {'since last':>10} {'updates':>10} "
                   f"{'examples/s':>11}", err=True)

    def __call__(self, progress):
        click.echo(f"{progress.examples:>12,} {progress.mistake_rate:>9.4f} "
                   f"{progress.mistake_rate_since:>10.4f} {progress.updates:>10,} "
                   f"{progress.examples_per_second:>11,.0f}", err=True)


def _width_of(model, X):
    """``X`` as wide as the model: narrower chunks padded; a wider one is an error."""
    if X.shape[1] > model.n_features_in_:
        raise ValueError(f"the data has a feature index up to {X.shape[1]}, but the model "
                         f"knows {model.n_features_in_} features.")
    return padded(X, model.n_features_in_)


def _model_and_chunks(model_path, data, chunk_size):
    from . import load

    model = load(model_path)
    if not hasattr(model, "classes_"):
        raise click.ClickException(f"{model_path} holds a model that has learned nothing.")
    multilabel = bool(getattr(model, "multilabel_", False))
    data = _source(data)
    return model, multilabel, _chunks(data, chunk_size, None, multilabel)


@cli.command("predict", short_help="Predict a LIBSVM stream with a saved model.")
@click.argument("model_path", metavar="MODEL")
@click.argument("data")
@click.option("--output", default=None, callback=_check_output,
              help="Write the predictions here instead of standard output.")
@click.option("--scores", is_flag=True, help="Print the decision values (tab-separated) "
              "after each prediction.")
@click.option("--chunk-size", type=click.IntRange(1), default=4096, show_default=True)
@_clean_errors
def predict_command(model_path, data, output, scores, chunk_size):
    """One predicted label per line of DATA (a label set as comma-separated labels)."""
    model, multilabel, chunks = _model_and_chunks(model_path, data, chunk_size)
    handle = sys.stdout if output is None else open(output, "w", encoding="utf-8")
    try:
        for X, _ in chunks:
            X = _width_of(model, X)
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
    finally:
        if output is not None:
            handle.close()


@cli.command("evaluate", short_help="Score a saved model on a labelled LIBSVM stream.")
@click.argument("model_path", metavar="MODEL")
@click.argument("data")
@click.option("--chunk-size", type=click.IntRange(1), default=4096, show_default=True)
@_clean_errors
def evaluate_command(model_path, data, chunk_size):
    """Accuracy (multiclass), Hamming loss (multilabel) or mean absolute rank error and
    accuracy (ordinal) of MODEL on DATA; the model does not learn."""
    from .estimators.simultaneous import SimultaneousProjectionOrdinal

    model, multilabel, chunks = _model_and_chunks(model_path, data, chunk_size)
    ordinal = isinstance(model, SimultaneousProjectionOrdinal)
    rank = {label: i for i, label in enumerate(model.classes_.tolist())}
    n = correct = wrong_labels = rank_error = 0
    for X, y in chunks:
        X = _width_of(model, X)
        if multilabel:
            predicted = model.predict_label_sets(X)
            for truth, guess in zip(_targets(y, True), predicted):
                wrong_labels += len(set(truth) ^ set(guess))
        else:
            predicted = model.predict(X)
            correct += int(np.sum(predicted == y))
            if ordinal:
                unknown = set(np.unique(y).tolist()) - set(rank)
                if unknown:
                    raise ValueError(f"labels {sorted(unknown)} are not ranks of the model.")
                rank_error += sum(abs(rank[a] - rank[b]) for a, b in zip(predicted.tolist(),
                                                                          y.tolist()))
        n += X.shape[0]
    if n == 0:
        raise click.ClickException("no example to evaluate.")
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
