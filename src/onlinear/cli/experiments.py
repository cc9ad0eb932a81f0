"""What ``onlinear run`` and ``onlinear compare`` share: their options, plots and outputs, the grid
search's table and the Dask cluster."""
import contextlib
import os

import click

from .. import harness
from ..registry import describe
from .common import (
    FORMATS,
    STDOUT,
    check_distinct,
    check_output,
    check_text_output,
    emit_output,
    exported,
    parse_grid,
    parse_params,
    replacing_output,
    traceback_wanted,
)


def experiment_options(command):
    options = [
        click.option("--param", "-p", "params", multiple=True, callback=parse_params,
                     metavar="KEY=VALUE", help="Set a hyperparameter (repeatable), e.g. "
                     "--param C=0.01."),
        click.option("--grid", "grid", multiple=True, callback=parse_grid,
                     metavar="KEY=V1,V2,...", help="Pick this hyperparameter by a one-pass grid "
                     "search on the online mistake rate (repeatable: every combination)."),
        click.option("--test", "test", metavar="FILE", default=None,
                     help="LIBSVM or CSV test file, scored after every epoch (usps has its "
                     "own).  Its features beyond the training data's are ignored and counted "
                     "on stderr; test labels the training data lacks count as errors (told on "
                     "stderr)."),
        click.option("--strict-features", is_flag=True,
                     help="Refuse a --test feature beyond the training data's, naming its "
                     "line, instead of ignoring it."),
        click.option("--epochs", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Passes over the stream."),
        click.option("--tick", type=click.IntRange(min=1), default=None,
                     help="Record the curves every TICK examples and at the end of every "
                     "epoch (beyond 100 epochs, of about 100 evenly spaced ones) [default: "
                     "about 100 points]."),
        click.option("--curve", metavar="FILE", default=None, callback=check_text_output,
                     help="Write the learning curves (one row per tick) to this CSV file (-: "
                     "standard output: without --out, the table then goes to standard "
                     "error, and another --format is refused)."),
        click.option("--plot", metavar="FILE", default=None, callback=check_output,
                     help="Draw mistake rate, updates, time and test error against examples "
                     "seen (.png, .svg, .pdf, ...)."),
        click.option("--plot-log", "plot_log", metavar="PANELS", default="",
                     help="Draw these panels on a log scale: a comma-separated list of "
                     "mistakes, updates, time, test."),
        click.option("--plot-size", "plot_size", metavar="W,H", default=None,
                     help="Figure size in inches [default: 5 per panel by about 5]."),
        click.option("--plot-format", "plot_format", metavar="FORMAT", default=None,
                     help="Image format (png, pdf, svg, eps, ...; not pgf, which needs LaTeX) "
                     "[default: the suffix of --plot]."),
        click.option("--plot-dpi", "plot_dpi", type=float, default=120, show_default=True,
                     help="Resolution of a raster image (10 to 2000; at most 100 million "
                     "pixels in all)."),
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                     show_default=True, help="Output format."),
        click.option("--out", metavar="FILE", default=None, callback=check_text_output,
                     help="Write the output to FILE instead of standard output."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def seed_option(what, needs):
    """``--seed``, which seeds ``what`` (the random orders of the stream) and nothing else:
    given without ``needs`` (the option that asks for them) it is a usage error
    (:func:`check_seed`)."""
    return click.option("--seed", type=click.IntRange(min=0), default=None,
                        help=f"Seed of {what}, the same for the same seed (needs {needs}) "
                        "[default: drawn afresh].")


def check_seed(seed, used, needs):
    """Refuse ``--seed`` where it would change nothing (``used`` false: the stream is seen in
    the given order), naming ``needs``, the option that gives it its effect."""
    if seed is not None and not used:
        raise click.UsageError(f"--seed has no effect without {needs}: it seeds the random "
                               "order of the stream, and the stream is seen in the given "
                               "order.")


def check_outputs(inputs, out, curve, plot, fmt):
    """The outputs of ``run`` and ``compare`` checked before anything is read
    (:func:`check_distinct`).  The report goes to standard output without ``--out``: with the
    curves there (``--curve -``), a table (for a person) goes to standard error instead
    (:func:`finish_outputs`), and another ``--format`` is a usage error."""
    check_distinct(inputs, {"--out": out, "--curve": curve, "--plot": plot}, files=("--plot",))
    if curve == STDOUT and out is None and fmt != "table":
        raise click.BadParameter(
            f"- is standard output, where the {fmt} report goes too without --out: the two "
            "would run together, neither readable; give --out FILE, or --curve FILE.",
            param_hint="--curve")


#: the option behind each kind of :class:`onlinear.plots.OptionError`
_PLOT_OPTIONS = {"log": "--plot-log", "size": "--plot-size", "dpi": "--plot-dpi",
                 "format": "--plot-format", "path": "--plot",
                 "size,dpi": "--plot-size/--plot-dpi"}


def plot_options(plot, plot_log, plot_size, plot_format, plot_dpi):
    """The keyword arguments of :func:`onlinear.plots.plot_curves`, checked before any
    training (a bad value is a usage error, exit code 2)."""
    from ..plots import check_options

    log = [p.strip() for p in plot_log.split(",") if p.strip()]
    size = None
    if plot_size is not None:
        try:
            size = tuple(float(v) for v in plot_size.split(","))
        except ValueError:
            raise click.BadParameter(f"expected W,H in inches, got {plot_size!r}.",
                                     param_hint="--plot-size") from None
    try:
        check_options(plot, log=log, size=size, format=plot_format, dpi=plot_dpi)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=_PLOT_OPTIONS.get(
            getattr(error, "option", None), "--plot")) from None
    if plot is None and (log or size or plot_format):
        raise click.UsageError("--plot-log, --plot-size and --plot-format need --plot FILE.")
    return {"log": log, "size": size, "format": plot_format, "dpi": plot_dpi}


def finish_outputs(evaluation, table, fmt, out, curve, plot, text, plot_options=None):
    """Write the curves, the figure and the table (to standard error when the curves hold
    standard output: :func:`check_outputs`).  A curve or figure that fails (a full disk, a
    figure matplotlib cannot draw) does not lose the results of the training: the table is
    written all the same, then the command fails (exit code 1) naming what was not written."""
    failure = None
    if curve == STDOUT:
        click.echo(evaluation.curves().to_csv(), nl=False)
    elif curve is not None:
        try:
            with replacing_output(curve) as temporary:
                evaluation.curves().to_csv(temporary)
            click.echo(f"wrote {curve}", err=True)
        except Exception as error:  # (reported after the table, below)
            failure = ("--curve", curve, error)
    if plot is not None:
        from ..plots import plot_curves

        try:
            with replacing_output(plot) as temporary:
                plot_curves(evaluation, temporary, **(plot_options or {}))
            click.echo(f"wrote {plot}", err=True)
        except Exception as error:
            failure = failure or ("--plot", plot, error)
    body = text if fmt == "table" else exported(table, fmt)
    if fmt == "markdown" and evaluation.searches:  # (csv and json stay one table each)
        body = (f"{GRID_TITLE}:\n\n" + grid_table(evaluation).to_markdown(digits=4) + "\n"
                + body)
    if out is None and curve == STDOUT:  # (standard output holds the curves: check_outputs)
        click.echo(body, nl=False, err=True)
    else:
        emit_output(body, out)
    if failure is not None:
        option, path, error = failure
        if traceback_wanted():
            raise error
        message = " ".join(str(error).split()) or type(error).__name__
        raise click.ClickException(f"{option} {path} was not written ({type(error).__name__}: "
                                   f"{message}); the table was written all the same.")


GRID_TITLE = "grid search (one pass each, lowest online mistake rate wins)"


def grid_table(evaluation):
    """Every configuration of every grid search, the one each search selected marked."""
    rows = []
    for search in evaluation.searches.values():
        for row in search.table:
            chosen = all(row.get(key) == value for key, value in search.best_params.items())
            rows.append({**row, "selected": "yes" if chosen else ""})
    return harness.Table(rows)


def grid_text(evaluation):
    if not evaluation.searches:
        return ""
    return f"{GRID_TITLE}:\n" + grid_table(evaluation).to_text() + "\n"


def check_cluster_options(scheduler, workers):
    """``--scheduler`` and ``--workers`` exclude each other and need dask, and the address must
    be one (:func:`check_scheduler`): usage errors, before anything is read or trained."""
    if scheduler is not None and workers is not None:
        raise click.UsageError("give --scheduler ADDRESS or --workers N, not both.")
    bound = max_workers()
    if workers is not None and workers > bound:
        raise click.BadParameter(
            f"{workers} is more than {bound} (4 per CPU core of this machine): each worker is "
            "a process, and thousands exhaust the machine's processes and open files.",
            param_hint="--workers")
    if scheduler is not None or workers is not None:
        from ..distributed.engine import require_dask

        try:
            require_dask()
        except ImportError as error:
            raise click.UsageError(str(error)) from None
    if scheduler is not None:
        check_scheduler(scheduler)


def check_scheduler(address):
    """Refuse an address that distributed cannot connect to whatever the network (no port, an
    unknown scheme, a port that is no number or out of range), read as its ``connect`` reads
    it: a ``Client`` given one fails at once, yet leaves a half-made client behind that spends
    40 s failing to close when the interpreter exits."""
    from distributed.comm import get_address_host_port

    try:
        _, port = get_address_host_port(address)
        if not 0 < port < 2**16:
            raise ValueError(f"port {port} is not in 1-65535")
    except ValueError as error:
        raise click.BadParameter(f"{address!r} is not a scheduler's address: {error}; give "
                                 "HOST:PORT or tcp://HOST:PORT (e.g. tcp://10.0.0.5:8786).",
                                 param_hint="--scheduler") from None


def max_workers():
    """The most local worker processes ``--workers`` takes: 4 per CPU core this process may
    use (a worker waiting on I/O or the scheduler leaves its core to another; more only
    multiplies processes and open files)."""
    cores = getattr(os, "process_cpu_count", os.cpu_count)() or 1
    return 4 * cores


@contextlib.contextmanager
def dask_client(scheduler, workers):
    """A ``distributed.Client`` of the scheduler at ``scheduler``, or of a local cluster of
    ``workers`` processes (closed afterwards); None for neither (the serial run)."""
    if scheduler is None and workers is None:
        yield None
        return
    from distributed import Client, LocalCluster

    if scheduler is not None:
        with Client(scheduler, timeout="20s", set_as_default=False) as client:
            yield client
        return
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster, \
            Client(cluster, set_as_default=False) as client:
        yield client


def check_grid(params, grid, algorithms):
    """Raise ``ValueError`` for a name, parameter or value of ``params`` and ``grid`` that
    :func:`onlinear.harness.compare` would refuse (the same checks: a parameter an algorithm
    takes but does not read, ``C`` of the hard ``pa``, is one)."""
    harness._check_grids(algorithms, params, harness._check_grid(grid))


def distribute(params, algorithms, grid=None):
    """``{name: {key: value}}`` from KEY=VALUE (every algorithm that has KEY and reads it with
    its settings and ``grid``: ``C`` goes to ``pa1`` but not to the hard ``pa``) and
    NAME:KEY=VALUE (that algorithm only, refused by :func:`check_grid` if it does not read
    KEY).  A KEY=VALUE that no compared algorithm has, or reads, is a ``ValueError``."""
    out = {name: {} for name in algorithms}
    shared = {}  # (name, KEY) → whether its value is the shared KEY=VALUE's (the last one wins)
    for key, value in params.items():
        if ":" in key:
            name, key = key.split(":", 1)
            if name not in out:
                describe(name)
                raise ValueError(f"--param {name}:{key}: {name} is not compared.")
            out[name][key], shared[name, key] = value, False
            continue
        takers = [n for n in algorithms if key in describe(n).hyperparameters]
        if not takers or key in harness.PROTOCOL_PARAMETERS:
            raise ValueError(f"no compared algorithm has the hyperparameter {key!r}.")
        for name in takers:
            out[name][key], shared[name, key] = value, True
    # a shared value goes only where it is read: set on an algorithm that ignores it (C on the
    # hard pa), it would show among its settings and change nothing
    unread = {}
    for name in algorithms:
        own_grid = {k: v for k, v in (grid or {}).items()
                    if k in describe(name).hyperparameters}
        for key, why in describe(name).unread(out[name], own_grid).items():
            if shared.get((name, key)):
                del out[name][key]
                unread.setdefault(key, why)
    for key, why in unread.items():
        if not any(shared.get((name, key)) and key in out[name] for name in algorithms):
            raise ValueError(f"no compared algorithm reads {key}: {why}")
    return {name: p for name, p in out.items() if p}
