"""The first run explains itself: one line before the compiled core is built, none after, and
none from the library."""
import os
import subprocess
import sys

import numba.core.config
import pytest

from onlinear import _firstrun

TINY = "1 1:1 2:0\n-1 1:-1 2:0.5\n1 1:0.8 2:-0.2\n-1 1:-0.7 2:-0.1\n" * 5
LINE = "building the compiled core once for this machine"


def run(args, cache, cwd):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("ONLINEAR_TRACEBACK", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=600)


def test_the_cli_says_once_that_it_builds_the_core_and_the_library_says_nothing(tmp_path):
    (tmp_path / "tiny.svm").write_text(TINY)
    cache = tmp_path / "numba-cache"
    library = run(["-c", "import onlinear, onlinear.harness, onlinear.cli"], cache, tmp_path)
    assert library.returncode == 0 and library.stderr == ""
    first = run(["-m", "onlinear", "run", "pa1", "tiny.svm"], cache, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count(LINE) == 1
    line = next(line for line in first.stderr.splitlines() if LINE in line)
    assert "about" in line and ("seconds" in line or "minute" in line)
    assert first.stdout.startswith("pa1 on tiny.svm: 20 examples")
    again = run(["-m", "onlinear", "run", "pa1", "tiny.svm"], cache, tmp_path)
    assert again.returncode == 0, again.stderr
    assert LINE not in again.stderr
    def without_seconds(out):
        return [line.rsplit(None, 1)[0] for line in out.splitlines()]

    assert without_seconds(again.stdout) == without_seconds(first.stdout)


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", str(tmp_path))
    folder = _firstrun._cache_folder(os.path.join(_firstrun._CORE, "primal.py"))
    assert folder is not None and folder.startswith(str(tmp_path))
    return folder


def test_an_index_older_than_the_engine_source_counts_as_not_built(cache_folder):
    assert _firstrun.cold_engines(["pa1", "mira", "cellip"]) == ["primal", "ellipsoid"]
    index = os.path.join(cache_folder, "primal.run_dense-216.py311.nbi")
    open(index, "wb").close()
    assert _firstrun.cold_engines(["pa1", "mira", "cellip"]) == ["ellipsoid"]
    source = os.path.getmtime(os.path.join(_firstrun._CORE, "primal.py"))
    os.utime(index, (source - 10, source - 10))  # the engine changed since: stale
    assert _firstrun.cold_engines(["pa1"]) == ["primal"]
    assert _firstrun.announce(["pa1"], stream=open(os.devnull, "w"))


def test_the_message_scales_with_what_is_to_build():
    assert _firstrun.message(["primal"]).count("about 30 seconds") == 1
    assert "about 1½ minutes" in _firstrun.message(["primal", "ellipsoid", "blocks"])
    assert "about 2 minutes" in _firstrun.message(list(_firstrun.ENGINES))
    assert max(len(_firstrun.message([e])) for e in _firstrun.ENGINES) <= 100  # one line
