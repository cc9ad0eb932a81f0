"""``onlinear run``: one algorithm online on a data set."""
import click
import numpy as np

from .. import harness
from .common import SHIPPED, check_memory, clean_errors, usage_errors
from .data_args import load_data
from .experiments import (
    check_outputs,
    check_seed,
    experiment_options,
    finish_outputs,
    grid_text,
    plot_options,
    seed_option,
)
from .group import cli


@cli.command("run", short_help="Train one algorithm online on a data set.")
@click.argument("algorithm")
@click.argument("data")
@experiment_options
@click.option("--shuffle/--no-shuffle", default=False, show_default=True,
              help="See the stream in a random order (seeded by --seed) instead of as given.")
@seed_option("the stream's random order", "--shuffle")
@clean_errors
def run_command(algorithm, data, params, grid, test, strict_features, epochs, seed, tick, curve,
                plot, plot_log, plot_size, plot_format, plot_dpi, fmt, out, shuffle):
    """Train ALGORITHM online on DATA ('usps', a catalogue name, or a LIBSVM or CSV file) and
    report, per epoch, the cumulative online mistake rate, updates, test error and seconds
    (beyond 100 epochs, for about 100 evenly spaced ones: the first, the last and every
    ceil(epochs/100)-th)."""
    check_outputs({"DATA": None if data.lower() in SHIPPED else data, "--test": test}, out,
                  curve, plot, fmt)
    check_seed(seed, shuffle, "--shuffle")
    plotting = plot_options(plot, plot_log, plot_size, plot_format, plot_dpi)
    with usage_errors():
        harness._check_params(algorithm, params, grid)
    X, y, X_test, y_test, name = load_data(data, test, strict_features)
    check_memory(X.shape[1], np.unique(y).shape[0], [algorithm])
    evaluation = harness.evaluate(algorithm, X, y, params=params, grid=grid, X_test=X_test,
                                  y_test=y_test, epochs=epochs, shuffle=shuffle,
                                  random_state=seed, tick=tick, progress=True, data=name)
    # (the epochs' ends are the multiples of the stream's length: no set of one per epoch)
    table = harness.Table([row for row in evaluation.curves()
                           if row["examples"] % evaluation.n_examples == 0])
    if X_test is None:
        table = harness.Table([{k: v for k, v in row.items() if k != "test_error"}
                               for row in table])
    shown = harness.Table([{
        "epoch": row["epoch"], "examples": row["examples"], "mistakes": row["mistakes"],
        "mistake rate": f"{row['mistake_rate']:.2%}", "updates": row["updates"],
        **({"test error": f"{row['test_error']:.2%}"} if X_test is not None else {}),
        "seconds": f"{row['seconds']:.3f}"} for row in table])
    settings = " ".join(f"{k}={v}" for k, v in evaluation.runs[0].params.items())
    text = (grid_text(evaluation) + f"{algorithm}{' ' + settings if settings else ''} on "
            f"{evaluation.describe()}\n" + shown.to_text(align_right=True))
    finish_outputs(evaluation, table, fmt, out, curve, plot, text, plotting)
