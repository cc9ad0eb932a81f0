"""``onlinear compare``: several algorithms on one stream, serially or on a Dask cluster."""
import click
import numpy as np

from .. import harness
from ..registry import available, describe
from .common import SHIPPED, check_memory, clean_errors, usage_errors
from .data_args import load_data
from .experiments import (
    check_cluster_options,
    check_grid,
    check_outputs,
    check_seed,
    dask_client,
    distribute,
    experiment_options,
    finish_outputs,
    grid_text,
    plot_options,
    seed_option,
)
from .group import cli


@cli.command("compare", short_help="Compare algorithms on one stream (default: all, on USPS).")
@click.argument("algorithms", nargs=-1)
@click.option("--data", default="usps", show_default=True,
              help="'usps' (shipped, with its test set), a catalogue name, or a LIBSVM or CSV "
              "file.")
@experiment_options
@click.option("--permutations", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs per algorithm, each on a seeded random order of the stream; the "
              "table shows mean ± std.  With 1 the stream is seen in the given order.")
@seed_option("the permutations' random orders", "--permutations N above 1")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Run the cells (algorithms × permutations × grid) on the Dask cluster of "
              "this scheduler (e.g. tcp://10.0.0.5:8786); results equal the serial run's. "
              "Needs onlinear[dask].")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Run the cells on a Dask cluster of N local worker processes (at most 4 "
              "per CPU core of this machine).")
@clean_errors
def compare_command(algorithms, data, params, grid, test, strict_features, epochs, seed, tick,
                    curve, plot, plot_log, plot_size, plot_format, plot_dpi, fmt, out,
                    permutations, scheduler, workers):
    """Compare ALGORITHMS (default: every registered algorithm that can learn the data) by
    progressive validation on one stream: online mistake rate, updates, test error, seconds.

    --param applies to every compared algorithm that has the hyperparameter and reads it (C
    goes to pa1 and pa2, not to the hard pa, whose rule has no slack for C to weigh); scope it
    to one with NAME:KEY=VALUE (e.g. --param pa1:C=0.01).  A hyperparameter that no compared
    algorithm reads, or one scoped to an algorithm that does not read it, is a usage error."""
    check_outputs({"--data": None if data.lower() in SHIPPED else data, "--test": test}, out,
                  curve, plot, fmt)
    check_seed(seed, permutations > 1, "--permutations N above 1")
    check_cluster_options(scheduler, workers)
    repeated = sorted({name for name in algorithms if algorithms.count(name) > 1})
    if repeated:  # (harness.compare refuses it too, but only once the data is read)
        raise click.BadParameter(f"{', '.join(repeated)} given more than once; give each "
                                 "algorithm once (--permutations for several runs).",
                                 param_hint="ALGORITHMS")
    plotting = plot_options(plot, plot_log, plot_size, plot_format, plot_dpi)
    with usage_errors():
        for name in algorithms:
            describe(name)
        if algorithms:
            distributed = distribute(params, algorithms, grid)
            check_grid(distributed, grid, algorithms)
    X, y, X_test, y_test, name = load_data(data, test, strict_features)
    n_classes = np.unique(y).shape[0]
    if not algorithms:
        algorithms = available("multiclass") if n_classes > 2 else available()
        with usage_errors():
            distributed = distribute(params, algorithms, grid)
            check_grid(distributed, grid, algorithms)
    check_memory(X.shape[1], n_classes, algorithms)
    with dask_client(scheduler, workers) as client:
        evaluation = harness.compare(
            X, y, algorithms, params=distributed, grid=grid, X_test=X_test,
            y_test=y_test, epochs=epochs, permutations=permutations, random_state=seed,
            tick=tick, progress=True, data=name, client=client)
    finish_outputs(evaluation, evaluation.summary(), fmt, out, curve, plot,
            grid_text(evaluation) + evaluation.report(), plotting)
