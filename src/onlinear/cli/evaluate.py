"""``onlinear evaluate``: score a saved model on a labelled stream."""
import click

from .common import clean_errors
from .group import cli
from .imports import import_estimators
from .model_files import (
    ReadableChunks,
    UnseenLabels,
    label_targets,
    model_and_source,
    strict_features_option,
)


@cli.command("evaluate", short_help="Score a saved model on a labelled LIBSVM stream.")
@click.argument("model_path", metavar="MODEL")
@click.argument("data")
@click.option("--chunk-size", type=click.IntRange(1), default=4096, show_default=True)
@strict_features_option
@clean_errors
def evaluate_command(model_path, data, chunk_size, strict_features):
    """Accuracy (multiclass), Hamming loss (multilabel) or mean absolute rank error and
    accuracy (ordinal) of MODEL on DATA; the model does not learn.  Features beyond the
    model's are ignored as by predict.  A row whose label the model never saw (not one of its
    classes) is scored, and told on standard error: a mistake in the accuracy, each unseen
    label of a set a wrong label of the Hamming loss (over the model's classes); an ordinal
    model refuses a rank it does not know."""
    import_estimators()
    model, multilabel, source = model_and_source(model_path, data, chunk_size)
    task = model.task_  # (the task scores the predictions, and says which labels it refuses)
    refusing = task.refuses_unknown_labels
    readable, unseen = ReadableChunks(source, model, strict_features), UnseenLabels(model, source)
    sums = {}
    for X, y in source:
        X = readable(X)
        source.check_labels(y, task.classes.tolist() if refusing else None, ranks=refusing)
        unseen.count(y)
        if multilabel:
            found = task.score_sums(label_targets(y, True), model.predict_label_sets(X))
        else:
            found = task.score_sums(y, model.predict(X))
        sums = task.add_sums(sums, found)
        X = y = None  # (the next chunk is parsed without this one in memory)
    if not sums.get("examples"):
        raise click.ClickException("no example to evaluate.")
    readable.report()
    unseen.report(sums["examples"])
    result = {"examples": sums["examples"], **task.scores(sums)}
    for key, value in result.items():
        click.echo(f"{key}: {value:,}" if isinstance(value, int) else f"{key}: {value:.6f}")
