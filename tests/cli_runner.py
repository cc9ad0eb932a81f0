"""The ``onlinear`` command run in the test process, as the CLI tests call it."""
import contextlib
from types import SimpleNamespace

import pytest
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


#: The six-example stream traced by hand in test_harness.py, as a LIBSVM file (1-based indices).
TINY = "1 1:1\n-1 2:1\n1 1:1 2:1\n-1 1:-1\n1 2:-1\n1 1:1\n"


@pytest.fixture
def tiny(tmp_path):
    """:data:`TINY` written to a file (import the fixture into a test module to use it)."""
    path = tmp_path / "tiny.svm"
    path.write_text(TINY)
    return path


def said(result):
    """What a command wrote to standard error, on one line (click wraps its messages)."""
    return " ".join(result.stderr.split())
