"""The ``onlinear`` command run in the test process, as the CLI tests call it."""
import contextlib
from types import SimpleNamespace

from click.testing import CliRunner

from onlinear.cli import cli


def onlinear_cli(*args, cwd=None):
    """The command run in this process (a subprocess would spend seconds importing numba and
    scikit-learn); an exception escaping the command would be a traceback for a user."""
    runner = CliRunner()
    with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
        result = runner.invoke(cli, [str(a) for a in args], env={"ONLINEAR_TRACEBACK": None})
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    return SimpleNamespace(returncode=result.exit_code, stdout=result.stdout,
                           stderr=result.stderr)
