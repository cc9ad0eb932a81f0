"""``onlinear predict``: predict a stream with a saved model."""
import csv
import io
import os
import sys

import click
import numpy as np

from .common import check_distinct, check_text_output, clean_errors
from .group import cli
from .imports import import_estimators
from .model_files import ReadableChunks, model_and_source, output_file, strict_features_option


@cli.command("predict", short_help="Predict a LIBSVM stream with a saved model.")
@click.argument("model_path", metavar="MODEL")
@click.argument("data")
@click.option("--output", default=None, callback=check_text_output,
              help="Write the predictions here instead of standard output (-: standard "
              "output).")
@click.option("--scores", is_flag=True, help="Print the decision values (tab-separated) "
              "after each prediction.")
@click.option("--chunk-size", type=click.IntRange(1), default=4096, show_default=True)
@strict_features_option
@clean_errors
def predict_command(model_path, data, output, scores, chunk_size, strict_features):
    """One predicted label per line of DATA, as a CSV field (a label set as one CSV row: its
    labels comma-separated), quoted only when it holds a comma, a double quote or a line
    break, so that a label of text saved from Python reads back whole.  With --output, the
    file is written whole or not at all: a failed command leaves an existing one as it was.
    A feature index beyond the model's features (one it never saw) is ignored, their count
    told on standard error at the end; --strict-features refuses it instead."""
    check_distinct({"MODEL": model_path, "DATA": data}, {"--output": output})
    import_estimators()
    model, multilabel, source = model_and_source(model_path, data, chunk_size)
    readable = ReadableChunks(source, model, strict_features)
    field = _CsvFields()
    try:
        with output_file(output) as handle:
            for X, _ in source:
                X = readable(X)
                predicted = model.predict_label_sets(X) if multilabel else model.predict(X)
                values = model.decision_function(X) if scores else None
                for i, label in enumerate(predicted):
                    text = ",".join(map(field, label)) if multilabel else field(label)
                    if scores:
                        row = np.atleast_1d(values[i])
                        text += "\t" + "\t".join(f"{v:.17g}" for v in row)
                    handle.write(text + "\n")
                X = predicted = values = None  # (the next chunk is parsed without this one)
    except BrokenPipeError:  # the reader stopped (e.g. `| head`): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the exit's flush does not fail again
        sys.exit(0)
    readable.report()


class _CsvFields:
    """A label as a CSV field, as Python's csv module writes it (QUOTE_MINIMAL): a label
    holding a comma, a double quote or a line break is quoted, so that it reads back whole
    and a set's labels stay apart; any other label is written as it is.  A model's labels
    are few: each is formatted once."""

    def __init__(self):
        self.buffer = io.StringIO()
        # ("\r\n" ends the rows formatted here, so that a lone "\r", a line break to most
        # readers, is quoted too: with "\n" the csv module of Python 3.11 would not quote it)
        self.writer = csv.writer(self.buffer, lineterminator="\r\n")
        self.known = {}

    def __call__(self, label):
        text = self.known.get(label)
        if text is None:
            self.buffer.seek(0)
            self.buffer.truncate()
            self.writer.writerow([str(label)])  # (str: the csv module writes a float's repr)
            text = self.known[label] = self.buffer.getvalue()[:-2]
        return text
