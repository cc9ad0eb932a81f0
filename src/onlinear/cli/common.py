"""The command line's shared pieces: option parsing and checks, outputs written whole or not at all,
error reporting (exit codes 1 and 2), table output."""
import contextlib
import errno
import functools
import os
import re
import sys

import click

from ..persistence import replacing

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


#: values of ONLINEAR_TRACEBACK that leave tracebacks off (any case; any other value turns
#: them on, so that a mistyped "yes" still shows what the user asked for)
_OFF = ("", "0", "false", "no", "off")


def traceback_wanted():
    """Whether the environment's ``ONLINEAR_TRACEBACK`` asks for tracebacks: unset, empty,
    ``0``, ``false``, ``no`` or ``off`` (any case) do not, anything else does."""
    return os.environ.get("ONLINEAR_TRACEBACK", "").strip().lower() not in _OFF


#: errors only writing raises (a full disk, a quota, a file too large): reading never does,
#: so such an error met while an output is written is that output's
_WRITE_ERRNOS = frozenset(
    getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG") if hasattr(errno, name))


@contextlib.contextmanager
def naming_output(path):
    """Give an error of writing ``path`` (a full disk...) ``path`` as its file name, which the
    operating system leaves out of an error of ``write``, or gives as the temporary file's (of
    :func:`replacing_output`), so that :func:`clean_errors` names the file the user gave."""
    try:
        yield
    except OSError as error:
        if error.errno in _WRITE_ERRNOS:
            error.filename = os.fspath(path)
        raise


def clean_errors(command):
    """Report data and algorithm errors as ``Error: <one line>`` with exit code 1 (the
    traceback too when the environment's ``ONLINEAR_TRACEBACK`` is on: :func:`traceback_wanted`).
    A reader that stops reading the output (``| head``) ends the command quietly."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except click.ClickException:
            raise
        except BrokenPipeError:  # the reader stopped (e.g. `| head`): not an error
            quiet_exit()
        except (ValueError, TypeError, OSError, ImportError, MemoryError) as error:
            if traceback_wanted():
                raise
            message = " ".join(str(error).split()) or type(error).__name__
            if isinstance(error, MemoryError):
                message = f"out of memory: {message}"
            if isinstance(error, OSError) and error.errno in _WRITE_ERRNOS and error.filename:
                message = f"could not write {error.filename}: {error.strerror}"
            elif isinstance(error, OSError) and error.filename and \
                    str(error.filename) not in message:
                message = f"{message}: {error.filename}"
            raise click.ClickException(message) from None

    return wrapper


def quiet_exit():
    """Exit with code 0 once standard output's reader has gone, standard output redirected to
    the null device first: the interpreter's last flush of what is buffered would fail again,
    and print a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # (no file descriptor, as under click's test runner: nothing to flush to)
    finally:
        os.close(devnull)
    sys.exit(0)


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


def split_assignment(text, option):
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise click.BadParameter(f"expected KEY=VALUE, got {text!r}.", param_hint=option)
    return key.strip(), value.strip()


def parse_params(ctx, param, values):
    out = {}
    for text in values:
        key, value = split_assignment(text, "--param")
        out[key] = parse_value(value)
    return out


def parse_grid(ctx, param, values):
    out = {}
    for text in values:
        key, value = split_assignment(text, "--grid")
        if key in out:  # (taking the last, or merging, would search another grid than typed)
            raise click.BadParameter(f"{key} given twice; give all its values in one --grid "
                                     f"{key}=V1,V2,...", param_hint="--grid")
        out[key] = [parse_value(v) for v in value.split(",") if v.strip()]
        if not out[key]:
            raise click.BadParameter(f"{text!r} gives {key} no value; expected "
                                     f"{key}=V1,V2,...", param_hint="--grid")
    return out


def check_text_output(ctx, param, value):
    """:func:`check_output` for a text output, which ``-`` sends to standard output (as DATA
    ``-`` reads standard input)."""
    return value if value == STDOUT else check_output(ctx, param, value)


#: the output path that means standard output (text outputs: :func:`check_text_output`)
STDOUT = "-"


def check_output(ctx, param, value):
    """An output path whose folder exists and is writable, checked before any training."""
    if value is None:
        return None
    if not value:
        raise click.BadParameter("an empty path; give a file name.", ctx, param)
    path = os.path.abspath(value)
    folder = os.path.dirname(path)
    if os.path.isdir(path) or not os.path.basename(value):  # ("folder/": abspath drops "/")
        raise click.BadParameter(f"{value} is a folder; give a file name.", ctx, param)
    if not os.path.isdir(folder):
        raise click.BadParameter(f"cannot write {value}: no folder {folder}.", ctx, param)
    if not os.access(folder, os.W_OK | os.X_OK) or (
            os.path.exists(path) and not os.access(path, os.W_OK)):
        raise click.BadParameter(f"cannot write {value}: permission denied.", ctx, param)
    return value


def same_file(first, second):
    """Whether two paths name one file: the same path once resolved (``./x``, ``../dir/x``, a
    symbolic link) or, both existing, the same device and inode (a hard link)."""
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        one, other = os.stat(first), os.stat(second)
    except OSError:
        return False
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


def check_distinct(inputs, outputs, files=()):
    """Refuse, as a usage error before anything is read or written, an output that is one of
    the command's inputs (writing it would destroy what the command reads) or another output,
    standard output included: two outputs there would run together, neither readable.

    Parameters
    ----------
    inputs, outputs : dict
        ``{what the user typed (an argument's or option's name): path or None}``; an input that
        is no file (standard input, a catalogue name, a missing file) cannot be overwritten.
        An output of :data:`STDOUT` is standard output (a text output's ``-``:
        :func:`check_text_output`).
    files : tuple of str
        The outputs whose ``-`` is a file of that name, not standard output (a figure).
    """
    inputs = {name: path for name, path in inputs.items()
              if path is not None and path != "-" and os.path.exists(path)}
    outputs = [(name, path) for name, path in outputs.items() if path is not None]
    for i, (name, path) in enumerate(outputs):
        if path == STDOUT and name not in files:
            for other, written in outputs[:i]:
                if written == STDOUT and other not in files:
                    raise click.BadParameter(
                        f"{path} is standard output, as {other} is: the two outputs would run "
                        "together there, neither readable; give one of them a file.",
                        param_hint=name)
            continue
        for other, source in inputs.items():
            if same_file(path, source):
                raise click.BadParameter(
                    f"{path} is the same file as {other} ({source}), which the command reads: "
                    "writing it would destroy it; give another file.", param_hint=name)
        for other, written in outputs[:i]:
            if (written != STDOUT or other in files) and same_file(path, written):
                raise click.BadParameter(f"{path} is the same file as {other} ({written}): "
                                         "give each output its own file.", param_hint=name)


def check_sha256(ctx, param, value):
    from ..data.fetch import check_digest

    try:
        return check_digest(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None


@contextlib.contextmanager
def usage_errors(hint=None):
    """Report a ``ValueError`` or ``TypeError`` of the checks of names and parameters (an
    unknown keyword of an estimator is a ``TypeError``) as a usage error (exit 2)."""
    try:
        yield
    except (ValueError, TypeError) as error:  # (scikit-learn's InvalidParameterError is both)
        raise click.UsageError(f"{hint + ': ' if hint else ''}{error}") from None


def replacing_output(path):
    """A temporary path beside ``path`` to write to, renamed onto ``path`` once written
    (:func:`onlinear.persistence.replacing`): an existing file is replaced whole or not at
    all.  The temporary keeps ``path``'s suffix, by which matplotlib picks an image format."""
    return _named_replacing(path)


@contextlib.contextmanager
def _named_replacing(path):
    with naming_output(path), replacing(path, suffix=os.path.splitext(path)[1]) as temporary:
        yield temporary


def check_memory(n_features, n_classes, algorithms):
    """Refuse, before allocating, weights that cannot fit in this machine's memory."""
    from ..registry import describe

    linear = [a for a in algorithms if not describe(a).kernel]
    needed = n_features * n_classes * 8  # one float64 weight per feature and class
    total = physical_memory()
    if linear and total is not None and needed > total:
        raise DataError(
            f"{linear[0]} would need {needed / 2**30:,.1f} GiB for its weights ({n_features:,} "
            f"features x {n_classes:,} classes x 8 bytes), more than this machine's "
            f"{total / 2**30:,.1f} GiB of memory; check the data's feature indices.")


def physical_memory():
    from ..estimators.checks import physical_memory  # (not POSIX: None; MemoryError is caught)

    return physical_memory()


def emit_output(text, out):
    if out is None or out == STDOUT:
        click.echo(text, nl=False)
    else:
        with replacing_output(out) as temporary:
            with open(temporary, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        click.echo(f"wrote {out}", err=True)


def exported(table, fmt):
    if fmt == "csv":
        return table.to_csv()
    if fmt == "json":
        return table.to_json()
    if fmt == "markdown":
        return table.to_markdown(digits=4)
    return table.to_text()
