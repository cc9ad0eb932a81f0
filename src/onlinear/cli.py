"""The ``onlinear`` command: list the registered algorithms, run one on a data set, compare several.

    onlinear list
    onlinear run pa1 usps --param C=0.01 --epochs 2 --curve pa1.csv
    onlinear compare                                  # every multiclass algorithm on USPS
    onlinear compare pa1 spa1 mira --data train.svm --test test.svm --permutations 5 --plot out.png
    onlinear compare pa1 mira --grid C=0.01,0.1,1 --permutations 10 --workers 4   # on Dask

Data is ``usps`` (the copy shipped with the package, with its test set) or the path of a LIBSVM
file (plain, gzip, bzip2 or xz, recognised by content).  Exit codes: 0 on success, 2 on a usage
error (unknown algorithm, bad ``--param``/``--grid``/``--sha256``, an output path that cannot be
written or that is an input of the command), checked before anything is read or written; 1 on a
data or algorithm error, reported on one line (set ``ONLINEAR_TRACEBACK=1`` for the
traceback).  Outputs are written to a temporary file beside them and renamed once complete: a
failed command leaves an existing output as it was.
"""
import contextlib
import functools
import os
import re

import click
import numpy as np

from . import harness
from .persistence import replacing
from .registry import available, describe

FORMATS = ("table", "csv", "json", "markdown")
SHIPPED = {"usps": "USPS"}


# ============================================================================ helpers
class DataError(ValueError):
    """A data set that cannot be read.

    Parameters
    ----------
    message : str
        What could not be read, and why.
    """


def _clean_errors(command):
    """Report data and algorithm errors as ``Error: <one line>`` with exit code 1 (the
    traceback too when the environment sets ``ONLINEAR_TRACEBACK``)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except click.ClickException:
            raise
        except (ValueError, TypeError, OSError, ImportError, MemoryError) as error:
            if os.environ.get("ONLINEAR_TRACEBACK"):
                raise
            message = " ".join(str(error).split()) or type(error).__name__
            if isinstance(error, MemoryError):
                message = f"out of memory: {message}"
            if isinstance(error, OSError) and error.filename and str(error.filename) not in message:
                message = f"{message}: {error.filename}"
            raise click.ClickException(message) from None

    return wrapper


def parse_value(text):
    """A command-line value: int, float, true/false, none, or the string itself.

    >>> [parse_value(v) for v in ["3", "0.01", "1e-3", "true", "none", "printed"]]
    [3, 0.01, 0.001, True, None, 'printed']
    """
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    if re.fullmatch(r"[+-]?\d+", lowered):
        return int(lowered)
    try:
        return float(lowered)
    except ValueError:
        return text


def _split_assignment(text, option):
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise click.BadParameter(f"expected KEY=VALUE, got {text!r}.", param_hint=option)
    return key.strip(), value.strip()


def _parse_params(ctx, param, values):
    out = {}
    for text in values:
        key, value = _split_assignment(text, "--param")
        out[key] = parse_value(value)
    return out


def _parse_grid(ctx, param, values):
    out = {}
    for text in values:
        key, value = _split_assignment(text, "--grid")
        out[key] = [parse_value(v) for v in value.split(",") if v.strip()]
    return out


def load_data(spec, test=None, strict_features=False):
    """``(X, y, X_test, y_test, name)`` for ``usps``, a catalogue name or a LIBSVM file, with an
    optional LIBSVM test file, read as wide as the training data.

    A test feature beyond the training data's width is ignored (the model has no weight for
    it, as Vowpal Wabbit ignores an unseen feature), and the values ignored are counted on
    standard error; with ``strict_features`` it is an error naming the test file's line."""
    if spec.lower() in SHIPPED:
        from .data import load_usps

        X, y, X_test, y_test = load_usps()
        if test is not None:
            X_test, y_test = _read_libsvm(test, **(
                {"n_features": X.shape[1]} if strict_features else {}))
            X_test = _narrowed(X_test, X.shape[1], test)
            X_test.resize((X_test.shape[0], X.shape[1]))
            X_test, y_test = X_test.toarray(), _labels(y_test)
            _note_unseen_test_labels(y, y_test, test)
        return X, y, X_test, y_test, SHIPPED[spec.lower()]
    if test is None and not os.path.exists(spec) and spec.lower() in _catalogue():
        from .data import load

        try:
            X, y, X_test, y_test = load(spec.lower())
        except (FileNotFoundError, ValueError, OSError) as error:
            raise DataError(str(error)) from None
        return X, _labels(y), X_test, None if y_test is None else _labels(y_test), spec.lower()
    if test is None:
        X, y = _read_libsvm(spec)
        return X, _labels(y), None, None, spec
    # As scikit-learn's load_svmlight_files: one-based unless some index of either file is 0;
    # the test set as wide as the training data (padded, or narrowed as above).
    (X, y), (X_test, y_test) = _read_libsvm(spec, zero_based=True), \
        _read_libsvm(test, zero_based=True)
    zero_based = any(M.nnz and M.indices.min() == 0 for M in (X, X_test))
    if not zero_based:
        X, X_test = _one_based(X), _one_based(X_test)
    width = X.shape[1]
    if strict_features and X_test.shape[1] > width:  # the reader names the first line beyond
        _read_libsvm(test, n_features=width, zero_based=zero_based)
    X_test = _narrowed(X_test, width, test)
    X_test.resize((X_test.shape[0], width))
    y, y_test = _labels(y), _labels(y_test)
    _note_unseen_test_labels(y, y_test, test)
    return X, y, X_test, y_test, spec


def _narrowed(X, width, path):
    """The CSR matrix ``X`` without its features beyond ``width``, their count told on
    standard error."""
    if X.shape[1] < width:
        click.echo(f"note: {path} has {X.shape[1]:,} features, the training data {width:,}: the "
                   "features it lacks read as 0.", err=True)
    if X.shape[1] <= width:
        return X
    beyond = X.indices >= width
    rows = np.unique(np.searchsorted(X.indptr, np.flatnonzero(beyond), side="right"))
    click.echo(f"note: {path} has {X.shape[1]:,} features, the training data {width:,}: ignored "
               f"{int(beyond.sum()):,} value(s) of features beyond, on {rows.size:,} of "
               f"{X.shape[0]:,} rows (--strict-features refuses them).", err=True)
    return X[:, :width].tocsr()


def _note_unseen_test_labels(y, y_test, path):
    """Tell on standard error how many test rows have a label the training data lacks (a
    model cannot predict it: each is an error of the test error)."""
    unseen = ~np.isin(y_test, np.unique(y))
    if unseen.any():
        labels = np.unique(y_test[unseen]).tolist()
        shown = ", ".join(map(str, labels[:10])) + (", ..." if len(labels) > 10 else "")
        click.echo(f"note: {path}: {int(unseen.sum()):,} of {y_test.shape[0]:,} test rows have a "
                   f"label the training data lacks ({shown}); each counts as a test error.",
                   err=True)


def _one_based(X):
    import scipy.sparse as sp

    if X.shape[1] == 0:
        return X
    return sp.csr_matrix((X.data, X.indices - 1, X.indptr), shape=(X.shape[0], X.shape[1] - 1))


def _catalogue():
    from .data import list_datasets

    return set(list_datasets())


def _read_libsvm(path, **options):
    """:func:`onlinear.data.load_libsvm`, its errors as a :class:`DataError` naming the file."""
    from .data import load_libsvm

    try:
        return load_libsvm(path, **options)
    except FileNotFoundError:
        raise DataError(f"no such file: {path} (DATA is 'usps', a catalogue name of "
                        "onlinear.data, or a LIBSVM file)") from None
    except IsADirectoryError:
        raise DataError(f"{path} is a directory, not a LIBSVM file") from None
    except ValueError as error:  # a FileFormatError names the file and the line
        raise DataError(f"cannot read a LIBSVM file: {error}") from None
    except OSError as error:
        raise DataError(f"cannot read {path}: {error.strerror or error}") from None


def _labels(y):
    """Integer labels when every label is a whole number (LIBSVM stores them as floats)."""
    if y.size and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
        return y.astype(np.int64)
    return y


def _check_output(ctx, param, value):
    """An output path whose folder exists and is writable, checked before any training."""
    if value is None:
        return None
    path = os.path.abspath(value)
    folder = os.path.dirname(path)
    if os.path.isdir(path):
        raise click.BadParameter(f"{value} is a folder; give a file name.", ctx, param)
    if not os.path.isdir(folder):
        raise click.BadParameter(f"cannot write {value}: no folder {folder}.", ctx, param)
    if not os.access(folder, os.W_OK | os.X_OK) or (
            os.path.exists(path) and not os.access(path, os.W_OK)):
        raise click.BadParameter(f"cannot write {value}: permission denied.", ctx, param)
    return value


def _same_file(first, second):
    """Whether two paths name one file: the same path once resolved (``./x``, ``../dir/x``, a
    symbolic link) or, both existing, the same device and inode (a hard link)."""
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        one, other = os.stat(first), os.stat(second)
    except OSError:
        return False
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


def _check_distinct(inputs, outputs):
    """Refuse, as a usage error before anything is read or written, an output that is one of
    the command's inputs (writing it would destroy what the command reads) or another output.

    Parameters
    ----------
    inputs, outputs : dict
        ``{what the user typed (an argument's or option's name): path or None}``; an input that
        is no file (standard input, a catalogue name, a missing file) cannot be overwritten.
    """
    inputs = {name: path for name, path in inputs.items()
              if path is not None and path != "-" and os.path.exists(path)}
    outputs = [(name, path) for name, path in outputs.items() if path is not None]
    for i, (name, path) in enumerate(outputs):
        for other, source in inputs.items():
            if _same_file(path, source):
                raise click.BadParameter(
                    f"{path} is the same file as {other} ({source}), which the command reads: "
                    "writing it would destroy it; give another file.", param_hint=name)
        for other, written in outputs[:i]:
            if _same_file(path, written):
                raise click.BadParameter(f"{path} is the same file as {other} ({written}): "
                                         "give each output its own file.", param_hint=name)


def _check_sha256(ctx, param, value):
    from .data.fetch import _check_digest

    try:
        return _check_digest(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None


@contextlib.contextmanager
def _usage(hint=None):
    """Report a ``ValueError`` or ``TypeError`` of the checks of names and parameters (an
    unknown keyword of an estimator is a ``TypeError``) as a usage error (exit 2)."""
    try:
        yield
    except (ValueError, TypeError) as error:  # (scikit-learn's InvalidParameterError is both)
        raise click.UsageError(f"{hint + ': ' if hint else ''}{error}") from None


def _replacing(path):
    """A temporary path beside ``path`` to write to, renamed onto ``path`` once written
    (:func:`onlinear.persistence.replacing`): an existing file is replaced whole or not at
    all.  The temporary keeps ``path``'s suffix, by which matplotlib picks an image format."""
    return replacing(path, suffix=os.path.splitext(path)[1])


def _check_memory(n_features, n_classes, algorithms):
    """Refuse, before allocating, weights that cannot fit in this machine's memory."""
    from .estimators.kernel import KernelLearner

    linear = [a for a in algorithms if not issubclass(describe(a).estimator, KernelLearner)]
    needed = n_features * n_classes * 8  # one float64 weight per feature and class
    total = _physical_memory()
    if linear and total is not None and needed > total:
        raise DataError(
            f"{linear[0]} would need {needed / 2**30:,.1f} GiB for its weights ({n_features:,} "
            f"features x {n_classes:,} classes x 8 bytes), more than this machine's "
            f"{total / 2**30:,.1f} GiB of memory; check the data's feature indices.")


def _physical_memory():
    from .estimators.checks import physical_memory  # (not POSIX: None; MemoryError is caught)

    return physical_memory()


def _emit(text, out):
    if out is None:
        click.echo(text, nl=False)
    else:
        with _replacing(out) as temporary:
            with open(temporary, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        click.echo(f"wrote {out}", err=True)


def _export(table, fmt):
    if fmt == "csv":
        return table.to_csv()
    if fmt == "json":
        return table.to_json()
    if fmt == "markdown":
        return table.to_markdown(digits=4)
    return table.to_text()


# ============================================================================ commands
@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="onlinear", prog_name="onlinear")
def cli():
    """Online learning of linear multiclass classifiers: list the algorithms, run one, compare
    several on a stream (progressive validation: predict, then learn)."""


@cli.command("list", short_help="List the registered algorithms.")
@click.option("--task", type=click.Choice(["all", "multiclass", "binary"]), default="all",
              show_default=True, help="Only the algorithms for this task (binary learners "
              "count as multiclass when they run one-vs-rest).")
@click.option("--kernel", is_flag=True, help="List the kernel (dual, support-pattern) learners "
              "instead of the primal ones.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format (csv, json and markdown add the estimator, the tunable "
              "hyperparameters and a summary).")
@_clean_errors
def list_command(task, kernel, fmt):
    """The registered algorithms: name, task, the parameters the name fixes (pa, pa1 and pa2
    differ by slack), and the paper with its year.  The table fits 100 columns."""
    rows = []
    names = available(None if task == "all" else task, kernel=kernel)
    for name in names:
        algorithm = describe(name)
        # the rule's hyperparameters: not the protocol's, nor the choices of every learner
        params = {k: v for k, v in algorithm.hyperparameters.items()
                  if k not in harness.PROTOCOL_PARAMETERS and k not in (
                      "average", "fit_intercept", "class_weight", "warm_start", "verbose",
                      "dtype")}
        rows.append({"name": name, "task": algorithm.task,
                     "fixed": " ".join(f"{k}={v}" for k, v in algorithm.fixed.items()) or "-",
                     "paper": algorithm.paper if fmt != "table" else _short_paper(algorithm),
                     "estimator": algorithm.estimator.__name__,
                     "hyperparameters": " ".join(f"{k}={v}" for k, v in params.items()) or None,
                     "summary": algorithm.summary})
    table = harness.Table(rows, ["name", "task", "fixed", "paper", "estimator",
                                 "hyperparameters", "summary"])
    if fmt != "table":
        click.echo(_export(table, fmt), nl=False)
        return
    shown = harness.Table([{k: r[k] for k in ("name", "task", "fixed", "paper")} for r in rows])
    others = available(None if task == "all" else task, kernel=not kernel)
    hint = (f"and {len(others)} {'primal' if kernel else 'kernel'} learners: onlinear list"
            f"{'' if kernel else ' --kernel'}; hyperparameters and summaries: --format "
            "markdown\n")
    click.echo(shown.to_text() + (hint if others else ""), nl=False)


def _short_paper(algorithm):
    """``"Matsushima et al. 2010"``: the authors and year of an algorithm's paper."""
    found = re.match(r".*?\b(?:19|20)\d\d\b", algorithm.paper)
    return found.group(0) if found else algorithm.paper.split(",")[0]


def _common_options(command):
    options = [
        click.option("--param", "-p", "params", multiple=True, callback=_parse_params,
                     metavar="KEY=VALUE", help="Set a hyperparameter (repeatable), e.g. "
                     "--param C=0.01."),
        click.option("--grid", "grid", multiple=True, callback=_parse_grid,
                     metavar="KEY=V1,V2,...", help="Pick this hyperparameter by a one-pass grid "
                     "search on the online mistake rate (repeatable: every combination)."),
        click.option("--test", "test", metavar="FILE", default=None,
                     help="LIBSVM test file, scored after every epoch (usps has its own).  Its "
                     "features beyond the training data's are ignored and counted on stderr; "
                     "test labels the training data lacks count as errors (told on stderr)."),
        click.option("--strict-features", is_flag=True,
                     help="Refuse a --test feature beyond the training data's, naming its "
                     "line, instead of ignoring it."),
        click.option("--epochs", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Passes over the stream."),
        click.option("--seed", type=int, default=None,
                     help="Seed of the random permutations."),
        click.option("--tick", type=click.IntRange(min=1), default=None,
                     help="Record the curves every TICK examples [default: about 100 points]."),
        click.option("--curve", metavar="FILE", default=None, callback=_check_output,
                     help="Write the learning curves (one row per tick) to this CSV file."),
        click.option("--plot", metavar="FILE", default=None, callback=_check_output,
                     help="Draw mistake rate, updates, time and test error against examples "
                     "seen (.png, .svg, .pdf, ...)."),
        click.option("--plot-log", "plot_log", metavar="PANELS", default="",
                     help="Draw these panels on a log scale: a comma-separated list of "
                     "mistakes, updates, time, test."),
        click.option("--plot-size", "plot_size", metavar="W,H", default=None,
                     help="Figure size in inches [default: 5 per panel by about 5]."),
        click.option("--plot-format", "plot_format", metavar="FORMAT", default=None,
                     help="Image format (png, pdf, svg, eps, ...) [default: the suffix of "
                     "--plot]."),
        click.option("--plot-dpi", "plot_dpi", type=float, default=120, show_default=True,
                     help="Resolution of a raster image."),
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                     show_default=True, help="Output format."),
        click.option("--out", metavar="FILE", default=None, callback=_check_output,
                     help="Write the output to FILE instead of standard output."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _plot_options(plot, plot_log, plot_size, plot_format, plot_dpi):
    """The keyword arguments of :func:`onlinear.plots.plot_curves`, checked before any
    training (a bad value is a usage error, exit code 2)."""
    from .plots import check_options

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
        raise click.BadParameter(str(error), param_hint="--plot") from None
    if plot is None and (log or size or plot_format):
        raise click.UsageError("--plot-log, --plot-size and --plot-format need --plot FILE.")
    return {"log": log, "size": size, "format": plot_format, "dpi": plot_dpi}


def _finish(evaluation, table, fmt, out, curve, plot, text, plot_options=None):
    if curve is not None:
        with _replacing(curve) as temporary:
            evaluation.curves().to_csv(temporary)
        click.echo(f"wrote {curve}", err=True)
    if plot is not None:
        from .plots import plot_curves

        with _replacing(plot) as temporary:
            plot_curves(evaluation, temporary, **(plot_options or {}))
        click.echo(f"wrote {plot}", err=True)
    body = text if fmt == "table" else _export(table, fmt)
    if fmt == "markdown" and evaluation.searches:  # (csv and json stay one table each)
        body = (f"{_GRID_TITLE}:\n\n" + _grid_table(evaluation).to_markdown(digits=4) + "\n"
                + body)
    _emit(body, out)


_GRID_TITLE = "grid search (one pass each, lowest online mistake rate wins)"


def _grid_table(evaluation):
    """Every configuration of every grid search, the one each search selected marked."""
    rows = []
    for search in evaluation.searches.values():
        for row in search.table:
            chosen = all(row.get(key) == value for key, value in search.best_params.items())
            rows.append({**row, "selected": "yes" if chosen else ""})
    return harness.Table(rows)


def _grid_text(evaluation):
    if not evaluation.searches:
        return ""
    return f"{_GRID_TITLE}:\n" + _grid_table(evaluation).to_text() + "\n"


@cli.command("run", short_help="Train one algorithm online on a data set.")
@click.argument("algorithm")
@click.argument("data")
@_common_options
@click.option("--shuffle/--no-shuffle", default=False, show_default=True,
              help="See the stream in a random order (seeded by --seed) instead of as given.")
@_clean_errors
def run_command(algorithm, data, params, grid, test, strict_features, epochs, seed, tick, curve,
                plot, plot_log, plot_size, plot_format, plot_dpi, fmt, out, shuffle):
    """Train ALGORITHM online on DATA ('usps' or a LIBSVM file) and report, per epoch, the
    cumulative online mistake rate, updates, test error and seconds."""
    _check_distinct({"DATA": None if data.lower() in SHIPPED else data, "--test": test},
                    {"--out": out, "--curve": curve, "--plot": plot})
    plotting = _plot_options(plot, plot_log, plot_size, plot_format, plot_dpi)
    with _usage():
        harness._check_params(algorithm, params, grid)
    X, y, X_test, y_test, name = load_data(data, test, strict_features)
    _check_memory(X.shape[1], np.unique(y).shape[0], [algorithm])
    evaluation = harness.evaluate(algorithm, X, y, params=params, grid=grid, X_test=X_test,
                                  y_test=y_test, epochs=epochs, shuffle=shuffle,
                                  random_state=seed, tick=tick, progress=True, data=name)
    ends = {evaluation.n_examples * e for e in range(1, epochs + 1)}
    table = harness.Table([row for row in evaluation.curves() if row["examples"] in ends])
    if X_test is None:
        table = harness.Table([{k: v for k, v in row.items() if k != "test_error"}
                               for row in table])
    shown = harness.Table([{
        "epoch": row["epoch"], "examples": row["examples"], "mistakes": row["mistakes"],
        "mistake rate": f"{row['mistake_rate']:.2%}", "updates": row["updates"],
        **({"test error": f"{row['test_error']:.2%}"} if X_test is not None else {}),
        "seconds": f"{row['seconds']:.3f}"} for row in table])
    settings = " ".join(f"{k}={v}" for k, v in evaluation.runs[0].params.items())
    text = (_grid_text(evaluation) + f"{algorithm}{' ' + settings if settings else ''} on "
            f"{evaluation.describe()}\n" + shown.to_text(align_right=True))
    _finish(evaluation, table, fmt, out, curve, plot, text, plotting)


@cli.command("compare", short_help="Compare algorithms on one stream (default: all, on USPS).")
@click.argument("algorithms", nargs=-1)
@click.option("--data", default="usps", show_default=True,
              help="'usps' (shipped, with its test set) or a LIBSVM file.")
@_common_options
@click.option("--permutations", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs per algorithm, each on a seeded random order of the stream; the "
              "table shows mean ± std.  With 1 the stream is seen in the given order.")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Run the cells (algorithms × permutations × grid) on the Dask cluster of "
              "this scheduler (e.g. tcp://10.0.0.5:8786); results equal the serial run's. "
              "Needs onlinear[dask].")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Run the cells on a Dask cluster of N local worker processes.")
@_clean_errors
def compare_command(algorithms, data, params, grid, test, strict_features, epochs, seed, tick,
                    curve, plot, plot_log, plot_size, plot_format, plot_dpi, fmt, out,
                    permutations, scheduler, workers):
    """Compare ALGORITHMS (default: every registered algorithm that can learn the data) by
    progressive validation on one stream: online mistake rate, updates, test error, seconds.

    --param applies to every compared algorithm that has the hyperparameter; scope it to one
    with NAME:KEY=VALUE (e.g. --param pa1:C=0.01)."""
    _check_distinct({"--data": None if data.lower() in SHIPPED else data, "--test": test},
                    {"--out": out, "--curve": curve, "--plot": plot})
    _check_cluster_options(scheduler, workers)
    plotting = _plot_options(plot, plot_log, plot_size, plot_format, plot_dpi)
    with _usage():
        for name in algorithms:
            describe(name)
        if algorithms:
            distributed = _distribute(params, algorithms)
            _check_grid(distributed, grid, algorithms)
    X, y, X_test, y_test, name = load_data(data, test, strict_features)
    n_classes = np.unique(y).shape[0]
    if not algorithms:
        algorithms = available("multiclass") if n_classes > 2 else available()
        with _usage():
            distributed = _distribute(params, algorithms)
            _check_grid(distributed, grid, algorithms)
    _check_memory(X.shape[1], n_classes, algorithms)
    with _cluster(scheduler, workers) as client:
        evaluation = harness.compare(
            X, y, algorithms, params=distributed, grid=grid, X_test=X_test,
            y_test=y_test, epochs=epochs, permutations=permutations, random_state=seed,
            tick=tick, progress=True, data=name, client=client)
    _finish(evaluation, evaluation.summary(), fmt, out, curve, plot,
            _grid_text(evaluation) + evaluation.report(), plotting)


def _check_cluster_options(scheduler, workers):
    """``--scheduler`` and ``--workers`` exclude each other and need dask: usage errors, before
    anything is read or trained."""
    if scheduler is not None and workers is not None:
        raise click.UsageError("give --scheduler ADDRESS or --workers N, not both.")
    if scheduler is not None or workers is not None:
        from .distributed.engine import require_dask

        try:
            require_dask()
        except ImportError as error:
            raise click.UsageError(str(error)) from None


@contextlib.contextmanager
def _cluster(scheduler, workers):
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


def _check_grid(params, grid, algorithms):
    """Raise ``ValueError`` for a name, parameter or value of ``params`` and ``grid`` that
    :func:`onlinear.harness.compare` would refuse."""
    for name in algorithms:
        tunable = describe(name).hyperparameters
        harness._check_params(name, params.get(name, {}),
                             {k: v for k, v in grid.items() if k in tunable})
    unused = set(grid) - {k for name in algorithms for k in describe(name).hyperparameters}
    if unused:
        raise ValueError(f"no compared algorithm has the hyperparameter(s) {sorted(unused)}.")


def _distribute(params, algorithms):
    """``{name: {key: value}}`` from KEY=VALUE (every algorithm that has KEY) and
    NAME:KEY=VALUE (that algorithm only)."""
    out = {name: {} for name in algorithms}
    for key, value in params.items():
        if ":" in key:
            name, key = key.split(":", 1)
            if name not in out:
                describe(name)
                raise ValueError(f"--param {name}:{key}: {name} is not compared.")
            out[name][key] = value
            continue
        takers = [n for n in algorithms if key in describe(n).hyperparameters]
        if not takers or key in harness.PROTOCOL_PARAMETERS:
            raise ValueError(f"no compared algorithm has the hyperparameter {key!r}.")
        for name in takers:
            out[name][key] = value
    return {name: p for name, p in out.items() if p}


@cli.command("fetch", short_help="Download a data set of the catalogue, checksum verified.")
@click.argument("name_or_url")
@click.option("--dest", "dest", type=click.Path(file_okay=False), default=None,
              help="Folder to download into (default: $ONLINEAR_DATA, else ./onlinear-data).")
@click.option("--sha256", default=None, callback=_check_sha256,
              help="Expected SHA-256 of a URL's file (catalogue sets "
              "carry their own).")
@click.option("--force", is_flag=True, help="Download even if a verified copy is there.")
@_clean_errors
def fetch_command(name_or_url, dest, sha256, force):
    """Download NAME_OR_URL — a data set of the catalogue (see onlinear.data.list_datasets) or a
    URL — into the data folder with pooch, verifying its SHA-256, retrying transient failures
    and trying the catalogue's mirrors; a bad download is deleted."""
    from .data import fetch

    if dest is None:
        dest = os.environ.get("ONLINEAR_DATA", "").split(os.pathsep)[0] or "onlinear-data"
    from .data import ChecksumError

    try:
        paths = fetch(name_or_url, dest, sha256, force=force)
    except ChecksumError:
        raise
    except ValueError as error:  # the name, the URL's file name or the destination
        raise click.UsageError(str(error)) from None
    for path in paths if isinstance(paths, list) else [paths]:
        click.echo(str(path))


# the streaming commands (train, predict, evaluate, info) register themselves on `cli`
from . import cli_model  # noqa: E402, F401
# onlinear reproduce (the papers' tables and figures) registers itself on `cli`
from . import cli_reproduce  # noqa: E402, F401


def main(argv=None):
    """Entry point of the ``onlinear`` console script."""
    return cli.main(args=argv, prog_name="onlinear")


if __name__ == "__main__":
    # `python -m onlinear.cli`: run the package's module, on whose group the streaming commands
    # registered themselves (this file runs as __main__, a second copy of the module)
    from onlinear.cli import main as package_main

    package_main()
